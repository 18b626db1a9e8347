// SPDX-License-Identifier: GPL-2.0
/* The kernel's LPM trie bench (benchs/bench_lpm_trie_map.c): one program
 * that switches on its op at run time; for the ops that reset the trie
 * between runs (insert, delete, free) its Summary is over in-kernel time,
 * so the resets do not count. */
#include <stdio.h>
#include "peer.h"
#include "stats.h"
#include "rows.h"

/* Throughput over in-kernel time, in the Summary's format. */
static int lpm_kernel_time_line(const struct run *run, const struct samples *s,
				const struct run_summary *sum, char *buf, size_t len)
{
	struct units u = units_of(run);
	int p = run->plan->producers;

	snprintf(buf, len, "Summary: throughput %8.3lf \u00b1 %5.3lf %s ops/s (%7.3lf%s ops/prod), "
		 "latency %8.3lf %s/op", sum->figure.mean, sum->figure.stddev, u.tput_unit,
		 sum->figure.mean / p, u.tput_unit, sum->latency_ns.mean * u.lat / p, u.lat_unit);
	return 1;
}

static const struct kernel_bench kernel_lpm_trie = {
	.op_at_run_time = true,
};

static const struct kernel_bench kernel_lpm_trie_resets = {
	.final_lines = lpm_kernel_time_line,
	.op_at_run_time = true,
};

#define LPM_SOURCE .kernel_source = SELFTESTS_BENCH("bench_lpm_trie_map.c")

static const struct bench lpm_trie_rows[] = {
	{ .name = "lpm-trie-noop", LPM, .op = MB_OP_NOOP, .walk = &walk_shared,
	  .kernel = &kernel_lpm_trie, LPM_SOURCE,
	  .no_prefill = true,
	  .help = "the LPM producer loop alone",
	  .workload = "the loop alone, empty trie" },
	{ .name = "lpm-trie-baseline", LPM, .op = MB_OP_BASELINE, .walk = &walk_shared,
	  .kernel = &kernel_lpm_trie, LPM_SOURCE,
	  .no_prefill = true,
	  .help = "fetching the precomputed trie keys, no map operation",
	  .workload = "read each key's address word, no map operation, empty trie" },
	{ .name = "lpm-trie-lookup", LPM, .op = MB_OP_LOOKUP, .walk = &walk_shared,
	  .kernel = &kernel_lpm_trie, LPM_SOURCE,
	  .help = "lookup of the stored prefixes in a filled trie",
	  .workload = "trie of keys {plen, u32 id} for ids [0,nr); lookup of them in id order" },
	{ .name = "lpm-trie-update", LPM, .op = MB_OP_UPDATE, .walk = &walk_shared,
	  .kernel = &kernel_lpm_trie, LPM_SOURCE,
	  .help = "update of prefixes present in the trie (BPF_EXIST)",
	  .workload = "filled trie; BPF_EXIST update in id order" },
	{ .name = "lpm-trie-insert", LPM, .op = MB_OP_FILL_UP, .walk = &walk_sliced,
	  .figure = FIG_KERNEL, .single_producer = true, .no_prefill = true,
	  .kernel = &kernel_lpm_trie_resets, LPM_SOURCE,
	  .help = "insert into an empty trie until it holds nr-entries; emptying it is not timed",
	  .workload = "empty trie; BPF_NOEXIST insert ids 0..nr-1 in order, a batch a run; at nr "
		      "the trie is emptied untimed" },
	{ .name = "lpm-trie-delete", LPM, .op = MB_OP_DRAIN, .walk = &walk_sliced,
	  .figure = FIG_KERNEL, .single_producer = true, .kernel = &kernel_lpm_trie_resets, LPM_SOURCE,
	  .help = "delete from a full trie until it is empty; the refill is not timed",
	  .workload = "filled trie; delete ids 0..nr-1 in order, a batch a run; when empty it is "
		      "refilled untimed" },
	{ .name = "lpm-trie-free", LPM, FREE, .target = &lpm_family,
	  .kernel = &kernel_lpm_trie_resets, LPM_SOURCE,
	  .help = "time the kernel takes to free a trie holding nr-entries prefixes",
	  .workload = "create, fill from user space and close tries; time bpf_map_free_deferred" },
};
BENCH_ROWS(lpm_trie_rows, 6);
