/* SPDX-License-Identifier: GPL-2.0 */
/* What makes a benchmark the kernel selftests bench's beyond its row's data:
 * the lines it prints after its Summary, the keys its program builds, its
 * words for our options and its tool's arguments. One file per kernel bench
 * in src/peers/, as the kernel has one per bench in
 * tools/testing/selftests/bpf/benchs/, holding its rows too (their trigger,
 * loop, figure and sizes are data), each pointing at its peer. The engine
 * calls what a peer has and never asks which bench it runs. */
#ifndef MAPBENCH_PEER_H
#define MAPBENCH_PEER_H
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "bench.h"

struct options;
struct run;
struct samples;
struct run_summary;

/* The shape of a line a kernel tool prints and what it gives a result,
 * which scripts/mapbench/kernel_log.py reads a tool's output by, knowing
 * no shape itself (./bench --contracts --json FILE lists every one, by
 * name). pattern is a Python regular expression with named groups: a
 * group "name" names the run, and a group G_scale holds a word of
 * kernel_scales_json()'s that scales group G. */
struct kernel_line {
	const char *name;
	const char *pattern;
	/* The metrics of a match as metric=group words, one of them the
	 * figure ("throughput=tput figure=tput latency=lat"); NULL: the line
	 * only tells that a log is the tool's */
	const char *metrics;
	const char *unit;	/* the figure's unit and name, "M/s hits" */
	bool lower_better;	/* the figure is a time */
	bool per_cpu;		/* a line per CPU: a run is their mean (per producer) */
};

/* One line per task of map_perf_test and of bpf-hashmap-full-update:
 * "0:hash_map_perf kmalloc 262788 events per sec", "3:hash_map_full_perf
 * 20330000 events per sec", "0:hash_lookup 24567286 lookups per sec" (64
 * lookups an event). */
#define PER_TASK_LINE { "per-task", "^(?P<cpu>\\d+):(?P<name>\\w+(?: [\\w-]+)?) (?P<v>\\d+) " \
			"(?P<v_scale>events|lookups) per sec$", "figure=v", "M events/s per producer", \
			.per_cpu = true }

/* A file of the selftests bench in the kernel's tree (a row's kernel_source). */
#define SELFTESTS_BENCH(file) "tools/testing/selftests/bpf/benchs/" file

/* A kernel bench's own name for one of our options (htab-mem's
 * --preallocated for --prealloc), accepted for every benchmark. */
struct kernel_spelling {
	const char *name;
	const char *option;		/* the option it spells, by its name */
	const char *help;		/* its --help text (NULL: none) */
	const char *arg;		/* its value's name there (NULL: the option's) */
};

struct kernel_bench {
	/* The lines the kernel bench prints after its Summary, in its format
	 * and with its aggregation, into buf one per line; how many. */
	int (*final_lines)(const struct run *run, const struct samples *s,
			   const struct run_summary *sum, char *buf, size_t len);
	/* Word w (from 1) of every key past the id, which its program writes
	 * itself; NULL: zeros. */
	__u32 (*key_word)(int w);
	/* One key buffer that every CPU writes, as its program's global key[]
	 * (their stores contend: that is in its figure). */
	bool shared_key;
	/* Its program switches on its op at run time, so every op is in the
	 * loaded program (which changes what the verifier makes of it: the LPM
	 * bench's harness cost is that of such a program). */
	bool op_at_run_time;
	/* The kernel tool's command line for this plan's workload, where the
	 * tool is not the selftests bench taking our arguments (map_perf_test
	 * FLAGS TASKS ENTRIES); --dry-run prints it for scripts/vmrun --peer. */
	void (*command)(const struct plan *plan, char *buf, size_t len);
	/* Its figure is over each batch's time, as its timing library's: the
	 * times are recorded unless --batch-times off. */
	bool times_batches;
	/* Its tool's own arguments after the benchmark's name (map_perf_test
	 * FLAGS TASKS ENTRIES COUNT), into given; an exit status. NULL: none. */
	int (*arguments)(struct options *given, int n, char **args);
	/* The shape of the lines final_lines prints (name NULL: none of its own). */
	struct kernel_line line;
	/* The file of the kernel's bench library it needs besides its own
	 * (in the kernel's tree), or NULL. */
	const char *library;
	/* Its spellings of our options, ending in one without a name. */
	const struct kernel_spelling *spellings;
};

/* Every kernel bench's line shape, and the Summary's, once each by name,
 * as JSON (./bench --contracts --json). */
json_t *kernel_lines_json(void);
/* The words a G_scale group holds and what each does to G, into the unit
 * of the shape's figure: [mul, div]. */
json_t *kernel_scales_json(void);
/* The shape of the line that carries row b's figure in its kernel tool's
 * output: its peer's own line, else the selftests bench's Summary. */
static inline const char *kernel_line_of(const struct bench *b)
{
	return b->kernel && b->kernel->line.name ? b->kernel->line.name : "summary";
}

/* The CPU a kernel bench labels producer p's line with: the one it is
 * pinned to, else its index. */
static inline int peer_cpu_of(const struct plan *plan, int p)
{
	return plan->nr_prod_cpus ? plan->prod_cpus[p] : p;
}

/* The timing library's: bpf-nop's (bpf_timing.c) and xdp-lb's (xdp_lb.c). */
extern const struct kernel_bench kernel_bpf_timing;

/* The name the kernel's timing library prints a run's figures under: the
 * scenario (the use case) of a row of a group, as xdp-lb's, else the
 * bench's. */
static inline const char *timing_name(const struct bench *b)
{
	return b->use_case ? b->use_case : b->name;
}

#endif
