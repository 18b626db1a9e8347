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

/* 1..100 in any order: p50 is element 50 (51), p90 91, p99 100, as the
 * kernel's percentile() picks them; nothing is outside 1.5 IQR. */
static void batch_percentiles_of_known_times(void **state)
{
	double v[100];
	struct batch_stats b;

	for (int i = 0; i < 100; i++)
		v[i] = 100 - i;
	batch_stats_of(v, 100, &b);
	assert_float_equal(b.p50, 51, 0);
	assert_float_equal(b.p90, 91, 0);
	assert_float_equal(b.p99, 100, 0);
	assert_float_equal(b.min, 1, 0);
	assert_float_equal(b.max, 100, 0);
	assert_int_equal(b.iqr_n, 100);
	assert_float_equal(b.iqr_median, 51, 0);
}

/* Two slow batches among 1..100: q1 26, q3 77, so above 153.5 is dropped
 * from the kernel's figures, while p99 and max keep the tail. */
static void the_iqr_filter_drops_outliers_the_tail_keeps_them(void **state)
{
	double v[102];
	struct batch_stats b;

	for (int i = 0; i < 100; i++)
		v[i] = i + 1;
	v[100] = 2000, v[101] = 1000;
	batch_stats_of(v, 102, &b);
	assert_int_equal(b.iqr_n, 100);
	assert_float_equal(b.iqr_max, 100, 0);
	assert_float_equal(b.iqr_median, 51, 0);
	assert_float_equal(b.iqr_p99, 100, 0);
	assert_float_equal(b.iqr_cv, sqrt(100 * 101 / 12.0) / 50.5 * 100, 1e-9);
	assert_float_equal(b.p99, 1000, 0);
	assert_float_equal(b.max, 2000, 0);
	batch_stats_of(v, 0, &b);
	assert_true(isnan(b.p50) && b.n == 0);
}

/* A ring record is ns and ops in one word; a run keeps at most BATCH_KEEP
 * batches, a uniform sample of all it read. */
static void batch_records_and_the_reservoir(void **state)
{
	static double v[200000];
	struct batch_record r = { 0 };
	double sum = 0;

	assert_float_equal(batch_ns_per_op(4096 | 8ULL << BATCH_NS_BITS), 512, 0);
	assert_true(isnan(batch_ns_per_op(4096)));
	for (int i = 0; i < 200000; i++)
		v[i] = i;
	for (int at = 0; at < 200000; at += 50000)
		assert_int_equal(batch_record_add(&r, v + at, 50000, 60000), 0);
	assert_int_equal(r.n_kept, BATCH_KEEP);
	assert_int_equal(r.seen, 200000);
	assert_int_equal(r.ran, 240000);
	for (long i = 0; i < r.n_kept; i++)
		sum += r.kept[i];
	/* a uniform sample's mean: 99999.5, sd about 190 here */
	assert_float_equal(sum / r.n_kept, 99999.5, 2000);
	batch_record_free(&r);
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
		cmocka_unit_test(batch_percentiles_of_known_times),
		cmocka_unit_test(the_iqr_filter_drops_outliers_the_tail_keeps_them),
		cmocka_unit_test(batch_records_and_the_reservoir),
	};
	return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
