// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "windows.h"

const char *const mb_mode_names[MB_MODES] = { "kernel", "user" };

/* The counts an event adds to: its vCPU's in its mode, the timed work's
 * where the vCPU is in it, and the profile site's (also) where the
 * profile counts now. */
struct tally {
	struct mb_counts *to[3];
	unsigned int n;
};

/* Filled in place: returned by value, it went through a stack copy that
 * cost every access about 5 ns (make model-cost). */
static void tally_of(struct tally *t, struct mb_windows *w, int cpu, enum mb_mode mode,
		     struct mb_counts *also)
{
	t->to[0] = &w->counts[cpu * MB_MODES + mode];
	t->n = 1;
	if (mode == MB_KERNEL && w->timed[cpu])
		t->to[t->n++] = &w->timed_counts[cpu];
	if (also && mb_windows_profiling(w, cpu))
		t->to[t->n++] = also;
}

int mb_windows_init(struct mb_windows *w, struct mb_cache *cache, int ncpus, FILE *out)
{
	memset(w, 0, sizeof(*w));
	w->cache = cache;
	w->out = out;
	w->ncpus = ncpus;
	w->counts = calloc((size_t)ncpus * MB_MODES, sizeof(*w->counts));
	w->insns_at_open = calloc((size_t)ncpus * MB_MODES, sizeof(*w->insns_at_open));
	w->timed = calloc(ncpus, sizeof(*w->timed));
	w->timed_from = calloc(ncpus, sizeof(*w->timed_from));
	w->timed_counts = calloc(ncpus, sizeof(*w->timed_counts));
	return w->counts && w->insns_at_open && w->timed && w->timed_from && w->timed_counts ?
	       0 : -1;
}

void mb_windows_free(struct mb_windows *w)
{
	free(w->counts);
	free(w->insns_at_open);
	free(w->timed);
	free(w->timed_from);
	free(w->timed_counts);
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
static void count_line(const struct tally *t, enum mb_level hit, bool walk)
{
	for (unsigned int i = 0; i < t->n; i++) {
		struct mb_counts *c = t->to[i];
		uint64_t *misses = walk ? c->walk_misses : c->misses;

		if (walk)
			c->walk_loads++;
		else
			c->accesses++;
		for (enum mb_level l = MB_L1D; l < hit; l++)
			misses[l]++;
	}
}

static void count_translation(const struct tally *t, const struct mb_walk *walk)
{
	for (unsigned int i = 0; i < t->n; i++) {
		struct mb_counts *c = t->to[i];

		c->dtlb_misses += walk->how != MB_TLB_L1_HIT;
		c->walks += walk->how == MB_TLB_WALKED || walk->how == MB_TLB_UNWALKABLE;
		c->unwalkable += walk->how == MB_TLB_UNWALKABLE;
	}
}

/* The walk's loads go through the caches of the vCPU that walked. */
static void translate(struct mb_windows *w, int cpu, uint64_t vaddr, const struct tally *t)
{
	struct mb_walk walk;

	mb_mmu_translate(w->mmu, cpu, vaddr, &walk);
	count_translation(t, &walk);
	for (unsigned int i = 0; i < walk.nloads; i++)
		count_line(t, mb_cache_access(w->cache, cpu, walk.loads[i]), true);
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
		     uint64_t vaddr, uint64_t paddr, enum mb_level hit, const struct tally *t)
{
	struct mb_prefetch_request req[MB_PREFETCH_MAX];
	unsigned int n = mb_prefetch_train(w->prefetch, cpu, pc, vaddr, paddr, hit, req);

	for (unsigned int i = 0; i < n; i++) {
		enum mb_level from = mb_cache_prefetch(w->cache, cpu, req[i].paddr, req[i].into);

		if (from == req[i].into)
			continue;
		complete(a);
		mb_prefetch_sent(w->prefetch, cpu, req[i].paddr, from, a->insns);
		for (unsigned int j = 0; j < t->n; j++) {
			t->to[j]->prefetches++;
			t->to[j]->prefetch_memory += from == MB_MEMORY;
		}
	}
}

/* A line a prefetch fetched, at its first use: hit, or the level it comes
 * from while it is on its way. */
static enum mb_level arrival(struct mb_windows *w, int cpu, struct mb_access *a, uint64_t paddr,
			     enum mb_level hit, const struct tally *t)
{
	enum mb_level wait;

	if (!mb_prefetch_pending(w->prefetch, cpu, paddr))
		return hit;
	complete(a);
	wait = mb_prefetch_use(w->prefetch, cpu, paddr, a->insns);
	if (wait <= hit)
		return hit;
	for (unsigned int i = 0; i < t->n; i++)
		t->to[i]->prefetch_late++;
	return wait;
}

void mb_windows_access(struct mb_windows *w, int cpu, enum mb_mode mode,
		       struct mb_access *a, struct mb_counts *also)
{
	unsigned int shift = mb_cache_line_shift(w->cache);
	uint64_t line = a->paddr >> shift, last = (a->paddr + a->size - 1) >> shift;
	struct tally t;

	if (!w->open)
		return;
	tally_of(&t, w, cpu, mode, also);
	/* An access that straddles a page is translated once: they are rare. */
	if (w->mmu)
		translate(w, cpu, a->vaddr, &t);
	/* An access that straddles a line boundary touches both lines. */
	for (; line <= last; line++) {
		enum mb_level hit = mb_cache_access(w->cache, cpu, line << shift);

		if (w->prefetch)
			hit = arrival(w, cpu, a, line << shift, hit, &t);
		count_line(&t, hit, false);
		if (w->prefetch && line == a->paddr >> shift)
			prefetch(w, cpu, a, a->pc, a->vaddr, a->paddr, hit, &t);
		else if (w->prefetch)
			prefetch(w, cpu, a, 0, 0, line << shift, hit, &t);
		if (hit == MB_L1D || !w->overlap)
			continue;
		complete(a);
		if (!mb_overlap_miss(w->overlap, cpu, a->insns, a->vaddr, a->value, hit))
			continue;
		for (unsigned int i = 0; i < t.n; i++)
			t.to[i]->overlapped[hit - 1]++;
	}
}

void mb_windows_branch(struct mb_windows *w, int cpu, enum mb_mode mode, uint64_t pc,
		       bool taken, struct mb_counts *also)
{
	struct tally t;
	bool missed;

	if (!w->open)
		return;
	tally_of(&t, w, cpu, mode, also);
	missed = mb_branch_resolve(w->branch, cpu, pc, taken);
	for (unsigned int i = 0; i < t.n; i++) {
		t.to[i]->branches++;
		t.to[i]->mispredicts += missed;
	}
}

void mb_counts_write(const struct mb_windows *w, FILE *out, const struct mb_counts *c)
{
	fprintf(out, "insns=%" PRIu64 " accesses=%" PRIu64 " l1d_misses=%" PRIu64
		" l2_misses=%" PRIu64 " llc_misses=%" PRIu64, c->insns, c->accesses,
		c->misses[MB_L1D], c->misses[MB_L2], c->misses[MB_LLC]);
	if (w->overlap)
		fprintf(out, " overlapped_l2_hits=%" PRIu64 " overlapped_llc_hits=%" PRIu64
			" overlapped_memory=%" PRIu64, c->overlapped[0], c->overlapped[1],
			c->overlapped[2]);
	if (w->prefetch)
		fprintf(out, " prefetches=%" PRIu64 " prefetch_memory=%" PRIu64
			" prefetch_late=%" PRIu64, c->prefetches, c->prefetch_memory,
			c->prefetch_late);
	if (w->branch)
		fprintf(out, " branches=%" PRIu64 " mispredicts=%" PRIu64, c->branches,
			c->mispredicts);
	if (!w->mmu)
		return;
	fprintf(out, " dtlb_misses=%" PRIu64 " walks=%" PRIu64 " walk_loads=%" PRIu64
		" walk_l1d_misses=%" PRIu64 " walk_l2_misses=%" PRIu64 " walk_llc_misses=%" PRIu64
		" unwalkable=%" PRIu64, c->dtlb_misses, c->walks, c->walk_loads,
		c->walk_misses[MB_L1D], c->walk_misses[MB_L2], c->walk_misses[MB_LLC],
		c->unwalkable);
}

static void window_open(struct mb_windows *w, const uint64_t *insns)
{
	memset(w->counts, 0, (size_t)w->ncpus * MB_MODES * sizeof(*w->counts));
	memset(w->timed_counts, 0, (size_t)w->ncpus * sizeof(*w->timed_counts));
	memcpy(w->insns_at_open, insns, (size_t)w->ncpus * MB_MODES * sizeof(*insns));
	w->open = true;
}

static void window_line(const struct mb_windows *w, int cpu, const char *mode,
			const struct mb_counts *c)
{
	fprintf(w->out, "window run=%u index=%u vcpu=%d mode=%s ", w->run, w->index, cpu, mode);
	mb_counts_write(w, w->out, c);
	fputc('\n', w->out);
}

/* Instructions of timed work go to the window the vCPU ran them in. */
static void timed_insns(struct mb_windows *w, int cpu, const uint64_t *insns)
{
	uint64_t now = insns[cpu * MB_MODES + MB_KERNEL];

	w->timed_counts[cpu].insns += now - w->timed_from[cpu];
	w->timed_from[cpu] = now;
}

static void window_close(struct mb_windows *w, const uint64_t *insns)
{
	for (int i = 0; i < w->ncpus * MB_MODES; i++) {
		struct mb_counts c = w->counts[i];

		c.insns = insns[i] - w->insns_at_open[i];
		window_line(w, i / MB_MODES, mb_mode_names[i % MB_MODES], &c);
	}
	for (int cpu = 0; w->timed_seen && cpu < w->ncpus; cpu++) {
		if (w->timed[cpu])
			timed_insns(w, cpu, insns);
		window_line(w, cpu, "timed", &w->timed_counts[cpu]);
	}
	fflush(w->out);
	w->index++;
	w->open = false;
}

void mb_windows_mark(struct mb_windows *w, enum mb_mark mark, int cpu, const uint64_t *insns)
{
	switch (mark) {
	case MB_MARK_BEGIN:
		/* A run that never reached END (killed) leaves its open window unwritten. */
		w->run++;
		w->index = 0;
		w->timed_seen = false;
		memset(w->timed, 0, (size_t)w->ncpus * sizeof(*w->timed));
		mb_cache_flush(w->cache);
		if (w->mmu)
			mb_mmu_flush(w->mmu);
		if (w->overlap)
			mb_overlap_flush(w->overlap);
		if (w->prefetch)
			mb_prefetch_flush(w->prefetch);
		if (w->branch)
			mb_branch_flush(w->branch);
		window_open(w, insns);
		break;
	case MB_MARK_NEXT:
		if (!w->open)
			return;
		window_close(w, insns);
		window_open(w, insns);
		break;
	case MB_MARK_TIMED:
		if (!w->open || w->timed[cpu])
			return;
		w->timed_seen = w->timed[cpu] = true;
		w->timed_from[cpu] = insns[cpu * MB_MODES + MB_KERNEL];
		break;
	case MB_MARK_UNTIMED:
		if (!w->open || !w->timed[cpu])
			return;
		timed_insns(w, cpu, insns);
		w->timed[cpu] = false;
		break;
	case MB_MARK_END:
		if (!w->open)
			return;
		window_close(w, insns);
		break;
	default:
		break;
	}
}
