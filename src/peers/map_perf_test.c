// SPDX-License-Identifier: GPL-2.0
/* samples/bpf map_perf_test (map_perf_test_user.c): a line per task,
 * "CPU:NAME N events per sec" (lookups per sec for the 64-lookup tests). */
#include <stdio.h>
#include "map_perf.h"
#include "peer.h"
#include "sampler.h"

/* Each task's events over its own time in the measured seconds' rounds,
 * as the kernel's count over its elapsed time; labelled by the CPU it was
 * pinned to. */
static int task_lines(const struct run *run, const struct samples *s,
		      const struct run_summary *sum, char *buf, size_t len)
{
	const struct map_perf_test *t = map_perf_test_of(run->plan->bench);
	const struct plan *plan = run->plan;
	size_t at = 0;
	int lines = 0;

	for (int p = 0; t && p < plan->producers; p++) {
		double events = 0, ns = 0;

		for (int i = 0; i < s->n; i++) {
			if (s->v[i].warmup)
				continue;
			events += s->v[i].prod[p].wall_events;
			ns += s->v[i].prod[p].wall_ns;
		}
		if (!ns)
			continue;
		at += snprintf(buf + at, at < len ? len - at : 0, "%s%d:%s %lld %s per sec",
			       lines ? "\n" : "", peer_cpu_of(plan, p),
			       t->line, (long long)(events * t->per_event * 1e9 / ns), t->unit);
		lines++;
	}
	return lines;
}

/* map_perf_test FLAGS TASKS ENTRIES COUNT. */
static void command(const struct plan *plan, char *buf, size_t len)
{
	snprintf(buf, len, "map_perf_test %u %d %ld %ld", plan->bench->flag, plan->producers,
		 plan->max_entries, plan->count);
}

const struct kernel_bench kernel_map_perf_test = {
	.final_lines = task_lines,
	.command = command,
};
