/* SPDX-License-Identifier: GPL-2.0 */
/* vmrun --profile: the counts of windows.h per site, a block of guest kernel
 * code as QEMU translated it (its address and length), over a run's measured
 * samples. The host names each site's function from the kernel's System.map. */
#ifndef MAPBENCH_PROFILE_H
#define MAPBENCH_PROFILE_H
#include <stdio.h>
#include "windows.h"

struct mb_site {
	uint64_t vaddr;
	unsigned int insns;		/* the block's length in instructions */
	struct mb_counts counts;	/* insns: executed; accesses, misses: its loads and stores */
	struct mb_site *next;
};

struct mb_profile {
	struct mb_site **buckets;
	size_t nbuckets;
};

int mb_profile_init(struct mb_profile *p);
void mb_profile_free(struct mb_profile *p);
/* The site of a block; a block translated again (same address and length) is the same site. */
struct mb_site *mb_profile_site(struct mb_profile *p, uint64_t vaddr, unsigned int insns);
void mb_profile_reset(struct mb_profile *p);
/* One line per site that counted anything, to w's output, with w's counts. */
void mb_profile_write(const struct mb_profile *p, const struct mb_windows *w, unsigned int run);
/* A marker, after w has taken it; open: whether a window was open before
 * it. A run's sites count from its start, then from its measured samples
 * on, and are written when its last window closes. */
void mb_profile_mark(struct mb_profile *p, const struct mb_windows *w, enum mb_mark mark,
		     bool open);

#endif
