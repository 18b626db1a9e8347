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

/* Throughput is what the machine delivered: all ops over the wall interval;
 * the per-producer in-kernel rate is a figure of its own. */
static void sample_rates_per_producer(void **state)
{
	struct prod_delta d[2] = { { .ops = 1000, .ns = 1000 }, { .ops = 1000, .ns = 4000 } };
	struct sample s = { .prod = d, .interval_ns = 1e6 };

	sample_finish(&s, 2, bench_find("htab-lookup", NULL));
	assert_int_equal(s.ops, 2000);
	assert_int_equal(s.ns, 5000);
	assert_float_equal(s.mops, 2000 * 1e3 / 1e6, 1e-9);	/* 2000 ops in 1 ms: 2 M ops/s */
	assert_float_equal(s.kmops_prod, (1000 + 250) / 2.0, 1e-9);
	assert_float_equal(s.latency_ns, 2.5, 1e-12);
	assert_float_equal(s.figure, s.mops, 1e-12);
}

/* Each benchmark's figure in its kernel bench's unit. */
static void figures_follow_the_kernel_benches(void **state)
{
	struct prod_delta d[2] = { { .ops = 6400, .ns = 100000, .runs = 100 },
				   { .ops = 6400, .ns = 400000, .runs = 100 } };
	struct sample s = { .prod = d, .interval_ns = 1e9 };

	/* htab-mem: runs per producer per wall second, in k/s */
	sample_finish(&s, 2, bench_find("htab-mem-overwrite", NULL));
	assert_float_equal(s.figure, 100 / 1e3, 1e-9);
	/* batch_add_batch_del counts 2 per run */
	sample_finish(&s, 2, bench_find("htab-mem-batch_add_batch_del", NULL));
	assert_float_equal(s.figure, 200 / 1e3, 1e-9);
	/* bpf-hashmap-*: M events/s of in-kernel time, per producer */
	sample_finish(&s, 2, bench_find("bpf-hashmap-full-update", NULL));
	assert_float_equal(s.figure, (64 + 16) / 2.0, 1e-9);
	/* lpm-trie-delete: all ops over all in-kernel time */
	sample_finish(&s, 2, bench_find("lpm-trie-delete", NULL));
	assert_float_equal(s.figure, 12800 * 1e3 / 500000, 1e-9);
	/* lpm-trie-free: K ops/s */
	sample_finish(&s, 2, bench_find("lpm-trie-free", NULL));
	assert_float_equal(s.figure, 12800 * 1e3 / 500000 * 1e3, 1e-6);
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
		sample_finish(&v[i], 1, bench_find("htab-lookup", NULL));
	s.errs[12] = 3;
	summarize_run(&s, &sum);
	assert_int_equal(sum.n, 2);
	assert_float_equal(sum.mops.mean, (200 + 400) / 2.0 * 1e3 / 1e9, 1e-15);	/* per wall s */
	assert_float_equal(sum.kmops_prod.mean, (2000 + 4000) / 2.0, 1e-9);
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
		sample_finish(&v[i], 1, bench_find("htab-lookup", NULL));
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
		cmocka_unit_test(figures_follow_the_kernel_benches),
		cmocka_unit_test(run_summary_drops_warmup),
		cmocka_unit_test(empty_intervals_are_skipped),
	};
	return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
