// SPDX-License-Identifier: GPL-2.0
/* The result document, built with jansson and written atomically. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "env.h"
#include "perf.h"
#include "plan.h"
#include "result.h"
#include "trigger.h"

static json_t *summary_json(const struct summary *s)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}",
			 "mean", json_num(s->mean), "stddev", json_num(s->stddev), "median", json_num(s->median),
			 "min", json_num(s->min), "max", json_num(s->max), "cv", json_num(s->cv));
}

/* The plan, and what setup found out: the map's type and flags, the loop
 * the kernel took, what the in-kernel time covers. */
static json_t *params_json(const struct run *run)
{
	json_t *o = plan_json(run->plan);

	json_object_update_new(o, json_pack("{s:s, s:i, s:i, s:s}",
		"map_type", run->map_type_name ? run->map_type_name : "unknown",
		"map_type_id", run->map_type,
		"map_flags", run->map_flags,
		"timing", run->timing ? run->timing : "none"));
	if (run->loop)
		json_object_set_new(o, "loop", json_string(run->loop));
	json_object_set_new(o, "trigger", json_string(trigger_name(run->trigger)));
	if (run->trigger_point)
		json_object_set_new(o, "trigger_point", json_string(run->trigger_point));
	return o;
}

/* summary.batches: the percentiles of every batch kept, and the kernel's
 * IQR-filtered figures (bench_bpf_timing.c's). */
static json_t *batches_json(const struct run_summary *sum)
{
	const struct batch_stats *b = &sum->batches;

	return json_pack("{s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:{s:I, s:o, s:o, s:o, s:o, s:o, s:o}}",
		"kept", (json_int_t)b->n, "read", (json_int_t)sum->batches_seen,
		"ran", (json_int_t)sum->batches_ran,
		"p50_ns", json_num(b->p50), "p90_ns", json_num(b->p90), "p99_ns", json_num(b->p99),
		"min_ns", json_num(b->min), "max_ns", json_num(b->max),
		"iqr",
			"samples", (json_int_t)b->iqr_n, "median_ns", json_num(b->iqr_median),
			"stddev_ns", json_num(b->iqr_stddev), "cv_pct", json_num(b->iqr_cv),
			"min_ns", json_num(b->iqr_min), "p99_ns", json_num(b->iqr_p99),
			"max_ns", json_num(b->iqr_max));
}

/* A producer's counters in an interval; the events its task timed
 * itself, where it runs in rounds. */
static json_t *prod_json(const struct prod_delta *d, bool rounds)
{
	json_t *o = json_pack("{s:I, s:I, s:I, s:I, s:I}", "ops", (json_int_t)d->ops,
			      "ns", (json_int_t)d->ns, "runs", (json_int_t)d->runs,
			      "hits", (json_int_t)d->hits, "misses", (json_int_t)d->misses);

	if (o && rounds)
		json_object_update_new(o, json_pack("{s:I, s:I}",
			"wall_events", (json_int_t)d->wall_events, "wall_ns", (json_int_t)d->wall_ns));
	return o;
}

static json_t *sample_json(const struct sample *x, int i, int nprod, bool rounds)
{
	json_t *prods = json_array(), *o;

	for (int p = 0; p < nprod; p++)
		json_array_append_new(prods, prod_json(&x->prod[p], rounds));
	o = json_pack("{s:i, s:b, s:f, s:I, s:I, s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
		"index", i, "warmup", x->warmup, "interval_ns", x->interval_ns,
		"ops", (json_int_t)x->ops, "ns", (json_int_t)x->ns, "runs", (json_int_t)x->runs,
		"hits", (json_int_t)x->hits, "misses", (json_int_t)x->misses,
		"throughput_mops", json_num(x->mops), "kernel_mops_per_producer", json_num(x->kmops_prod),
		"latency_ns", json_num(x->latency_ns), "figure", json_num(x->figure),
		"memlock_bytes", x->memlock >= 0 ? json_integer(x->memlock) : json_null(),
		"charged_bytes", x->charged >= 0 ? json_integer(x->charged) : json_null(),
		"producers", prods);
	if (o && x->batch.n)
		json_object_set_new(o, "batches", json_pack("{s:I, s:I, s:o, s:o}",
			"read", (json_int_t)x->batch.n, "ran", (json_int_t)x->batches_ran,
			"p50_ns", json_num(x->batch.p50), "p99_ns", json_num(x->batch.p99)));
	return o;
}

static json_t *errors_json(const struct samples *s, __u64 total)
{
	json_t *by = json_object();
	char name[32];

	for (int e = 1; e < ERRNO_SLOTS; e++) {
		if (!s->errs[e])
			continue;
		if (e == ERRNO_SLOTS - 1)
			snprintf(name, sizeof(name), "errno>=%d", e);
		else
			snprintf(name, sizeof(name), "%s", strerrorname_np(e) ?: "unknown");
		json_object_set_new(by, name, json_integer(s->errs[e]));
	}
	return json_pack("{s:I, s:o}", "total", (json_int_t)total, "by_errno", by);
}

/* summary.roles: readers' and writers' own figures. */
static json_t *roles_json(const struct bench *b, const struct run_summary *sum)
{
	json_t *o = json_object();

	for (int i = 0; i < sum->nroles; i++) {
		const struct role_summary *r = &sum->roles[i];

		json_object_set_new(o, i ? "writers" : "readers", json_pack(
			"{s:i, s:s, s:o, s:o, s:I, s:I, s:I, s:o}",
			"producers", r->hi - r->lo,
			"op", bench_op_name(i ? b->writer_op : b->op),
			"throughput_mops", summary_json(&r->mops),
			"latency_ns", summary_json(&r->latency_ns),
			"ops", (json_int_t)r->ops,
			"hits", (json_int_t)r->hits,
			"misses", (json_int_t)r->misses,
			"hit_rate", json_num(r->hit_rate)));
	}
	return o;
}

static json_t *throughput_json(const struct run *run, const struct samples *s,
			       const struct run_summary *sum);
static json_t *warnings_json(const struct run *run);

/* --trigger nic: the interface, its XDP mode, and packets/s in total and per CPU. */
static json_t *nic_json(const struct run *run, const struct run_summary *sum)
{
	json_t *cpus = json_array();

	for (int p = 0; p < run->plan->producers; p++)
		if (sum->prod_runs[p])
			json_array_append_new(cpus, json_pack("{s:i, s:I, s:f}", "cpu", p,
				"packets", (json_int_t)sum->prod_runs[p],
				"packets_per_s", sum->prod_runs[p] / sum->measured_s));
	return json_pack("{s:s, s:s, s:s, s:I, s:o, s:o}", "iface", run->plan->iface,
			 "xdp_mode", run->nic_mode ? run->nic_mode : "unknown",
			 "action", run->plan->xdp_pass ? "pass" : "drop",
			 "packets", (json_int_t)sum->runs,
			 "packets_per_s", json_num(sum->measured_s ? sum->runs / sum->measured_s : NAN),
			 "per_cpu", cpus);
}

json_t *result_json(const struct run *run, const struct samples *s,
		    const struct run_summary *sum, json_t *part,
		    enum run_status status, const char *reason)
{
	static const char *const statuses[] = { "complete", "interrupted", "failed", "unsupported" };
	const struct plan *c = run->plan;
	json_t *cmd = json_array(), *doc;

	for (int i = 0; i < c->argc; i++)
		json_array_append_new(cmd, json_string(c->argv[i]));
	doc = json_pack("{s:s, s:i, s:s, s:s, s:s, s:o, s:o, s:o}",
		"schema", RESULT_SCHEMA,
		"schema_version", RESULT_SCHEMA_VERSION,
		"status", statuses[status],
		"benchmark", c->bench->name,
		"family", c->bench->family->name,
		"command", cmd,
		"params", params_json(run),
		"environment", env_json(run));
	if (doc && status >= RUN_FAILED)
		json_object_set_new(doc, "reason", json_string(reason));
	if (doc)
		json_object_set_new(doc, "warnings", warnings_json(run));
	if (doc && s)
		json_object_update_new(doc, throughput_json(run, s, sum));
	if (doc && part)
		json_object_update(doc, part);
	if (doc && s && c->trigger == TRIGGER_NIC)
		json_object_set_new(doc, "nic", nic_json(run, sum));
	if (doc && run->programs)
		json_object_set(doc, "programs", run->programs);
	if (doc && s && run->perf)
		json_object_set_new(doc, "perf", perf_json(run->perf, sum->ops));
	return doc;
}

/* The figure's summary with its name, unit and clock. */
static json_t *figure_json(const struct bench *b, const struct summary *s)
{
	struct figure_desc d = figure_of(b);
	json_t *o = summary_json(s);

	json_object_set_new(o, "name", json_string(d.name));
	json_object_set_new(o, "unit", json_string(d.unit));
	json_object_set_new(o, "clock", json_string(d.clock));
	return o;
}

static json_t *throughput_json(const struct run *run, const struct samples *s,
			       const struct run_summary *sum)
{
	const struct bench *b = run->plan->bench;
	json_t *samples = json_array(), *doc, *lines = json_array();
	static char kernel[KERNEL_LINES_MAX];

	for (int i = 0; i < s->n; i++)
		json_array_append_new(samples, sample_json(&s->v[i], i, s->nprod,
							   run->plan->count > 0));
	doc = json_pack("{s:o, s:{s:i, s:i, s:o, s:o, s:o, s:o, s:o, s:I, s:I, s:I, s:o, s:o, s:{s:o, s:o, s:o, s:o, s:o, s:o, s:I}}, s:o}",
		"samples", samples,
		"summary",
			"samples", sum->n,
			"empty_samples", sum->empty,
			"throughput_mops", summary_json(&sum->mops),
			"throughput_per_producer_mops", json_num(sum->mops_per_prod),
			"kernel_mops_per_producer", summary_json(&sum->kmops_prod),
			"figure", figure_json(b, &sum->figure),
			"latency_ns", summary_json(&sum->latency_ns),
			"ops", (json_int_t)sum->ops,
			"hits", (json_int_t)sum->hits,
			"misses", (json_int_t)sum->misses,
			"hit_rate", json_num(sum->hit_rate),
			"duty", json_num(sum->duty),
			"memory",
				"memlock_avg", json_num(sum->memlock_avg),
				"memlock_peak", json_num(sum->memlock_peak),
				"charged_avg", json_num(sum->charged.mean),
				"charged_peak", json_num(sum->charged_peak),
				"charged_sd", json_num(sum->charged.stddev),
				"cgroup_peak", json_num(sum->cgroup_peak),
				"own_bytes_excluded", (json_int_t)run->own_bytes,
		"errors", errors_json(s, sum->errors));
	if (doc && run->batch_calibrated)
		json_object_set_new(json_object_get(doc, "summary"), "batch_calibration", json_pack(
			"{s:I, s:f, s:f}", "batch", (json_int_t)run->batch_calibrated,
			"per_op_ns", run->calibration_per_op_ns, "target_ns", CALIBRATE_TARGET_NS));
	if (doc && sum->batches.n)
		json_object_set_new(json_object_get(doc, "summary"), "batches", batches_json(sum));
	if (doc && sum->nroles)
		json_object_set_new(json_object_get(doc, "summary"), "roles", roles_json(b, sum));
	if (doc)
		json_object_set_new(json_object_get(doc, "summary"), "fill_retries",
				    json_integer(run->fill_retries));
	if (doc && run->evictions >= 0)
		json_object_update_new(json_object_get(doc, "summary"), json_pack("{s:I, s:I}",
			"evictions", (json_int_t)run->evictions,
			"map_entries_end", (json_int_t)run->entries_end));
	/* The kernel bench's own final lines, as printed: beside our figure. */
	memcpy(kernel, sum->kernel_lines, sizeof(kernel));
	for (char *l = sum->nr_kernel_lines ? strtok(kernel, "\n") : NULL; l; l = strtok(NULL, "\n"))
		json_array_append_new(lines, json_string(l));
	if (doc)
		json_object_set_new(json_object_get(doc, "summary"), "kernel_lines", lines);
	else
		json_decref(lines);
	return doc;
}

static json_t *warnings_json(const struct run *run)
{
	json_t *a = json_array();

	for (int i = 0; i < run->nr_warnings; i++)
		json_array_append_new(a, json_string(run->warnings[i]));
	return a;
}

static int mkdir_parents(const char *dir)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s", dir);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

/* Whether dir lies in a results/ folder, where missing folders are made. */
static bool under_results(const char *dir)
{
	const char *p = dir;

	for (; (p = strstr(p, "results")); p += 7)
		if ((p == dir || p[-1] == '/') && (p[7] == '/' || !p[7]))
			return true;
	return false;
}

int result_check_path(const char *path)
{
	char copy[4096];
	const char *dir;
	struct stat st;
	int err;

	if (!*path)
		return -ENOENT;
	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		return -EISDIR;
	snprintf(copy, sizeof(copy), "%s", path);
	dir = dirname(copy);
	if (stat(dir, &st) && errno == ENOENT && under_results(dir) && (err = mkdir_parents(dir)))
		return err;
	if (stat(dir, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	return access(dir, W_OK) ? -errno : 0;
}

int result_write(const char *path, json_t *doc)
{
	char tmp[4096];
	int fd, err = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	errno = 0;
	if (json_dumpfd(doc, fd, JSON_INDENT(1) | JSON_REAL_PRECISION(10)) ||
	    write(fd, "\n", 1) != 1 || fsync(fd))
		err = errno ? -errno : -EIO;
	if (close(fd) && !err)
		err = -errno;
	if (!err && (chmod(tmp, 0644) || rename(tmp, path)))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}
