// SPDX-License-Identifier: GPL-2.0
/* The cache model's window protocol (plugin/marker.h, plugin/windows.c) on a
 * fake trace: markers decoded from their bytes, counts per window, vCPU and
 * mode, nothing counted outside a run, a killed run's window dropped. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "profile.h"
#include "windows.h"

#define LINE 64
static const struct mb_geometry tiny = {
	.size = { 4 * LINE, 8 * LINE, 16 * LINE }, .ways = { 2, 2, 2 }, .line = LINE,
};

struct trace {
	struct mb_windows w;
	FILE *out;
	char *text;
	size_t len;
};

static void trace_start(struct trace *t, int ncpus)
{
	const char *why;
	struct mb_cache *c = mb_cache_new(&tiny, ncpus, &why);

	memset(t, 0, sizeof(*t));
	t->out = open_memstream(&t->text, &t->len);
	assert_non_null(c);
	assert_int_equal(mb_windows_init(&t->w, c, ncpus, t->out), 0);
}

/* What the plugin wrote so far. */
static const char *trace_text(struct trace *t)
{
	fflush(t->out);
	return t->text;
}

/* What the plugin wrote, once the trace is over. */
static const char *trace_end(struct trace *t)
{
	mb_cache_free(t->w.cache);
	mb_windows_free(&t->w);
	fclose(t->out);
	return t->text;
}

/* An access at physical address paddr, mapped at the same virtual address. */
static void access(struct mb_windows *w, int cpu, enum mb_mode mode, uint64_t paddr,
		   unsigned int size, struct mb_counts *also)
{
	struct mb_access a = { .vaddr = paddr, .paddr = paddr, .size = size };

	mb_windows_access(w, cpu, mode, &a, also);
}

static void markers_decode_from_their_bytes(void **state)
{
	const uint8_t begin[] = { 0x0f, 0x1f, 0x84, 0x00, 0x01, 0x00, 0x42, 0x4d };
	const uint8_t end[] = { 0x0f, 0x1f, 0x84, 0x00, 0x03, 0x00, 0x42, 0x4d };
	const uint8_t padding[] = { 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 };
	const uint8_t unknown[] = { 0x0f, 0x1f, 0x84, 0x00, 0x09, 0x00, 0x42, 0x4d };
	const uint8_t other_nop[] = { 0x0f, 0x1f, 0x80, 0x00, 0x01, 0x00, 0x42, 0x4d };

	assert_int_equal(mb_mark_decode(begin, 8), MB_MARK_BEGIN);
	assert_int_equal(mb_mark_decode(end, 8), MB_MARK_END);
	assert_int_equal(mb_mark_decode(padding, 8), MB_MARK_NONE);
	assert_int_equal(mb_mark_decode(unknown, 8), MB_MARK_NONE);
	assert_int_equal(mb_mark_decode(other_nop, 8), MB_MARK_NONE);
	assert_int_equal(mb_mark_decode(begin, 7), MB_MARK_NONE);
}

/* The BPF form: movabs $imm64, %reg (as the x86 JIT emits a constant load),
 * both halves the marker's word. */
static void bpf_markers_decode_in_any_register(void **state)
{
	const uint8_t rdi[] = { 0x48, 0xbf, 0x05, 0x00, 0x42, 0x4d, 0x05, 0x00, 0x42, 0x4d };
	const uint8_t r14[] = { 0x49, 0xbe, 0x06, 0x00, 0x42, 0x4d, 0x06, 0x00, 0x42, 0x4d };
	const uint8_t halves[] = { 0x48, 0xbf, 0x05, 0x00, 0x42, 0x4d, 0x06, 0x00, 0x42, 0x4d };
	const uint8_t other[] = { 0x48, 0x8b, 0x05, 0x00, 0x42, 0x4d, 0x05, 0x00, 0x42, 0x4d };

	assert_int_equal(mb_mark_decode(rdi, 10), MB_MARK_TIMED);
	assert_int_equal(mb_mark_decode(r14, 10), MB_MARK_UNTIMED);
	assert_int_equal(mb_mark_decode(halves, 10), MB_MARK_NONE);
	assert_int_equal(mb_mark_decode(other, 10), MB_MARK_NONE);
}

/* vCPU 0 times instructions 100 to 160 and two of its four accesses: the
 * run's windows have a timed line per vCPU with those alone; once a run
 * has marked timed work the profile counts only that; a run that marks
 * none writes no timed line. */
static void timed_work_is_counted_apart(void **state)
{
	const uint64_t at_begin[] = { 50, 0, 0, 0 }, at_timed[] = { 100, 0, 0, 0 },
		       at_untimed[] = { 160, 0, 0, 0 }, at_end[] = { 200, 0, 0, 0 };
	struct mb_counts site = { 0 };
	struct trace t;

	trace_start(&t, 2);
	mb_windows_mark(&t.w, MB_MARK_BEGIN, 0, at_begin);
	access(&t.w, 0, MB_KERNEL, 0x0, 8, NULL);
	mb_windows_mark(&t.w, MB_MARK_TIMED, 0, at_timed);
	access(&t.w, 0, MB_KERNEL, 0x40, 8, &site);
	access(&t.w, 0, MB_KERNEL, 0x80, 8, &site);
	access(&t.w, 1, MB_KERNEL, 0xc0, 8, NULL);		/* the other vCPU: not timed */
	mb_windows_mark(&t.w, MB_MARK_UNTIMED, 0, at_untimed);
	access(&t.w, 0, MB_KERNEL, 0x100, 8, &site);
	mb_windows_mark(&t.w, MB_MARK_END, 0, at_end);
	assert_non_null(strstr(trace_text(&t),
			       "window run=1 index=0 vcpu=0 mode=kernel insns=150 accesses=4 "));
	assert_non_null(strstr(trace_text(&t),
			       "window run=1 index=0 vcpu=0 mode=timed insns=60 accesses=2 "
			       "l1d_misses=2 l2_misses=2 llc_misses=2\n"
			       "window run=1 index=0 vcpu=1 mode=timed insns=0 accesses=0 "));
	assert_int_equal(site.accesses, 2);
	mb_windows_mark(&t.w, MB_MARK_BEGIN, 0, at_begin);
	access(&t.w, 0, MB_KERNEL, 0x0, 8, &site);
	mb_windows_mark(&t.w, MB_MARK_END, 0, at_end);
	assert_null(strstr(strstr(trace_text(&t), "run=2"), "mode=timed"));
	assert_int_equal(site.accesses, 3);
	trace_end(&t);
	free(t.text);
}

static void each_window_counts_its_own_accesses(void **state)
{
	struct trace t;
	/* [cpu * 2 + mode]: kernel, user */
	uint64_t at_begin[] = { 1000, 50 }, at_next[] = { 1600, 58 }, at_end[] = { 1700, 60 };

	trace_start(&t, 1);
	access(&t.w, 0, MB_KERNEL, 0, 8, NULL);		/* before the run: not counted */
	mb_windows_mark(&t.w, MB_MARK_BEGIN, 0, at_begin);
	access(&t.w, 0, MB_KERNEL, 0, 8, NULL);		/* cold after BEGIN: to memory */
	access(&t.w, 0, MB_KERNEL, 16, 8, NULL);		/* same line: L1 */
	access(&t.w, 0, MB_USER, LINE - 4, 8, NULL);	/* straddles lines 0 and 1 */
	mb_windows_mark(&t.w, MB_MARK_NEXT, 0, at_next);
	access(&t.w, 0, MB_KERNEL, 2 * LINE, 4, NULL);
	mb_windows_mark(&t.w, MB_MARK_END, 0, at_end);
	access(&t.w, 0, MB_KERNEL, 3 * LINE, 4, NULL);	/* after END: not counted */
	mb_windows_mark(&t.w, MB_MARK_NEXT, 0, at_end);		/* outside a run: ignored */
	assert_string_equal(trace_end(&t),
		"window run=1 index=0 vcpu=0 mode=kernel insns=600 accesses=2 l1d_misses=1 "
		"l2_misses=1 llc_misses=1\n"
		"window run=1 index=0 vcpu=0 mode=user insns=8 accesses=2 l1d_misses=1 "
		"l2_misses=1 llc_misses=1\n"
		"window run=1 index=1 vcpu=0 mode=kernel insns=100 accesses=1 l1d_misses=1 "
		"l2_misses=1 llc_misses=1\n"
		"window run=1 index=1 vcpu=0 mode=user insns=2 accesses=0 l1d_misses=0 "
		"l2_misses=0 llc_misses=0\n");
	free(t.text);
}

static void a_run_starts_cold_and_a_killed_run_leaves_no_window(void **state)
{
	struct trace t;
	uint64_t insns[4] = { 0 };

	trace_start(&t, 2);
	mb_windows_mark(&t.w, MB_MARK_BEGIN, 0, insns);
	access(&t.w, 1, MB_KERNEL, 0, 8, NULL);
	/* killed before END: the next run's BEGIN drops the open window */
	mb_windows_mark(&t.w, MB_MARK_BEGIN, 0, insns);
	access(&t.w, 1, MB_KERNEL, 0, 8, NULL);	/* cold again */
	access(&t.w, 0, MB_KERNEL, 0, 8, NULL);	/* the other vCPU: the shared LLC has it */
	mb_windows_mark(&t.w, MB_MARK_END, 0, insns);
	assert_string_equal(trace_end(&t),
		"window run=2 index=0 vcpu=0 mode=kernel insns=0 accesses=1 l1d_misses=1 "
		"l2_misses=1 llc_misses=0\n"
		"window run=2 index=0 vcpu=0 mode=user insns=0 accesses=0 l1d_misses=0 "
		"l2_misses=0 llc_misses=0\n"
		"window run=2 index=0 vcpu=1 mode=kernel insns=0 accesses=1 l1d_misses=1 "
		"l2_misses=1 llc_misses=1\n"
		"window run=2 index=0 vcpu=1 mode=user insns=0 accesses=0 l1d_misses=0 "
		"l2_misses=0 llc_misses=0\n");
	free(t.text);
}

/* A marker as the plugin gives it: to the windows, then to the profile. */
static void mark_profiled(struct mb_windows *w, struct mb_profile *p, enum mb_mark mark,
			  const uint64_t *insns)
{
	bool open = w->open;

	mb_windows_mark(w, mark, 0, insns);
	mb_profile_mark(p, w, mark, open);
}

static void the_profile_counts_the_measured_samples_per_site(void **state)
{
	struct trace t;
	struct mb_profile p;
	struct mb_site *lookup, *other;
	uint64_t insns[2] = { 0 };

	trace_start(&t, 1);
	assert_int_equal(mb_profile_init(&p), 0);
	lookup = mb_profile_site(&p, 0xffffffff81200000ull, 12);
	other = mb_profile_site(&p, 0xffffffff81300000ull, 3);
	assert_ptr_equal(mb_profile_site(&p, 0xffffffff81200000ull, 12), lookup);
	assert_ptr_not_equal(mb_profile_site(&p, 0xffffffff81200000ull, 5), lookup);
	mark_profiled(&t.w, &p, MB_MARK_BEGIN, insns);
	lookup->counts.insns += 12;				/* warmup: forgotten */
	access(&t.w, 0, MB_KERNEL, 0, 8, &lookup->counts);
	mark_profiled(&t.w, &p, MB_MARK_NEXT, insns);
	mark_profiled(&t.w, &p, MB_MARK_MEASURED, insns);
	lookup->counts.insns += 24;
	access(&t.w, 0, MB_KERNEL, 0, 8, &lookup->counts);	/* warm: L1 */
	access(&t.w, 0, MB_KERNEL, 4 * LINE, 8, &other->counts);
	mark_profiled(&t.w, &p, MB_MARK_END, insns);
	assert_non_null(strstr(trace_end(&t),
		"site run=1 vaddr=0xffffffff81200000 insns=24 accesses=1 l1d_misses=0 "
		"l2_misses=0 llc_misses=0\n"));
	assert_non_null(strstr(t.text, "site run=1 vaddr=0xffffffff81300000 insns=0 accesses=1 "
			       "l1d_misses=1 l2_misses=1 llc_misses=1\n"));
	/* the third site counted nothing: not written */
	assert_null(strstr(strstr(strstr(t.text, "site ") + 1, "site ") + 1, "site "));
	mb_profile_free(&p);
	free(t.text);
}

/* One 1 GiB page at virtual 0: PML4 at 0x1000, PDPT at 0x2000. */
static bool one_gib_page(void *ctx, uint64_t paddr, uint64_t *value)
{
	*value = paddr == 0x1000 ? 0x2000 | 1 : paddr == 0x2000 ? 0x80 | 1 : 0;
	return paddr == 0x1000 || paddr == 0x2000;
}

static void walk_loads_go_through_the_caches_and_count_apart(void **state)
{
	const struct mb_tlb_geometry g = { .array = { { { .pages = 7, .entries = 4,
							  .ways = 4 } } } };
	uint64_t insns[2] = { 0 };
	const char *why;
	struct trace t;

	trace_start(&t, 1);
	t.w.mmu = mb_mmu_new(&g, 1, one_gib_page, NULL, &why);
	mb_mmu_set_root(t.w.mmu, 0, 0x1000);
	mb_windows_mark(&t.w, MB_MARK_BEGIN, 0, insns);
	access(&t.w, 0, MB_KERNEL, 0x40, 8, NULL);	/* a walk, then the data */
	access(&t.w, 0, MB_KERNEL, 0x1000, 8, NULL);	/* the PML4's line: L1 */
	mb_windows_mark(&t.w, MB_MARK_END, 0, insns);
	mb_mmu_free(t.w.mmu);
	assert_string_equal(trace_end(&t),
		"window run=1 index=0 vcpu=0 mode=kernel insns=0 accesses=2 l1d_misses=1 "
		"l2_misses=1 llc_misses=1 dtlb_misses=1 walks=1 walk_loads=2 walk_l1d_misses=2 "
		"walk_l2_misses=2 walk_llc_misses=2 unwalkable=0\n"
		"window run=1 index=0 vcpu=0 mode=user insns=0 accesses=0 l1d_misses=0 "
		"l2_misses=0 llc_misses=0 dtlb_misses=0 walks=0 walk_loads=0 walk_l1d_misses=0 "
		"walk_l2_misses=0 walk_llc_misses=0 unwalkable=0\n");
	free(t.text);
}

static int completed;

/* The plugin's complete(): each access here ran at instruction 10 and loaded 0. */
static void complete(struct mb_access *a, const void *ctx)
{
	completed++;
	a->insns = 10;
}

static void a_miss_an_earlier_one_hides_is_counted_by_its_level(void **state)
{
	const struct mb_overlap_geometry g = { .rob = 100, .mshr = 4 };
	uint64_t insns[2] = { 0 };
	struct trace t;
	struct mb_access first = { 0x10000, 0, 8, .complete = complete },
			 second = { 0x50000, 8 * LINE, 8, .complete = complete },
			 again = { 0x50000, 8 * LINE, 8, .complete = complete };

	trace_start(&t, 1);
	t.w.overlap = mb_overlap_new(&g, 1);
	mb_windows_mark(&t.w, MB_MARK_BEGIN, 0, insns);
	mb_windows_access(&t.w, 0, MB_KERNEL, &first, NULL);	/* to memory: pays */
	mb_windows_access(&t.w, 0, MB_KERNEL, &second, NULL);	/* to memory: hidden */
	mb_windows_access(&t.w, 0, MB_KERNEL, &again, NULL);	/* an L1 hit: not asked */
	mb_windows_mark(&t.w, MB_MARK_END, 0, insns);
	mb_overlap_free(t.w.overlap);
	assert_int_equal(completed, 2);
	assert_string_equal(trace_end(&t),
		"window run=1 index=0 vcpu=0 mode=kernel insns=0 accesses=3 l1d_misses=2 "
		"l2_misses=2 llc_misses=2 overlapped_l2_hits=0 overlapped_llc_hits=0 "
		"overlapped_memory=1\n"
		"window run=1 index=0 vcpu=0 mode=user insns=0 accesses=0 l1d_misses=0 "
		"l2_misses=0 llc_misses=0 overlapped_l2_hits=0 overlapped_llc_hits=0 "
		"overlapped_memory=0\n");
	free(t.text);
}

/* One run reading 8 lines of a page from line first on, apart instructions
 * from one to the next. */
static void read_lines(struct trace *t, uint64_t first, uint64_t apart)
{
	uint64_t insns[2] = { 0 };

	mb_windows_mark(&t->w, MB_MARK_BEGIN, 0, insns);
	for (uint64_t line = first; line < first + 8; line++) {
		struct mb_access a = { .vaddr = 0x10000 + line * LINE + 8,
				       .paddr = 0x10000 + line * LINE + 8, .size = 8,
				       .insns = 1000 + line * apart };

		mb_windows_access(&t->w, 0, MB_KERNEL, &a, NULL);
	}
	mb_windows_mark(&t->w, MB_MARK_END, 0, insns);
}

/* A page read line by line with a stream prefetcher 2 lines deep: its
 * first three lines miss, the rest were fetched ahead; the prefetches count
 * apart from the accesses, and a run begins with no stream. */
/* Runs 1 and 2 each wrote format's lines, %1$d their run. */
static void each_run_wrote(struct trace *t, const char *format)
{
	for (int run = 1; run <= 2; run++) {
		char expected[512];

		snprintf(expected, sizeof(expected), format, run);
		assert_non_null(strstr(trace_text(t), expected));
	}
}

static void prefetched_lines_count_apart_from_demand_misses(void **state)
{
	const struct mb_prefetch_geometry g = { .stream = 2 };
	struct trace t;

	trace_start(&t, 1);
	t.w.prefetch = mb_prefetch_new(&g, 1, 6);
	read_lines(&t, 0, 1);
	read_lines(&t, 8, 1);	/* the second run goes on where the first stopped */
	mb_prefetch_free(t.w.prefetch);
	each_run_wrote(&t, "window run=%1$d index=0 vcpu=0 mode=kernel insns=0 accesses=8 "
			   "l1d_misses=3 l2_misses=3 llc_misses=3 prefetches=7 prefetch_memory=7 "
			   "prefetch_late=0\n");
	trace_end(&t);
	free(t.text);
}

/* The same page read with its lines 10 and 200 instructions apart, where a
 * line from memory takes 100 to arrive: far apart, the prefetched lines are
 * hits; close together, each waits for its prefetch as for a miss. */
static void a_line_used_before_its_prefetch_arrives_waits_as_a_miss(void **state)
{
	const struct mb_prefetch_geometry g = { .stream = 2, .wait = { [MB_MEMORY] = 100 } };
	const char *expected[] = {
		"window run=1 index=0 vcpu=0 mode=kernel insns=0 accesses=8 l1d_misses=8 "
		"l2_misses=8 llc_misses=8 prefetches=7 prefetch_memory=7 prefetch_late=5\n",
		"window run=2 index=0 vcpu=0 mode=kernel insns=0 accesses=8 l1d_misses=3 "
		"l2_misses=3 llc_misses=3 prefetches=7 prefetch_memory=7 prefetch_late=0\n",
	};
	struct trace t;

	trace_start(&t, 1);
	t.w.prefetch = mb_prefetch_new(&g, 1, 6);
	read_lines(&t, 0, 10);
	read_lines(&t, 0, 200);
	mb_prefetch_free(t.w.prefetch);
	for (int run = 0; run < 2; run++)
		assert_non_null(strstr(trace_text(&t), expected[run]));
	trace_end(&t);
	free(t.text);
}

/* Branches resolved outside a run are neither counted nor learnt; each run
 * starts with an untrained predictor; also gets the same counts. */
static void branches_count_per_window_and_each_run_learns_anew(void **state)
{
	const struct mb_branch_geometry g = { 12, 0 };
	const uint64_t insns[MB_MODES] = { 0 };
	struct mb_counts also = { 0 };
	struct trace t;

	trace_start(&t, 1);
	t.w.branch = mb_branch_new(&g, 1);
	for (int i = 0; i < 5; i++)
		mb_windows_branch(&t.w, 0, MB_KERNEL, 0x1000, true, NULL);
	for (int run = 1; run <= 2; run++) {
		mb_windows_mark(&t.w, MB_MARK_BEGIN, 0, insns);
		for (int i = 0; i < 3; i++)
			mb_windows_branch(&t.w, 0, MB_KERNEL, 0x1000, true, &also);
		mb_windows_branch(&t.w, 0, MB_USER, 0x2004, false, NULL);
		mb_windows_mark(&t.w, MB_MARK_END, 0, insns);
	}
	mb_branch_free(t.w.branch);
	each_run_wrote(&t, "window run=%1$d index=0 vcpu=0 mode=kernel insns=0 accesses=0 "
			   "l1d_misses=0 l2_misses=0 llc_misses=0 branches=3 mispredicts=1\n"
			   "window run=%1$d index=0 vcpu=0 mode=user insns=0 accesses=0 "
			   "l1d_misses=0 l2_misses=0 llc_misses=0 branches=1 mispredicts=0\n");
	assert_int_equal(also.branches, 6);
	assert_int_equal(also.mispredicts, 2);
	trace_end(&t);
	free(t.text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(walk_loads_go_through_the_caches_and_count_apart),
		cmocka_unit_test(a_miss_an_earlier_one_hides_is_counted_by_its_level),
		cmocka_unit_test(prefetched_lines_count_apart_from_demand_misses),
		cmocka_unit_test(a_line_used_before_its_prefetch_arrives_waits_as_a_miss),
		cmocka_unit_test(branches_count_per_window_and_each_run_learns_anew),
		cmocka_unit_test(markers_decode_from_their_bytes),
		cmocka_unit_test(bpf_markers_decode_in_any_register),
		cmocka_unit_test(timed_work_is_counted_apart),
		cmocka_unit_test(each_window_counts_its_own_accesses),
		cmocka_unit_test(a_run_starts_cold_and_a_killed_run_leaves_no_window),
		cmocka_unit_test(the_profile_counts_the_measured_samples_per_site),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
