// SPDX-License-Identifier: GPL-2.0
/* make model-cost: what the plugin's simulation costs the host per guest
 * access, without QEMU. A boot under the model is too noisy on a shared
 * machine to show a change in the plugin of 10% or 20% (two boots of one
 * kind differ by 15% and more), so this drives windows.c directly with a
 * fixed trace and times it: host ns per access, best of three.
 *
 * The trace is shaped like an 8-byte htab lookup under the model (48
 * accesses an op: 40 to four stack lines, 8 to one element of a table of
 * ENTRIES picked by a fixed xorshift), on zen4's geometry (cachemodel.py),
 * with the mechanisms added one at a time. Page tables: every address in a
 * 1 GiB page, as the direct map is. It measures the simulation's host cost,
 * not a modelled figure; QEMU's callbacks come on top. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "windows.h"

#define OPS 500000
#define ACCESSES_PER_OP 48
#define STACK_ACCESSES 40
#define TRIES 3

struct mechanisms {
	const char *name;
	bool tlb, prefetch, overlap;
};

static const struct mechanisms sets[] = {
	{ "caches", false, false, false },
	{ "+ TLBs", true, false, false },
	{ "+ TLBs, prefetchers", true, true, false },
	{ "+ TLBs, prefetchers, overlaps", true, true, true },
};

/* Every entry present; a PDPTE is a leaf: 1 GiB pages under one table. */
static bool one_gib_pages(void *ctx, uint64_t paddr, uint64_t *value)
{
	*value = 0x1000 | 0x80 | 0x1;
	return true;
}

static void machine(struct mb_windows *w, const struct mechanisms *m)
{
	static const struct mb_geometry zen4 = {
		.size = { 32 << 10, 1 << 20, 32 << 20 }, .ways = { 8, 8, 16 }, .line = 64,
	};
	const char *why;

	if (mb_windows_init(w, mb_cache_new(&zen4, 1, &why), 1, fopen("/dev/null", "w")) ||
	    !w->cache || !w->out) {
		fprintf(stderr, "model-cost: out of memory\n");
		exit(1);
	}
	if (m->tlb) {
		const unsigned int k = 1u << MB_PAGE_4K, m2 = 1u << MB_PAGE_2M, g = 1u << MB_PAGE_1G;
		struct mb_tlb_geometry t = { .pwc = 16 };

		/* kmg:72:72 and kms:3072:24 */
		t.array[MB_DTLB_L1][0] = (struct mb_tlb_array){ k | m2 | g, 72, 72, false };
		t.array[MB_DTLB_L2][0] = (struct mb_tlb_array){ k | m2, 3072, 24, true };
		if ((w->mmu = mb_mmu_new(&t, 1, one_gib_pages, NULL, &why)))
			mb_mmu_set_root(w->mmu, 0, 0x1000);
	}
	if (m->prefetch) {
		/* waits: zen4's penalties in instructions at its IPC of 3 */
		const struct mb_prefetch_geometry p = {
			.stream = 2, .stride = true, .adjacent = true, .wait = { 0, 30, 135, 900 },
		};

		w->prefetch = mb_prefetch_new(&p, 1, mb_cache_line_shift(w->cache));
	}
	if (m->overlap) {
		const struct mb_overlap_geometry o = { .rob = 320, .mshr = 24 };

		w->overlap = mb_overlap_new(&o, 1);
	}
	/* a mechanism missing would time less than its row says */
	if ((m->tlb && !w->mmu) || (m->prefetch && !w->prefetch) || (m->overlap && !w->overlap)) {
		fprintf(stderr, "model-cost: out of memory\n");
		exit(1);
	}
}

static void machine_free(struct mb_windows *w)
{
	mb_mmu_free(w->mmu);
	mb_prefetch_free(w->prefetch);
	mb_overlap_free(w->overlap);
	mb_cache_free(w->cache);
	fclose(w->out);
	mb_windows_free(w);
}

static double seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* Host ns per access of one pass of the trace. */
static double pass(const struct mechanisms *m, uint64_t entries)
{
	const uint64_t stack = 0xffffc90000010000ull, table = 0xffff888010000000ull;
	uint64_t insns[MB_MODES] = { 0 }, x = 88172645463325252ull, n = 0;
	struct mb_windows w;
	double start, ns;

	machine(&w, m);
	mb_windows_mark(&w, MB_MARK_BEGIN, 0, insns);
	start = seconds();
	for (int op = 0; op < OPS; op++) {
		uint64_t element;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		element = table + x % entries * 64;
		for (int i = 0; i < ACCESSES_PER_OP; i++, n++) {
			uint64_t vaddr = i < STACK_ACCESSES ? stack - i % 12 * 8 - i / 12 * 64 :
				       element + (i - STACK_ACCESSES) * 8;
			struct mb_access a = { .vaddr = vaddr, .paddr = vaddr & ((1ull << 30) - 1),
					       .size = 8, .pc = 0xffffffff81000000ull + i * 4,
					       .insns = n * 4 };

			mb_windows_access(&w, 0, MB_KERNEL, &a, NULL);
		}
	}
	ns = (seconds() - start) / n * 1e9;
	machine_free(&w);
	return ns;
}

int main(void)
{
	static const uint64_t entries[] = { 1 << 10, 1 << 20 };

	printf("model-cost: host ns per guest access of the plugin's simulation alone "
	       "(zen4, synthetic 8-byte htab lookups, best of %d)\n", TRIES);
	for (size_t s = 0; s < sizeof(sets) / sizeof(sets[0]); s++) {
		printf("%-32s", sets[s].name);
		for (size_t e = 0; e < sizeof(entries) / sizeof(entries[0]); e++) {
			double best = 0;

			for (int t = 0; t < TRIES; t++) {
				double ns = pass(&sets[s], entries[e]);

				best = !t || ns < best ? ns : best;
			}
			printf("  %s: %5.1f ns", entries[e] >> 20 ? "1M" : "1K", best);
		}
		putchar('\n');
	}
	return 0;
}
