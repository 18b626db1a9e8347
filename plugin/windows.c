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

static void count(struct mb_counts *c, enum mb_level hit)
{
	c->accesses++;
	for (enum mb_level l = MB_L1D; l < hit; l++)
		c->misses[l]++;
}

void mb_windows_access(struct mb_windows *w, int cpu, enum mb_mode mode, uint64_t paddr,
		       unsigned int size, struct mb_counts *also)
{
	struct mb_counts *c = &w->counts[cpu * MB_MODES + mode];
	unsigned int shift = mb_cache_line_shift(w->cache);
	uint64_t line = paddr >> shift, last = (paddr + size - 1) >> shift;

	if (!w->open)
		return;
	/* An access that straddles a line boundary touches both lines. */
	for (; line <= last; line++) {
		enum mb_level hit = mb_cache_access(w->cache, cpu, line << shift);

		count(c, hit);
		if (also)
			count(also, hit);
	}
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
		const struct mb_counts *c = &w->counts[i];

		fprintf(w->out, "window run=%u index=%u vcpu=%d mode=%s insns=%" PRIu64
			" accesses=%" PRIu64 " l1d_misses=%" PRIu64 " l2_misses=%" PRIu64
			" llc_misses=%" PRIu64 "\n", w->run, w->index, i / MB_MODES,
			mode_names[i % MB_MODES], insns[i] - w->insns_at_open[i], c->accesses,
			c->misses[MB_L1D], c->misses[MB_L2], c->misses[MB_LLC]);
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
			mb_profile_write(w->profile, w->out, w->run);
		break;
	default:
		break;
	}
}
