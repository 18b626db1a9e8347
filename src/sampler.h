/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MAPBENCH_SAMPLER_H
#define MAPBENCH_SAMPLER_H
#include <signal.h>
#include "bench.h"
#include "producer.h"

/* One producer's work in one sampling interval. */
struct prod_delta {
	__u64 ops, ns, hits, misses;
};

struct sample {
	bool warmup;
	double interval_ns;	/* measured wall-clock length of the interval */
	__u64 ops, ns, hits, misses;
	double mops;		/* sum over producers of ops / in-kernel time */
	double latency_ns;	/* in-kernel time per operation */
	long long memlock;	/* map memory at the end of the interval, or -1 */
	long long charged;	/* bytes charged to the bench's cgroup, or -1 */
	struct prod_delta *prod;
};

struct samples {
	struct sample *v;
	int n, cap, nprod;
	__u64 errs[ERRNO_SLOTS];	/* by errno, over the whole run */
	bool interrupted;
};

extern volatile sig_atomic_t stop_requested;
/* SIGINT and SIGTERM set stop_requested; sleeps are interrupted, not restarted. */
void sampler_install_signals(void);
/* Take warmup + duration one-second samples; stops early on a signal or a
 * producer failure. Prints an Iter line per sample unless quiet. */
int sampler_run(struct run *run, struct producers *prods, struct samples *out);
/* Fold one interval's per-producer deltas into s's totals and rates. */
void sample_finish(struct sample *s, int nprod);
void samples_free(struct samples *s);

#endif
