/* SPDX-License-Identifier: GPL-2.0 */
/* What the model counts: per measured window (marker.h), per vCPU and per
 * mode (kernel, user), instructions, line accesses and misses per cache
 * level. Each window is written out as it closes, one line per vCPU and mode,
 * so the counts survive a QEMU that is killed (scripts/vmrun kills it). */
#ifndef MAPBENCH_WINDOWS_H
#define MAPBENCH_WINDOWS_H
#include <stdbool.h>
#include <stdio.h>
#include "cache.h"
#include "marker.h"

enum mb_mode { MB_KERNEL, MB_USER, MB_MODES };

struct mb_counts {
	uint64_t insns, accesses, misses[MB_LEVELS];	/* misses[MB_L1D]: L1D misses, ... */
};

struct mb_profile;

struct mb_windows {
	struct mb_cache *cache;
	struct mb_profile *profile;	/* --profile, or NULL */
	FILE *out;
	int ncpus;
	bool open;		/* between BEGIN and END: the cache is simulated */
	unsigned int run, index;	/* the run (BEGINs seen, from 1) and its window */
	struct mb_counts *counts;	/* [cpu * MB_MODES + mode], this window */
	uint64_t *insns_at_open;	/* [cpu * MB_MODES + mode]: the instruction counter */
};

int mb_windows_init(struct mb_windows *w, struct mb_cache *cache, int ncpus, FILE *out);
void mb_windows_free(struct mb_windows *w);
/* The model's first line: its geometry, for the reader to check. */
void mb_windows_header(struct mb_windows *w, const struct mb_geometry *g, const char *name);
/* A data access of size bytes at paddr; counted only inside a window, in
 * also too where it is not NULL (the profile's site of the instruction). */
void mb_windows_access(struct mb_windows *w, int cpu, enum mb_mode mode, uint64_t paddr,
		       unsigned int size, struct mb_counts *also);
/* A marker executed; insns: every vCPU's instruction counters now, [cpu * MB_MODES + mode]. */
void mb_windows_mark(struct mb_windows *w, enum mb_mark mark, const uint64_t *insns);

#endif
