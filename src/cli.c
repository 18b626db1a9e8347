// SPDX-License-Identifier: GPL-2.0
/* Command line: global options in the kernel selftests bench's spelling,
 * benchmark options with both dash and underscore spellings. */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "keys.h"
#include "parse.h"
#include "peer.h"
#include "plan.h"
#include "prefixes.h"

enum {
	OPT_PROD_AFFINITY = 256, OPT_JSON, OPT_LABEL, OPT_TRIGGER, OPT_MAP,
	OPT_KEY_SIZE, OPT_VALUE_SIZE, OPT_MAX_ENTRIES, OPT_NR_ENTRIES,
	OPT_NO_PREALLOC, OPT_PREALLOC, OPT_KEYS, OPT_RANDOM, OPT_SEED, OPT_ZERO_SEED, OPT_BATCH, OPT_MAP_FLAGS, OPT_ZIPF, OPT_HIT_RATIO, OPT_READERS, OPT_WRITERS, OPT_BATCH_TIMES, OPT_FLAGS, OPT_COUNT, OPT_LOOP, OPT_PREFIX_LEN, OPT_ALL, OPT_USE_CASE, OPT_LIST_SCENARIOS,
	OPT_CONTRACTS, OPT_DRY_RUN, OPT_PERF, OPT_MACHINE_READABLE, OPT_PLACEMENT, OPT_IFACE, OPT_XDP_ACTION, OPT_FORCE,
	OPT_FROM_RESULT, OPT_VERSION, OPT_GUEST_CPUS, OPT_LIST_OPTIONS, OPT_ROUND,
};

/* The options that say how to run and report, not what: the only ones that
 * go with --from-result. */
static const int run_only_opts[] = { 'q', 'v', 'l', 'h', OPT_JSON, OPT_LABEL, OPT_ROUND, OPT_DRY_RUN,
				     OPT_GUEST_CPUS, OPT_LIST_OPTIONS,
				     OPT_CONTRACTS, OPT_FROM_RESULT, OPT_VERSION };

static const struct option long_opts[] = {
	{ "producers", required_argument, NULL, 'p' },
	{ "affinity", no_argument, NULL, 'a' },
	{ "prod-affinity", required_argument, NULL, OPT_PROD_AFFINITY },
	{ "prod_affinity", required_argument, NULL, OPT_PROD_AFFINITY },
	{ "warmup", required_argument, NULL, 'w' },
	{ "duration", required_argument, NULL, 'd' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "list", no_argument, NULL, 'l' },
	{ "list-options", no_argument, NULL, OPT_LIST_OPTIONS },
	{ "contracts", no_argument, NULL, OPT_CONTRACTS },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "guest-cpus", required_argument, NULL, OPT_GUEST_CPUS },
	{ "from-result", required_argument, NULL, OPT_FROM_RESULT },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "perf", no_argument, NULL, OPT_PERF },
	{ "machine-readable", no_argument, NULL, OPT_MACHINE_READABLE },
	{ "placement", required_argument, NULL, OPT_PLACEMENT },
	{ "help", no_argument, NULL, 'h' },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "label", required_argument, NULL, OPT_LABEL },
	{ "round", required_argument, NULL, OPT_ROUND },
	{ "trigger", required_argument, NULL, OPT_TRIGGER },
	{ "iface", required_argument, NULL, OPT_IFACE },
	{ "xdp-action", required_argument, NULL, OPT_XDP_ACTION },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "map", required_argument, NULL, OPT_MAP },
	{ "key-size", required_argument, NULL, OPT_KEY_SIZE },
	{ "key_size", required_argument, NULL, OPT_KEY_SIZE },
	{ "value-size", required_argument, NULL, OPT_VALUE_SIZE },
	{ "value_size", required_argument, NULL, OPT_VALUE_SIZE },
	{ "max-entries", required_argument, NULL, OPT_MAX_ENTRIES },
	{ "max_entries", required_argument, NULL, OPT_MAX_ENTRIES },
	{ "nr-entries", required_argument, NULL, OPT_NR_ENTRIES },
	{ "nr_entries", required_argument, NULL, OPT_NR_ENTRIES },
	{ "no-prealloc", no_argument, NULL, OPT_NO_PREALLOC },
	{ "no_prealloc", no_argument, NULL, OPT_NO_PREALLOC },
	{ "prealloc", no_argument, NULL, OPT_PREALLOC },
	{ "keys", required_argument, NULL, OPT_KEYS },
	{ "random", no_argument, NULL, OPT_RANDOM },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "zero-seed", no_argument, NULL, OPT_ZERO_SEED },
	{ "batch", required_argument, NULL, OPT_BATCH },
	{ "map-flags", required_argument, NULL, OPT_MAP_FLAGS },
	{ "zipf", required_argument, NULL, OPT_ZIPF },
	{ "hit-ratio", required_argument, NULL, OPT_HIT_RATIO },
	{ "readers", required_argument, NULL, OPT_READERS },
	{ "writers", required_argument, NULL, OPT_WRITERS },
	{ "batch-times", required_argument, NULL, OPT_BATCH_TIMES },
	{ "flags", required_argument, NULL, OPT_FLAGS },
	{ "count", required_argument, NULL, OPT_COUNT },
	{ "map_flags", required_argument, NULL, OPT_MAP_FLAGS },
	{ "nr_loops", required_argument, NULL, OPT_BATCH },
	{ "loop", required_argument, NULL, OPT_LOOP },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "use-case", required_argument, NULL, OPT_USE_CASE },
	{ "use_case", required_argument, NULL, OPT_USE_CASE },
	{ "scenario", required_argument, NULL, OPT_USE_CASE },	/* xdp-lb's word */
	{ "list-scenarios", no_argument, NULL, OPT_LIST_SCENARIOS },
	{ "preallocated", no_argument, NULL, OPT_PREALLOC },
	{ "prefix-len", required_argument, NULL, OPT_PREFIX_LEN },
	{ "prefix_len", required_argument, NULL, OPT_PREFIX_LEN },
	{}
};

static void cli_spellings(FILE *f);

void cli_usage(FILE *f)
{
	fprintf(f,
"Usage: ./bench [OPTIONS] BENCHMARK [OPTIONS]\n"
"       ./bench --from-result FILE [--json FILE] [--label TEXT] [--round N] [-q] [--dry-run]\n"
"       ./bench -l\n"
"\n"
"Global options:\n"
"  -p, --producers N       producer threads (default 1)\n"
"  -a, --affinity          pin producer i to CPU i\n"
"      --prod-affinity SET pin producers to CPUs in SET, e.g. 0-3,6\n"
"  -w, --warmup SEC        samples dropped from the summary (default 1)\n"
"  -d, --duration SEC      samples measured (default 5)\n"
"  -q, --quiet             no per-second lines\n"
"  -v, --verbose           libbpf and verifier messages\n"
"      --json FILE         write the result document to FILE\n"
"      --label TEXT        free text stored in the result (e.g. before/after)\n"
"      --round N           the run's round in an interleaved series, stored in the\n"
"                          result: run N of A and of B ran side by side\n"
"      --trigger T         xdp, raw_tp, fentry, tp (the syscall tracepoint the kernel\n"
"                          bench uses), or nic: packets arriving on --iface DEV run\n"
"                          the batch (--batch ops per packet, default 8) on the CPU\n"
"                          that receives them; no producer threads (default: the row's)\n"
"      --iface DEV         the interface for --trigger nic\n"
"      --xdp-action A      nic: drop (default) or pass the packets after the batch\n"
"      --force             nic: replace an XDP program DEV already has\n"
"      --loop L            bpf_for or bpf_loop (default: bpf_for where the\n"
"                          kernel has it)\n"
"  -l, --list              list benchmarks\n"
"      --list-options      every option, whether it takes a value, a line each\n"
"  -h, --help              this text, and every benchmark's defaults\n"
"      --version           the mapbench revision (git describe) of this build\n"
"      --contracts         each benchmark's workload and figure (unit, clock); with\n"
"                          --json FILE, as JSON, with the kernel tools' line shapes\n"
"      --dry-run           check the benchmark and its options, print the resolved\n"
"                          plan (the result's params), load nothing\n"
"      --guest-cpus N      with --dry-run: check the CPUs the options name against a\n"
"                          machine with CPUs 0..N-1 online (scripts/vmrun's guest),\n"
"                          not this one; --placement is then left to the guest\n"
"      --from-result FILE  run the plan an earlier result recorded (its params)\n"
"      --placement P       pin producers by topology: compact (one LLC's cores first),\n"
"                          spread-llc, spread-node or smt-pairs (2k, 2k+1 share a core)\n"
"      --perf              cycles, instructions, cache and dTLB misses, task-clock and\n"
"                          context switches of the producer threads, per operation\n"
"Map options (each benchmark's defaults are in the table below):\n"
"      --map TYPE          htab, percpu, lru, lru_percpu, lru_nocommon (an LRU list\n"
"                          per CPU: BPF_F_NO_COMMON_LRU), rhtab (hash benchmarks)\n"
"      --key-size N        bytes: hash keys 4..512; LPM: address bytes 4..256\n"
"                          (4 for IPv4, 16 for IPv6)\n"
"      --value-size N      bytes\n"
"      --max-entries N     map capacity (K and M suffixes)\n"
"      --prefix-len N      LPM prefix length (default: all key bits); several: LO..HI\n"
"                          (each length equally) or LEN:WEIGHT,... (24:60,16:40)\n"
"      --nr-entries N      keys prefilled\n"
"      --no-prealloc       BPF_F_NO_PREALLOC (--prealloc to insist on it)\n"
"      --map-flags N       BPF_F_* bits added to the map kind's, as the kernel\n"
"                          bench's --map_flags (decimal or 0x hex)\n"
"      --keys K            seq or random (a precomputed permutation) walk a key\n"
"                          array; counter (LPM's default) is the kernel LPM bench's\n"
"                          cur_key++ %% nr from one counter all CPUs share; index\n"
"                          (the default of bpf-hashmap-* and htab-mem) makes each id\n"
"                          in the program from its position, as the kernel's do;\n"
"                          prandom is the LPM bench's --random (prandom %% nr)\n"
"      --random            the kernel bench's: --keys prandom on lpm-trie-*, else\n"
"                          --keys random\n"
"      --seed N            permutation seed (default 1)\n"
"      --zipf S            drawn keys (htab-lru-evict): Zipf's exponent S > 0, key\n"
"                          k drawn in proportion to 1/(k+1)^S (default: uniform)\n"
"      --hit-ratio R       lookups: the share R (0 to 1) of visited keys that are in\n"
"                          the map; the rest, spread evenly, are absent (default 1)\n"
"      --zero-seed         BPF_F_ZERO_SEED: hash maps hash with seed 0, not a random\n"
"                          one, so every run has the same buckets (scripts/vmrun\n"
"                          adds it under the icount clock)\n"
"      --readers N         htab-lookup-update/-delete: producers that look up\n"
"                          (default 1)\n"
"      --writers N         ... and that write the same map (default 1); -p, where\n"
"                          given, is their sum\n"
"      --machine-readable  also print the kernel's bench_bpf_timing line, RESULT\n"
"                          scenario=NAME samples=N median=... p99=... (batch times)\n"
"      --batch-times on|off  record every batch's in-kernel time: percentiles of ns/op\n"
"                          (default: on, off for the kernel benches' own rows)\n"
"      --batch N           operations per program run (one that is not a multiple of 8\n"
"                          runs with bpf_loop, one operation a callback); auto: the\n"
"                          batch that takes 10 ms, sized in the first warmup second\n"
"      --all               mem: measure every map type\n"
"      --flags N           map-perf: map_perf_test's test bit (./bench map-perf N, as\n"
"                          map_perf_test N): 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024\n"
"      --count N           map-perf: events each task times a round, map_perf_test's\n"
"                          count (default 10000; ./bench map-perf FLAGS TASKS ENTRIES\n"
"                          COUNT takes map_perf_test's arguments, 0 for a default)\n"
"      --use-case U        htab-mem: overwrite (default), batch_add_batch_del or\n"
"                          add_del_on_diff_cpu\n"
"      --scenario NAME     xdp-lb: the scenario (default tcp-v4-lru-hit); the same\n"
"                          as --use-case\n"
"      --list-scenarios    the scenarios (use cases) of the benchmark named\n"
"      --preallocated      htab-mem's spelling of --prealloc\n"
"Exit status: 0 ok, 1 usage error, 2 unsupported here, 3 runtime failure or\n"
"nothing measured, 130/143 interrupted by SIGINT/SIGTERM (samples so far are kept).\n");
	cli_spellings(f);
	cli_defaults(f);
}

/* The kernel bench's underscore spellings, from the option table itself. */
static void cli_spellings(FILE *f)
{
	fprintf(f, "The kernel bench's spellings are accepted: its benchmark names, and");
	for (const struct option *o = long_opts; o->name; o++)
		if (strchr(o->name, '_'))
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
			p.bench->walk ? p.batch : 0, p.producers, trigger_name(p.trigger),
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
			trigger_name(b->trigger), loop_name(b->loop), b->batch, d.name, d.unit,
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
			"{s:s, s:s?, s:s, s:s, s:s, s:s, s:i, s:s, s:s, s:s}", "benchmark", b->name,
			"alias", b->aliases[0], "workload", b->workload,
			"key_walk", b->walk ? b->walk->name : "none", "trigger", trigger_name(b->trigger),
			"loop", loop_name(b->loop), "batch", b->batch, "figure", d.name, "unit", d.unit,
			"clock", d.clock));
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
	for (const struct option *o = long_opts; o->name; o++) {
		fprintf(f, "--%s %s", o->name, o->has_arg ? "value" : "flag");
		if (o->val < 256)
			fprintf(f, " -%c", o->val);
		fputc('\n', f);
	}
}

/* A number option in [min, max], or a one-line error naming the option. */
static int num_opt(const char *name, const char *arg, long min, long max, long *out)
{
	long v = parse_count(arg);

	if (v < min || v > max) {
		mb_err("--%s takes a number from %ld to %ld, not '%s'", name, min, max, arg);
		return EXIT_USAGE;
	}
	*out = v;
	return EXIT_OK;
}

#define NUM(name, min, max, field) do {					\
	long v_;							\
	if (num_opt(name, optarg, min, max, &v_))			\
		return EXIT_USAGE;					\
	field = v_;							\
} while (0)

/* A flags word, decimal or 0x hex (the kernel bench reads --map_flags with
 * strtol base 0). */
static int flags_opt(const char *name, const char *arg, long long *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 0);
	if (errno || end == arg || *end || *arg == '-' || v > UINT32_MAX) {
		mb_err("--%s takes a 32-bit flags word such as 0x2 or 64, not '%s'", name, arg);
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

#define CHOICE(opt, field, ...) do {						\
	static const char *const names_[] = { __VA_ARGS__, NULL };		\
	int v_;									\
	if (choice(opt, optarg, names_, &v_))					\
		return EXIT_USAGE;						\
	field = v_;								\
} while (0)

/* The same for a value the row has a default for: marked given. */
#define NUM_GIVEN(name, min, max, maybe) do {				\
	long long g_;							\
	NUM(name, min, max, g_);					\
	GIVE(maybe, g_);						\
} while (0)
#define CHOICE_GIVEN(opt, maybe, ...) do {				\
	int g_;								\
	CHOICE(opt, g_, __VA_ARGS__);					\
	GIVE(maybe, g_);						\
} while (0)

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

/* A group's member by its test bit: map-perf --flags 4, as map_perf_test 4. */
static int find_by_flag(struct options *given, const char *name)
{
	char list[512];
	long long f = given->flags.value;

	if (!*bench_flags_list(name, list, sizeof(list))) {
		mb_err("--flags picks one of map_perf_test's tests: for map-perf, not %s", name);
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
 * buf, in the order their first rows come. */
static const char *group_names(char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = 0;
	for (int i = 0; i < nr_benches; i++) {
		const char *g = benches[i].group;
		bool seen = false;

		for (int j = 0; g && j < i && !seen; j++)
			seen = benches[j].group && !strcmp(benches[j].group, g);
		if (g && !seen && at < len)
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
		       group_names(groups, sizeof(groups)), name);
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

		mb_err("%s has no scenarios; %s have", group, group_names(groups, sizeof(groups)));
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

static bool run_only(int opt)
{
	for (size_t i = 0; i < sizeof(run_only_opts) / sizeof(*run_only_opts); i++)
		if (run_only_opts[i] == opt)
			return true;
	return false;
}

int cli_parse(int argc, char **argv, struct options *given, enum cli_action *action)
{
	bool workload_opts = false;
	char *end;
	int c;

	options_init(given);
	given->argc = argc;
	given->argv = argv;
	*action = CLI_RUN;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:aw:d:qvlh", long_opts, NULL)) != -1) {
		workload_opts |= !run_only(c);
		switch (c) {
		case 'p':
			NUM("producers", 1, MAX_PRODUCERS, given->producers);
			given->producers_given = true;
			break;
		case 'w': NUM("warmup", 0, 3600, given->warmup); break;
		case 'd': NUM("duration", 1, 86400, given->duration); break;
		case 'a':
			given->nr_prod_cpus = MAX_PRODUCERS;
			for (int i = 0; i < MAX_PRODUCERS; i++)
				given->prod_cpus[i] = i;
			break;
		case OPT_PROD_AFFINITY:
			given->nr_prod_cpus = parse_cpuset(optarg, given->prod_cpus, MAX_PRODUCERS - 1);
			if (given->nr_prod_cpus <= 0) {
				mb_err("--prod-affinity takes a CPU list such as 0-3,6, not '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'q': given->quiet = true; break;
		case 'v': given->verbose = true; break;
		case 'l': *action = CLI_LIST; break;
		case OPT_CONTRACTS: *action = CLI_CONTRACTS; break;
		case OPT_VERSION: *action = CLI_VERSION; break;
		case OPT_LIST_OPTIONS: *action = CLI_OPTIONS; break;
		case OPT_DRY_RUN: given->dry_run = true; break;
		case OPT_GUEST_CPUS: NUM("guest-cpus", 1, 4096, given->guest_cpus); break;
		case OPT_FROM_RESULT: given->from_result = optarg; break;
		case OPT_PERF: given->perf = true; break;
		case OPT_MACHINE_READABLE: given->machine_readable = true; break;
		/* Names in enum placement order. */
		case OPT_PLACEMENT:
			CHOICE("placement", given->placement, "none", "compact", "spread-llc",
			       "spread-node", "smt-pairs");
			break;
		case 'h': *action = CLI_HELP; break;
		case OPT_JSON: given->json_path = optarg; break;
		case OPT_LABEL: given->label = optarg; break;
		case OPT_ROUND: NUM("round", 1, 1 << 30, given->round); break;
		/* Names in enum order. */
		case OPT_TRIGGER: CHOICE_GIVEN("trigger", given->trigger, "xdp", "raw_tp", "fentry", "nic", "tp"); break;
		case OPT_IFACE: given->iface = optarg; break;
		case OPT_XDP_ACTION: CHOICE("xdp-action", given->xdp_pass, "drop", "pass"); break;
		case OPT_FORCE: given->force = true; break;
		case OPT_MAP: given->map_name = optarg; break;
		case OPT_KEY_SIZE: NUM_GIVEN("key-size", 1, 1 << 20, given->key_size); break;
		case OPT_VALUE_SIZE: NUM_GIVEN("value-size", 1, 1 << 20, given->value_size); break;
		case OPT_MAX_ENTRIES: NUM_GIVEN("max-entries", 1, 1L << 31, given->max_entries); break;
		case OPT_NR_ENTRIES: NUM_GIVEN("nr-entries", 0, 1L << 31, given->nr_entries); break;
		case OPT_NO_PREALLOC: GIVE(given->prealloc, 0); break;
		case OPT_PREALLOC: GIVE(given->prealloc, 1); break;
		/* the kernel bench's --random: LPM's prandom, else a permutation (plan.c) */
		case OPT_RANDOM: GIVE(given->keys, KEYS_PRANDOM); break;
		case OPT_KEYS: CHOICE_GIVEN("keys", given->keys, "seq", "random", "counter", "index",
				      "prandom"); break;
		case OPT_LOOP: CHOICE_GIVEN("loop", given->loop, "auto", "bpf_for", "bpf_loop"); break;
		case OPT_ALL: given->all = true; break;
		case OPT_USE_CASE: given->use_case = optarg; break;
		case OPT_LIST_SCENARIOS: *action = CLI_SCENARIOS; break;
		case OPT_PREFIX_LEN:
			if (!strpbrk(optarg, ".:"))
				NUM_GIVEN("prefix-len", 0, 2048, given->prefix_len);
			else if (prefix_mix_parse(optarg, &given->prefix_mix))
				return EXIT_USAGE;
			break;
		case OPT_SEED: NUM_GIVEN("seed", 0, UINT32_MAX, given->seed); break;
		case OPT_ZERO_SEED: GIVE(given->zero_seed, 1); break;
		case OPT_BATCH:
			given->batch_auto = !strcmp(optarg, "auto");
			if (!given->batch_auto)
				NUM_GIVEN("batch", 1, 1 << 22, given->batch);
			break;
		case OPT_FLAGS: NUM_GIVEN("flags", 1, INT32_MAX, given->flags); break;
		case OPT_COUNT: NUM_GIVEN("count", 1, INT32_MAX, given->count); break;
		case OPT_READERS: NUM_GIVEN("readers", 1, MAX_PRODUCERS, given->readers); break;
		case OPT_WRITERS: NUM_GIVEN("writers", 1, MAX_PRODUCERS, given->writers); break;
		case OPT_BATCH_TIMES: CHOICE_GIVEN("batch-times", given->batch_times, "off", "on"); break;
		case OPT_ZIPF:
			given->zipf = strtod(optarg, &end);
			if (*end || end == optarg || !(given->zipf > 0 && given->zipf <= 100)) {
				mb_err("--zipf takes Zipf's exponent, above 0 and at most 100 (0.99 is "
				       "a common skew), not '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_HIT_RATIO:
			given->hit_ratio = strtod(optarg, &end);
			if (*end || end == optarg || !(given->hit_ratio >= 0 && given->hit_ratio <= 1)) {
				mb_err("--hit-ratio takes the share of lookups that find their key, "
				       "from 0 to 1 (0.5: half miss), not '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_MAP_FLAGS: {
			long long f;

			if (flags_opt("map_flags", optarg, &f))
				return EXIT_USAGE;
			GIVE(given->map_flags, f);
			break;
		}
		case ':':
			mb_err("option '%s' needs a value; see ./bench --help", argv[optind - 1]);
			return EXIT_USAGE;
		default:
			mb_err("unknown option '%s'; see ./bench --help", argv[optind - 1]);
			return EXIT_USAGE;
		}
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
		return plan_from_result(given->from_result, given);
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
