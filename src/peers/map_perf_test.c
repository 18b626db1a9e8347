// SPDX-License-Identifier: GPL-2.0
/* samples/bpf map_perf_test (map_perf_test_user.c): a line per task,
 * "CPU:NAME N events per sec" (lookups per sec for the 64-lookup tests). */
#include <stdint.h>
#include <stdio.h>
#include "log.h"
#include "map_perf.h"
#include "options.h"
#include "parse.h"
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

/* Its own arguments after the benchmark's name: ./bench map-perf FLAGS
 * [TASKS [ENTRIES [COUNT]]], a 0 leaving one to the row as map_perf_test's
 * 0s do; each also an option, given once. */
static int arguments(struct options *given, int n, char **args)
{
	static const char *const names[] = { "FLAGS (--flags)", "TASKS (-p)",
					     "ENTRIES (--max-entries)", "COUNT (--count)" };
	struct maybe *opt[] = { &given->flags, NULL, &given->max_entries, &given->count };
	long v[4];

	for (int i = 0; i < n; i++) {
		v[i & 3] = parse_count(args[i]);
		if (i >= 4 || v[i] < 0 || v[i] > INT32_MAX || (i == 0 && !v[i])) {
			mb_err("one benchmark at a time, or map_perf_test's FLAGS TASKS ENTRIES COUNT "
			       "after map-perf: not '%s'", args[i]);
			return EXIT_USAGE;
		}
		if (v[i] && (opt[i] ? opt[i]->given : given->producers_given)) {
			mb_err("%s given twice, as an argument and as an option", names[i]);
			return EXIT_USAGE;
		}
	}
	for (int i = 0; i < n; i++) {
		if (!v[i])
			continue;
		if (opt[i])
			GIVE(*opt[i], v[i]);
		else if (v[i] > MAX_PRODUCERS) {
			mb_err("TASKS takes 1 to %d, not %ld", MAX_PRODUCERS, v[i]);
			return EXIT_USAGE;
		} else {
			given->producers = v[i];
			given->producers_given = true;
		}
	}
	return EXIT_OK;
}

const struct kernel_bench kernel_map_perf_test = {
	.final_lines = task_lines,
	.command = command,
	.arguments = arguments,
	.line = PER_TASK_LINE,
};
