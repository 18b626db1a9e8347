/* SPDX-License-Identifier: GPL-2.0 */
/* A set-associative array of tags with true LRU replacement: the caches
 * (cache.c), the TLBs and the page-walk caches (mmu.c) are each one. A tag
 * is any 64-bit key but ~0; the caller picks its set with the key's low bits.
 * A fully associative array of many ways (Zen 4's 72-entry L1 DTLB, searched
 * on most accesses) keeps use stamps and a hash index instead of an ordered
 * list: the same replacement, a hit without a search. */
#ifndef MAPBENCH_LRU_H
#define MAPBENCH_LRU_H
#include <stdbool.h>
#include <stdint.h>

struct mb_lru {
	uint64_t *tags;		/* key + 1 (0: empty); per set MRU first, or by slot (indexed) */
	uint64_t set_mask;
	unsigned int ways;
	/* indexed: one set of many ways */
	uint64_t *stamps, now;	/* per slot: when it was last used */
	uint32_t *index;	/* open addressing: slot + 1 per bucket, 0 empty */
	unsigned int index_bits, used;
};

/* -1 unless entries / ways is a power of two (ways == entries: fully associative). */
int mb_lru_init(struct mb_lru *s, uint64_t entries, unsigned int ways);
void mb_lru_free(struct mb_lru *s);
void mb_lru_clear(struct mb_lru *s);
/* Whether key is there; a hit makes it its set's MRU entry. */
bool mb_lru_find(struct mb_lru *s, uint64_t key);
/* Whether key is there, its place unchanged (a prefetcher's look). */
bool mb_lru_holds(struct mb_lru *s, uint64_t key);
/* key becomes its set's MRU entry, evicting the LRU one if it was not there. */
bool mb_lru_touch(struct mb_lru *s, uint64_t key);

#endif
