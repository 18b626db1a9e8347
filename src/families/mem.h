/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MAPBENCH_MEM_H
#define MAPBENCH_MEM_H
#include "bench.h"

/* mem: bytes per element of a map type (or of every type with --all), from
 * the kernel's accounting and from what a memory cgroup is charged. */
extern const struct family mem_family;

/* Slope and intercept of y over x through two points. */
void two_point_fit(double x1, double y1, double x2, double y2, double *slope, double *fixed);
/* The smaller of the two map sizes mem measures: the smallest with the same
 * number of hash buckets (a power of two) as max, so bucket arrays cancel. */
long mem_small_size(long max);

#endif
