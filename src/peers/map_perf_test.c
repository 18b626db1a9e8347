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
#include "rows.h"

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

static const struct kernel_bench kernel_map_perf_test = {
	.final_lines = task_lines,
	.command = command,
	.arguments = arguments,
	.line = PER_TASK_LINE,
};

/* samples/bpf map_perf_test: a task per CPU, pinned, each making the test's
 * syscall count times (its default 10,000) a round, the LRU tests' maps
 * emptied between rounds as each map_perf_test run starts with new ones;
 * its program (a ksyscall, else the syscall's tracepoint with a warning)
 * does the test's map work. Its figure: events per sec per task, timed in
 * user space around each round. */
#define MAP_PERF .family = &map_perf_family, .group = "map-perf", .key_size = 4, \
	.value_size = 8, .max_entries = 1000, .nr_entries = 0, .prefix_len = -1, .prealloc = 1, \
	.trigger = TRIGGER_KSYSCALL, .trigger_fallback = TRIGGER_TP, .loop = LOOP_NONE, \
	.figure = FIG_EVENTS_PER_TASK, .task_per_cpu = true, .kernel = &kernel_map_perf_test, \
	.kernel_source = "samples/bpf/map_perf_test_user.c", \
	.op = MB_OP_NOOP, .batch = 1, .count = 10000
#define MAP_PERF_CHURN "per event (a syscall), 10 x {update BPF_ANY, lookup, delete if found} of " \
	"the task's key (its tid); hash_map_alloc also holds keys 0..32, as map_perf_test's " \
	"fill_lpm_trie() leaves it"

static const struct bench map_perf_test_rows[] = {
	{ .name = "map-perf-hash-prealloc", MAP_PERF, .use_case = "HASH_PREALLOC", .flag = 1,
	  .maps = MAP_HTAB, .map = "htab",
	  .help = "map_perf_test 1: update/lookup/delete churn on a preallocated hash, per getuid()",
	  .workload = MAP_PERF_CHURN },
	{ .name = "map-perf-percpu-hash-prealloc", MAP_PERF, .use_case = "PERCPU_HASH_PREALLOC",
	  .flag = 2, .maps = MAP_PERCPU, .map = "percpu",
	  .help = "map_perf_test 2: the churn on a preallocated per-CPU hash, per geteuid()",
	  .workload = MAP_PERF_CHURN },
	{ .name = "map-perf-hash-kmalloc", MAP_PERF, .use_case = "HASH_KMALLOC", .flag = 4,
	  .maps = MAP_HTAB, .map = "htab", .prealloc = 0,
	  .help = "map_perf_test 4: the churn on a BPF_F_NO_PREALLOC hash, per getgid()",
	  .workload = MAP_PERF_CHURN },
	{ .name = "map-perf-percpu-hash-kmalloc", MAP_PERF, .use_case = "PERCPU_HASH_KMALLOC",
	  .flag = 8, .maps = MAP_PERCPU, .map = "percpu", .prealloc = 0,
	  .help = "map_perf_test 8: the churn on a BPF_F_NO_PREALLOC per-CPU hash, per getegid()",
	  .workload = MAP_PERF_CHURN },
	{ .name = "map-perf-lru-hash-prealloc", MAP_PERF, .use_case = "LRU_HASH_PREALLOC",
	  .flag = 16, .maps = MAP_LRU, .map = "lru", .max_entries = 10000,
	  .help = "map_perf_test 16: an update of a random key in an LRU hash, per connect()",
	  .workload = "per event, one BPF_ANY update of a bpf_get_prandom_u32() key: nearly every "
		      "one inserts, evicting once full" },
	{ .name = "map-perf-nocommon-lru-hash-prealloc", MAP_PERF,
	  .use_case = "NOCOMMON_LRU_HASH_PREALLOC", .flag = 32, .maps = MAP_LRU_NOCOMMON,
	  .map = "lru_nocommon", .max_entries = 10000,
	  .help = "map_perf_test 32: the random update on a BPF_F_NO_COMMON_LRU map, per connect()",
	  .workload = "per event, one BPF_ANY update of a bpf_get_prandom_u32() key in an LRU "
		      "map with a list per CPU" },
	{ .name = "map-perf-lpm-kmalloc", MAP_PERF, .use_case = "LPM_KMALLOC", .flag = 64,
	  .maps = MAP_LPM, .map = "lpm_trie", .max_entries = 10000, .prealloc = 0,
	  .prefix_len = PREFIX_ALL,
	  .help = "map_perf_test 64: 32 lookups of 192.168.0.1/32 in an LPM trie, per gettid()",
	  .workload = "per event, 32 lookups of 192.168.0.1/32; the trie is empty, as "
		      "map_perf_test's is (its fill writes into hash_map_alloc)" },
	{ .name = "map-perf-hash-lookup", MAP_PERF, .use_case = "HASH_LOOKUP", .flag = 128,
	  .maps = MAP_HTAB, .map = "htab",
	  .help = "map_perf_test 128: 64 lookups of key 1 in an empty hash, per getpgid()",
	  .workload = "per event, 64 lookups of key 1 (absent: the map is empty, as the "
		      "kernel's); its line counts lookups, 64 an event" },
	{ .name = "map-perf-array-lookup", MAP_PERF, .use_case = "ARRAY_LOOKUP", .flag = 256,
	  .maps = MAP_ARRAY, .map = "array",
	  .help = "map_perf_test 256: 64 lookups of index 1 in an array, per getppid()",
	  .workload = "per event, 64 lookups of index 1; its line counts lookups, 64 an event" },
	{ .name = "map-perf-inner-lru-hash-prealloc", MAP_PERF,
	  .use_case = "INNER_LRU_HASH_PREALLOC", .flag = 512, .maps = MAP_LRU, .map = "lru",
	  .help = "map_perf_test 512: the random update into this CPU's LRU map, from an array "
		  "of maps, per connect()",
	  .workload = "per event, the CPU's own LRU map looked up in an array of maps (CPU 0's "
		      "the object's, the others' made on their CPU's NUMA node), then one BPF_ANY "
		      "update of a bpf_get_prandom_u32() key" },
	{ .name = "map-perf-lru-hash-lookup", MAP_PERF, .use_case = "LRU_HASH_LOOKUP",
	  .flag = 1024, .maps = MAP_LRU, .map = "lru", .nr_entries = ENTRIES_MAX,
	  .help = "map_perf_test 1024: 32 lookups of consecutive keys in a filled LRU hash, "
		  "per connect()",
	  .workload = "keys 0..max(32,max)-1 filled; per event, 32 lookups from the key connect() "
		      "carries, which moves on by 32 an event, wrapping" },
};
BENCH_ROWS(map_perf_test_rows, 3);
