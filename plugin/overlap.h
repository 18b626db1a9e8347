/* SPDX-License-Identifier: GPL-2.0 */
/* Overlapping misses: an out-of-order core keeps several L1D misses in
 * flight, so a miss issued while an earlier one is outstanding costs
 * nothing of its own if the earlier one takes at least as long. The rule
 * (docs/vm.org): a data access that misses L1D overlaps when, on its vCPU,
 * a miss served at its level or deeper was issued fewer than rob
 * instructions before it, fewer than mshr misses are in flight, and its
 * address does not come from a value an in-flight miss loaded (a pointer
 * chased: at or up to a page past that value, or just before it). Page
 * walks do not overlap. */
#ifndef MAPBENCH_OVERLAP_H
#define MAPBENCH_OVERLAP_H
#include <stdbool.h>
#include <stdint.h>
#include "cache.h"

struct mb_overlap_geometry {
	unsigned int rob;	/* instructions in the reorder window */
	unsigned int mshr;	/* L1D misses in flight at once */
};

struct mb_overlap;

struct mb_overlap *mb_overlap_new(const struct mb_overlap_geometry *g, int ncpus);
void mb_overlap_free(struct mb_overlap *o);
/* Nothing in flight. */
void mb_overlap_flush(struct mb_overlap *o);
/* An access at vaddr that missed L1D and was served at level, issued when
 * the vCPU had run insns instructions, loading (or storing) value: whether
 * an earlier miss hides it. Either way it is in flight after. */
bool mb_overlap_miss(struct mb_overlap *o, int cpu, uint64_t insns, uint64_t vaddr,
		     uint64_t value, enum mb_level level);

#endif
