/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MAPBENCH_OUTPUT_H
#define MAPBENCH_OUTPUT_H
#include "sampler.h"
#include "stats.h"

void output_setup(const struct run *run);
void output_iter(const struct run *run, const struct samples *s, int i);
void output_summary(const struct run *run, const struct samples *s, const struct run_summary *sum);

#endif
