/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MAPBENCH_MEM_H
#define MAPBENCH_MEM_H
#include "bench.h"

/* mem: bytes per element of a map type (or of every type with --all), from
 * the kernel's accounting and from what a memory cgroup is charged. */
extern const struct family mem_family;

/* One map size of a row: the kernel's accounting (memlock) and the cgroup
 * charge, of an empty map and of a full one; -1 where unknown. */
struct mem_point {
	long max_entries;
	long long memlock_empty, memlock_full, charged_empty, charged_full;
	long long memlock_after_delete;	/* the full map emptied; -1: not measured */
};

/* One map configuration: the slopes between its two sizes. NAN where a
 * figure does not apply (per-CPU bytes of a map that is not per-CPU) or was
 * not measured (no memory cgroup). */
struct mem_row {
	const char *label, *map, *map_type;
	const char *status;		/* "ok", "unsupported" or "interrupted" */
	char reason[256];
	bool prealloc;
	int key_size, value_size;
	double bytes_per_element, element_bytes, fixed_bytes;
	double per_cpu_value_bytes, charged_bytes_per_element;
	struct mem_point points[2];
	int nr_points;
	/* The large map holding --nr-entries (below --max-entries: a map of
	 * its own; else the large point's full map); nr_entries 0 if not
	 * measured. What a map that grows with its contents (rhtab's bucket
	 * array) costs part full. */
	struct mem_fill {
		long nr_entries;
		long long memlock, charged;
	} fill;
};

#define MEM_MAX_ROWS 8

/* What mem measured: the output and the result are made from it. */
struct mem_report {
	const char *cgroup;		/* memcg_describe() */
	long sizes[2];
	struct mem_row rows[MEM_MAX_ROWS];
	int nr_rows;
};

/* Slope and intercept of y over x through two points. */
void two_point_fit(double x1, double y1, double x2, double y2, double *slope, double *fixed);
/* The smaller of the two map sizes mem measures: the smallest with the same
 * number of hash buckets (a power of two) as max, so bucket arrays cancel. */
long mem_small_size(long max);

#endif
