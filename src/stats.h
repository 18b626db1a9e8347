/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MAPBENCH_STATS_H
#define MAPBENCH_STATS_H
#include "sampler.h"

struct summary {
	int n;
	double mean, stddev, median, min, max;
	double cv;		/* stddev / mean */
};

/* The producers of one role (readers or writers) and what they did. */
struct role_summary {
	int lo, hi;		/* producers [lo, hi) */
	struct summary mops;	/* the role's throughput over wall time, M ops/s */
	struct summary latency_ns;	/* its in-kernel time per operation */
	__u64 ops, hits, misses;
	double hit_rate;	/* NAN when it made no operation that can miss */
};

#define KERNEL_LINES_MAX 16384

struct run_summary {
	int n;			/* measured (post-warmup) samples */
	int empty;		/* post-warmup samples in which nothing completed */
	struct summary mops;	/* throughput over wall time, M ops/s */
	struct summary kmops_prod;	/* per-producer rate over in-kernel time, M ops/s */
	struct summary latency_ns;
	struct summary figure;	/* the benchmark's figure, in its unit */
	double mops_per_prod;
	__u64 ops, hits, misses, errors;
	__u64 runs;		/* program runs (for --trigger nic: packets) */
	double measured_s;	/* wall time of the measured samples, empty ones included */
	__u64 prod_runs[MAX_PRODUCERS];	/* program runs per producer (nic: per CPU) */
	double hit_rate;	/* hits / (hits + misses); NAN when nothing was looked up */
	double duty;		/* share of producer wall time spent in timed operations */
	double memlock_avg, memlock_peak;	/* bytes; NAN when not tracked */
	double charged_peak;			/* the largest sample */
	struct summary charged;			/* the cgroup's charge per sample */
	double cgroup_peak;			/* the cgroup's own peak (setup included) */
	struct batch_stats batches;		/* the measured batches kept (n 0: none) */
	long batches_seen, batches_ran;		/* measured batches read, and run */
	int nroles;				/* 2 with readers and writers, else 0 */
	struct role_summary roles[2];		/* readers, then writers */
	/* The kernel bench's own final lines, in its format and with its
	 * aggregation, one per line, for rows whose peer prints some
	 * (src/peers/); nr_kernel_lines 0 for the others. */
	char kernel_lines[KERNEL_LINES_MAX];
	int nr_kernel_lines;
};

/* Sample statistics (stddev with n - 1); NAN fields when n == 0. */
void summarize(const double *x, int n, struct summary *out);
/* Summary over the samples that are not warmup and measured something. */
void summarize_run(const struct samples *s, struct run_summary *out);
/* Readers (the first nprod - writers producers) and writers, each over the
 * samples summarize_run() measured; no roles when writers is 0. */
void summarize_roles(const struct samples *s, int writers, struct run_summary *out);
/* The kernel bench's own final lines (its peer's) of the run, into sum. */
void summarize_kernel_lines(const struct run *run, const struct samples *s,
			    struct run_summary *sum);

#endif
