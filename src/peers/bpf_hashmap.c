// SPDX-License-Identifier: GPL-2.0
/* The kernel's bpf-hashmap-lookup and bpf-hashmap-full-update
 * (benchs/bench_bpf_hashmap_lookup.c, bench_bpf_hashmap_full_update.c), and
 * their rhtab twins: their per-CPU lines and the keys lookup's program
 * builds. */
#include <stdio.h>
#include "peer.h"
#include "sampler.h"
#include "stats.h"
#include "rows.h"

/* bpf-hashmap-lookup: per producer, the events/s of its last 32 runs (or
 * fewer), mean ± 2 sd, and their mean length. */
static int lookup_lines(const struct run *run, const struct samples *s,
			const struct run_summary *sum, char *buf, size_t len)
{
	const struct prod_counters *c = s->last;
	size_t at = 0;
	int lines = 0;

	for (int p = 0; p < run->plan->producers; p++) {
		int n = c[p].runs < RECENT_RUNS ? c[p].runs : RECENT_RUNS;
		double ev[RECENT_RUNS], ns = 0;
		struct summary ev_sum;

		if (!n)
			continue;
		for (int i = 0; i < n; i++) {
			ev[i] = run->plan->batch * 1e3 / c[p].recent_ns[i];
			ns += c[p].recent_ns[i] / (double)n;
		}
		summarize(ev, n, &ev_sum);
		at += snprintf(buf + at, at < len ? len - at : 0, "%scpu%02d: lookup %.3lfM \u00b1 %.3lfM "
			       "events/sec (approximated from %d samples of ~%lums)", lines ? "\n" : "",
			       peer_cpu_of(run->plan, p), ev_sum.mean, 2 * ev_sum.stddev, n,
			       (unsigned long)(ns / 1e6));
		lines++;
	}
	return lines;
}

/* Its program fills the key bytes past the id with word i = i x 2654435761. */
static __u32 lookup_key_word(int w)
{
	return 2654435761u * w;
}

/* bpf-hashmap-full-update: per producer, the events/s of its last run. */
static int full_update_lines(const struct run *run, const struct samples *s,
			     const struct run_summary *sum, char *buf, size_t len)
{
	const struct prod_counters *c = s->last;
	size_t at = 0;
	int lines = 0;

	for (int p = 0; p < run->plan->producers; p++) {
		__u64 last;

		if (!c[p].runs)
			continue;
		last = c[p].recent_ns[(c[p].runs - 1) % RECENT_RUNS];
		at += snprintf(buf + at, at < len ? len - at : 0, "%s%d:hash_map_full_perf %lld events per sec",
			       lines ? "\n" : "", peer_cpu_of(run->plan, p),
			       last ? (long long)(run->plan->batch * 1000000000ull / last) : 0);
		lines++;
	}
	return lines;
}

static const struct kernel_bench kernel_hashmap_lookup = {
	.final_lines = lookup_lines,
	.line = { "cpu-lookup", "^\\s*cpu(?P<cpu>\\d+):\\s*lookup\\s+(?P<v>[\\d.]+)M\\s*(?:\u00b1|\\+-)",
		  "figure=v", "M events/s per producer", .per_cpu = true },
	.key_word = lookup_key_word,
	.shared_key = true,
	/* its --nr_loops: lookups per program run */
	.spellings = (const struct kernel_spelling[]){ { "nr_loops", "batch" }, {} },
};

static const struct kernel_bench kernel_hashmap_full_update = {
	.final_lines = full_update_lines,
	.line = PER_TASK_LINE,
};

/* The kernel's bpf-hashmap-* run from fentry on getpgid, with bpf_loop; where
 * fentry is refused, from the getpgid tracepoint, with a warning. */
#define HASHMAP_BENCH .trigger = TRIGGER_FENTRY, .trigger_fallback = TRIGGER_TP, \
	.loop = LOOP_BPF_LOOP, .figure = FIG_EVENTS_PER_PROD, .keys = KEYS_INDEX
/* Races between CPUs on the shared key make some lookups miss at -p > 1;
 * the kernel's loop then skips the rest of that pass (and counts it). */
#define HASHMAP_LOOKUP_WORKLOAD "keys 1..nr (id = position + 1, made in the program), key " \
	"words past the first i x 2654435761, in order from key 1 every run, in one key " \
	"buffer all CPUs write; batch floor(1M / nr) x nr"

#define LOOKUP_SOURCE SELFTESTS_BENCH("bench_bpf_hashmap_lookup.c")
#define FULL_UPDATE_SOURCE SELFTESTS_BENCH("bench_bpf_hashmap_full_update.c")

static const struct bench bpf_hashmap_rows[] = {
	{ .name = "bpf-hashmap-lookup", HTAB, .op = MB_OP_LOOKUP, .walk = &walk_from_first,
	  .nr_entries = 500, .batch = 1000000, HASHMAP_BENCH, .kernel = &kernel_hashmap_lookup,
	  .kernel_source = LOOKUP_SOURCE,
	  .help = "the kernel's bpf-hashmap-lookup: lookups of keys 1..nr, M events/s per producer",
	  .workload = HASHMAP_LOOKUP_WORKLOAD },
	{ .name = "bpf-hashmap-full-update", .aliases = { "htab-full-update" }, HTAB,
	  .op = MB_OP_OVERWRITE, .walk = &walk_absent, .batch = 10000, HASHMAP_BENCH,
	  .kernel = &kernel_hashmap_full_update, .kernel_source = FULL_UPDATE_SOURCE,
	  .help = "the kernel's bpf-hashmap-full-update: updates that find the map full (E2BIG)",
	  .workload = "prealloc map filled to max; producer p updates absent key max+p, BPF_ANY: "
		      "E2BIG expected" },
	/* The kernel's rhtab names: the same workloads on BPF_MAP_TYPE_RHASH,
	 * which is never preallocated (the kernel's rhtab-mem refuses
	 * --preallocated, as mapbench does). */
	{ .name = "bpf-rhashmap-lookup", HTAB, .maps = MAP_RHTAB, .map = "rhtab",
	  .op = MB_OP_LOOKUP, .walk = &walk_from_first, .nr_entries = 500, .batch = 1000000,
	  HASHMAP_BENCH, .kernel = &kernel_hashmap_lookup, .kernel_source = LOOKUP_SOURCE,
	  .help = "the kernel's bpf-rhashmap-lookup: bpf-hashmap-lookup on an rhtab map",
	  .workload = HASHMAP_LOOKUP_WORKLOAD },
	{ .name = "bpf-rhashmap-full-update", HTAB, .maps = MAP_RHTAB, .map = "rhtab",
	  .op = MB_OP_OVERWRITE, .walk = &walk_absent, .batch = 10000, HASHMAP_BENCH,
	  .kernel = &kernel_hashmap_full_update, .kernel_source = FULL_UPDATE_SOURCE,
	  .help = "the kernel's bpf-rhashmap-full-update: bpf-hashmap-full-update on an rhtab map",
	  .workload = "map filled to max; producer p updates absent key max+p, BPF_ANY" },
};
BENCH_ROWS(bpf_hashmap_rows, 1);
