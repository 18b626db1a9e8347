// SPDX-License-Identifier: GPL-2.0
/* The kernel's htab-mem and rhtab-mem (benchs/bench_htab_mem.c): their
 * Summary line of per-prod-op and the memory cgroup's charge. */
#include <math.h>
#include <stdio.h>
#include "peer.h"
#include "sampler.h"
#include "stats.h"
#include "rows.h"

/* The kernel's htab-mem: an unreadable cgroup file counts 0. */
static int htab_mem_line(const struct run *run, const struct samples *s,
			 const struct run_summary *sum, char *buf, size_t len)
{
	const double mib = 1048576;

	snprintf(buf, len, "Summary: per-prod-op %7.2lf \u00b1 %7.2lfk/s, memory usage %7.2lf \u00b1 "
		 "%7.2lfMiB, peak memory usage %7.2lfMiB",
		 sum->figure.mean, sum->figure.stddev,
		 isnan(sum->charged.mean) ? 0 : sum->charged.mean / mib,
		 isnan(sum->charged.stddev) ? 0 : sum->charged.stddev / mib,
		 isnan(sum->cgroup_peak) ? 0 : sum->cgroup_peak / mib);
	return 1;
}

static const struct kernel_bench kernel_htab_mem = {
	.final_lines = htab_mem_line,
	.line = { "per-prod-op", "^\\s*Summary:\\s*per-prod-op\\s+(?P<v>[\\d.]+)\\s*(?:\u00b1|\\+-)"
			       "\\s*[\\d.]+\\s*k/s", "figure=v", "k/s per-prod-op" },
	.spellings = (const struct kernel_spelling[]){
		{ "preallocated", "prealloc", "htab-mem's spelling of --prealloc" }, {} },
};

/* The kernel's htab-mem: u32 keys, max(8192, 64 x CPUs) entries, no prealloc,
 * 64 keys per producer, one per bpf_loop callback, run from the getpgid
 * tracepoint (deleters: getppid), per-prod-op with the map's memory sampled. */
#define HTAB_MEM HTAB, .group = "htab-mem", .max_entries_of = htab_mem_max_entries, \
	.prealloc = 0, .batch = 64, .figure = FIG_RUNS_PER_PROD, .track_mem = true, \
	.walk = &walk_strided, .keys = KEYS_INDEX, .trigger = TRIGGER_TP, .loop = LOOP_BPF_LOOP, \
	.kernel = &kernel_htab_mem, .kernel_source = SELFTESTS_BENCH("bench_htab_mem.c")

static const struct bench htab_mem_rows[] = {
	{ .name = "htab-mem-overwrite", .aliases = { "overwrite" }, HTAB_MEM,
	  .use_case = "overwrite", .op = MB_OP_OVERWRITE,
	  .help = "htab-mem --use-case overwrite: per-prod-op with memory sampled",
	  .workload = "htab-mem: producer p's keys BPF_ANY updated each run" },
	{ .name = "htab-mem-batch_add_batch_del", .aliases = { "batch_add_batch_del" }, HTAB_MEM,
	  .use_case = "batch_add_batch_del", .op = MB_OP_ADD_DEL_BATCH,
	  .help = "htab-mem --use-case batch_add_batch_del: per-prod-op with memory sampled",
	  .workload = "htab-mem: producer p's keys added (BPF_ANY) then deleted each run, a run "
		      "counts 2" },
	{ .name = "htab-mem-add_del_on_diff_cpu", .aliases = { "add_del_on_diff_cpu" }, HTAB_MEM,
	  .use_case = "add_del_on_diff_cpu", .op = MB_OP_ADD, .walk = &walk_strided_pairs,
	  .help = "htab-mem --use-case add_del_on_diff_cpu: per-prod-op with memory sampled",
	  .workload = "htab-mem: producer 2k adds pair k's keys (BPF_NOEXIST), then 2k+1 "
		      "deletes them, in turn" },
	{ .name = "rhtab-mem-overwrite", HTAB_MEM, .group = "rhtab-mem", .maps = MAP_RHTAB,
	  .map = "rhtab", .use_case = "overwrite", .op = MB_OP_OVERWRITE,
	  .help = "rhtab-mem --use-case overwrite: htab-mem's on an rhtab map",
	  .workload = "htab-mem: producer p's keys BPF_ANY updated each run" },
	{ .name = "rhtab-mem-batch_add_batch_del", HTAB_MEM, .group = "rhtab-mem",
	  .maps = MAP_RHTAB, .map = "rhtab", .use_case = "batch_add_batch_del",
	  .op = MB_OP_ADD_DEL_BATCH,
	  .help = "rhtab-mem --use-case batch_add_batch_del: htab-mem's on an rhtab map",
	  .workload = "htab-mem: producer p's keys added (BPF_ANY) then deleted each run, a run "
		      "counts 2" },
	{ .name = "rhtab-mem-add_del_on_diff_cpu", HTAB_MEM, .group = "rhtab-mem",
	  .maps = MAP_RHTAB, .map = "rhtab", .use_case = "add_del_on_diff_cpu", .op = MB_OP_ADD,
	  .walk = &walk_strided_pairs,
	  .help = "rhtab-mem --use-case add_del_on_diff_cpu: htab-mem's on an rhtab map",
	  .workload = "htab-mem: producer 2k adds pair k's keys (BPF_NOEXIST), then 2k+1 "
		      "deletes them, in turn" },
};
BENCH_ROWS(htab_mem_rows, 2);
