// SPDX-License-Identifier: GPL-2.0
/* Command line: global options in the kernel selftests bench's spelling,
 * benchmark options with both dash and underscore spellings. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

enum {
	OPT_PROD_AFFINITY = 256, OPT_JSON, OPT_LABEL, OPT_TRIGGER, OPT_MAP,
	OPT_KEY_SIZE, OPT_VALUE_SIZE, OPT_MAX_ENTRIES, OPT_NR_ENTRIES,
	OPT_NO_PREALLOC, OPT_PREALLOC, OPT_KEYS, OPT_RANDOM, OPT_SEED, OPT_BATCH, OPT_LOOP, OPT_PREFIX_LEN, OPT_ALL, OPT_USE_CASE,
	OPT_CONTRACTS, OPT_DRY_RUN, OPT_PERF, OPT_PLACEMENT, OPT_IFACE, OPT_XDP_ACTION, OPT_FORCE,
};

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
	{ "contracts", no_argument, NULL, OPT_CONTRACTS },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "perf", no_argument, NULL, OPT_PERF },
	{ "placement", required_argument, NULL, OPT_PLACEMENT },
	{ "help", no_argument, NULL, 'h' },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "label", required_argument, NULL, OPT_LABEL },
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
	{ "batch", required_argument, NULL, OPT_BATCH },
	{ "nr_loops", required_argument, NULL, OPT_BATCH },
	{ "loop", required_argument, NULL, OPT_LOOP },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "use-case", required_argument, NULL, OPT_USE_CASE },
	{ "use_case", required_argument, NULL, OPT_USE_CASE },
	{ "preallocated", no_argument, NULL, OPT_PREALLOC },
	{ "prefix-len", required_argument, NULL, OPT_PREFIX_LEN },
	{ "prefix_len", required_argument, NULL, OPT_PREFIX_LEN },
	{}
};

long parse_count(const char *s)
{
	char *end;
	long v, mul = 1;

	if (!s || !*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s)
		return -1;
	if (*end == 'K' || *end == 'k')
		mul = 1000, end++;
	else if (*end == 'M' || *end == 'm')
		mul = 1000000, end++;
	if (*end || v > LONG_MAX / mul)
		return -1;
	return v * mul;
}

int parse_cpuset(const char *s, int *cpus, int max)
{
	int n = 0;

	if (!*s)
		return -1;
	while (*s) {
		char *end;
		long lo = strtol(s, &end, 10), hi;

		if (end == s || lo < 0 || *s == '-' || *s == '+')
			return -1;
		hi = lo;
		if (*end == '-') {
			s = end + 1;
			hi = strtol(s, &end, 10);
			if (end == s || hi < lo)
				return -1;
		}
		for (long c = lo; c <= hi; c++) {
			if (n >= max)
				return -1;
			cpus[n++] = (int)c;
		}
		if (*end == ',' && end[1])
			end++;
		else if (*end)
			return -1;
		s = end;
	}
	return n;
}

void cli_usage(FILE *f)
{
	fprintf(f,
"Usage: ./bench [OPTIONS] BENCHMARK [OPTIONS]\n"
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
"      --trigger T         xdp (default), raw_tp, fentry, or nic: packets arriving on\n"
"                          --iface DEV run the batch (--batch ops per packet, default 8)\n"
"                          on the CPU that receives them; no producer threads\n"
"      --iface DEV         the interface for --trigger nic\n"
"      --xdp-action A      nic: drop (default) or pass the packets after the batch\n"
"      --force             nic: replace an XDP program DEV already has\n"
"      --loop L            bpf_for or bpf_loop (default: bpf_for where the\n"
"                          kernel has it)\n"
"  -l, --list              list benchmarks\n"
"      --contracts         each benchmark's workload and figure (unit, clock)\n"
"      --dry-run           check the benchmark and its options, load nothing\n"
"      --placement P       pin producers by topology: compact (one LLC's cores first),\n"
"                          spread-llc, spread-node or smt-pairs (2k, 2k+1 share a core)\n"
"      --perf              cycles, instructions, cache and dTLB misses, task-clock and\n"
"                          context switches of the producer threads, per operation\n"
"Map options:\n"
"      --map TYPE          htab (default), percpu, lru, lru_percpu, rhtab\n"
"      --key-size N        bytes, 4..512 (default 4); LPM: address bytes, 4 or 16\n"
"      --value-size N      bytes (default 8; LPM: 4)\n"
"      --max-entries N     map capacity (default 1000, LPM: nr-entries,\n"
"                          htab-mem: max(8192, 64 x CPUs); K and M suffixes)\n"
"      --prefix-len N      LPM prefix length (default: all key bits)\n"
"      --nr-entries N      keys prefilled (default: max-entries; 0 for\n"
"                          htab-overwrite, htab-batch_add_batch_del,\n"
"                          htab-add_del_on_diff_cpu and htab-mem; 500 for\n"
"                          bpf-hashmap-lookup; LPM: 10000)\n"
"      --no-prealloc       BPF_F_NO_PREALLOC (--prealloc to insist on it)\n"
"      --keys seq|random   key order; random is a precomputed permutation\n"
"      --seed N            permutation seed (default 1)\n"
"      --batch N           operations per program run (default: the\n"
"                          benchmark's, see --contracts; else 1024)\n"
"      --all               mem: measure every map type\n"
"      --use-case U        htab-mem: overwrite (default), batch_add_batch_del or\n"
"                          add_del_on_diff_cpu\n"
"      --preallocated      htab-mem's spelling of --prealloc\n"
"Underscore spellings (--nr_entries, --key_size, --max_entries, --prefix_len,\n"
"--nr_loops)\n"
"and the kernel bench's benchmark names are accepted.\n"
"Exit status: 0 ok, 1 usage error, 2 unsupported here, 3 runtime failure,\n"
"130/143 interrupted by SIGINT/SIGTERM (samples so far are kept).\n");
}

void cli_contracts(FILE *f)
{
	fprintf(f, "| benchmark | alias | workload | figure | unit | clock |\n");
	fprintf(f, "|-\n");
	for (int i = 0; i < nr_benches; i++) {
		const struct bench *b = &benches[i];
		struct figure_desc d = figure_of(b);

		fprintf(f, "| %s | %s | %s | %s | %s | %s |\n", b->name, b->aliases[0] ?: "",
			b->workload, d.name, d.unit, d.clock);
	}
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

static void config_defaults(struct config *cfg, int argc, char **argv)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->producers = 1;
	cfg->warmup = 1;
	cfg->duration = 5;
	cfg->key_size = 4;
	cfg->value_size = -1;
	cfg->max_entries = -1;
	cfg->prefix_len = -1;
	cfg->nr_entries = -1;
	cfg->prealloc = -1;
	cfg->seed = 1;
	cfg->batch = -1;
	cfg->argc = argc;
	cfg->argv = argv;
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

/* The benchmark by name or alias; htab-mem picks one by --use-case, as the
 * kernel bench does. */
static int find_bench(struct config *cfg, const char *name)
{
	char full[64];

	if (!strcmp(name, "htab-mem")) {
		snprintf(full, sizeof(full), "htab-mem-%s", cfg->use_case ?: "overwrite");
		cfg->bench = bench_find(full);
		if (!cfg->bench) {
			mb_err("--use-case takes overwrite, batch_add_batch_del or add_del_on_diff_cpu, not '%s'",
			       cfg->use_case);
			return EXIT_USAGE;
		}
		return EXIT_OK;
	}
	cfg->bench = bench_find(name);
	if (!cfg->bench) {
		mb_err("unknown benchmark '%s'; ./bench -l lists them", name);
		return EXIT_USAGE;
	}
	if (cfg->use_case) {
		mb_err("--use-case is for htab-mem, not %s", name);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

int cli_parse(int argc, char **argv, struct config *cfg, enum cli_action *action)
{
	int c;

	config_defaults(cfg, argc, argv);
	*action = CLI_RUN;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:aw:d:qvlh", long_opts, NULL)) != -1) {
		switch (c) {
		case 'p': NUM("producers", 1, MAX_PRODUCERS, cfg->producers); break;
		case 'w': NUM("warmup", 0, 3600, cfg->warmup); break;
		case 'd': NUM("duration", 1, 86400, cfg->duration); break;
		case 'a':
			cfg->nr_prod_cpus = MAX_PRODUCERS;
			for (int i = 0; i < MAX_PRODUCERS; i++)
				cfg->prod_cpus[i] = i;
			break;
		case OPT_PROD_AFFINITY:
			cfg->nr_prod_cpus = parse_cpuset(optarg, cfg->prod_cpus, MAX_PRODUCERS - 1);
			if (cfg->nr_prod_cpus <= 0) {
				mb_err("--prod-affinity takes a CPU list such as 0-3,6, not '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'q': cfg->quiet = true; break;
		case 'v': cfg->verbose = true; break;
		case 'l': *action = CLI_LIST; break;
		case OPT_CONTRACTS: *action = CLI_CONTRACTS; break;
		case OPT_DRY_RUN: cfg->dry_run = true; break;
		case OPT_PERF: cfg->perf = true; break;
		/* Names in enum placement order. */
		case OPT_PLACEMENT:
			CHOICE("placement", cfg->placement, "none", "compact", "spread-llc",
			       "spread-node", "smt-pairs");
			break;
		case 'h': *action = CLI_HELP; break;
		case OPT_JSON: cfg->json_path = optarg; break;
		case OPT_LABEL: cfg->label = optarg; break;
		/* Names in enum order. */
		case OPT_TRIGGER: CHOICE("trigger", cfg->trigger, "xdp", "raw_tp", "fentry", "nic"); break;
		case OPT_IFACE: cfg->iface = optarg; break;
		case OPT_XDP_ACTION: CHOICE("xdp-action", cfg->xdp_pass, "drop", "pass"); break;
		case OPT_FORCE: cfg->force = true; break;
		case OPT_MAP: cfg->map_name = optarg; break;
		case OPT_KEY_SIZE: NUM("key-size", 1, 1 << 20, cfg->key_size); break;
		case OPT_VALUE_SIZE: NUM("value-size", 1, 1 << 20, cfg->value_size); break;
		case OPT_MAX_ENTRIES: NUM("max-entries", 1, 1L << 31, cfg->max_entries); break;
		case OPT_NR_ENTRIES: NUM("nr-entries", 0, 1L << 31, cfg->nr_entries); break;
		case OPT_NO_PREALLOC: cfg->prealloc = 0; break;
		case OPT_PREALLOC: cfg->prealloc = 1; break;
		case OPT_RANDOM: cfg->keys = KEYS_RANDOM; break;
		case OPT_KEYS: CHOICE("keys", cfg->keys, "seq", "random"); break;
		case OPT_LOOP: CHOICE("loop", cfg->loop, "auto", "bpf_for", "bpf_loop"); break;
		case OPT_ALL: cfg->all = true; break;
		case OPT_USE_CASE: cfg->use_case = optarg; break;
		case OPT_PREFIX_LEN: NUM("prefix-len", 0, 2048, cfg->prefix_len); break;
		case OPT_SEED: NUM("seed", 0, UINT32_MAX, cfg->seed); break;
		case OPT_BATCH: NUM("batch", UNROLL, 1 << 22, cfg->batch); break;
		case ':':
			mb_err("option '%s' needs a value; see ./bench --help", argv[optind - 1]);
			return EXIT_USAGE;
		default:
			mb_err("unknown option '%s'; see ./bench --help", argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (*action != CLI_RUN)
		return EXIT_OK;
	if (optind >= argc) {
		mb_err("no benchmark given; ./bench -l lists them");
		return EXIT_USAGE;
	}
	if (optind + 1 < argc) {
		mb_err("one benchmark at a time: '%s' then '%s'", argv[optind], argv[optind + 1]);
		return EXIT_USAGE;
	}
	return find_bench(cfg, argv[optind]);
}
