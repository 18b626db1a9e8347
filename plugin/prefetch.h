/* SPDX-License-Identifier: GPL-2.0 */
/* Hardware data prefetchers: the lines a core fetches ahead of its demand
 * accesses (docs/vm.org). Three rules, each switched on alone:
 *   stream (into L1D): an access to the line after (or before) the one the
 *     page's last access touched, in the same direction as that step, fetches
 *     the next `stream` lines of that direction;
 *   stride (into L1D): an instruction whose last three accesses were one
 *     stride apart (not 0, at most 2 KiB) fetches the line one stride ahead;
 *   adjacent (into L2): an access that missed L2 fetches the other line of
 *     its 128-byte pair.
 * None crosses a 4 KiB page (prefetchers work on physical lines and cannot
 * translate past one). A prefetch is on its way for the latency of the
 * level it came from (in instructions of the vCPU, wait[]); a demand access
 * to its line before it arrives waits as for a miss to that level. Of the
 * last PENDING lines fetched per vCPU, by line, each is remembered until
 * its first use. Prefetches are counted apart from demand accesses. */
#ifndef MAPBENCH_PREFETCH_H
#define MAPBENCH_PREFETCH_H
#include <stdbool.h>
#include <stdint.h>
#include "cache.h"

#define MB_PREFETCH_STREAM_MAX 8
#define MB_PREFETCH_MAX (MB_PREFETCH_STREAM_MAX + 2)

struct mb_prefetch_geometry {
	unsigned int stream;	/* lines a stream fetches ahead, 0: no stream prefetcher */
	bool stride, adjacent;
	/* instructions a line fetched from [level] takes to arrive, per level
	 * (MB_L2, MB_LLC, MB_MEMORY; 0: at once) */
	unsigned int wait[MB_LEVELS + 1];
};

struct mb_prefetch_request {
	uint64_t paddr;
	enum mb_level into;
};

struct mb_prefetch;

/* NULL if out of memory or stream > MB_PREFETCH_STREAM_MAX. */
struct mb_prefetch *mb_prefetch_new(const struct mb_prefetch_geometry *g, int ncpus,
				    unsigned int line_shift);
void mb_prefetch_free(struct mb_prefetch *p);
/* Every stream and stride forgotten. */
void mb_prefetch_flush(struct mb_prefetch *p);
/* A demand access to the line at paddr (vaddr), by the instruction at pc (0:
 * not one to train the stride rule on), served at level hit: the lines to
 * fetch, written to out (room for MB_PREFETCH_MAX), and how many. */
unsigned int mb_prefetch_train(struct mb_prefetch *p, int cpu, uint64_t pc, uint64_t vaddr,
			       uint64_t paddr, enum mb_level hit,
			       struct mb_prefetch_request *out);
/* The line at paddr was fetched from level from when the vCPU had run
 * insns instructions. */
void mb_prefetch_sent(struct mb_prefetch *p, int cpu, uint64_t paddr, enum mb_level from,
		      uint64_t insns);
/* Whether a prefetch of the line at paddr is remembered (not used yet). */
bool mb_prefetch_pending(const struct mb_prefetch *p, int cpu, uint64_t paddr);
/* Its first use, at insns: the level the access waits for (the one the
 * prefetch came from), or MB_L1D if it has arrived; forgotten either way. */
enum mb_level mb_prefetch_use(struct mb_prefetch *p, int cpu, uint64_t paddr, uint64_t insns);

#endif
