// SPDX-License-Identifier: GPL-2.0
/* Text output in the kernel selftests bench's line formats. */
#include <math.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <string.h>
#include "keys.h"
#include "output.h"
#include "peer.h"
#include "trigger.h"

void output_setup(const struct run *run)
{
	const struct plan *c = run->plan;

	if (c->quiet)
		return;
	printf("Setting up benchmark '%s': map %s (%s, %s%s, map_flags 0x%x), key %d B, "
	       "value %d B, max_entries %ld, nr_entries %ld, keys %s\n",
	       c->bench->name, c->map_name, run->map_type_name,
	       run->map_flags & BPF_F_NO_PREALLOC ? "no prealloc" : "prealloc",
	       run->map_flags & BPF_F_ZERO_SEED ? ", zero seed" : "", run->map_flags,
	       c->key_size, c->value_size,
	       c->max_entries, c->nr_entries, keys_name(c->keys));
	printf("Benchmark '%s' started: %d producer%s, trigger %s (%s), %d ops per run, "
	       "warmup %ds, duration %ds\n",
	       c->bench->name, c->producers, c->producers > 1 ? "s" : "", trigger_name(run->trigger),
	       run_loop_name(run), c->batch, c->warmup, c->duration);
	fflush(stdout);
}

/* ", per-prod-op 115.11k/s" for benchmarks whose figure is not the throughput. */
static void print_figure(const struct run *run, double v)
{
	struct figure_desc d = figure_of(run->plan->bench);

	if (run->plan->bench->figure != FIG_WALL)
		printf(", %s %.3lf %s", d.name, v, d.unit);
}

/* The Iter line of sample i. */
static void output_iter(const struct run *run, const struct samples *s, int i)
{
	const struct sample *x = &s->v[i];
	struct units u = units_of(run);

	if (run->plan->quiet)
		return;
	printf("Iter %3d (%7.3lfus): throughput %8.3lf %s ops/s (%7.3lf%s ops/prod), latency %8.3lf %s/op",
	       i, (x->interval_ns - 1e9) / 1e3, x->mops * u.tput, u.tput_unit,
	       x->mops * u.tput / s->nprod, u.tput_unit, x->latency_ns * u.lat, u.lat_unit);
	print_figure(run, x->figure);
	printf("%s\n", x->warmup ? " (warmup)" : isnan(x->mops) ? " (nothing completed)" : "");
	fflush(stdout);
}

static void print_errors(const struct samples *s, __u64 total)
{
	const char *sep = "";

	if (!total) {
		printf("Errors: none\n");
		return;
	}
	printf("Errors: %llu (", (unsigned long long)total);
	for (int e = 1; e < ERRNO_SLOTS; e++) {
		if (!s->errs[e])
			continue;
		printf("%s%s %llu", sep, strerrorname_np(e) ?: "errno", (unsigned long long)s->errs[e]);
		sep = ", ";
	}
	printf(")\n");
}

/* Percentiles of the batches' in-kernel time per operation. */
static void print_batches(const struct run_summary *sum, struct units u)
{
	const struct batch_stats *b = &sum->batches;

	printf("Batches: p50 %.2lf, p90 %.2lf, p99 %.2lf, max %.2lf %s/op (in-kernel, each batch's "
	       "time per op); %ld of the %ld measured batches (each producer's latest %d a "
	       "second%s)\n", b->p50 * u.lat, b->p90 * u.lat, b->p99 * u.lat, b->max * u.lat,
	       u.lat_unit, b->n, sum->batches_ran, BATCH_RING / 2,
	       b->n < sum->batches_seen ? ", then a uniform sample" : "");
}

/* The kernel's bench_bpf_timing.c line (--machine-readable), its figures
 * after its IQR filter, for scripts that read run_bench_xdp_lb.sh's way. */
static void print_result_line(const struct run *run, const struct run_summary *sum)
{
	const struct batch_stats *b = &sum->batches;

	if (!b->n) {	/* as the kernel's library says it */
		printf("No timing samples collected.\n");
		return;
	}
	printf("RESULT scenario=%s samples=%ld median=%.2f stddev=%.2f cv=%.2f min=%.2f p99=%.2f "
	       "max=%.2f\n", timing_name(run->plan->bench), b->iqr_n, b->iqr_median, b->iqr_stddev,
	       b->iqr_cv, b->iqr_min, b->iqr_p99, b->iqr_max);
}

/* Readers (role 0) or writers (1): their own throughput, latency and hits. */
static void print_role(const struct run *run, const struct role_summary *r, int role)
{
	const struct bench *b = run->plan->bench;
	int n = r->hi - r->lo;

	printf("%s: %d x %s, throughput %8.3lf \u00b1 %5.3lf M ops/s (%7.3lfM ops/prod), latency "
	       "%8.3lf ns/op", role ? "Writers" : "Readers", n,
	       bench_op_name(role ? b->writer_op : b->op), r->mops.mean, r->mops.stddev,
	       r->mops.mean / n, r->latency_ns.mean);
	if (!isnan(r->hit_rate))
		printf(", hits %.2lf%%", r->hit_rate * 100);
	printf("\n");
}

/* --trigger nic: packets per second in total and per receiving CPU. */
static void print_nic(const struct run *run, const struct run_summary *sum)
{
	printf("NIC: %s, %s XDP, packets %s: %.0f packets/s in total over %.1f s",
	       run->plan->iface, run->nic_mode ? run->nic_mode : "?",
	       run->plan->xdp_pass ? "passed" : "dropped",
	       sum->measured_s ? sum->runs / sum->measured_s : 0, sum->measured_s);
	for (int p = 0, first = 1; p < run->plan->producers; p++)
		if (sum->prod_runs[p]) {
			printf("%s cpu%d %.0f", first ? "; per CPU:" : ",", p,
			       sum->prod_runs[p] / sum->measured_s);
			first = 0;
		}
	printf("\n");
}

void output_summary(const struct run *run, const struct samples *s, const struct run_summary *sum)
{
	struct units u = units_of(run);

	for (int i = 0; i < run->nr_warnings; i++)
		printf("Warning: %s\n", run->warnings[i]);
	if (s->interrupted)
		printf("Interrupted after %d samples (%d measured)\n", s->n, sum->n);
	if (!sum->n) {
		printf("Summary: no measured samples\n");
		print_errors(s, sum->errors);
		return;
	}
	printf("Summary: throughput %8.3lf \u00b1 %5.3lf %s ops/s (%7.3lf%s ops/prod), latency %8.3lf %s/op\n",
	       sum->mops.mean * u.tput, sum->mops.stddev * u.tput, u.tput_unit,
	       sum->mops_per_prod * u.tput, u.tput_unit, sum->latency_ns.mean * u.lat, u.lat_unit);
	if (run->plan->bench->figure != FIG_WALL) {
		struct figure_desc d = figure_of(run->plan->bench);

		printf("Figure: %s %.3lf \u00b1 %.3lf %s (%s time; the kernel bench's figure)\n",
		       d.name, sum->figure.mean, sum->figure.stddev, d.unit, d.clock);
	}
	printf("Samples: %d, median %.3lf, min %.3lf, max %.3lf %s ops/s, CV %.2lf%%; "
	       "in-kernel time %.1lf%% of producer wall time, in-kernel rate %.3lf %s ops/s per producer\n",
	       sum->n, sum->mops.median * u.tput, sum->mops.min * u.tput, sum->mops.max * u.tput,
	       u.tput_unit, sum->mops.cv * 100, sum->duty * 100, sum->kmops_prod.mean * u.tput,
	       u.tput_unit);
	if (run->batch_calibrated)
		printf("Batch: calibrated to %ld operations a run (%.0f ms at %.2f ns/op, the first "
		       "warmup second's in-kernel time; it ran %d before)\n", run->batch_calibrated,
		       CALIBRATE_TARGET_NS / 1e6, run->calibration_per_op_ns, run->plan->batch);
	if (sum->batches.n)
		print_batches(sum, u);
	for (int i = 0; i < sum->nroles; i++)
		print_role(run, &sum->roles[i], i);
	if (sum->empty)
		printf("Skipped: %d intervals in which nothing completed\n", sum->empty);
	if (!isnan(sum->hit_rate))
		printf("Hits: %.2lf%% (%llu of %llu)%s\n", sum->hit_rate * 100,
		       (unsigned long long)sum->hits, (unsigned long long)(sum->hits + sum->misses),
		       !sum->misses ? "" :
		       run->plan->bench->counts_evictions ? "; each miss was inserted" :
		       "; misses are expected results (key not found, or E2BIG: map full)");
	if (run->evictions >= 0)
		printf("Evictions: %lld (inserts the map did not keep, warmup included; it holds "
		       "%lld of max_entries %ld at the end)\n",
		       run->evictions, run->entries_end, run->plan->max_entries);
	if (!isnan(sum->memlock_avg))
		printf("Memory: map %.2f MiB avg, %.2f MiB peak; cgroup %.2f MiB avg, %.2f MiB peak of "
		       "the samples, %.2f MiB its own peak (mapbench's keys array, %.2f MiB, left out)\n",
		       sum->memlock_avg / 1048576, sum->memlock_peak / 1048576,
		       sum->charged.mean / 1048576, sum->charged_peak / 1048576,
		       sum->cgroup_peak / 1048576, run->own_bytes / 1048576.0);
	if (run->plan->trigger == TRIGGER_NIC)
		print_nic(run, sum);
	print_errors(s, sum->errors);
	if (run->plan->machine_readable)
		print_result_line(run, sum);
	/* Last: the kernel's scripts keep the last match of their patterns. */
	if (sum->nr_kernel_lines)
		printf("%s\n", sum->kernel_lines);
	fflush(stdout);
}

const struct progress text_progress = {
	.sample = output_iter,
};
