/* SPDX-License-Identifier: GPL-2.0 */
/* A set-associative array of tags with true LRU replacement: the caches
 * (cache.c), the TLBs and the page-walk caches (mmu.c) are each one. A tag
 * is any 64-bit key but ~0; the caller picks its set with the key's low bits. */
#ifndef MAPBENCH_LRU_H
#define MAPBENCH_LRU_H
#include <stdbool.h>
#include <stdint.h>

struct mb_lru {
	uint64_t *tags;		/* ways per set, most recently used first; 0: empty */
	uint64_t set_mask;
	unsigned int ways;
};

/* -1 unless entries / ways is a power of two (ways == entries: fully associative). */
int mb_lru_init(struct mb_lru *s, uint64_t entries, unsigned int ways);
void mb_lru_free(struct mb_lru *s);
void mb_lru_clear(struct mb_lru *s);
/* Whether key is there; a hit makes it its set's MRU entry. */
bool mb_lru_find(struct mb_lru *s, uint64_t key);
/* key becomes its set's MRU entry, evicting the LRU one if it was not there. */
bool mb_lru_touch(struct mb_lru *s, uint64_t key);

#endif
