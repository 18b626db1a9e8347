/* SPDX-License-Identifier: GPL-2.0 */
/* Per-batch in-kernel times: the ns per operation of each batch a producer
 * ran (progs/common.bpf.h records them), kept for percentiles. */
#ifndef MAPBENCH_BATCHES_H
#define MAPBENCH_BATCHES_H
#include <stddef.h>
#include <linux/types.h>

/* Batches a run keeps for its percentiles: a uniform sample (reservoir) of
 * the measured ones beyond this. */
#define BATCH_KEEP (1 << 16)

/* Statistics of batch times, ns per operation. */
struct batch_stats {
	long n;				/* batches they are over */
	double p50, p90, p99, min, max;	/* of every batch: the tail as it is */
	/* The kernel's bench_bpf_timing.c: batches outside [q1 - 1.5 IQR,
	 * q3 + 1.5 IQR] dropped, then the median (element n/2), stddev, CV (%),
	 * p99 (element n x 0.99), min and max of the rest. */
	long iqr_n;
	double iqr_median, iqr_stddev, iqr_cv, iqr_min, iqr_p99, iqr_max;
};

/* A run's batches: the sample kept and how many there were. */
struct batch_record {
	double *kept;	/* ns/op, at most BATCH_KEEP */
	long n_kept;
	long seen;	/* measured batches whose times were read */
	long ran;	/* measured batches the producers ran */
	unsigned short rng[3];
};

/* ns per operation of a ring record (bench_shared.h's layout); NAN for
 * a batch of no operations. */
double batch_ns_per_op(__u64 rec);

/* The producers' batch rings (progs/common.bpf.h's batch_times), mapped
 * read-only; words NULL where the run records none. */
struct batch_ring {
	const __u64 *words;
	size_t bytes;
};
/* Map the rings of map fd for producers; 0 or -errno. */
int batch_ring_map(struct batch_ring *r, int fd, int producers);
void batch_ring_unmap(struct batch_ring *r);
/* ns per op of producer prod's runs [first, end) into out; how many (a
 * batch of no operations gives none). */
long batch_ring_read(const struct batch_ring *r, int prod, __u64 first, __u64 end, double *out);
/* Sorts v[0..n) and fills out; every field NAN (n 0) when n is 0. */
void batch_stats_of(double *v, long n, struct batch_stats *out);
/* Keep v[0..n) of a measured interval in which the producers ran ran
 * batches: into the reservoir, a uniform sample of all measured ones. */
int batch_record_add(struct batch_record *r, const double *v, long n, long ran);
void batch_record_free(struct batch_record *r);

#endif
