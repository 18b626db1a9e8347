// SPDX-License-Identifier: GPL-2.0
/* The kernel's LPM trie bench (benchs/bench_lpm_trie_map.c): one program
 * that switches on its op at run time; for the ops that reset the trie
 * between runs (insert, delete, free) its Summary is over in-kernel time,
 * so the resets do not count. */
#include <stdio.h>
#include "output.h"
#include "peer.h"

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

const struct kernel_bench kernel_lpm_trie = {
	.op_at_run_time = true,
};

const struct kernel_bench kernel_lpm_trie_resets = {
	.final_lines = lpm_kernel_time_line,
	.op_at_run_time = true,
};
