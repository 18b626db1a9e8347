/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MAPBENCH_STATS_H
#define MAPBENCH_STATS_H
#include "sampler.h"

struct summary {
	int n;
	double mean, stddev, median, min, max;
	double cv;		/* stddev / mean */
};

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
};

/* Sample statistics (stddev with n - 1); NAN fields when n == 0. */
void summarize(const double *x, int n, struct summary *out);
/* Summary over the samples that are not warmup and measured something. */
void summarize_run(const struct samples *s, struct run_summary *out);

#endif
