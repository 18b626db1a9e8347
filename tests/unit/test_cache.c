// SPDX-License-Identifier: GPL-2.0
/* The cache model's simulator (plugin/cache.c) on fixed address traces: known
 * hits and misses per level, LRU order, a shared LLC, and a long random trace
 * against a naive reference hierarchy. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <cmocka.h>
#include "cache.h"

#define LINE 64
/* L1D 2 sets x 2 ways, L2 4 x 2, LLC 8 x 2: small enough to reason about. */
static const struct mb_geometry tiny = {
	.size = { 4 * LINE, 8 * LINE, 16 * LINE }, .ways = { 2, 2, 2 }, .line = LINE,
};

static struct mb_cache *new_cache(const struct mb_geometry *g, int ncpus)
{
	const char *why;
	struct mb_cache *c = mb_cache_new(g, ncpus, &why);

	assert_non_null(c);
	return c;
}

static enum mb_level touch(struct mb_cache *c, int cpu, uint64_t line)
{
	return mb_cache_access(c, cpu, line * LINE + 8);
}

static void a_line_misses_once_then_hits(void **state)
{
	struct mb_cache *c = new_cache(&tiny, 1);

	assert_int_equal(touch(c, 0, 5), MB_MEMORY);
	assert_int_equal(touch(c, 0, 5), MB_L1D);
	assert_int_equal(mb_cache_access(c, 0, 5 * LINE + LINE - 1), MB_L1D);
	assert_int_equal(mb_cache_access(c, 0, 6 * LINE), MB_MEMORY);
	mb_cache_free(c);
}

static void l1_evicts_its_least_recently_used_line(void **state)
{
	struct mb_cache *c = new_cache(&tiny, 1);

	/* Lines 0, 2 and 4 share L1 set 0 (two ways); L2 keeps 0 and 4 in its set 0. */
	touch(c, 0, 0);
	touch(c, 0, 2);
	touch(c, 0, 4);				/* evicts 0 from L1 */
	assert_int_equal(touch(c, 0, 0), MB_L2);	/* evicts 2 from L1 */
	assert_int_equal(touch(c, 0, 4), MB_L1D);
	assert_int_equal(touch(c, 0, 2), MB_L2);	/* L2 set 2 still has it */
	mb_cache_free(c);
}

static void l2_misses_reach_the_llc(void **state)
{
	struct mb_cache *c = new_cache(&tiny, 1);

	/* Lines 0, 4, 8 share L2 set 0; the LLC (8 sets) holds 0 and 8 in set 0. */
	touch(c, 0, 0);
	touch(c, 0, 4);
	touch(c, 0, 8);
	assert_int_equal(touch(c, 0, 0), MB_LLC);
	/* Lines 0, 8, 16 share LLC set 0: 16 evicts 8 (LRU after 0 came back). */
	touch(c, 0, 16);
	touch(c, 0, 1);		/* other sets: pushes nothing out of set 0 */
	assert_int_equal(touch(c, 0, 8), MB_MEMORY);
	mb_cache_free(c);
}

static void the_llc_is_shared_and_the_rest_private(void **state)
{
	struct mb_cache *c = new_cache(&tiny, 2);

	assert_int_equal(touch(c, 0, 3), MB_MEMORY);
	assert_int_equal(touch(c, 1, 3), MB_LLC);
	assert_int_equal(touch(c, 1, 3), MB_L1D);
	assert_int_equal(touch(c, 0, 3), MB_L1D);
	mb_cache_free(c);
}

static void a_flush_empties_every_level(void **state)
{
	struct mb_cache *c = new_cache(&tiny, 2);

	touch(c, 0, 3);
	touch(c, 1, 3);
	mb_cache_flush(c);
	assert_int_equal(touch(c, 1, 3), MB_MEMORY);
	assert_int_equal(touch(c, 0, 3), MB_LLC);
	mb_cache_free(c);
}

static void a_geometry_without_power_of_two_sets_is_refused(void **state)
{
	struct mb_geometry g = tiny;
	const char *why = NULL;

	g.size[MB_LLC] = 12 * LINE;	/* 6 sets */
	assert_null(mb_cache_new(&g, 1, &why));
	assert_non_null(why);
	g = tiny;
	g.line = 48;
	assert_null(mb_cache_new(&g, 1, &why));
}

/* A naive hierarchy: each cache a list of lines per set, MRU first, searched
 * and shifted element by element; the same policy written the slow way. */
struct ref_cache {
	uint64_t lines[64][8];
	int used[64], sets, ways;
};

static void ref_touch(struct ref_cache *r, uint64_t line)
{
	uint64_t *set = r->lines[line % r->sets];
	int *used = &r->used[line % r->sets], at = -1;

	for (int w = 0; w < *used; w++)
		if (set[w] == line)
			at = w;
	if (at < 0 && *used < r->ways)
		at = (*used)++;
	else if (at < 0)
		at = r->ways - 1;
	for (int w = at; w > 0; w--)
		set[w] = set[w - 1];
	set[0] = line;
}

static bool ref_has(struct ref_cache *r, uint64_t line)
{
	for (int w = 0; w < r->used[line % r->sets]; w++)
		if (r->lines[line % r->sets][w] == line)
			return true;
	return false;
}

static void random_traces_match_a_naive_hierarchy(void **state)
{
	const struct mb_geometry g = {
		.size = { 8 * LINE, 32 * LINE, 128 * LINE }, .ways = { 2, 4, 8 }, .line = LINE,
	};
	struct ref_cache ref[2][3] = {
		{ { .sets = 4, .ways = 2 }, { .sets = 8, .ways = 4 }, { .sets = 16, .ways = 8 } },
		{ { .sets = 4, .ways = 2 }, { .sets = 8, .ways = 4 } },
	};
	struct mb_cache *c = new_cache(&g, 2);
	unsigned int seed = 1, counts[MB_LEVELS + 1] = { 0 };

	for (int i = 0; i < 200000; i++) {
		int cpu = rand_r(&seed) % 2;
		/* mostly a small working set, sometimes a far line */
		uint64_t line = rand_r(&seed) % 4 ? rand_r(&seed) % 48 : rand_r(&seed) % 4096;
		enum mb_level want = MB_MEMORY;
		struct ref_cache *levels[3] = { &ref[cpu][0], &ref[cpu][1], &ref[0][2] };

		for (int l = 0; l < MB_LEVELS; l++)
			if (ref_has(levels[l], line)) {
				want = l;
				break;
			}
		for (int l = 0; l <= (want == MB_MEMORY ? MB_LLC : (int)want); l++)
			ref_touch(levels[l], line);
		assert_int_equal(mb_cache_access(c, cpu, line * LINE), want);
		counts[want]++;
	}
	/* the trace exercised every outcome */
	for (int l = 0; l <= MB_MEMORY; l++)
		assert_true(counts[l] > 1000);
	mb_cache_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_line_misses_once_then_hits),
		cmocka_unit_test(l1_evicts_its_least_recently_used_line),
		cmocka_unit_test(l2_misses_reach_the_llc),
		cmocka_unit_test(the_llc_is_shared_and_the_rest_private),
		cmocka_unit_test(a_flush_empties_every_level),
		cmocka_unit_test(a_geometry_without_power_of_two_sets_is_refused),
		cmocka_unit_test(random_traces_match_a_naive_hierarchy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
