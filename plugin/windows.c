// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "profile.h"
#include "windows.h"

static const char *const mode_names[MB_MODES] = { "kernel", "user" };

int mb_windows_init(struct mb_windows *w, struct mb_cache *cache, int ncpus, FILE *out)
{
	memset(w, 0, sizeof(*w));
	w->cache = cache;
	w->out = out;
	w->ncpus = ncpus;
	w->counts = calloc((size_t)ncpus * MB_MODES, sizeof(*w->counts));
	w->insns_at_open = calloc((size_t)ncpus * MB_MODES, sizeof(*w->insns_at_open));
	return w->counts && w->insns_at_open ? 0 : -1;
}

void mb_windows_free(struct mb_windows *w)
{
	free(w->counts);
	free(w->insns_at_open);
	memset(w, 0, sizeof(*w));
}

void mb_windows_header(struct mb_windows *w, const struct mb_geometry *g, const char *name)
{
	fprintf(w->out, "model name=%s vcpus=%d line=%u l1d=%" PRIu64 ":%u l2=%" PRIu64
		":%u llc=%" PRIu64 ":%u\n", name, w->ncpus, g->line, g->size[MB_L1D],
		g->ways[MB_L1D], g->size[MB_L2], g->ways[MB_L2], g->size[MB_LLC], g->ways[MB_LLC]);
	fflush(w->out);
}

/* A line access that hit at level hit, as data or as a walk's load. */
static void count_line(struct mb_counts *c, enum mb_level hit, bool walk)
{
	uint64_t *misses = walk ? c->walk_misses : c->misses;

	if (walk)
		c->walk_loads++;
	else
		c->accesses++;
	for (enum mb_level l = MB_L1D; l < hit; l++)
		misses[l]++;
}

static void count_translation(struct mb_counts *c, const struct mb_walk *t)
{
	c->dtlb_misses += t->how != MB_TLB_L1_HIT;
	c->walks += t->how == MB_TLB_WALKED || t->how == MB_TLB_UNWALKABLE;
	c->unwalkable += t->how == MB_TLB_UNWALKABLE;
}

/* The walk's loads go through the caches of the vCPU that walked. */
static void translate(struct mb_windows *w, int cpu, uint64_t vaddr, struct mb_counts *c,
		      struct mb_counts *also)
{
	struct mb_walk t;

	mb_mmu_translate(w->mmu, cpu, vaddr, &t);
	count_translation(c, &t);
	if (also)
		count_translation(also, &t);
	for (unsigned int i = 0; i < t.nloads; i++) {
		enum mb_level hit = mb_cache_access(w->cache, cpu, t.loads[i]);

		count_line(c, hit, true);
		if (also)
			count_line(also, hit, true);
	}
}

/* The access's value and instruction count, read once and only when needed. */
static void complete(struct mb_access *a)
{
	if (!a->complete)
		return;
	a->complete(a, a->ctx);
	a->complete = NULL;
}

/* The lines the prefetchers fetch after a demand access to one line; pc 0:
 * not the access's first line (the stride rule trains once an access). */
static void prefetch(struct mb_windows *w, int cpu, struct mb_access *a, uint64_t pc,
		     uint64_t vaddr, uint64_t paddr, enum mb_level hit, struct mb_counts *c,
		     struct mb_counts *also)
{
	struct mb_prefetch_request req[MB_PREFETCH_MAX];
	unsigned int n = mb_prefetch_train(w->prefetch, cpu, pc, vaddr, paddr, hit, req);

	for (unsigned int i = 0; i < n; i++) {
		enum mb_level from = mb_cache_prefetch(w->cache, cpu, req[i].paddr, req[i].into);

		if (from == req[i].into)
			continue;
		complete(a);
		mb_prefetch_sent(w->prefetch, cpu, req[i].paddr, from, a->insns);
		for (struct mb_counts *to = c; to; to = to == c ? also : NULL) {
			to->prefetches++;
			to->prefetch_memory += from == MB_MEMORY;
		}
	}
}

/* A line a prefetch fetched, at its first use: hit, or the level it comes
 * from while it is on its way. */
static enum mb_level arrival(struct mb_windows *w, int cpu, struct mb_access *a, uint64_t paddr,
			     enum mb_level hit, struct mb_counts *c, struct mb_counts *also)
{
	enum mb_level wait;

	if (!mb_prefetch_pending(w->prefetch, cpu, paddr))
		return hit;
	complete(a);
	wait = mb_prefetch_use(w->prefetch, cpu, paddr, a->insns);
	if (wait <= hit)
		return hit;
	for (struct mb_counts *to = c; to; to = to == c ? also : NULL)
		to->prefetch_late++;
	return wait;
}

void mb_windows_access(struct mb_windows *w, int cpu, enum mb_mode mode,
		       struct mb_access *a, struct mb_counts *also)
{
	struct mb_counts *c = &w->counts[cpu * MB_MODES + mode];
	unsigned int shift = mb_cache_line_shift(w->cache);
	uint64_t line = a->paddr >> shift, last = (a->paddr + a->size - 1) >> shift;

	if (!w->open)
		return;
	/* An access that straddles a page is translated once: they are rare. */
	if (w->mmu)
		translate(w, cpu, a->vaddr, c, also);
	/* An access that straddles a line boundary touches both lines. */
	for (; line <= last; line++) {
		enum mb_level hit = mb_cache_access(w->cache, cpu, line << shift);

		if (w->prefetch)
			hit = arrival(w, cpu, a, line << shift, hit, c, also);
		count_line(c, hit, false);
		if (also)
			count_line(also, hit, false);
		if (w->prefetch && line == a->paddr >> shift)
			prefetch(w, cpu, a, a->pc, a->vaddr, a->paddr, hit, c, also);
		else if (w->prefetch)
			prefetch(w, cpu, a, 0, 0, line << shift, hit, c, also);
		if (hit == MB_L1D || !w->overlap)
			continue;
		complete(a);
		if (!mb_overlap_miss(w->overlap, cpu, a->insns, a->vaddr, a->value, hit))
			continue;
		c->overlapped[hit - 1]++;
		if (also)
			also->overlapped[hit - 1]++;
	}
}

void mb_windows_branch(struct mb_windows *w, int cpu, enum mb_mode mode, uint64_t pc,
		       bool taken, struct mb_counts *also)
{
	struct mb_counts *c = &w->counts[cpu * MB_MODES + mode];
	bool missed;

	if (!w->open)
		return;
	missed = mb_branch_resolve(w->branch, cpu, pc, taken);
	for (struct mb_counts *to = c; to; to = to == c ? also : NULL) {
		to->branches++;
		to->mispredicts += missed;
	}
}

void mb_counts_write(const struct mb_windows *w, const struct mb_counts *c)
{
	fprintf(w->out, "insns=%" PRIu64 " accesses=%" PRIu64 " l1d_misses=%" PRIu64
		" l2_misses=%" PRIu64 " llc_misses=%" PRIu64, c->insns, c->accesses,
		c->misses[MB_L1D], c->misses[MB_L2], c->misses[MB_LLC]);
	if (w->overlap)
		fprintf(w->out, " overlapped_l2_hits=%" PRIu64 " overlapped_llc_hits=%" PRIu64
			" overlapped_memory=%" PRIu64, c->overlapped[0], c->overlapped[1],
			c->overlapped[2]);
	if (w->prefetch)
		fprintf(w->out, " prefetches=%" PRIu64 " prefetch_memory=%" PRIu64
			" prefetch_late=%" PRIu64, c->prefetches, c->prefetch_memory,
			c->prefetch_late);
	if (w->branch)
		fprintf(w->out, " branches=%" PRIu64 " mispredicts=%" PRIu64, c->branches,
			c->mispredicts);
	if (!w->mmu)
		return;
	fprintf(w->out, " dtlb_misses=%" PRIu64 " walks=%" PRIu64 " walk_loads=%" PRIu64
		" walk_l1d_misses=%" PRIu64 " walk_l2_misses=%" PRIu64 " walk_llc_misses=%" PRIu64
		" unwalkable=%" PRIu64, c->dtlb_misses, c->walks, c->walk_loads,
		c->walk_misses[MB_L1D], c->walk_misses[MB_L2], c->walk_misses[MB_LLC],
		c->unwalkable);
}

static void window_open(struct mb_windows *w, const uint64_t *insns)
{
	memset(w->counts, 0, (size_t)w->ncpus * MB_MODES * sizeof(*w->counts));
	memcpy(w->insns_at_open, insns, (size_t)w->ncpus * MB_MODES * sizeof(*insns));
	w->open = true;
}

static void window_close(struct mb_windows *w, const uint64_t *insns)
{
	for (int i = 0; i < w->ncpus * MB_MODES; i++) {
		struct mb_counts c = w->counts[i];

		c.insns = insns[i] - w->insns_at_open[i];
		fprintf(w->out, "window run=%u index=%u vcpu=%d mode=%s ", w->run, w->index,
			i / MB_MODES, mode_names[i % MB_MODES]);
		mb_counts_write(w, &c);
		fputc('\n', w->out);
	}
	fflush(w->out);
	w->index++;
	w->open = false;
}

void mb_windows_mark(struct mb_windows *w, enum mb_mark mark, const uint64_t *insns)
{
	switch (mark) {
	case MB_MARK_BEGIN:
		/* A run that never reached END (killed) leaves its open window unwritten. */
		w->run++;
		w->index = 0;
		mb_cache_flush(w->cache);
		if (w->mmu)
			mb_mmu_flush(w->mmu);
		if (w->overlap)
			mb_overlap_flush(w->overlap);
		if (w->prefetch)
			mb_prefetch_flush(w->prefetch);
		if (w->branch)
			mb_branch_flush(w->branch);
		if (w->profile)
			mb_profile_reset(w->profile);
		window_open(w, insns);
		break;
	case MB_MARK_NEXT:
		if (!w->open)
			return;
		window_close(w, insns);
		window_open(w, insns);
		break;
	case MB_MARK_MEASURED:
		if (w->open && w->profile)
			mb_profile_reset(w->profile);
		break;
	case MB_MARK_END:
		if (!w->open)
			return;
		window_close(w, insns);
		if (w->profile)
			mb_profile_write(w->profile, w, w->run);
		break;
	default:
		break;
	}
}
