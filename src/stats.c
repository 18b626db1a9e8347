// SPDX-License-Identifier: GPL-2.0
/* Statistics over samples, computed with GSL. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include "peer.h"
#include "stats.h"

void summarize(const double *x, int n, struct summary *out)
{
	double *sorted = n > 0 ? malloc(n * sizeof(*sorted)) : NULL;

	memset(out, 0, sizeof(*out));
	out->n = n;
	if (!sorted) {
		out->mean = out->stddev = out->median = out->min = out->max = out->cv = NAN;
		return;
	}
	memcpy(sorted, x, n * sizeof(*x));
	gsl_sort(sorted, 1, n);
	out->mean = gsl_stats_mean(sorted, 1, n);
	out->stddev = n > 1 ? gsl_stats_sd_m(sorted, 1, n, out->mean) : 0;
	out->median = gsl_stats_median_from_sorted_data(sorted, 1, n);
	out->min = sorted[0];
	out->max = sorted[n - 1];
	out->cv = out->mean ? out->stddev / out->mean : NAN;
	free(sorted);
}

static void summarize_role(const struct samples *s, struct role_summary *r)
{
	double *mops = calloc(s->n + 1, sizeof(double));
	double *lat = calloc(s->n + 1, sizeof(double));
	int n = 0;

	for (int i = 0; mops && lat && i < s->n; i++) {
		const struct sample *x = &s->v[i];
		__u64 ops = 0, ns = 0;

		if (x->warmup || !x->ops)
			continue;
		for (int p = r->lo; p < r->hi; p++) {
			ops += x->prod[p].ops, ns += x->prod[p].ns;
			r->hits += x->prod[p].hits, r->misses += x->prod[p].misses;
		}
		mops[n] = ops / (x->interval_ns / 1e3);
		lat[n++] = ops ? (double)ns / ops : NAN;
		r->ops += ops;
	}
	summarize(mops, n, &r->mops);
	summarize(lat, n, &r->latency_ns);
	r->hit_rate = r->hits + r->misses ? (double)r->hits / (r->hits + r->misses) : NAN;
	free(mops);
	free(lat);
}

void summarize_roles(const struct samples *s, int writers, struct run_summary *out)
{
	out->nroles = 0;
	if (!writers)
		return;
	out->roles[0] = (struct role_summary){ .lo = 0, .hi = s->nprod - writers };
	out->roles[1] = (struct role_summary){ .lo = s->nprod - writers, .hi = s->nprod };
	for (int i = 0; i < 2; i++)
		summarize_role(s, &out->roles[i]);
	out->nroles = 2;
}

void summarize_run(const struct samples *s, struct run_summary *out)
{
	double *mops = calloc(s->n + 1, sizeof(double));
	double *lat = calloc(s->n + 1, sizeof(double));
	double *kprod = calloc(s->n + 1, sizeof(double));
	double *fig = calloc(s->n + 1, sizeof(double));
	double *chg = calloc(s->n + 1, sizeof(double));
	double wall = 0, busy = 0, mem_sum = 0;
	int n = 0, nmem = 0, nchg = 0;

	memset(out, 0, sizeof(*out));
	out->memlock_peak = out->charged_peak = out->cgroup_peak = -1;
	for (int i = 0; mops && lat && kprod && fig && chg && i < s->n; i++) {
		const struct sample *x = &s->v[i];

		if (x->warmup)
			continue;
		if (x->memlock >= 0) {
			mem_sum += x->memlock, nmem++;
			out->memlock_peak = fmax(out->memlock_peak, x->memlock);
		}
		if (x->charged >= 0) {
			chg[nchg++] = x->charged;
			out->charged_peak = fmax(out->charged_peak, x->charged);
		}
		out->cgroup_peak = fmax(out->cgroup_peak, x->charged_peak);
		out->measured_s += x->interval_ns / 1e9;
		for (int p = 0; p < s->nprod; p++) {
			out->prod_runs[p] += x->prod[p].runs;
			out->runs += x->prod[p].runs;
		}
		if (!x->ops) {
			out->empty++;
			continue;
		}
		mops[n] = x->mops;
		lat[n] = x->latency_ns;
		kprod[n] = x->kmops_prod;
		fig[n] = x->figure;
		n++;
		out->ops += x->ops;
		out->hits += x->hits;
		out->misses += x->misses;
		wall += x->interval_ns * s->nprod;
		busy += x->ns;
	}
	out->n = n;
	summarize(mops, n, &out->mops);
	summarize(lat, n, &out->latency_ns);
	summarize(kprod, n, &out->kmops_prod);
	summarize(fig, n, &out->figure);
	out->mops_per_prod = s->nprod ? out->mops.mean / s->nprod : NAN;
	out->hit_rate = out->hits + out->misses ?
			(double)out->hits / (out->hits + out->misses) : NAN;
	out->duty = wall ? busy / wall : NAN;
	out->memlock_avg = nmem ? mem_sum / nmem : NAN;
	summarize(chg, nchg, &out->charged);
	if (!nmem)
		out->memlock_peak = NAN;
	if (!nchg)
		out->charged_peak = NAN;
	if (out->cgroup_peak < 0)
		out->cgroup_peak = NAN;
	for (int e = 0; e < ERRNO_SLOTS; e++)
		out->errors += s->errs[e];
	batch_stats_of(s->batches.kept, s->batches.n_kept, &out->batches);
	out->batches_seen = s->batches.seen;
	out->batches_ran = s->batches.ran;
	free(mops);
	free(lat);
	free(kprod);
	free(fig);
	free(chg);
}

void summarize_kernel_lines(const struct run *run, const struct samples *s, struct run_summary *sum)
{
	const struct kernel_bench *k = run->plan->bench->kernel;

	if (sum->n && s->last && k && k->final_lines)
		sum->nr_kernel_lines = k->final_lines(run, s, sum, sum->kernel_lines,
						      sizeof(sum->kernel_lines));
}
