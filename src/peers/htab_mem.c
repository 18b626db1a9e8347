// SPDX-License-Identifier: GPL-2.0
/* The kernel's htab-mem and rhtab-mem (benchs/bench_htab_mem.c): their
 * Summary line of per-prod-op and the memory cgroup's charge. */
#include <math.h>
#include <stdio.h>
#include "peer.h"
#include "sampler.h"
#include "stats.h"

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

const struct kernel_bench kernel_htab_mem = {
	.final_lines = htab_mem_line,
	.line = { "per-prod-op", "^\\s*Summary:\\s*per-prod-op\\s+(?P<v>[\\d.]+)\\s*(?:\u00b1|\\+-)"
			       "\\s*[\\d.]+\\s*k/s" },
	.spellings = (const struct kernel_spelling[]){
		{ "preallocated", "prealloc", "htab-mem's spelling of --prealloc" }, {} },
};
