// SPDX-License-Identifier: GPL-2.0
/* The prefetchers (plugin/prefetch.c) and their fills (plugin/cache.c) on
 * fixed traces: a stream fetches ahead in its direction after two steps and
 * stops at its page, a stride fetches one stride ahead after it repeats,
 * the adjacent rule completes a 128-byte pair on an L2 miss, and a prefetch
 * leaves a line a level already holds where it was. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <cmocka.h>
#include "prefetch.h"

#define LINE 64
#define PAGE 4096
#define SHIFT 6

static struct mb_prefetch *new_prefetch(unsigned int stream, bool stride, bool adjacent)
{
	const struct mb_prefetch_geometry g = { stream, stride, adjacent };
	struct mb_prefetch *p = mb_prefetch_new(&g, 2, SHIFT);

	assert_non_null(p);
	return p;
}

/* A demand access that hit L1D, by no instruction the stride rule follows. */
static unsigned int touch(struct mb_prefetch *p, int cpu, uint64_t paddr,
			  struct mb_prefetch_request *out)
{
	return mb_prefetch_train(p, cpu, 0, paddr, paddr, MB_L1D, out);
}

static void a_stream_fetches_ahead_after_two_steps(void **state)
{
	struct mb_prefetch *p = new_prefetch(2, false, false);
	struct mb_prefetch_request r[MB_PREFETCH_MAX];
	const uint64_t base = 0x10000;

	assert_int_equal(touch(p, 0, base, r), 0);
	assert_int_equal(touch(p, 0, base + 8, r), 0);		/* same line: no step */
	assert_int_equal(touch(p, 0, base + LINE, r), 0);	/* one step */
	assert_int_equal(touch(p, 0, base + 2 * LINE + 16, r), 2);
	assert_int_equal(r[0].paddr, base + 3 * LINE);
	assert_int_equal(r[1].paddr, base + 4 * LINE);
	assert_int_equal(r[0].into, MB_L1D);
	/* another vCPU has streams of its own */
	assert_int_equal(touch(p, 1, base + 3 * LINE, r), 0);
	/* a jump ends the stream; two steps down start one the other way */
	assert_int_equal(touch(p, 0, base + 40 * LINE, r), 0);
	assert_int_equal(touch(p, 0, base + 39 * LINE, r), 0);
	assert_int_equal(touch(p, 0, base + 38 * LINE, r), 2);
	assert_int_equal(r[0].paddr, base + 37 * LINE);
	assert_int_equal(r[1].paddr, base + 36 * LINE);
	mb_prefetch_free(p);
}

static void a_stream_stops_at_its_page(void **state)
{
	struct mb_prefetch *p = new_prefetch(4, false, false);
	struct mb_prefetch_request r[MB_PREFETCH_MAX];
	const uint64_t last = 0x20000 + PAGE - LINE;

	touch(p, 0, last - 2 * LINE, r);
	touch(p, 0, last - LINE, r);
	assert_int_equal(touch(p, 0, last, r), 0);
	/* forgotten after a flush */
	touch(p, 0, 0x30000, r);
	touch(p, 0, 0x30000 + LINE, r);
	mb_prefetch_flush(p);
	assert_int_equal(touch(p, 0, 0x30000 + 2 * LINE, r), 0);
	mb_prefetch_free(p);
}

static void a_repeated_stride_fetches_one_stride_ahead(void **state)
{
	struct mb_prefetch *p = new_prefetch(0, true, false);
	struct mb_prefetch_request r[MB_PREFETCH_MAX];
	const uint64_t pc = 0xffffffff81000010ull, other = pc + 4, v = 0xffffc90000010000ull;
	const uint64_t pa = 0x50000;

	assert_int_equal(mb_prefetch_train(p, 0, pc, v, pa, MB_L1D, r), 0);
	assert_int_equal(mb_prefetch_train(p, 0, pc, v + 256, pa + 256, MB_L1D, r), 0);
	/* another instruction does not break pc's stride */
	assert_int_equal(mb_prefetch_train(p, 0, other, v + 8, pa + 8, MB_L1D, r), 0);
	assert_int_equal(mb_prefetch_train(p, 0, pc, v + 512, pa + 512, MB_L2, r), 1);
	assert_int_equal(r[0].paddr, pa + 768);
	assert_int_equal(r[0].into, MB_L1D);
	/* a changed stride starts again */
	assert_int_equal(mb_prefetch_train(p, 0, pc, v + 640, pa + 640, MB_L1D, r), 0);
	/* pc 0: not trained */
	assert_int_equal(mb_prefetch_train(p, 0, 0, v + 768, pa + 768, MB_L1D, r), 0);
	mb_prefetch_free(p);
}

static void a_stride_fetches_nothing_too_far_or_in_its_own_line(void **state)
{
	struct mb_prefetch *p = new_prefetch(0, true, false);
	struct mb_prefetch_request r[MB_PREFETCH_MAX];
	const uint64_t pc = 0x1000, pa = 0x60000;

	/* 8-byte steps: nothing until the next step leaves the line */
	for (uint64_t off = 0; off < 56; off += 8)
		assert_int_equal(mb_prefetch_train(p, 0, pc, pa + off, pa + off, MB_L1D, r), 0);
	assert_int_equal(mb_prefetch_train(p, 0, pc, pa + 56, pa + 56, MB_L1D, r), 1);
	assert_int_equal(r[0].paddr, pa + 64);
	/* 4 KiB steps: past the largest stride and the page */
	for (uint64_t i = 0; i < 4; i++)
		assert_int_equal(mb_prefetch_train(p, 1, pc, pa + i * PAGE, pa + i * PAGE, MB_L1D,
						   r), 0);
	mb_prefetch_free(p);
}

static void an_l2_miss_completes_its_pair(void **state)
{
	struct mb_prefetch *p = new_prefetch(0, false, true);
	struct mb_prefetch_request r[MB_PREFETCH_MAX];

	assert_int_equal(mb_prefetch_train(p, 0, 0, 0, 0x70000 + LINE + 8, MB_L2, r), 0);
	assert_int_equal(mb_prefetch_train(p, 0, 0, 0, 0x70000 + LINE + 8, MB_LLC, r), 1);
	assert_int_equal(r[0].paddr & ~(uint64_t)(LINE - 1), 0x70000);
	assert_int_equal(r[0].into, MB_L2);
	assert_int_equal(mb_prefetch_train(p, 0, 0, 0, 0x70000, MB_MEMORY, r), 1);
	assert_int_equal(r[0].paddr, 0x70000 + LINE);
	mb_prefetch_free(p);
}

static void a_deeper_stream_than_supported_is_refused(void **state)
{
	const struct mb_prefetch_geometry g = { MB_PREFETCH_STREAM_MAX + 1, false, false };

	assert_null(mb_prefetch_new(&g, 1, SHIFT));
}

static void a_prefetch_is_waited_for_until_it_arrives_and_used_once(void **state)
{
	struct mb_prefetch_geometry g = { .stream = 1, .wait = { [MB_L2] = 20, [MB_MEMORY] = 300 } };
	struct mb_prefetch *p = mb_prefetch_new(&g, 2, SHIFT);

	assert_non_null(p);
	mb_prefetch_sent(p, 0, 0x1000, MB_MEMORY, 1000);
	mb_prefetch_sent(p, 0, 0x2040, MB_L2, 1000);
	assert_true(mb_prefetch_pending(p, 0, 0x1008));	/* any byte of the line */
	assert_false(mb_prefetch_pending(p, 1, 0x1000));	/* another vCPU's */
	assert_int_equal(mb_prefetch_use(p, 0, 0x1000, 1299), MB_MEMORY);
	assert_false(mb_prefetch_pending(p, 0, 0x1000));	/* used: forgotten */
	assert_int_equal(mb_prefetch_use(p, 0, 0x2040, 1020), MB_L1D);	/* arrived */
	/* a line of the same slot replaces the one before it */
	mb_prefetch_sent(p, 0, 0x3000, MB_MEMORY, 0);
	mb_prefetch_sent(p, 0, 0x3000 + 64 * LINE, MB_MEMORY, 0);
	assert_false(mb_prefetch_pending(p, 0, 0x3000));
	assert_int_equal(mb_prefetch_use(p, 0, 0x3000, 1), MB_L1D);
	mb_prefetch_free(p);
}

/* 2 sets of 2 ways at each level, the LLC 8 ways */
static struct mb_cache *tiny_cache(void)
{
	const struct mb_geometry g = { .size = { 4 * LINE, 8 * LINE, 32 * LINE },
				       .ways = { 2, 2, 8 }, .line = LINE };
	const char *why;
	struct mb_cache *c = mb_cache_new(&g, 1, &why);

	assert_non_null(c);
	return c;
}

static void a_prefetched_line_is_a_hit_where_it_was_put(void **state)
{
	struct mb_cache *c = tiny_cache();

	assert_int_equal(mb_cache_prefetch(c, 0, 0x1000, MB_L1D), MB_MEMORY);
	assert_int_equal(mb_cache_access(c, 0, 0x1000), MB_L1D);
	assert_int_equal(mb_cache_prefetch(c, 0, 0x2000, MB_L2), MB_MEMORY);
	assert_int_equal(mb_cache_access(c, 0, 0x2000), MB_L2);
	/* a line the level has: nothing fetched */
	assert_int_equal(mb_cache_prefetch(c, 0, 0x1000, MB_L1D), MB_L1D);
	mb_cache_free(c);
}

static void a_prefetch_of_a_held_line_keeps_its_place(void **state)
{
	struct mb_cache *c = tiny_cache();
	/* three lines of one L1 set (set = line % 2: even lines) */
	const uint64_t a = 0 * LINE, b = 2 * LINE, d = 4 * LINE;

	mb_cache_access(c, 0, a);
	mb_cache_access(c, 0, b);		/* a is the set's LRU line now */
	mb_cache_prefetch(c, 0, a, MB_L1D);	/* held: not made MRU */
	mb_cache_access(c, 0, d);		/* evicts a, not b */
	assert_int_equal(mb_cache_access(c, 0, b), MB_L1D);
	assert_int_not_equal(mb_cache_access(c, 0, a), MB_L1D);
	mb_cache_free(c);
}

static void a_prefetch_into_the_last_lines_set_is_seen_next_access(void **state)
{
	struct mb_cache *c = tiny_cache();
	const uint64_t a = 0 * LINE, b = 2 * LINE, d = 4 * LINE;

	mb_cache_access(c, 0, a);
	mb_cache_access(c, 0, b);
	mb_cache_access(c, 0, a);		/* a MRU, b LRU, a the last line */
	mb_cache_prefetch(c, 0, d, MB_L1D);	/* evicts b; d MRU, a LRU */
	mb_cache_access(c, 0, a);		/* must make a MRU again */
	mb_cache_prefetch(c, 0, b, MB_L1D);	/* evicts d, not a */
	mb_cache_access(c, 0, 1 * LINE);	/* the other set: a is not the last line */
	assert_int_equal(mb_cache_access(c, 0, a), MB_L1D);
	mb_cache_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_stream_fetches_ahead_after_two_steps),
		cmocka_unit_test(a_stream_stops_at_its_page),
		cmocka_unit_test(a_repeated_stride_fetches_one_stride_ahead),
		cmocka_unit_test(a_stride_fetches_nothing_too_far_or_in_its_own_line),
		cmocka_unit_test(an_l2_miss_completes_its_pair),
		cmocka_unit_test(a_deeper_stream_than_supported_is_refused),
		cmocka_unit_test(a_prefetch_is_waited_for_until_it_arrives_and_used_once),
		cmocka_unit_test(a_prefetched_line_is_a_hit_where_it_was_put),
		cmocka_unit_test(a_prefetch_of_a_held_line_keeps_its_place),
		cmocka_unit_test(a_prefetch_into_the_last_lines_set_is_seen_next_access),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
