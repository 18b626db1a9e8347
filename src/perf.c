// SPDX-License-Identifier: GPL-2.0
/* --perf: perf_event_open counters per producer thread. A counter the PMU
 * lacks (VMs often have no hardware PMU) is "not supported" with the reason;
 * the run goes on. Hardware counters count kernel mode only where the PMU
 * allows it (the maps' work is all there; the harness's user-space loop is
 * not), else user and kernel mode; each counter records which. */
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "perf.h"

/* A hardware cache event's config: the cache, reads, and accesses or misses. */
#define HW_CACHE(cache, result) (PERF_COUNT_HW_CACHE_##cache | PERF_COUNT_HW_CACHE_OP_READ << 8 | \
				 PERF_COUNT_HW_CACHE_RESULT_##result << 16)

static const struct perf_event_def {
	const char *name;
	__u32 type;
	__u64 config;
	const char *unit;	/* per op */
} events[PERF_EVENTS] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cycles/op" },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "instructions/op" },
	/* Jesper Brouer's LPM study's four, and L1D's pair: with each miss
	 * count its access count, so the miss ratio is a figure */
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES,
	  "references/op" },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, "misses/op" },
	{ "L1-dcache-loads", PERF_TYPE_HW_CACHE, HW_CACHE(L1D, ACCESS), "loads/op" },
	{ "L1-dcache-load-misses", PERF_TYPE_HW_CACHE, HW_CACHE(L1D, MISS), "misses/op" },
	{ "dTLB-loads", PERF_TYPE_HW_CACHE, HW_CACHE(DTLB, ACCESS), "loads/op" },
	{ "dTLB-load-misses", PERF_TYPE_HW_CACHE, HW_CACHE(DTLB, MISS), "misses/op" },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "ns/op" },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "switches/op" },
};

void perf_init(struct perf_counters *pc)
{
	memset(pc, 0, sizeof(*pc));
	memset(pc->fd, -1, sizeof(pc->fd));
}

static int open_counter(int e, bool kernel_only)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = events[e].type,
		.config = events[e].config,
		.exclude_user = kernel_only,
		/* Scaled by enabled/running time if the PMU multiplexes. */
		.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING,
	};

	return syscall(SYS_perf_event_open, &attr, 0 /* this thread */, -1, -1, 0);
}

void perf_open_thread(struct perf_counters *pc, int prod)
{
	for (int e = 0; e < PERF_EVENTS; e++) {
		bool hw = events[e].type != PERF_TYPE_SOFTWARE;
		int fd = -1;

		if (hw && !pc->user_too[e])
			fd = open_counter(e, true);
		if (fd < 0) {
			fd = open_counter(e, false);
			if (fd >= 0 && hw)
				pc->user_too[e] = true;
		}
		if (fd < 0 && !pc->open_err[e])
			pc->open_err[e] = errno;
		pc->fd[prod][e] = fd;
	}
}

/* Sum over the producers of each counter, scaled for multiplexing. */
static void read_all(const struct perf_counters *pc, int nprod, double out[PERF_EVENTS])
{
	for (int e = 0; e < PERF_EVENTS; e++) {
		out[e] = 0;
		for (int p = 0; p < nprod; p++) {
			__u64 v[3];

			if (pc->fd[p][e] < 0 || read(pc->fd[p][e], v, sizeof(v)) != sizeof(v))
				continue;
			out[e] += v[2] ? (double)v[0] * v[1] / v[2] : 0;
		}
	}
}

void perf_mark_start(struct perf_counters *pc, int nprod)
{
	read_all(pc, nprod, pc->start);
	pc->started = true;
}

void perf_mark_end(struct perf_counters *pc, int nprod)
{
	double now[PERF_EVENTS];

	if (!pc->started)
		return;
	read_all(pc, nprod, now);
	for (int e = 0; e < PERF_EVENTS; e++)
		pc->total[e] = now[e] - pc->start[e];
}

void perf_close(struct perf_counters *pc, int nprod)
{
	for (int p = 0; p < nprod; p++)
		for (int e = 0; e < PERF_EVENTS; e++)
			if (pc->fd[p][e] >= 0) {
				close(pc->fd[p][e]);
				pc->fd[p][e] = -1;
			}
}

static const char *unsupported_reason(int err)
{
	return err == ENOENT || err == EOPNOTSUPP || err == ENODEV ?
	       "not supported by this CPU's PMU" : strerror(err);
}

static bool kernel_only(const struct perf_counters *pc, int e)
{
	return events[e].type != PERF_TYPE_SOFTWARE && !pc->user_too[e];
}

void perf_print(const struct perf_counters *pc, __u64 ops, FILE *out)
{
	fprintf(out, "Perf (producer threads, per operation):");
	for (int e = 0; e < PERF_EVENTS; e++) {
		fprintf(out, "%s %s ", e ? "," : "", events[e].name);
		if (pc->open_err[e])
			fprintf(out, "not supported (%s)", unsupported_reason(pc->open_err[e]));
		else if (!pc->started || !ops)
			fprintf(out, "no measured interval");
		else
			fprintf(out, "%.4g %s%s", pc->total[e] / ops, events[e].unit,
				kernel_only(pc, e) ? " (kernel)" : "");
	}
	fprintf(out, "\n");
}

json_t *perf_json(const struct perf_counters *pc, __u64 ops)
{
	json_t *list = json_array();

	for (int e = 0; e < PERF_EVENTS; e++) {
		json_t *c;

		if (pc->open_err[e])
			c = json_pack("{s:s, s:s, s:s}", "name", events[e].name,
				      "status", "unsupported",
				      "reason", unsupported_reason(pc->open_err[e]));
		else if (!pc->started || !ops)
			c = json_pack("{s:s, s:s}", "name", events[e].name, "status", "not measured");
		else
			c = json_pack("{s:s, s:s, s:f, s:f, s:s, s:s}", "name", events[e].name,
				      "status", "ok", "total", pc->total[e],
				      "per_op", pc->total[e] / ops, "unit", events[e].unit,
				      "mode", kernel_only(pc, e) ? "kernel" : "user+kernel");
		json_array_append_new(list, c);
	}
	return json_pack("{s:s, s:o}", "scope",
			 "producer threads, measured intervals; hardware counters in kernel mode where "
			 "the PMU allows it (each counter's mode)", "counters", list);
}
