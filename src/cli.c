// SPDX-License-Identifier: GPL-2.0
/* Command line: one table of options, in the kernel selftests bench's
 * spellings (dashes, and underscores where it has them), drives parsing,
 * --help and --list-options; a kernel bench's own words come from its peer. */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "keys.h"
#include "parse.h"
#include "peer.h"
#include "plan.h"
#include "prefixes.h"

/* What a row does with its value. */
enum opt_kind {
	KIND_HEADING,		/* not an option: a heading of --help */
	KIND_FLAG,		/* bool at: true */
	KIND_SET,		/* struct maybe at: min, given */
	KIND_NUM,		/* int at: a number in [min, max] */
	KIND_GIVEN_NUM,		/* struct maybe at: the same, given */
	KIND_CHOICE,		/* int at: the index of one of names, in enum order */
	KIND_GIVEN_CHOICE,	/* struct maybe at: the same, given */
	KIND_STRING,		/* const char * at: the argument */
	KIND_ACTION,		/* not a run: min is the enum cli_action */
	KIND_PARSE,		/* parse() takes it */
};

/* One option: its spellings, what it takes, where it goes and its --help
 * text, in one row (xdp-tools' option tables are the model). */
struct cli_opt {
	const char *name;		/* the long spelling, with dashes */
	char short_name;
	bool underscore;		/* the kernel bench's spelling (key_size) too */
	const char *arg;		/* the value's name in --help; NULL: a flag */
	enum opt_kind kind;
	size_t at;			/* offsetof(struct options, the field) */
	long long min, max;
	const char *const *names;	/* a choice's, NULL-terminated */
	int (*parse)(struct options *given, const char *name, const char *arg);
	bool run_only;			/* how to run and report, not what: may go
					 * with --from-result */
	const char *json;		/* the result params' key --from-result reads
					 * into the struct maybe at, where one is */
	const char *help;		/* lines apart by \n */
};

#define AT(field) offsetof(struct options, field)
#define NAMES(...) ((const char *const[]){ __VA_ARGS__, NULL })

static int parse_producers(struct options *given, const char *name, const char *arg);
static int parse_affinity(struct options *given, const char *name, const char *arg);
static int parse_prod_affinity(struct options *given, const char *name, const char *arg);
static int parse_xdp_action(struct options *given, const char *name, const char *arg);
static int parse_prefix_len(struct options *given, const char *name, const char *arg);
static int parse_batch(struct options *given, const char *name, const char *arg);
static int parse_map_flags(struct options *given, const char *name, const char *arg);
static int parse_zipf(struct options *given, const char *name, const char *arg);
static int parse_hit_ratio(struct options *given, const char *name, const char *arg);

/* Every option in --help's order. A kernel bench's own spellings of these
 * (--nr_loops, --scenario) are its peer's (struct kernel_bench). */
static const struct cli_opt opts[] = {
	{ .kind = KIND_HEADING, .help = "Global options:" },
	{ "producers", 'p', .arg = "N", .kind = KIND_PARSE, .parse = parse_producers,
	  .help = "producer threads (default 1)" },
	{ "affinity", 'a', .kind = KIND_PARSE, .parse = parse_affinity,
	  .help = "pin producer i to CPU i" },
	{ "prod-affinity", .underscore = true, .arg = "SET", .kind = KIND_PARSE,
	  .parse = parse_prod_affinity, .help = "pin producers to CPUs in SET, e.g. 0-3,6" },
	{ "warmup", 'w', .arg = "SEC", .kind = KIND_NUM, .at = AT(warmup), .min = 0, .max = 3600,
	  .help = "samples dropped from the summary (default 1)" },
	{ "duration", 'd', .arg = "SEC", .kind = KIND_NUM, .at = AT(duration), .min = 1,
	  .max = 86400, .help = "samples measured (default 5)" },
	{ "quiet", 'q', .kind = KIND_FLAG, .at = AT(quiet), .run_only = true,
	  .help = "no per-second lines" },
	{ "verbose", 'v', .kind = KIND_FLAG, .at = AT(verbose), .run_only = true,
	  .help = "libbpf and verifier messages" },
	{ "json", .arg = "FILE", .kind = KIND_STRING, .at = AT(json_path), .run_only = true,
	  .help = "write the result document to FILE" },
	{ "label", .arg = "TEXT", .kind = KIND_STRING, .at = AT(label), .run_only = true,
	  .help = "free text stored in the result (e.g. before/after)" },
	{ "round", .arg = "N", .kind = KIND_NUM, .at = AT(round), .min = 1, .max = 1 << 30,
	  .run_only = true,
	  .help = "the run's round in an interleaved series, stored in the\n"
		  "result: run N of A and of B ran side by side" },
	{ "trigger", .arg = "T", .kind = KIND_GIVEN_CHOICE, .at = AT(trigger),
	  .names = NAMES("xdp", "raw_tp", "fentry", "nic", "tp"),	/* enum trigger's order */
	  .help = "xdp, raw_tp, fentry, tp (the syscall tracepoint the kernel\n"
		  "bench uses), or nic: packets arriving on --iface DEV run\n"
		  "the batch (--batch ops per packet, default 8) on the CPU\n"
		  "that receives them; no producer threads (default: the row's)" },
	{ "iface", .arg = "DEV", .kind = KIND_STRING, .at = AT(iface),
	  .help = "the interface for --trigger nic" },
	{ "xdp-action", .arg = "A", .kind = KIND_PARSE, .parse = parse_xdp_action,
	  .help = "nic: drop (default) or pass the packets after the batch" },
	{ "force", .kind = KIND_FLAG, .at = AT(force),
	  .help = "nic: replace an XDP program DEV already has" },
	{ "loop", .arg = "L", .kind = KIND_GIVEN_CHOICE, .at = AT(loop),
	  .names = NAMES("auto", "bpf_for", "bpf_loop"),		/* enum loop_kind's */
	  .help = "bpf_for or bpf_loop (default: bpf_for where the\n"
		  "kernel has it)" },
	{ "list", 'l', .kind = KIND_ACTION, .min = CLI_LIST, .run_only = true,
	  .help = "list benchmarks" },
	{ "list-options", .kind = KIND_ACTION, .min = CLI_OPTIONS, .run_only = true,
	  .help = "every option, whether it takes a value, a line each" },
	{ "help", 'h', .kind = KIND_ACTION, .min = CLI_HELP, .run_only = true,
	  .help = "this text, and every benchmark's defaults" },
	{ "version", .kind = KIND_ACTION, .min = CLI_VERSION, .run_only = true,
	  .help = "the mapbench revision (git describe) of this build" },
	{ "contracts", .kind = KIND_ACTION, .min = CLI_CONTRACTS, .run_only = true,
	  .help = "each benchmark's workload and figure (unit, clock); with\n"
		  "--json FILE, as JSON, with the kernel tools' line shapes" },
	{ "dry-run", .kind = KIND_FLAG, .at = AT(dry_run), .run_only = true,
	  .help = "check the benchmark and its options, print the resolved\n"
		  "plan (the result's params), load nothing" },
	{ "guest-cpus", .arg = "N", .kind = KIND_NUM, .at = AT(guest_cpus), .min = 1,
	  .max = 4096, .run_only = true,
	  .help = "with --dry-run: check the CPUs the options name against a\n"
		  "machine with CPUs 0..N-1 online (scripts/vmrun's guest),\n"
		  "not this one; --placement is then left to the guest" },
	{ "from-result", .arg = "FILE", .kind = KIND_STRING, .at = AT(from_result),
	  .run_only = true, .help = "run the plan an earlier result recorded (its params)" },
	{ "placement", .arg = "P", .kind = KIND_CHOICE, .at = AT(placement),
	  .names = NAMES("none", "compact", "spread-llc", "spread-node", "smt-pairs"),
	  .help = "pin producers by topology: compact (one LLC's cores first),\n"
		  "spread-llc, spread-node or smt-pairs (2k, 2k+1 share a core)" },
	{ "jit-symbols", .kind = KIND_FLAG, .at = AT(jit_symbols),
	  .help = "record the kernel addresses of the loaded BPF programs\n"
		  "(/proc/kallsyms' bpf_prog_TAG_NAME) in the result, so that\n"
		  "scripts/vmrun --profile names them" },
	{ "perf", .kind = KIND_FLAG, .at = AT(perf),
	  .help = "cycles, instructions, cache and dTLB misses, task-clock and\n"
		  "context switches of the producer threads, per operation" },
	{ .kind = KIND_HEADING,
	  .help = "Map options (each benchmark's defaults are in the table below):" },
	{ "map", .arg = "TYPE", .kind = KIND_STRING, .at = AT(map_name),
	  .help = "htab, percpu, lru, lru_percpu, lru_nocommon (an LRU list\n"
		  "per CPU: BPF_F_NO_COMMON_LRU), rhtab (hash benchmarks)" },
	{ "key-size", .underscore = true, .arg = "N",
	  .json = "key_size", .kind = KIND_GIVEN_NUM, .at = AT(key_size),
	  .min = 1, .max = 1 << 20,
	  .help = "bytes: hash keys 4..512; LPM: address bytes 4..256\n"
		  "(4 for IPv4, 16 for IPv6)" },
	{ "value-size", .underscore = true, .arg = "N",
	  .json = "value_size", .kind = KIND_GIVEN_NUM,
	  .at = AT(value_size), .min = 1, .max = 1 << 20, .help = "bytes" },
	{ "max-entries", .underscore = true, .arg = "N",
	  .json = "max_entries", .kind = KIND_GIVEN_NUM,
	  .at = AT(max_entries), .min = 1, .max = 1L << 31,
	  .help = "map capacity (K and M suffixes)" },
	{ "prefix-len", .underscore = true, .arg = "N", .kind = KIND_PARSE,
	  .parse = parse_prefix_len, .at = AT(prefix_len), .json = "prefix_len",
	  .help = "LPM prefix length (default: all key bits); several: LO..HI\n"
		  "(each length equally) or LEN:WEIGHT,... (24:60,16:40)" },
	{ "nr-entries", .underscore = true, .arg = "N",
	  .json = "nr_entries", .kind = KIND_GIVEN_NUM,
	  .at = AT(nr_entries), .min = 0, .max = 1L << 31, .help = "keys prefilled" },
	{ "no-prealloc", .underscore = true, .kind = KIND_SET, .at = AT(prealloc), .min = 0,
	  .help = "BPF_F_NO_PREALLOC (--prealloc to insist on it)" },
	{ "prealloc", .kind = KIND_SET, .at = AT(prealloc), .min = 1 },
	{ "map-flags", .underscore = true, .arg = "N", .kind = KIND_PARSE,
	  .parse = parse_map_flags, .at = AT(map_flags), .json = "extra_map_flags",
	  .help = "BPF_F_* bits added to the map kind's, as the kernel\n"
		  "bench's --map_flags (decimal or 0x hex)" },
	{ "map-extra", .arg = "N", .kind = KIND_GIVEN_NUM, .at = AT(map_extra),
	  .min = 0, .max = UINT32_MAX, .json = "map_extra",
	  .help = "the map's map_extra: a bloom filter's hash functions\n"
		  "(bloom-*, hashmap-with-bloom; the kernel bench's\n"
		  "--nr_hash_funcs)" },
	{ "keys", .arg = "K", .kind = KIND_GIVEN_CHOICE, .at = AT(keys),
	  .names = NAMES("seq", "random", "counter", "index", "prandom"),	/* enum keys' */
	  .help = "seq or random (a precomputed permutation) walk a key\n"
		  "array; counter (LPM's default) is the kernel LPM bench's\n"
		  "cur_key++ % nr from one counter all CPUs share; index\n"
		  "(the default of bpf-hashmap-* and htab-mem) makes each id\n"
		  "in the program from its position, as the kernel's do;\n"
		  "prandom is the LPM bench's --random (prandom % nr)" },
	/* the kernel bench's --random: LPM's prandom, else a permutation (plan.c) */
	{ "random", .kind = KIND_SET, .at = AT(keys), .min = KEYS_PRANDOM,
	  .help = "the kernel bench's: --keys prandom on lpm-trie-*, else\n"
		  "--keys random" },
	{ "seed", .arg = "N",
	  .json = "seed", .kind = KIND_GIVEN_NUM, .at = AT(seed), .min = 0, .max = UINT32_MAX,
	  .help = "permutation seed (default 1)" },
	{ "zipf", .arg = "S", .kind = KIND_PARSE, .parse = parse_zipf,
	  .help = "drawn keys (htab-lru-evict): Zipf's exponent S > 0, key\n"
		  "k drawn in proportion to 1/(k+1)^S (default: uniform)" },
	{ "hit-ratio", .arg = "R", .kind = KIND_PARSE, .parse = parse_hit_ratio,
	  .help = "lookups: the share R (0 to 1) of visited keys that are in\n"
		  "the map; the rest, spread evenly, are absent (default 1)" },
	{ "zero-seed", .kind = KIND_SET, .at = AT(zero_seed), .min = 1,
	  .help = "BPF_F_ZERO_SEED: hash maps hash with seed 0, not a random\n"
		  "one, so every run has the same buckets (scripts/vmrun\n"
		  "adds it under the icount clock)" },
	{ "readers", .arg = "N", .kind = KIND_GIVEN_NUM, .at = AT(readers), .min = 1,
	  .max = MAX_PRODUCERS,
	  .help = "htab-lookup-update/-delete: producers that look up\n"
		  "(default 1)" },
	{ "writers", .arg = "N",
	  .json = "writers", .kind = KIND_GIVEN_NUM, .at = AT(writers), .min = 1,
	  .max = MAX_PRODUCERS,
	  .help = "... and that write the same map (default 1); -p, where\n"
		  "given, is their sum" },
	{ "machine-readable", .kind = KIND_FLAG, .at = AT(machine_readable),
	  .help = "also print the kernel's bench_bpf_timing line, RESULT\n"
		  "scenario=NAME samples=N median=... p99=... (batch times)" },
	{ "batch-times", .arg = "on|off", .kind = KIND_GIVEN_CHOICE, .at = AT(batch_times),
	  .names = NAMES("off", "on"),
	  .help = "record every batch's in-kernel time: percentiles of ns/op\n"
		  "(default: on, off for the kernel benches' own rows)" },
	{ "batch", .arg = "N", .kind = KIND_PARSE, .parse = parse_batch,
	  .help = "operations per program run (one that is not a multiple of 8\n"
		  "runs with bpf_loop, one operation a callback); auto: the\n"
		  "batch that takes 10 ms, sized in the first warmup second" },
	{ "all", .kind = KIND_FLAG, .at = AT(all), .help = "mem: measure every map type" },
	{ "flags", .arg = "N", .kind = KIND_GIVEN_NUM, .at = AT(flags), .min = 1, .max = INT32_MAX,
	  .help = "map-perf: map_perf_test's test bit (./bench map-perf N, as\n"
		  "map_perf_test N): 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024" },
	{ "count", .arg = "N",
	  .json = "count", .kind = KIND_GIVEN_NUM, .at = AT(count), .min = 1, .max = INT32_MAX,
	  .help = "map-perf: events each task times a round, map_perf_test's\n"
		  "count (default 10000; ./bench map-perf FLAGS TASKS ENTRIES\n"
		  "COUNT takes map_perf_test's arguments, 0 for a default)" },
	{ "use-case", .underscore = true, .arg = "U", .kind = KIND_STRING, .at = AT(use_case),
	  .help = "htab-mem: overwrite (default), batch_add_batch_del or\n"
		  "add_del_on_diff_cpu" },
	{ "list-scenarios", .kind = KIND_ACTION, .min = CLI_SCENARIOS, .run_only = true,
	  .help = "the scenarios (use cases) of the benchmark named" },
};

#define NR_OPTS (sizeof(opts) / sizeof(*opts))

/* A kernel bench's spelling, from its peer, and the row it spells. */
struct spelling {
	const struct kernel_spelling *s;
	const struct cli_opt *row;
};

static const struct cli_opt *row_named(const char *name)
{
	for (size_t i = 0; i < NR_OPTS; i++)
		if (opts[i].name && !strcmp(opts[i].name, name))
			return &opts[i];
	return NULL;
}

/* Whether out[0..n) has a spelling of that name (peers share spellings). */
static bool spelled(const struct spelling *out, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(out[i].s->name, name))
			return true;
	return false;
}

/* Every peer's spellings, once each, in the order of the rows naming them. */
static int kernel_spellings(struct spelling *out, int max)
{
	int n = 0;

	for (int i = 0; i < nr_benches; i++) {
		const struct kernel_bench *k = benches[i].kernel;

		for (const struct kernel_spelling *s = k ? k->spellings : NULL; s && s->name && n < max;
		     s++)
			if (!spelled(out, n, s->name))
				out[n++] = (struct spelling){ s, row_named(s->option) };
	}
	return n;
}

#define MAX_SPELLINGS 16

/* getopt's table: each row's spellings, then the peers'; an option's val
 * is 256 + its row's index. */
static const struct option *long_options(void)
{
	static struct option table[2 * NR_OPTS + MAX_SPELLINGS + 1];
	struct spelling sp[MAX_SPELLINGS];
	int n = 0, nr_sp;

	if (table[0].name)
		return table;
	for (size_t i = 0; i < NR_OPTS; i++) {
		static char under[NR_OPTS][32];
		const struct cli_opt *o = &opts[i];
		int has_arg = o->arg ? required_argument : no_argument;

		if (!o->name)
			continue;
		table[n++] = (struct option){ o->name, has_arg, NULL, 256 + (int)i };
		if (!o->underscore)
			continue;
		snprintf(under[i], sizeof(under[i]), "%s", o->name);
		for (char *c = under[i]; *c; c++)
			*c = *c == '-' ? '_' : *c;
		table[n++] = (struct option){ under[i], has_arg, NULL, 256 + (int)i };
	}
	nr_sp = kernel_spellings(sp, MAX_SPELLINGS);
	for (int i = 0; i < nr_sp; i++)
		table[n++] = (struct option){ sp[i].s->name, sp[i].row->arg ? required_argument :
					      no_argument, NULL, 256 + (int)(sp[i].row - opts) };
	return table;
}

/* A row's --help lines: "  -p, --producers N" then its text from column 27. */
static void usage_row(FILE *f, const char *name, char short_name, const char *arg,
		      const char *help)
{
	char left[64];
	const char *line = help, *nl;

	snprintf(left, sizeof(left), "  %c%c%c --%s%s%s", short_name ? '-' : ' ',
		 short_name ?: ' ', short_name ? ',' : ' ', name, arg ? " " : "", arg ?: "");
	/* a left part that reaches column 26 keeps two spaces from its text */
	fprintf(f, "%s%*s", left, strlen(left) < 26 ? 26 - (int)strlen(left) : 2, "");
	while ((nl = strchr(line, '\n'))) {
		fprintf(f, "%.*s\n%26s", (int)(nl - line), line, "");
		line = nl + 1;
	}
	fprintf(f, "%s\n", line);
}

static void cli_spellings(FILE *f);

void cli_usage(FILE *f)
{
	struct spelling sp[MAX_SPELLINGS];
	int nr_sp = kernel_spellings(sp, MAX_SPELLINGS);

	fprintf(f,
"Usage: ./bench [OPTIONS] BENCHMARK [OPTIONS]\n"
"       ./bench --from-result FILE [--json FILE] [--label TEXT] [--round N] [-q] [--dry-run]\n"
"       ./bench -l\n"
"\n");
	for (size_t i = 0; i < NR_OPTS; i++) {
		const struct cli_opt *o = &opts[i];

		if (o->kind == KIND_HEADING)
			fprintf(f, "%s\n", o->help);
		else if (o->help)
			usage_row(f, o->name, o->short_name, o->arg, o->help);
	}
	for (int i = 0; i < nr_sp; i++)
		if (sp[i].s->help)
			usage_row(f, sp[i].s->name, 0, sp[i].s->arg ?: sp[i].row->arg,
				  sp[i].s->help);
	fprintf(f,
"Exit status: 0 ok, 1 usage error, 2 unsupported here, 3 runtime failure or\n"
"nothing measured, 130/143 interrupted by SIGINT/SIGTERM (samples so far are kept).\n");
	cli_spellings(f);
	cli_defaults(f);
}

/* The kernel bench's spellings: the rows' underscore ones and the peers'. */
static void cli_spellings(FILE *f)
{
	const struct option *o;

	fprintf(f, "The kernel bench's spellings are accepted: its benchmark names, and");
	for (o = long_options(); o->name; o++)
		if (strchr(o->name, '_') && o->val >= 256)
			fprintf(f, " --%s", o->name);
	fprintf(f, "\n");
}

/* Each benchmark's plan when no option is given, from its row. */
void cli_defaults(FILE *f)
{
	static struct host host;

	host_probe(&host);
	fprintf(f, "\nDefaults (on this machine):\n%-29s %-9s %4s %5s %7s %7s %7s %2s %-6s %-5s %s\n",
		"benchmark", "map", "key", "value", "max", "nr", "batch", "p", "trig", "loop",
		"key walk");
	for (int i = 0; i < nr_benches; i++) {
		struct options given;
		struct plan p;

		options_init(&given);
		given.bench = &benches[i];
		/* pairs: the smallest -p they run with */
		given.producers = given.bench->walk && given.bench->walk->pairs ? 2 : 1;
		if (plan_resolve(&given, &host, &p))
			continue;
		fprintf(f, "%-29s %-9s %4d %5d %7ld %7ld %7d %2d %-6s %-5s %s\n", p.bench->name,
			p.map_name, p.key_size, p.value_size, p.max_entries, p.nr_entries,
			p.bench->walk || p.bench->family->fixed_batch ? p.batch : 0, p.producers,
			trigger_name(p.trigger),
			p.loop == LOOP_AUTO ? "auto" : loop_name(p.loop),
			p.bench->walk ? p.bench->walk->name : "-");
	}
}

void cli_contracts(FILE *f)
{
	fprintf(f, "| benchmark | alias | workload | key walk | trigger | loop | batch | figure | unit | clock |\n");
	fprintf(f, "|-\n");
	for (int i = 0; i < nr_benches; i++) {
		const struct bench *b = &benches[i];
		struct figure_desc d = figure_of(b);

		fprintf(f, "| %s | %s | %s | %s | %s | %s | %d | %s | %s | %s |\n", b->name,
			b->aliases[0] ?: "", b->workload, b->walk ? b->walk->name : "none",
			trigger_name(b->trigger), loop_name(b->loop), (int)row_batch(b, b->nr_entries),
			d.name, d.unit,
			d.clock);
	}
}

json_t *cli_contracts_json(void)
{
	json_t *rows = json_array();

	for (int i = 0; i < nr_benches; i++) {
		const struct bench *b = &benches[i];
		struct figure_desc d = figure_of(b);

		json_array_append_new(rows, json_pack(
			"{s:s, s:s?, s:s, s:s, s:s, s:s, s:i, s:s, s:s, s:s, s:s?, s:s?, s:s?}", "benchmark",
			b->name, "alias", b->aliases[0], "workload", b->workload,
			"key_walk", b->walk ? b->walk->name : "none", "trigger", trigger_name(b->trigger),
			"loop", loop_name(b->loop), "batch", (int)row_batch(b, b->nr_entries), "figure",
			d.name, "unit", d.unit,
			"clock", d.clock, "kernel_source", b->kernel_source,
			"kernel_library", b->kernel ? b->kernel->library : NULL,
			"kernel_line", b->kernel_source ? kernel_line_of(b) : NULL));
	}
	return rows;
}

void cli_list(FILE *f)
{
	for (int i = 0; i < nr_benches; i++) {
		const struct bench *b = &benches[i];

		fprintf(f, "%-30s %s", b->name, b->help);
		for (int a = 0; a < 3 && b->aliases[a]; a++)
			fprintf(f, "%s%s", a ? ", " : " (alias: ", b->aliases[a]);
		fprintf(f, "%s\n", b->aliases[0] ? ")" : "");
	}
}

void cli_options(FILE *f)
{
	for (const struct option *o = long_options(); o->name; o++) {
		char short_name = opts[o->val - 256].short_name;

		fprintf(f, "--%s %s", o->name, o->has_arg ? "value" : "flag");
		if (short_name)
			fprintf(f, " -%c", short_name);
		fputc('\n', f);
	}
}

/* A number in [min, max], or a one-line error naming the option. */
static int num_opt(const char *name, const char *arg, long long min, long long max,
		   long long *out)
{
	long v = parse_count(arg);

	if (v < min || v > max) {
		mb_err("--%s takes a number from %lld to %lld, not '%s'", name, min, max, arg);
		return EXIT_USAGE;
	}
	*out = v;
	return EXIT_OK;
}

/* Index of arg in names[] (NULL-terminated), or a one-line error naming the choices. */
static int choice(const char *opt, const char *arg, const char *const *names, int *out)
{
	char list[128] = "";

	for (int i = 0; names[i]; i++) {
		if (!strcmp(arg, names[i])) {
			*out = i;
			return EXIT_OK;
		}
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
			 i ? (names[i + 1] ? ", " : " or ") : "", names[i]);
	}
	mb_err("--%s takes %s, not '%s'", opt, list, arg);
	return EXIT_USAGE;
}

static int parse_producers(struct options *given, const char *name, const char *arg)
{
	long long v;

	if (num_opt(name, arg, 1, MAX_PRODUCERS, &v))
		return EXIT_USAGE;
	given->producers = v;
	given->producers_given = true;
	return EXIT_OK;
}

static int parse_affinity(struct options *given, const char *name, const char *arg)
{
	given->nr_prod_cpus = MAX_PRODUCERS;
	for (int i = 0; i < MAX_PRODUCERS; i++)
		given->prod_cpus[i] = i;
	return EXIT_OK;
}

static int parse_prod_affinity(struct options *given, const char *name, const char *arg)
{
	given->nr_prod_cpus = parse_cpuset(arg, given->prod_cpus, MAX_PRODUCERS - 1);
	if (given->nr_prod_cpus > 0)
		return EXIT_OK;
	mb_err("--%s takes a CPU list such as 0-3,6, not '%s'", name, arg);
	return EXIT_USAGE;
}

static int parse_xdp_action(struct options *given, const char *name, const char *arg)
{
	int pass;

	if (choice(name, arg, NAMES("drop", "pass"), &pass))
		return EXIT_USAGE;
	given->xdp_pass = pass;
	return EXIT_OK;
}

/* One length, or several: LO..HI or LEN:WEIGHT,... */
static int parse_prefix_len(struct options *given, const char *name, const char *arg)
{
	long long v;

	if (strpbrk(arg, ".:"))
		return prefix_mix_parse(arg, &given->prefix_mix) ? EXIT_USAGE : EXIT_OK;
	if (num_opt(name, arg, 0, 2048, &v))
		return EXIT_USAGE;
	GIVE(given->prefix_len, v);
	return EXIT_OK;
}

static int parse_batch(struct options *given, const char *name, const char *arg)
{
	long long v;

	given->batch_auto = !strcmp(arg, "auto");
	if (given->batch_auto)
		return EXIT_OK;
	if (num_opt(name, arg, 1, 1 << 22, &v))
		return EXIT_USAGE;
	GIVE(given->batch, v);
	return EXIT_OK;
}

/* A flags word, decimal or 0x hex (the kernel bench reads --map_flags with
 * strtol base 0). */
static int parse_map_flags(struct options *given, const char *name, const char *arg)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 0);
	if (errno || end == arg || *end || *arg == '-' || v > UINT32_MAX) {
		mb_err("--%s takes a 32-bit flags word such as 0x2 or 64, not '%s'", name, arg);
		return EXIT_USAGE;
	}
	GIVE(given->map_flags, v);
	return EXIT_OK;
}

static int parse_zipf(struct options *given, const char *name, const char *arg)
{
	char *end;

	given->zipf = strtod(arg, &end);
	if (!*end && end != arg && given->zipf > 0 && given->zipf <= 100)
		return EXIT_OK;
	mb_err("--%s takes Zipf's exponent, above 0 and at most 100 (0.99 is a common skew), "
	       "not '%s'", name, arg);
	return EXIT_USAGE;
}

static int parse_hit_ratio(struct options *given, const char *name, const char *arg)
{
	char *end;

	given->hit_ratio = strtod(arg, &end);
	if (!*end && end != arg && given->hit_ratio >= 0 && given->hit_ratio <= 1)
		return EXIT_OK;
	mb_err("--%s takes the share of lookups that find their key, from 0 to 1 (0.5: half "
	       "miss), not '%s'", name, arg);
	return EXIT_USAGE;
}

/* The row's value from arg into given (or the action asked). */
static int apply(const struct cli_opt *o, const char *arg, struct options *given,
		 enum cli_action *action)
{
	void *at = (char *)given + o->at;
	long long v = 0;
	int i;

	switch (o->kind) {
	case KIND_FLAG:
		*(bool *)at = true;
		return EXIT_OK;
	case KIND_SET:
		GIVE(*(struct maybe *)at, o->min);
		return EXIT_OK;
	case KIND_STRING:
		*(const char **)at = arg;
		return EXIT_OK;
	case KIND_ACTION:
		*action = o->min;
		return EXIT_OK;
	case KIND_PARSE:
		return o->parse(given, o->name, arg);
	case KIND_HEADING:
		return EXIT_USAGE;
	case KIND_NUM:
	case KIND_GIVEN_NUM:
		if (num_opt(o->name, arg, o->min, o->max, &v))
			return EXIT_USAGE;
		break;
	case KIND_CHOICE:
	case KIND_GIVEN_CHOICE:
		if (choice(o->name, arg, o->names, &i))
			return EXIT_USAGE;
		v = i;
		break;
	}
	/* a number or a choice: an int, or a value the row has a default for */
	if (o->kind == KIND_NUM || o->kind == KIND_CHOICE)
		*(int *)at = v;
	else
		GIVE(*(struct maybe *)at, v);
	return EXIT_OK;
}

/* Arguments after the benchmark's name: its kernel tool's own, where its
 * peer takes some (map-perf's FLAGS TASKS ENTRIES COUNT). A name no row
 * has is left to find_bench's error. */
static int tool_args(struct options *given, const char *name, int n, char **args)
{
	const struct bench *b = bench_find(name, NULL);

	if (b && b->kernel && b->kernel->arguments)
		return b->kernel->arguments(given, n, args);
	if (b) {
		mb_err("one benchmark at a time: %s takes no arguments after its name, not '%s'",
		       name, args[0]);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

static const char *group_names(char *buf, size_t len, bool flagged);

/* A group's member by its test bit: map-perf --flags 4, as map_perf_test 4. */
static int find_by_flag(struct options *given, const char *name)
{
	char list[512], groups[128];
	long long f = given->flags.value;

	if (!*bench_flags_list(name, list, sizeof(list))) {
		mb_err("--flags picks a row of a group by its test bit (%s), not of %s",
		       group_names(groups, sizeof(groups), true), name);
		return EXIT_USAGE;
	}
	given->bench = bench_find_flag(name, f);
	if (given->bench)
		return EXIT_OK;
	if (f & (f - 1))
		mb_err("--flags %lld names several tests: one a run (scripts/suite run map-perf runs "
		       "them all); %s takes %s", f, name, list);
	else
		mb_err("--flags %lld is no test of %s here; it takes %s", f, name, list);
	return EXIT_USAGE;
}

/* The groups of the table (htab-mem, map-perf, ...), comma-separated in
 * buf, in the order their first rows come; flagged: only those whose rows
 * have test bits. */
static const char *group_names(char *buf, size_t len, bool flagged)
{
	size_t at = 0;

	buf[0] = 0;
	for (int i = 0; i < nr_benches; i++) {
		const char *g = benches[i].group;
		bool seen = false;

		for (int j = 0; g && j < i && !seen; j++)
			seen = benches[j].group && !strcmp(benches[j].group, g);
		if (g && !seen && at < len && (!flagged || benches[i].flag))
			at += snprintf(buf + at, len - at, "%s%s", at ? ", " : "", g);
	}
	return buf;
}

/* The benchmark by name or alias; a group (htab-mem, xdp-lb) picks one by
 * --use-case (--scenario), as the kernel bench does, and map-perf by
 * --flags, as map_perf_test. */
static int find_bench(struct options *given, const char *name)
{
	if (given->flags.given)
		return find_by_flag(given, name);
	given->bench = bench_find(name, given->use_case);
	if (!given->bench && bench_find(name, NULL)) {
		mb_err("%s has no --use-case (--scenario) '%s'; ./bench %s --list-scenarios lists them",
		       name, given->use_case, name);
		return EXIT_USAGE;
	}
	if (!given->bench) {
		mb_err("unknown benchmark '%s'; ./bench -l lists them", name);
		return EXIT_USAGE;
	}
	if (given->use_case && !given->bench->group) {
		char groups[128];

		mb_err("--use-case and --scenario pick a row of a group (%s), not of %s",
		       group_names(groups, sizeof(groups), false), name);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

int cli_scenarios(FILE *f, const char *group)
{
	int n = 0;

	for (int i = 0; i < nr_benches; i++) {
		const struct bench *b = &benches[i];

		if (!b->group || strcmp(b->group, group) || !b->use_case)
			continue;
		if (!n++)
			fprintf(f, "Available scenarios:\n");
		fprintf(f, "  %-20s  %s\n", b->use_case, b->help);
	}
	if (!n) {
		char groups[128];

		mb_err("%s has no scenarios; %s have", group, group_names(groups, sizeof(groups), false));
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

/* getopt's short options: ":p:aw:d:qvlh" from the rows. */
static const char *short_options(void)
{
	static char list[2 * NR_OPTS + 2] = ":";
	size_t n = 1;

	if (list[1])
		return list;
	for (size_t i = 0; i < NR_OPTS; i++) {
		if (!opts[i].short_name)
			continue;
		list[n++] = opts[i].short_name;
		if (opts[i].arg)
			list[n++] = ':';
	}
	return list;
}

/* The row getopt's c stands for: 256 + its index, or its short name. */
static const struct cli_opt *row_of(int c)
{
	if (c >= 256 && c < 256 + (int)NR_OPTS)
		return &opts[c - 256];
	for (size_t i = 0; c > 0 && c < 256 && i < NR_OPTS; i++)
		if (opts[i].short_name == c)
			return &opts[i];
	return NULL;
}

/* --from-result: the recorded plan as options, the table's rows with a
 * JSON key read back here, the rest by plan.c. */
static int from_result(struct options *given)
{
	json_t *params;
	int err = plan_from_result(given->from_result, given, &params);

	for (size_t i = 0; !err && i < NR_OPTS; i++) {
		json_t *v = opts[i].json ? json_object_get(params, opts[i].json) : NULL;

		if (json_is_integer(v))
			GIVE(*(struct maybe *)((char *)given + opts[i].at), json_integer_value(v));
	}
	return err;
}

int cli_parse(int argc, char **argv, struct options *given, enum cli_action *action)
{
	bool workload_opts = false;
	int c;

	options_init(given);
	given->argc = argc;
	given->argv = argv;
	*action = CLI_RUN;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, short_options(), long_options(), NULL)) != -1) {
		const struct cli_opt *o = row_of(c);

		if (c == ':') {
			mb_err("option '%s' needs a value; see ./bench --help", argv[optind - 1]);
			return EXIT_USAGE;
		}
		if (!o) {
			mb_err("unknown option '%s'; see ./bench --help", argv[optind - 1]);
			return EXIT_USAGE;
		}
		workload_opts |= !o->run_only;
		if (apply(o, optarg, given, action))
			return EXIT_USAGE;
	}
	if (*action == CLI_SCENARIOS && optind >= argc) {
		mb_err("--list-scenarios lists a benchmark's: ./bench xdp-lb --list-scenarios");
		return EXIT_USAGE;
	}
	if (*action == CLI_SCENARIOS)
		given->list_group = argv[optind];
	if (*action != CLI_RUN)
		return EXIT_OK;
	if (given->guest_cpus && !given->dry_run) {
		mb_err("--guest-cpus checks a guest's plan: give it with --dry-run");
		return EXIT_USAGE;
	}
	if (given->from_result) {
		if (optind < argc || workload_opts) {
			mb_err("--from-result runs the recorded plan as it is: give only --json, --label, -q, -v or --dry-run with it");
			return EXIT_USAGE;
		}
		return from_result(given);
	}
	if (optind >= argc) {
		mb_err("no benchmark given; ./bench -l lists them");
		return EXIT_USAGE;
	}
	if (optind + 1 < argc &&
	    tool_args(given, argv[optind], argc - optind - 1, argv + optind + 1))
		return EXIT_USAGE;
	return find_bench(given, argv[optind]);
}
