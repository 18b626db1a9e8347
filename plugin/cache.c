// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>
#include "cache.h"
#include "lru.h"

struct mb_cache {
	int ncpus;
	unsigned int line_shift;
	struct mb_lru *levels;	/* [cpu * MB_LEVELS + level]; the LLC at cpu 0 only */
	uint64_t *last;			/* per CPU: the line it touched last, + 1 */
};

/* -1 unless size is a whole power-of-two number of sets of ways lines. */
static int cache_init(struct mb_lru *s, uint64_t size, unsigned int ways, unsigned int line)
{
	return size % line ? -1 : mb_lru_init(s, size / line, ways);
}

static struct mb_lru *level_of(struct mb_cache *c, int cpu, enum mb_level l)
{
	return &c->levels[(l == MB_LLC ? 0 : cpu) * MB_LEVELS + l];
}

struct mb_cache *mb_cache_new(const struct mb_geometry *g, int ncpus, const char **why)
{
	struct mb_cache *c = calloc(1, sizeof(*c));

	*why = "out of memory";
	if (!c)
		return NULL;
	c->ncpus = ncpus;
	while ((1u << c->line_shift) < g->line)
		c->line_shift++;
	c->levels = calloc((size_t)ncpus * MB_LEVELS, sizeof(*c->levels));
	c->last = calloc(ncpus, sizeof(*c->last));
	if (!c->levels || !c->last)
		goto fail;
	if (!g->line || g->line != 1u << c->line_shift) {
		*why = "the line size must be a power of two";
		goto fail;
	}
	for (int cpu = 0; cpu < ncpus; cpu++)
		for (int l = 0; l < MB_LEVELS; l++) {
			if (l == MB_LLC && cpu)
				continue;
			if (cache_init(level_of(c, cpu, l), g->size[l], g->ways[l], g->line)) {
				*why = "a cache's size / line / ways must be a power of two";
				goto fail;
			}
		}
	return c;
fail:
	mb_cache_free(c);
	return NULL;
}

void mb_cache_free(struct mb_cache *c)
{
	if (!c)
		return;
	for (int i = 0; c->levels && i < c->ncpus * MB_LEVELS; i++)
		mb_lru_free(&c->levels[i]);
	free(c->levels);
	free(c->last);
	free(c);
}

void mb_cache_flush(struct mb_cache *c)
{
	for (int cpu = 0; cpu < c->ncpus; cpu++)
		for (int l = 0; l < MB_LEVELS; l++)
			if (l != MB_LLC || !cpu)
				mb_lru_clear(level_of(c, cpu, l));
	memset(c->last, 0, c->ncpus * sizeof(*c->last));
}

enum mb_level mb_cache_access(struct mb_cache *c, int cpu, uint64_t paddr)
{
	uint64_t line = paddr >> c->line_shift;
	enum mb_level l;

	/* The line this CPU touched last is its L1's MRU line in its set: a hit
	 * that changes nothing, so skipping the lookup is exact. */
	if (c->last[cpu] == line + 1)
		return MB_L1D;
	c->last[cpu] = line + 1;
	for (l = MB_L1D; l < MB_LEVELS; l++)
		if (mb_lru_touch(level_of(c, cpu, l), line))
			break;
	return l;
}

enum mb_level mb_cache_prefetch(struct mb_cache *c, int cpu, uint64_t paddr, enum mb_level into)
{
	uint64_t line = paddr >> c->line_shift;
	enum mb_level l;

	if (mb_lru_holds(level_of(c, cpu, into), line))
		return into;
	for (l = into; l < MB_LEVELS; l++)
		if (mb_lru_touch(level_of(c, cpu, l), line))
			break;
	/* the new line may now be MRU in the last line's set */
	if (into == MB_L1D)
		c->last[cpu] = 0;
	return l;
}

unsigned int mb_cache_line_shift(const struct mb_cache *c)
{
	return c->line_shift;
}
