// SPDX-License-Identifier: GPL-2.0
/* The kernel's bloom filter map benches (benchs/bench_bloom_filter_map.c):
 * bloom-lookup and bloom-update walk every value of the filter, peeking or
 * pushing each; hashmap-without-bloom and hashmap-with-bloom probe a hash
 * map with random values, the second with the filter in front. Their
 * Summary line of hits, drops and total operations; its hits are the
 * figure of the first two, its total operations that of the hashmap pair
 * (run_bench_bloom_filter_map.sh reads them so). */
#include <math.h>
#include <stdio.h>
#include "bloom.h"
#include "maps.h"
#include "peer.h"
#include "sampler.h"
#include "stats.h"
#include "rows.h"

/* The kernel's hits_drops_report_final(): over the measured samples, each
 * one's count in millions (a sample is a second), mean ± sample stddev. */
static int hits_drops_line(const struct run *run, const struct samples *s,
			   const struct run_summary *sum, char *buf, size_t len)
{
	double hits[s->n + 1], drops[s->n + 1], total[s->n + 1];
	struct summary h, d, t;
	int n = 0;

	for (int i = 0; i < s->n; i++) {
		if (s->v[i].warmup)
			continue;
		hits[n] = s->v[i].hits / 1e6;
		drops[n] = s->v[i].misses / 1e6;
		total[n] = hits[n] + drops[n];
		n++;
	}
	if (!n)
		return 0;
	summarize(hits, n, &h);
	summarize(drops, n, &d);
	summarize(total, n, &t);
	snprintf(buf, len, "Summary: hits %8.3lf \u00b1 %5.3lfM/s (%7.3lfM/prod), drops %8.3lf \u00b1 "
		 "%5.3lfM/s, total operations %8.3lf \u00b1 %5.3lfM/s", h.mean,
		 n > 1 ? h.stddev : 0, h.mean / run->plan->producers, d.mean, n > 1 ? d.stddev : 0,
		 t.mean, n > 1 ? t.stddev : 0);
	return 1;
}

/* Its line, read for its hits (also as older kernels print it, without
 * total operations), or for its total operations. */
#define HITS_PART "^\\s*Summary:\\s*hits\\s+(?P<hits>[\\d.]+)\\s*(?:\u00b1|\\+-)\\s*[\\d.]+\\s*M/s"

/* Its words for our options: --nr_entries and --value_size are ours. */
static const struct kernel_spelling bloom_spellings[] = {
	{ "nr_hash_funcs", "map-extra", "bloom: the filter's hash functions (default 3), as\n"
					"--map-extra", "N" }, {} };

static const struct kernel_bench kernel_bloom = {
	.final_lines = hits_drops_line,
	.line = { "hits", HITS_PART, "throughput=hits figure=hits", "M/s hits" },
	.spellings = bloom_spellings,
};

static const struct kernel_bench kernel_bloom_hashmap = {
	.final_lines = hits_drops_line,
	.line = { "total-operations", HITS_PART ".*?drops\\s+(?P<drops>[\\d.]+).*?total operations\\s+"
				      "(?P<total>[\\d.]+)", "throughput=total figure=total",
		  "M/s total operations" },
	.spellings = bloom_spellings,
};

/* The kernel's bloom benches: values of 8 bytes, 1000 of them (each map
 * sized to them), 3 hash functions, from fentry on getpgid (its tracepoint
 * where fentry is refused); the maps filled before the first run (here by
 * one thread from --seed, there by a thread per CPU from getrandom). */
#define BLOOM .family = &bloom_family, .kernel_source = SELFTESTS_BENCH("bench_bloom_filter_map.c"), \
	.key_size = 0, .value_size = 8, .nr_entries = 1000, .max_entries = ENTRIES_NR, \
	.map_extra = 3, .prefix_len = -1, .prealloc = 1, .trigger = TRIGGER_FENTRY, \
	.trigger_fallback = TRIGGER_TP, .loop = LOOP_NONE, .figure = FIG_WALL
#define WALK_ALL .maps = MAP_BLOOM, .map = "bloom_filter", .batch = BATCH_NR_ENTRIES, \
	.kernel = &kernel_bloom
#define PROBES .maps = MAP_HTAB, .map = "htab", .op = MB_OP_LOOKUP, .batch = 1024, \
	.kernel = &kernel_bloom_hashmap
#define PROBES_WORKLOAD "per run, 1024 values of value_size bytes read from 2.5 MB of " \
	"random bytes from a random start below 2^21, stepping value_size; the hashmap holds " \
	"nr_entries other random values (a probe finds one by chance)"

static const struct bench bloom_filter_rows[] = {
	{ .name = "bloom-lookup", BLOOM, WALK_ALL, .op = MB_OP_LOOKUP, .family_op = BLOOM_PEEK_ALL,
	  .help = "the kernel's bloom-lookup: the filter's every value peeked, M/s hits",
	  .workload = "per run, bpf_for_each_map_elem over the nr_entries values (an array) "
		      "peeks each in the filter that holds them: every op a hit" },
	{ .name = "bloom-update", BLOOM, WALK_ALL, .op = MB_OP_OVERWRITE,
	  .family_op = BLOOM_PUSH_ALL,
	  .help = "the kernel's bloom-update: the filter's every value pushed again, M/s hits",
	  .workload = "per run, bpf_for_each_map_elem over the nr_entries values (an array) "
		      "pushes each into the filter again" },
	{ .name = "hashmap-without-bloom", BLOOM, PROBES, .family_op = BLOOM_PROBE,
	  .help = "the kernel's hashmap-without-bloom: random values looked up in a hashmap, "
		  "M/s total operations",
	  .workload = PROBES_WORKLOAD "; each probe a lookup, nearly all drops" },
	{ .name = "hashmap-with-bloom", BLOOM, PROBES, .family_op = BLOOM_PROBE_FILTERED,
	  .help = "the kernel's hashmap-with-bloom: the same probes, the filter in front, M/s "
		  "total operations",
	  .workload = PROBES_WORKLOAD "; the filter, holding the hashmap's values, peeked "
		      "first: a value it rules out is a hit, one it passes (a false positive) a "
		      "lookup, nearly always a drop" },
};
BENCH_ROWS(bloom_filter_rows, 7);
