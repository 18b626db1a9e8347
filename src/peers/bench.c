// SPDX-License-Identifier: GPL-2.0
/* The selftests bench's own lines (bench.c), which every bench of it
 * prints and scripts/mapbench/kernel_log.py reads: the Summary, its hits,
 * the timing library's RESULT line (--machine-readable) and the lines of a
 * run, by which a log is told to be the bench's; with every peer's line
 * shape, as JSON. */
#include "peer.h"

static const struct kernel_line bench_lines[] = {
	/* "Summary: throughput 7.4 ± 0.02 M ops/s (...), latency 134.7 ns/op", and
	 * the LPM cover letter's "lookup: throughput 7.423 ± 0.023 M ops/s (...),
	 * latency 134.710 ns/op" */
	{ "summary", "^\\s*(?P<name>[\\w.-]+)?\\s*:\\s*throughput\\s+(?P<tput>[\\d.]+)\\s*"
		     "(?:\u00b1|\\+-)\\s*[\\d.]+\\s*(?P<tunit>[MK])\\s*ops/s.*?latency\\s+"
		     "(?P<lat>[\\d.]+)\\s*(?P<lunit>ns|us|ms)/op" },
	{ "hits", "^\\s*Summary:\\s*hits\\s+(?P<tput>[\\d.]+)\\s*(?:\u00b1|\\+-)\\s*[\\d.]+\\s*M/s" },
	{ "result", "^RESULT scenario=(?P<name>\\S+) .*\\bmedian=(?P<median>[\\d.]+) .*"
		    "\\bp99=(?P<p99>[\\d.]+)" },
	{ "run", "^\\s*(Setting up benchmark|Benchmark '|Iter\\s+\\d+\\s*\\(|Summary:|"
		 "[\\w.-]+\\s*:\\s*throughput\\s|cpu\\d+:\\s*lookup\\s|"
		 "[\\w.-]+: median [\\d.]+ ns/op|RESULT scenario=)" },
};

json_t *kernel_lines_json(void)
{
	json_t *o = json_object();

	for (size_t i = 0; i < sizeof(bench_lines) / sizeof(*bench_lines); i++)
		json_object_set_new(o, bench_lines[i].name, json_string(bench_lines[i].pattern));
	for (int i = 0; i < nr_benches; i++) {
		const struct kernel_bench *k = benches[i].kernel;

		if (k && k->line.name)
			json_object_set_new(o, k->line.name, json_string(k->line.pattern));
	}
	return o;
}
