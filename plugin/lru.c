// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>
#include "lru.h"

/* More ways than this in one set: a hash index beats scanning them. */
#define SCAN_WAYS 16

static bool indexed(const struct mb_lru *s)
{
	return s->index != NULL;
}

int mb_lru_init(struct mb_lru *s, uint64_t entries, unsigned int ways)
{
	uint64_t sets = ways ? entries / ways : 0;

	memset(s, 0, sizeof(*s));
	if (!sets || sets & (sets - 1) || sets * ways != entries)
		return -1;
	s->tags = calloc(entries, sizeof(*s->tags));
	s->set_mask = sets - 1;
	s->ways = ways;
	if (sets == 1 && ways > SCAN_WAYS) {
		while ((1u << s->index_bits) < 4 * ways)	/* at most a quarter full */
			s->index_bits++;
		s->stamps = calloc(ways, sizeof(*s->stamps));
		s->index = calloc(1u << s->index_bits, sizeof(*s->index));
		if (!s->stamps || !s->index) {
			mb_lru_free(s);
			return -1;
		}
	}
	return s->tags ? 0 : -1;
}

void mb_lru_free(struct mb_lru *s)
{
	free(s->tags);
	free(s->stamps);
	free(s->index);
	s->tags = s->stamps = NULL;
	s->index = NULL;
}

void mb_lru_clear(struct mb_lru *s)
{
	memset(s->tags, 0, (s->set_mask + 1) * s->ways * sizeof(*s->tags));
	if (indexed(s)) {
		memset(s->index, 0, (1u << s->index_bits) * sizeof(*s->index));
		s->used = 0;
	}
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

static unsigned int bucket_of(const struct mb_lru *s, uint64_t tag)
{
	return (tag * 0x9e3779b97f4a7c15ull) >> (64 - s->index_bits);
}

/* The bucket that holds tag's slot, or the empty one its probe ends at. */
static unsigned int bucket_find(const struct mb_lru *s, uint64_t tag)
{
	unsigned int mask = (1u << s->index_bits) - 1, b = bucket_of(s, tag);

	while (s->index[b] && s->tags[s->index[b] - 1] != tag)
		b = (b + 1) & mask;
	return b;
}

/* Empty bucket b, moving back the entries after it that probed past it. */
static void bucket_remove(struct mb_lru *s, unsigned int b)
{
	unsigned int mask = (1u << s->index_bits) - 1, next = b;

	s->index[b] = 0;
	while (s->index[next = (next + 1) & mask]) {
		unsigned int home = bucket_of(s, s->tags[s->index[next] - 1]);

		/* it may move to b if b lies on its probe from home to next */
		if (((next - home) & mask) >= ((next - b) & mask)) {
			s->index[b] = s->index[next];
			s->index[next] = 0;
			b = next;
		}
	}
}

static bool indexed_touch(struct mb_lru *s, uint64_t tag, bool insert)
{
	unsigned int b = bucket_find(s, tag), slot;

	if (s->index[b]) {
		s->stamps[s->index[b] - 1] = ++s->now;
		return true;
	}
	if (!insert)
		return false;
	if (s->used < s->ways) {
		slot = s->used++;
	} else {		/* evict the least recently used slot */
		slot = 0;
		for (unsigned int i = 1; i < s->ways; i++)
			if (s->stamps[i] < s->stamps[slot])
				slot = i;
		bucket_remove(s, bucket_find(s, s->tags[slot]));
		b = bucket_find(s, tag);
	}
	s->tags[slot] = tag;
	s->stamps[slot] = ++s->now;
	s->index[b] = slot + 1;
	return false;
}

bool mb_lru_find(struct mb_lru *s, uint64_t key)
{
	uint64_t *set, tag = key + 1;
	unsigned int w = 0;

	if (indexed(s))
		return indexed_touch(s, tag, false);
	set = set_of(s, key);
	while (w < s->ways && set[w] != tag)
		w++;
	if (w == s->ways)
		return false;
	promote(set, w, tag);
	return true;
}

bool mb_lru_holds(struct mb_lru *s, uint64_t key)
{
	const uint64_t *set, tag = key + 1;

	if (indexed(s))
		return s->index[bucket_find(s, tag)] != 0;
	set = set_of(s, key);
	for (unsigned int w = 0; w < s->ways; w++)
		if (set[w] == tag)
			return true;
	return false;
}

bool mb_lru_touch(struct mb_lru *s, uint64_t key)
{
	if (indexed(s))
		return indexed_touch(s, key + 1, true);
	if (mb_lru_find(s, key))
		return true;
	promote(set_of(s, key), s->ways - 1, key + 1);	/* a miss evicts the LRU way */
	return false;
}
