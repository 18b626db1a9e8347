// SPDX-License-Identifier: GPL-2.0
/* The sampler: once a second, read every producer's counters and keep the
 * deltas. Runs in the main thread; the signal handler only sets a flag. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "marker.h"
#include "perf.h"
#include "sampler.h"
#include "stop.h"

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Mean over the tasks that ended a round in the interval of their events
 * per their own wall time, in M/s; NAN: none did. */
static double task_events_mps(const struct sample *s, int nprod)
{
	double sum = 0;
	int n = 0;

	for (int p = 0; p < nprod; p++)
		if (s->prod[p].wall_ns) {
			sum += s->prod[p].wall_events * 1e3 / s->prod[p].wall_ns;
			n++;
		}
	return n ? sum / n : NAN;
}

/* The benchmark's figure in its unit (figure_of()): rates from M per
 * second by its scale; the batches' median ns per op as it is. */
static double sample_figure(const struct sample *s, int nprod, const struct bench *b)
{
	double scale = figure_of(b).scale;

	switch (b->figure) {
	case FIG_KERNEL:
		return s->ns ? s->ops * 1e3 / s->ns * scale : NAN;
	case FIG_EVENTS_PER_TASK:
		return task_events_mps(s, nprod) * scale;
	case FIG_RUNS_PER_PROD:
		return s->runs * (double)op_batches(b->op) * 1e3 / s->interval_ns / nprod * scale;
	case FIG_EVENTS_PER_PROD:
		return s->kmops_prod * scale;
	case FIG_BATCH_MEDIAN:
		return s->batch.p50;
	default:
		return s->mops * scale;
	}
}

void sample_finish(struct sample *s, int nprod, const struct bench *b)
{
	int busy = 0;

	s->ops = s->ns = s->hits = s->misses = s->runs = 0;
	s->kmops_prod = 0;
	for (int p = 0; p < nprod; p++) {
		struct prod_delta *d = &s->prod[p];

		s->ops += d->ops;
		s->ns += d->ns;
		s->hits += d->hits;
		s->misses += d->misses;
		s->runs += d->runs;
		if (d->ns) {
			s->kmops_prod += d->ops * 1e3 / d->ns;
			busy++;
		}
	}
	s->mops = s->ops * 1e3 / s->interval_ns;
	s->kmops_prod = busy ? s->kmops_prod / busy : NAN;
	s->latency_ns = s->ops ? (double)s->ns / s->ops : NAN;
	s->figure = sample_figure(s, nprod, b);
	/* An interval in which nothing completed measured nothing. */
	if (!s->ops)
		s->mops = s->figure = NAN;
}

static struct sample *sample_add(struct samples *out)
{
	struct sample *s;

	if (out->n == out->cap) {
		int cap = out->cap ? out->cap * 2 : 16;
		struct sample *v = realloc(out->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		out->v = v;
		out->cap = cap;
	}
	s = &out->v[out->n];
	memset(s, 0, sizeof(*s));
	s->prod = calloc(out->nprod, sizeof(*s->prod));
	if (!s->prod)
		return NULL;
	out->n++;
	return s;
}

/* The interval's batch times: each producer's newest half ring at most (an
 * older slot may be overwritten while it is read). */
static int read_batches(struct run *run, const struct prod_counters *prev,
			const struct prod_counters *cur, double *buf, struct sample *s,
			struct samples *out)
{
	const struct family *f = run->plan->bench->family;
	long n = 0;

	if (!run->plan->batch_times || !f->batch_times)
		return 0;
	for (int p = 0; p < out->nprod; p++) {
		__u64 first = prev[p].runs, end = cur[p].runs;

		s->batches_ran += end - first;
		if (end - first > BATCH_RING / 2)
			first = end - BATCH_RING / 2;
		n += f->batch_times(run, p, first, end, buf + n);
	}
	batch_stats_of(buf, n, &s->batch);
	return s->warmup ? 0 : batch_record_add(&out->batches, buf, n, s->batches_ran);
}

/* --batch auto, as the kernel's timing library sizes its batch: the count
 * that takes CALIBRATE_TARGET_NS at the first warmup second's in-kernel ns
 * per op, within [CALIBRATE_MIN, CALIBRATE_MAX] (bpf_for: whole unrolled
 * steps). */
#define CALIBRATE_MIN 100
#define CALIBRATE_MAX 10000000
static void calibrate(struct run *run, const struct prod_counters *prev,
		      const struct prod_counters *cur)
{
	__u64 ops = 0, ns = 0;
	double per_op;
	long batch;

	for (int p = 0; p < run->plan->producers; p++)
		ops += cur[p].ops - prev[p].ops, ns += cur[p].ns - prev[p].ns;
	per_op = ops ? (double)ns / ops : 0;
	batch = per_op > 0 ? (long)(CALIBRATE_TARGET_NS / per_op) : CALIBRATE_MIN;
	batch = batch < CALIBRATE_MIN ? CALIBRATE_MIN : batch > CALIBRATE_MAX ? CALIBRATE_MAX : batch;
	if (!strcmp(run->loop, "bpf_for"))
		batch = (batch + UNROLL - 1) / UNROLL * UNROLL;
	run->plan->bench->family->set_batch(run, batch);
	run->batch_calibrated = batch;
	run->calibration_per_op_ns = per_op;
}

/* Sleep until an absolute time; false if a signal or a failure cut it short. */
static bool sleep_until(__u64 t, struct producers *prods)
{
	struct timespec ts = { t / 1000000000ull, t % 1000000000ull };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		if (stop_requested)
			return false;
	return !stop_requested && !atomic_load(&prods->failed);
}

int sampler_run(struct run *run, struct producers *prods, struct samples *out)
{
	const struct plan *plan = run->plan;
	const struct family *f = plan->bench->family;
	int nprod = plan->producers, total = plan->warmup + plan->duration;
	struct prod_counters *prev = calloc(nprod, sizeof(*prev));
	struct prod_counters *cur = calloc(nprod, sizeof(*cur));
	double *batch_buf = plan->batch_times ?
			    calloc((size_t)nprod * BATCH_RING / 2, sizeof(*batch_buf)) : NULL;
	__u64 t_start, t_prev, t_cur;
	int status = EXIT_OK;

	memset(out, 0, sizeof(*out));
	out->nprod = nprod;
	if (!prev || !cur || (plan->batch_times && !batch_buf)) {
		status = EXIT_RUNTIME;
		goto out;
	}
	f->measure(run, prev);
	/* The cache model's windows (plugin/marker.h) are the samples: each
	 * opens and closes where the sample's counters are read. */
	mb_mark(MB_MARK_BEGIN);
	t_start = t_prev = now_ns();
	if (run->perf && !plan->warmup)
		perf_mark_start(run->perf, nprod);
	for (int i = 0; i < total; i++) {
		struct sample *s;

		/* Ticks on a fixed grid, so reading time does not add up as drift. */
		if (!sleep_until(t_start + (i + 1) * 1000000000ull, prods))
			break;
		f->measure(run, cur);
		if (plan->batch_auto && i == 0)	/* at once: few runs of the old batch after it */
			calibrate(run, prev, cur);
		if (i + 1 < total)
			mb_mark(MB_MARK_NEXT);
		else
			mb_mark(MB_MARK_END);
		if (i + 1 == plan->warmup && i + 1 < total)
			mb_mark(MB_MARK_MEASURED);
		t_cur = now_ns();
		s = sample_add(out);
		if (!s) {
			status = EXIT_RUNTIME;
			break;
		}
		s->warmup = i < plan->warmup;
		s->interval_ns = t_cur - t_prev;
		for (int p = 0; p < nprod; p++)
			s->prod[p] = (struct prod_delta){
				cur[p].ops - prev[p].ops, cur[p].ns - prev[p].ns,
				cur[p].hits - prev[p].hits, cur[p].misses - prev[p].misses,
				cur[p].runs - prev[p].runs,
				cur[p].wall_events - prev[p].wall_events,
				cur[p].wall_ns - prev[p].wall_ns,
			};
		if (read_batches(run, prev, cur, batch_buf, s, out)) {
			status = EXIT_RUNTIME;
			break;
		}
		sample_finish(s, nprod, plan->bench);
		s->memlock = s->charged = s->charged_peak = -1;
		if (plan->bench->track_mem)
			f->memory(run, &s->memlock, &s->charged, &s->charged_peak);
		run->progress->sample(run, out, out->n - 1);
		if (run->perf && i + 1 == plan->warmup)
			perf_mark_start(run->perf, nprod);
		memcpy(prev, cur, nprod * sizeof(*cur));
		t_prev = t_cur;
	}
	mb_mark(MB_MARK_END);	/* a run cut short: its last window, with no sample */
	if (run->perf)
		perf_mark_end(run->perf, nprod);
	out->interrupted = stop_requested != 0;
	f->measure(run, cur);
	for (int p = 0; p < nprod; p++)
		for (int e = 0; e < ERRNO_SLOTS; e++)
			out->errs[e] += cur[p].errs[e];
	out->last = cur;	/* the kernel bench's lines read the last runs */
	cur = NULL;
out:
	free(prev);
	free(cur);
	free(batch_buf);
	return status;
}

void samples_free(struct samples *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->v[i].prod);
	free(s->v);
	free(s->last);
	batch_record_free(&s->batches);
	memset(s, 0, sizeof(*s));
}
