// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>
#include "lru.h"

int mb_lru_init(struct mb_lru *s, uint64_t entries, unsigned int ways)
{
	uint64_t sets = ways ? entries / ways : 0;

	memset(s, 0, sizeof(*s));
	if (!sets || sets & (sets - 1) || sets * ways != entries)
		return -1;
	s->tags = calloc(entries, sizeof(*s->tags));
	s->set_mask = sets - 1;
	s->ways = ways;
	return s->tags ? 0 : -1;
}

void mb_lru_free(struct mb_lru *s)
{
	free(s->tags);
	s->tags = NULL;
}

void mb_lru_clear(struct mb_lru *s)
{
	memset(s->tags, 0, (s->set_mask + 1) * s->ways * sizeof(*s->tags));
}

/* Way w of key's set becomes its first; the ways before it move down one. */
static void promote(uint64_t *set, unsigned int w, uint64_t tag)
{
	memmove(set + 1, set, w * sizeof(*set));
	set[0] = tag;
}

static uint64_t *set_of(struct mb_lru *s, uint64_t key)
{
	return s->tags + (key & s->set_mask) * s->ways;
}

bool mb_lru_find(struct mb_lru *s, uint64_t key)
{
	uint64_t *set = set_of(s, key), tag = key + 1;
	unsigned int w = 0;

	while (w < s->ways && set[w] != tag)
		w++;
	if (w == s->ways)
		return false;
	promote(set, w, tag);
	return true;
}

bool mb_lru_touch(struct mb_lru *s, uint64_t key)
{
	if (mb_lru_find(s, key))
		return true;
	promote(set_of(s, key), s->ways - 1, key + 1);	/* a miss evicts the LRU way */
	return false;
}
