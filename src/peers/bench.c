// SPDX-License-Identifier: GPL-2.0
/* The selftests bench's own lines (bench.c), which every bench of it
 * prints and scripts/mapbench/kernel_log.py reads: the Summary, the timing
 * library's RESULT line (--machine-readable), the lines of a run, by which
 * a log is told to be the bench's, and the one naming its benchmark; with
 * every peer's line shape (the hits line is the bloom benches') and the
 * words that scale a figure, as JSON. */
#include "peer.h"

static const struct kernel_line bench_lines[] = {
	/* "Summary: throughput 7.4 ± 0.02 M ops/s (...), latency 134.7 ns/op", and
	 * the LPM cover letter's "lookup: throughput 7.423 ± 0.023 M ops/s (...),
	 * latency 134.710 ns/op" */
	{ "summary", "^\\s*(?P<name>[\\w.-]+)?\\s*:\\s*throughput\\s+(?P<tput>[\\d.]+)\\s*"
		     "(?:\u00b1|\\+-)\\s*[\\d.]+\\s*(?P<tput_scale>[MK])\\s*ops/s.*?latency\\s+"
		     "(?P<lat>[\\d.]+)\\s*(?P<lat_scale>ns|us|ms)/op",
	  "throughput=tput figure=tput latency=lat", "M ops/s throughput" },
	{ "result", "^RESULT scenario=(?P<name>\\S+) .*\\bmedian=(?P<median>[\\d.]+) .*"
		    "\\bp99=(?P<p99>[\\d.]+)",
	  "figure=median p50=median iqr_median=median iqr_p99=p99", "ns/op median per batch",
	  .lower_better = true },
	{ "run", "^\\s*(Setting up benchmark|Benchmark '|Iter\\s+\\d+\\s*\\(|Summary:|"
		 "[\\w.-]+\\s*:\\s*throughput\\s|cpu\\d+:\\s*lookup\\s|"
		 "[\\w.-]+: median [\\d.]+ ns/op|RESULT scenario=)" },
	/* "Setting up benchmark 'bloom-lookup'...": which bench a log is */
	{ "bench", "^Setting up benchmark '(?P<name>[\\w.-]+)'" },
};

/* Thousands, millions (the figures' unit is M/s), times into ns, and
 * map_perf_test's per-sec counts into M events/s, 64 lookups an event: a
 * value times mul, divided by div (each of the two as the figure was always
 * worked out, to the last bit). */
static const struct {
	const char *word;
	double mul, div;
} scales[] = {
	{ "M", 1, 1 }, { "K", 1e-3, 1 }, { "ns", 1, 1 }, { "us", 1e3, 1 }, { "ms", 1e6, 1 },
	{ "events", 1, 1e6 }, { "lookups", 1, 64e6 },
};

static json_t *line_json(const struct kernel_line *l)
{
	json_t *o = json_pack("{s:s}", "pattern", l->pattern);

	if (l->metrics)
		json_object_update_new(o, json_pack("{s:s, s:s, s:b, s:b}", "metrics", l->metrics,
						    "unit", l->unit, "lower_better", l->lower_better,
						    "per_cpu", l->per_cpu));
	return o;
}

json_t *kernel_lines_json(void)
{
	json_t *o = json_object();

	for (size_t i = 0; i < sizeof(bench_lines) / sizeof(*bench_lines); i++)
		json_object_set_new(o, bench_lines[i].name, line_json(&bench_lines[i]));
	for (int i = 0; i < nr_benches; i++) {
		const struct kernel_bench *k = benches[i].kernel;

		if (k && k->line.name)
			json_object_set_new(o, k->line.name, line_json(&k->line));
	}
	return o;
}

json_t *kernel_scales_json(void)
{
	json_t *o = json_object();

	for (size_t i = 0; i < sizeof(scales) / sizeof(*scales); i++)
		json_object_set_new(o, scales[i].word, json_pack("[f, f]", scales[i].mul, scales[i].div));
	return o;
}
