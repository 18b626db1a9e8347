/* SPDX-License-Identifier: GPL-2.0 */
/* What the model counts: per measured window (marker.h), per vCPU and per
 * mode (kernel, user), instructions, line accesses and misses per cache
 * level, and with TLBs (mmu.h) their misses, walks and the walks' loads and
 * misses per cache level, and with prefetchers (prefetch.h) the lines they
 * fetched, how many of those came from memory and how many accesses waited
 * for one still on its way (counted as misses of the level it came from),
 * and with branch prediction (branch.h) the conditional branches and the
 * ones mispredicted. Each window is written out as it closes, one line per vCPU and mode,
 * so the counts survive a QEMU that is killed (scripts/vmrun kills it). */
#ifndef MAPBENCH_WINDOWS_H
#define MAPBENCH_WINDOWS_H
#include <stdbool.h>
#include <stdio.h>
#include "branch.h"
#include "cache.h"
#include "mmu.h"
#include "overlap.h"
#include "prefetch.h"
#include "marker.h"

enum mb_mode { MB_KERNEL, MB_USER, MB_MODES };
/* as the counts' lines name them */
extern const char *const mb_mode_names[MB_MODES];

struct mb_counts {
	uint64_t insns, accesses, misses[MB_LEVELS];	/* misses[MB_L1D]: L1D misses, ... */
	uint64_t dtlb_misses, walks;	/* L1 DTLB misses; L2 DTLB misses, each a walk */
	uint64_t walk_loads, walk_misses[MB_LEVELS];
	uint64_t unwalkable;		/* accesses no walk could translate (not counted above) */
	uint64_t overlapped[MB_LEVELS];	/* L1D misses an earlier one hid: [0] L2 hits, ... memory */
	uint64_t prefetches, prefetch_memory;	/* lines prefetched; of them, from memory */
	uint64_t prefetch_late;		/* accesses that waited for a prefetch on its way */
	uint64_t branches, mispredicts;	/* conditional branches; of them, mispredicted */
};

/* One guest load or store. */
struct mb_access {
	uint64_t vaddr, paddr;
	unsigned int size;
	uint64_t pc;		/* the instruction's address */
	bool store;		/* a store, not a load: for a trace only (the model
				 * allocates on both alike), filled where recorded */
	/* For overlapping misses, filled by complete() (where not NULL) only
	 * when the access misses L1D: reading them costs on every access. */
	uint64_t value;		/* what it loaded or stored */
	uint64_t insns;		/* the vCPU's instructions when it ran */
	void (*complete)(struct mb_access *a, const void *ctx);
	const void *ctx;
};

struct mb_windows {
	struct mb_cache *cache;
	struct mb_mmu *mmu;		/* TLBs, or NULL */
	struct mb_overlap *overlap;	/* overlapping misses, or NULL */
	struct mb_prefetch *prefetch;	/* prefetchers, or NULL */
	struct mb_branch *branch;	/* branch prediction, or NULL */
	FILE *out;
	int ncpus;
	bool open;		/* between BEGIN and END: the cache is simulated */
	unsigned int run, index;	/* the run (BEGINs seen, from 1) and its window */
	struct mb_counts *counts;	/* [cpu * MB_MODES + mode], this window */
	uint64_t *insns_at_open;	/* [cpu * MB_MODES + mode]: the instruction counter */
	/* The work the bench's BPF programs time (MB_MARK_TIMED to UNTIMED),
	 * counted apart: a run that marks any writes mode=timed lines too. */
	bool timed_seen;	/* this run marked timed work */
	bool *timed;		/* [cpu]: in timed work now */
	uint64_t *timed_from;	/* [cpu]: its kernel instructions when last counted */
	struct mb_counts *timed_counts;	/* [cpu], this window */
};

int mb_windows_init(struct mb_windows *w, struct mb_cache *cache, int ncpus, FILE *out);
void mb_windows_free(struct mb_windows *w);
/* The model's first line: its geometry, for the reader to check. */
void mb_windows_header(struct mb_windows *w, const struct mb_geometry *g, const char *name);
/* A data access; counted only inside a window, in also too where it is not
 * NULL (the profile's site of the instruction). */
void mb_windows_access(struct mb_windows *w, int cpu, enum mb_mode mode,
		       struct mb_access *a, struct mb_counts *also);
/* A conditional branch at pc went (taken or not); learnt and counted only
 * inside a window, in also too where it is not NULL. */
void mb_windows_branch(struct mb_windows *w, int cpu, enum mb_mode mode, uint64_t pc,
		       bool taken, struct mb_counts *also);
/* Counts' names and values to out ("insns=1 accesses=..."), the TLBs', the
 * overlaps', the prefetches' and the branches' only where w models them. */
void mb_counts_write(const struct mb_windows *w, FILE *out, const struct mb_counts *c);
/* A marker executed by vCPU cpu; insns: every vCPU's instruction counters
 * now, [cpu * MB_MODES + mode]. */
void mb_windows_mark(struct mb_windows *w, enum mb_mark mark, int cpu, const uint64_t *insns);

/* Whether the profile counts vCPU cpu's work now: in a window, and in its
 * timed work where the run marks any (the profile then explains the
 * figure, which is the timed work's). */
static inline bool mb_windows_profiling(const struct mb_windows *w, int cpu)
{
	return w->open && (!w->timed_seen || w->timed[cpu]);
}

#endif
