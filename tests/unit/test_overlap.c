// SPDX-License-Identifier: GPL-2.0
/* Overlapping misses (plugin/overlap.c) on fixed traces: independent misses
 * inside the reorder window hide behind the first, a chased pointer does
 * not, nor a miss past the window, beyond the MSHRs, deeper than what is in
 * flight, or on another vCPU. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <cmocka.h>
#include "overlap.h"

#define ROB 100
#define PAGE 4096

static struct mb_overlap *new_overlap(unsigned int mshr)
{
	const struct mb_overlap_geometry g = { .rob = ROB, .mshr = mshr };
	struct mb_overlap *o = mb_overlap_new(&g, 2);

	assert_non_null(o);
	return o;
}

static void independent_misses_in_the_window_hide_behind_the_first(void **state)
{
	struct mb_overlap *o = new_overlap(4);

	assert_false(mb_overlap_miss(o, 0, 1000, 0x10000, 0, MB_MEMORY));
	assert_true(mb_overlap_miss(o, 0, 1050, 0x50000, 0, MB_MEMORY));
	assert_true(mb_overlap_miss(o, 0, 1099, 0x90000, 0, MB_LLC));
	/* past the window of every miss in flight: it pays */
	assert_false(mb_overlap_miss(o, 0, 1200, 0xa0000, 0, MB_MEMORY));
	mb_overlap_free(o);
}

static void a_chased_pointer_waits_for_the_load_that_gave_it(void **state)
{
	struct mb_overlap *o = new_overlap(8);

	/* a bucket's head pointer, then the element it points to */
	assert_false(mb_overlap_miss(o, 0, 1000, 0x10000, 0x70000, MB_MEMORY));
	assert_false(mb_overlap_miss(o, 0, 1010, 0x70000 + 24, 0, MB_MEMORY));
	assert_false(mb_overlap_miss(o, 0, 1020, 0x70000 + PAGE - 8, 0, MB_MEMORY));
	assert_false(mb_overlap_miss(o, 0, 1030, 0x70000 - 64, 0, MB_MEMORY));	/* container_of */
	assert_true(mb_overlap_miss(o, 0, 1040, 0x70000 + PAGE, 0, MB_MEMORY));
	mb_overlap_free(o);
}

static void a_miss_hides_only_behind_one_as_long(void **state)
{
	struct mb_overlap *o = new_overlap(4);

	assert_false(mb_overlap_miss(o, 0, 1000, 0x10000, 0, MB_L2));
	assert_false(mb_overlap_miss(o, 0, 1010, 0x20000, 0, MB_MEMORY));
	assert_true(mb_overlap_miss(o, 0, 1020, 0x30000, 0, MB_L2));
	mb_overlap_free(o);
}

static void misses_past_the_mshrs_wait(void **state)
{
	struct mb_overlap *o = new_overlap(2);

	assert_false(mb_overlap_miss(o, 0, 1000, 0x10000, 0, MB_MEMORY));
	assert_true(mb_overlap_miss(o, 0, 1001, 0x20000, 0, MB_MEMORY));
	assert_false(mb_overlap_miss(o, 0, 1002, 0x30000, 0, MB_MEMORY));	/* two in flight */
	mb_overlap_free(o);
}

static void each_vcpu_has_its_own_misses_in_flight(void **state)
{
	struct mb_overlap *o = new_overlap(4);

	assert_false(mb_overlap_miss(o, 0, 1000, 0x10000, 0, MB_MEMORY));
	assert_false(mb_overlap_miss(o, 1, 1001, 0x20000, 0, MB_MEMORY));
	mb_overlap_flush(o);
	assert_false(mb_overlap_miss(o, 0, 1002, 0x30000, 0, MB_MEMORY));
	mb_overlap_free(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(independent_misses_in_the_window_hide_behind_the_first),
		cmocka_unit_test(a_chased_pointer_waits_for_the_load_that_gave_it),
		cmocka_unit_test(a_miss_hides_only_behind_one_as_long),
		cmocka_unit_test(misses_past_the_mshrs_wait),
		cmocka_unit_test(each_vcpu_has_its_own_misses_in_flight),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
