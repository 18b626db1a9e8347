// SPDX-License-Identifier: GPL-2.0
/* The kernel's bpf-hashmap-lookup and bpf-hashmap-full-update
 * (benchs/bench_bpf_hashmap_lookup.c, bench_bpf_hashmap_full_update.c), and
 * their rhtab twins: their per-CPU lines and the keys lookup's program
 * builds. */
#include <stdio.h>
#include "peer.h"
#include "sampler.h"
#include "stats.h"

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

const struct kernel_bench kernel_hashmap_lookup = {
	.final_lines = lookup_lines,
	.line = { "cpu-lookup", "^\\s*cpu(?P<cpu>\\d+):\\s*lookup\\s+(?P<v>[\\d.]+)M\\s*(?:\u00b1|\\+-)" },
	.key_word = lookup_key_word,
	.shared_key = true,
	/* its --nr_loops: lookups per program run */
	.spellings = (const struct kernel_spelling[]){ { "nr_loops", "batch" }, {} },
};

const struct kernel_bench kernel_hashmap_full_update = {
	.final_lines = full_update_lines,
	.line = PER_TASK_LINE,
};
