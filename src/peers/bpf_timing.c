// SPDX-License-Identifier: GPL-2.0
/* The selftests bench's BPF-side timing library (benchs/bench_bpf_timing.c,
 * linux 7.3) and the benches built on it, bpf-nop (bench_bpf_nop.c) and
 * xdp-lb (bench_xdp_lb.c): after the run, the library's line over every
 * batch's ns per iteration, those outside 1.5 IQR of the quartiles left
 * out: "NAME: median M ns/op, stddev S, p99 P (N samples)", NAME the
 * bench's, or xdp-lb's scenario. */
#include <stdio.h>
#include "peer.h"
#include "stats.h"
#include "nop.h"
#include "rows.h"

static int timing_line(const struct run *run, const struct samples *s,
		       const struct run_summary *sum, char *buf, size_t len)
{
	const struct batch_stats *b = &sum->batches;

	if (!b->iqr_n)
		return 0;
	snprintf(buf, len, "%s: median %.2f ns/op, stddev %.2f, p99 %.2f (%ld samples)",
		 timing_name(run->plan->bench), b->iqr_median, b->iqr_stddev, b->iqr_p99,
		 b->iqr_n);
	return 1;
}

const struct kernel_bench kernel_bpf_timing = {
	.final_lines = timing_line,
	.library = SELFTESTS_BENCH("bench_bpf_timing.c"),
	.line = { "timing", "^(?P<name>[\\w.-]+): median (?P<median>[\\d.]+) ns/op, stddev "
			    "(?P<stddev>[\\d.]+), p99 (?P<p99>[\\d.]+) \\((?P<samples>\\d+) samples\\)$",
		  "figure=median p50=median iqr_median=median iqr_p99=p99", "ns/op median per batch",
		  .lower_better = true },
	.times_batches = true,
	.spellings = (const struct kernel_spelling[]){
		{ "scenario", "use-case", "xdp-lb: the scenario (default tcp-v4-lru-hit); the same\n"
					  "as --use-case", "NAME" }, {} },
};

static const struct bench bpf_timing_rows[] = {
	{ .name = "bpf-nop", .family = &nop_family, .kernel = &kernel_bpf_timing,
	  .kernel_source = SELFTESTS_BENCH("bench_bpf_nop.c"), .map = "array",
	  .maps = MAP_ARRAY, .key_size = 4, .value_size = 4, .max_entries = 1, .nr_entries = 0,
	  .prefix_len = -1, .prealloc = 1, .no_prefill = true, .trigger = TRIGGER_SYSCALL_PROG,
	  .loop = LOOP_CAN_LOOP, .op = MB_OP_NOOP, .batch = 10000, .batch_auto = true,
	  .figure = FIG_BATCH_MEDIAN,
	  .help = "the kernel timing library's loop doing nothing: what an iteration costs",
	  .workload = "a syscall program's empty loop bounded by may_goto, its bound read at each of "
		      "a batch's iterations, timed around; batch sized to 10 ms in the warmup "
		      "(--batch auto); no map (the one recorded is its global data)" },
};
BENCH_ROWS(bpf_timing_rows, 4);
