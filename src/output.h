/* SPDX-License-Identifier: GPL-2.0 */
/* Text output: the kernel selftests bench's line formats, and mem's table. */
#ifndef MAPBENCH_OUTPUT_H
#define MAPBENCH_OUTPUT_H
#include "sampler.h"
#include "stats.h"

void output_setup(const struct run *run);
/* The lines a run prints as it goes (struct progress). */
extern const struct progress text_progress;
void output_summary(const struct run *run, const struct samples *s, const struct run_summary *sum);

#endif
