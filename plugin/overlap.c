// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>
#include "overlap.h"

/* A pointer leads to the object it points into: the page from it on, and a
 * little before it (container_of from an embedded list node). */
#define POINTS_AHEAD 4096
#define POINTS_BEHIND 256

struct miss {
	uint64_t insns, value;
	enum mb_level level;
};

struct mb_overlap {
	struct mb_overlap_geometry g;
	int ncpus;
	struct miss *flight;	/* [cpu * mshr + i], oldest first */
	unsigned int *n;	/* per CPU: misses in flight */
};

struct mb_overlap *mb_overlap_new(const struct mb_overlap_geometry *g, int ncpus)
{
	struct mb_overlap *o = calloc(1, sizeof(*o));

	if (!o || !g->mshr)
		goto fail;
	o->g = *g;
	o->ncpus = ncpus;
	o->flight = calloc((size_t)ncpus * g->mshr, sizeof(*o->flight));
	o->n = calloc(ncpus, sizeof(*o->n));
	if (o->flight && o->n)
		return o;
fail:
	mb_overlap_free(o);
	return NULL;
}

void mb_overlap_free(struct mb_overlap *o)
{
	if (!o)
		return;
	free(o->flight);
	free(o->n);
	free(o);
}

void mb_overlap_flush(struct mb_overlap *o)
{
	memset(o->n, 0, o->ncpus * sizeof(*o->n));
}

static bool points_into(uint64_t value, uint64_t vaddr)
{
	return vaddr + POINTS_BEHIND >= value && vaddr < value + POINTS_AHEAD;
}

bool mb_overlap_miss(struct mb_overlap *o, int cpu, uint64_t insns, uint64_t vaddr,
		     uint64_t value, enum mb_level level)
{
	struct miss *flight = o->flight + (size_t)cpu * o->g.mshr;
	unsigned int *n = &o->n[cpu], kept = 0;
	bool hidden = false, dependent = false;

	/* the misses issued more than a reorder window ago have retired */
	for (unsigned int i = 0; i < *n; i++)
		if (insns - flight[i].insns < o->g.rob)
			flight[kept++] = flight[i];
	*n = kept;
	for (unsigned int i = 0; i < *n; i++) {
		dependent |= points_into(flight[i].value, vaddr);
		hidden |= flight[i].level >= level;
	}
	hidden &= !dependent && *n < o->g.mshr;
	if (*n == o->g.mshr)	/* full: the oldest makes room */
		memmove(flight, flight + 1, --*n * sizeof(*flight));
	flight[(*n)++] = (struct miss){ insns, value, level };
	return hidden;
}
