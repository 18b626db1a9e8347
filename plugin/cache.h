/* SPDX-License-Identifier: GPL-2.0 */
/* A data-cache hierarchy: per-CPU L1D and L2, one shared LLC; set-associative,
 * true LRU, indexed by physical line address, write-allocate, a miss filling
 * every level it missed (no back-invalidation). No coherence: docs/vm.org
 * says what that leaves out; TLBs, overlapping misses and prefetchers are
 * mmu.h's, overlap.h's and prefetch.h's. */
#ifndef MAPBENCH_CACHE_H
#define MAPBENCH_CACHE_H
#include <stdint.h>

enum mb_level { MB_L1D, MB_L2, MB_LLC, MB_MEMORY, MB_LEVELS = MB_MEMORY };

struct mb_geometry {
	uint64_t size[MB_LEVELS];	/* bytes */
	unsigned int ways[MB_LEVELS];
	unsigned int line;		/* bytes, a power of two */
};

struct mb_cache;

/* NULL with *why set if the geometry cannot be built (sets not a power of two). */
struct mb_cache *mb_cache_new(const struct mb_geometry *g, int ncpus, const char **why);
void mb_cache_free(struct mb_cache *c);
/* Every level empty. */
void mb_cache_flush(struct mb_cache *c);
/* CPU cpu touches the line holding paddr: the level that had it (MB_MEMORY: none). */
enum mb_level mb_cache_access(struct mb_cache *c, int cpu, uint64_t paddr);
/* A prefetch of the line holding paddr into level into (MB_L1D or MB_L2):
 * nothing if into has it, else filled from the level that had it, which it
 * returns; a demand access's order in into is left as it was where into had it. */
enum mb_level mb_cache_prefetch(struct mb_cache *c, int cpu, uint64_t paddr, enum mb_level into);
unsigned int mb_cache_line_shift(const struct mb_cache *c);

#endif
