/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MAPBENCH_SAMPLER_H
#define MAPBENCH_SAMPLER_H
#include "batches.h"
#include "bench.h"
#include "producer.h"

/* One producer's work in one sampling interval. */
struct prod_delta {
	__u64 ops, ns, hits, misses, runs;
	__u64 wall_events, wall_ns;	/* timed by the task itself (rounds) */
};

struct sample {
	bool warmup;
	double interval_ns;	/* measured wall-clock length of the interval */
	__u64 ops, ns, hits, misses, runs;
	double mops;		/* throughput: all producers' ops / the wall interval */
	double kmops_prod;	/* mean over producers of ops / in-kernel time */
	double latency_ns;	/* in-kernel time per operation */
	double figure;		/* the benchmark's figure, in its unit (figure_of) */
	long long memlock;	/* map memory at the end of the interval, or -1 */
	long long charged;	/* bytes charged to the bench's cgroup, or -1 */
	long long charged_peak;	/* the cgroup's peak so far, or -1 */
	struct batch_stats batch;	/* the interval's batches read (n 0: none) */
	long batches_ran;		/* ... of the batches run in it */
	struct prod_delta *prod;
};

struct samples {
	struct sample *v;
	int n, cap, nprod;
	__u64 errs[ERRNO_SLOTS];	/* by errno, over the whole run */
	struct prod_counters *last;	/* every producer's counters at the end, or NULL */
	struct batch_record batches;	/* the measured batches' times, a sample */
	bool interrupted;
};

/* --batch auto: the time a batch is sized to take, as the kernel's timing
 * library's (bench_bpf_timing.c). */
#define CALIBRATE_TARGET_NS 10e6

/* Take warmup + duration one-second samples; stops early on a signal or a
 * producer failure. Prints an Iter line per sample unless quiet. */
int sampler_run(struct run *run, struct producers *prods, struct samples *out);
/* Fold one interval's per-producer deltas into s's totals, rates and the
 * benchmark's figure; s->interval_ns must be set, and s->batch where the
 * figure is over the batches. */
void sample_finish(struct sample *s, int nprod, const struct bench *b);
void samples_free(struct samples *s);

#endif
