// SPDX-License-Identifier: GPL-2.0
/* Per-batch in-kernel times: the rings they are read from, percentiles,
 * the kernel's IQR-filtered figures, and the reservoir a run keeps. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include "batches.h"
#include "bench_shared.h"

double batch_ns_per_op(__u64 rec)
{
	__u64 ops = rec >> BATCH_NS_BITS, ns = rec & ((1ULL << BATCH_NS_BITS) - 1);

	return ops ? (double)ns / ops : NAN;
}

int batch_ring_map(struct batch_ring *r, int fd, int producers)
{
	void *words;

	r->bytes = (size_t)producers * BATCH_RING * sizeof(__u64);
	words = mmap(NULL, r->bytes, PROT_READ, MAP_SHARED, fd, 0);
	if (words == MAP_FAILED)
		return -errno;
	r->words = words;
	return 0;
}

void batch_ring_unmap(struct batch_ring *r)
{
	if (r->words)
		munmap((void *)r->words, r->bytes);
	r->words = NULL;
}

long batch_ring_read(const struct batch_ring *r, int prod, __u64 first, __u64 end, double *out)
{
	const __u64 *ring = r->words ? r->words + (size_t)prod * BATCH_RING : NULL;
	long n = 0;

	for (__u64 i = first; ring && i < end; i++) {
		double v = batch_ns_per_op(ring[i % BATCH_RING]);

		if (!isnan(v))
			out[n++] = v;
	}
	return n;
}

/* Element floor(n x q) of sorted v, the last for q near 1: the kernel's
 * percentile (nearest rank from below), so our figures and its agree. */
static double rank(const double *v, long n, double q)
{
	long i = (long)(n * q);

	return v[i < n ? i : n - 1];
}

/* The kernel's filter: keeps [q1 - 1.5 IQR, q3 + 1.5 IQR] of sorted v,
 * q1 and q3 the elements n/4 and 3n/4; fewer than 8 are kept whole. */
static void iqr_range(const double *v, long n, long *lo, long *hi)
{
	double q1 = v[n / 4], q3 = v[3 * n / 4], iqr = q3 - q1;

	*lo = 0, *hi = n;
	if (n < 8)
		return;
	while (*lo < *hi && v[*lo] < q1 - 1.5 * iqr)
		(*lo)++;
	while (*hi > *lo && v[*hi - 1] > q3 + 1.5 * iqr)
		(*hi)--;
}

void batch_stats_of(double *v, long n, struct batch_stats *out)
{
	long lo, hi, m;
	double mean;

	memset(out, 0, sizeof(*out));
	out->n = n;
	if (!n) {
		out->p50 = out->p90 = out->p99 = out->min = out->max = NAN;
		out->iqr_median = out->iqr_stddev = out->iqr_cv = NAN;
		out->iqr_min = out->iqr_p99 = out->iqr_max = NAN;
		return;
	}
	gsl_sort(v, 1, n);
	out->p50 = rank(v, n, 0.5);
	out->p90 = rank(v, n, 0.9);
	out->p99 = rank(v, n, 0.99);
	out->min = v[0];
	out->max = v[n - 1];
	iqr_range(v, n, &lo, &hi);
	m = out->iqr_n = hi - lo;
	mean = gsl_stats_mean(v + lo, 1, m);
	out->iqr_median = rank(v + lo, m, 0.5);
	out->iqr_stddev = m > 1 ? gsl_stats_sd_m(v + lo, 1, m, mean) : 0;
	out->iqr_cv = mean > 0 ? out->iqr_stddev / mean * 100 : 0;
	out->iqr_min = v[lo];
	out->iqr_p99 = rank(v + lo, m, 0.99);
	out->iqr_max = v[hi - 1];
}

/* Algorithm R: the i-th value seen (from 0) replaces a kept one with
 * probability BATCH_KEEP / (i + 1). */
int batch_record_add(struct batch_record *r, const double *v, long n, long ran)
{
	if (!r->kept && !(r->kept = malloc(BATCH_KEEP * sizeof(*r->kept))))
		return -ENOMEM;
	for (long i = 0; i < n; i++, r->seen++) {
		long j = r->seen < BATCH_KEEP ? r->seen :
			 (long)((double)erand48(r->rng) * (r->seen + 1));

		if (j < BATCH_KEEP)
			r->kept[j] = v[i];
		if (r->n_kept < BATCH_KEEP)
			r->n_kept++;
	}
	r->ran += ran;
	return 0;
}

void batch_record_free(struct batch_record *r)
{
	free(r->kept);
	memset(r, 0, sizeof(*r));
}
