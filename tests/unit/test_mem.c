// SPDX-License-Identifier: GPL-2.0
/* The arithmetic behind bytes per element. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "mem.h"

static void small_size_keeps_the_bucket_count(void **state)
{
	assert_int_equal(mem_small_size(1000000), 524289);	/* both round up to 2^20 */
	assert_int_equal(mem_small_size(1 << 20), (1 << 19) + 1);
	assert_int_equal(mem_small_size(100000), 65537);
}

static void fit_through_two_points(void **state)
{
	double slope, fixed;

	/* 64 B per element on top of 16 MiB of buckets */
	two_point_fit(524289, 16777216 + 64.0 * 524289, 1000000, 16777216 + 64.0 * 1000000,
		      &slope, &fixed);
	assert_float_equal(slope, 64, 1e-9);
	assert_float_equal(fixed, 16777216, 1e-3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(small_size_keeps_the_bucket_count),
		cmocka_unit_test(fit_through_two_points),
	};
	return cmocka_run_group_tests_name("mem", tests, NULL, NULL);
}
