// SPDX-License-Identifier: GPL-2.0
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "cache.h"

/* One cache: ways tags per set, most recently used first; a tag is the line
 * number + 1, so 0 is an empty way. */
struct set_assoc {
	uint64_t *tags;
	uint64_t set_mask;
	unsigned int ways;
};

struct mb_cache {
	int ncpus;
	unsigned int line_shift;
	struct set_assoc *levels;	/* [cpu * MB_LEVELS + level]; the LLC at cpu 0 only */
	uint64_t *last;			/* per CPU: the line it touched last, + 1 */
	uint64_t bytes[MB_LEVELS];	/* tag bytes per cache, for flushing */
};

static int set_assoc_init(struct set_assoc *s, uint64_t size, unsigned int ways,
			  unsigned int line)
{
	uint64_t sets = ways && line ? size / line / ways : 0;

	if (!sets || sets & (sets - 1) || sets * line * ways != size)
		return -1;
	s->tags = calloc(sets * ways, sizeof(*s->tags));
	s->set_mask = sets - 1;
	s->ways = ways;
	return s->tags ? 0 : -1;
}

/* Whether the line was there; either way it is its set's MRU line after. */
static bool set_assoc_touch(struct set_assoc *s, uint64_t line)
{
	uint64_t *set = s->tags + (line & s->set_mask) * s->ways, tag = line + 1;
	unsigned int w = 0;
	bool hit;

	while (w < s->ways && set[w] != tag)
		w++;
	hit = w < s->ways;
	if (!hit)
		w = s->ways - 1;	/* a miss evicts the LRU way */
	memmove(set + 1, set, w * sizeof(*set));
	set[0] = tag;
	return hit;
}

static struct set_assoc *level_of(struct mb_cache *c, int cpu, enum mb_level l)
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
			if (set_assoc_init(level_of(c, cpu, l), g->size[l], g->ways[l], g->line)) {
				*why = "a cache's size / line / ways must be a power of two";
				goto fail;
			}
			c->bytes[l] = g->size[l] / g->line * sizeof(uint64_t);
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
		free(c->levels[i].tags);
	free(c->levels);
	free(c->last);
	free(c);
}

void mb_cache_flush(struct mb_cache *c)
{
	for (int cpu = 0; cpu < c->ncpus; cpu++)
		for (int l = 0; l < MB_LEVELS; l++)
			if (l != MB_LLC || !cpu)
				memset(level_of(c, cpu, l)->tags, 0, c->bytes[l]);
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
		if (set_assoc_touch(level_of(c, cpu, l), line))
			break;
	return l;
}

unsigned int mb_cache_line_shift(const struct mb_cache *c)
{
	return c->line_shift;
}
