// SPDX-License-Identifier: GPL-2.0
/* Statistics over samples: known answers. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <cmocka.h>
#include "stats.h"

static void summary_of_known_values(void **state)
{
	double x[] = { 4, 1, 3, 2 };
	struct summary s;

	summarize(x, 4, &s);
	assert_int_equal(s.n, 4);
	assert_float_equal(s.mean, 2.5, 1e-12);
	assert_float_equal(s.stddev, sqrt(5.0 / 3.0), 1e-12);	/* n - 1 */
	assert_float_equal(s.median, 2.5, 1e-12);
	assert_float_equal(s.min, 1, 0);
	assert_float_equal(s.max, 4, 0);
	assert_float_equal(s.cv, sqrt(5.0 / 3.0) / 2.5, 1e-12);
	assert_float_equal(x[0], 4, 0);	/* input left unsorted */
}

static void summary_of_one_and_none(void **state)
{
	double x[] = { 7 };
	struct summary s;

	summarize(x, 1, &s);
	assert_float_equal(s.mean, 7, 0);
	assert_float_equal(s.stddev, 0, 0);
	assert_float_equal(s.median, 7, 0);
	summarize(NULL, 0, &s);
	assert_true(isnan(s.mean) && isnan(s.stddev) && isnan(s.median));
}

/* Throughput is the sum of each producer's own rate, not total ops over total time. */
static void sample_rates_per_producer(void **state)
{
	struct prod_delta d[2] = { { .ops = 1000, .ns = 1000 }, { .ops = 1000, .ns = 4000 } };
	struct sample s = { .prod = d };

	sample_finish(&s, 2);
	assert_int_equal(s.ops, 2000);
	assert_int_equal(s.ns, 5000);
	assert_float_equal(s.mops, 1000 + 250, 1e-9);	/* 1 op/ns + 0.25 op/ns, in M ops/s */
	assert_float_equal(s.latency_ns, 2.5, 1e-12);
}

static void run_summary_drops_warmup(void **state)
{
	struct prod_delta d[3] = { { 100, 100, 10, 0 }, { 200, 100, 10, 10 }, { 400, 100, 0, 20 } };
	struct sample v[3] = { { .warmup = true, .interval_ns = 1e9, .prod = &d[0] },
			       { .interval_ns = 1e9, .prod = &d[1] },
			       { .interval_ns = 1e9, .prod = &d[2] } };
	struct samples s = { .v = v, .n = 3, .nprod = 1 };
	struct run_summary sum;

	for (int i = 0; i < 3; i++)
		sample_finish(&v[i], 1);
	s.errs[12] = 3;
	summarize_run(&s, &sum);
	assert_int_equal(sum.n, 2);
	assert_float_equal(sum.mops.mean, (2000 + 4000) / 2.0, 1e-9);
	assert_int_equal(sum.ops, 600);
	assert_float_equal(sum.hit_rate, 10.0 / 40.0, 1e-12);
	assert_float_equal(sum.duty, 200 / 2e9, 1e-15);
	assert_int_equal(sum.errors, 3);
}

/* An interval in which nothing completed (a slow free) is no sample of 0. */
static void empty_intervals_are_skipped(void **state)
{
	struct prod_delta d[3] = { { 2, 4000000 }, { 0, 0 }, { 1, 3000000 } };
	struct sample v[3] = { { .interval_ns = 1e9, .prod = &d[0] },
			       { .interval_ns = 1e9, .prod = &d[1] },
			       { .interval_ns = 1e9, .prod = &d[2] } };
	struct samples s = { .v = v, .n = 3, .nprod = 1 };
	struct run_summary sum;

	for (int i = 0; i < 3; i++)
		sample_finish(&v[i], 1);
	assert_true(isnan(v[1].mops) && isnan(v[1].latency_ns));
	summarize_run(&s, &sum);
	assert_int_equal(sum.n, 2);
	assert_int_equal(sum.empty, 1);
	assert_float_equal(sum.latency_ns.mean, (2e6 + 3e6) / 2, 1e-6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(summary_of_known_values),
		cmocka_unit_test(summary_of_one_and_none),
		cmocka_unit_test(sample_rates_per_producer),
		cmocka_unit_test(run_summary_drops_warmup),
		cmocka_unit_test(empty_intervals_are_skipped),
	};
	return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
