/* SPDX-License-Identifier: GPL-2.0 */
/* The benchmark interface: a configuration parsed from the command line, a
 * family of benchmarks implementing validate/setup/run/measure/teardown, and
 * the table that registers every benchmark. */
#ifndef MAPBENCH_BENCH_H
#define MAPBENCH_BENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>
#include <linux/types.h>
#include "bench_shared.h"
#include "topology.h"

enum exit_status {
	EXIT_OK = 0,
	EXIT_USAGE = 1,		/* bad input: fix the command line */
	EXIT_UNSUPPORTED = 2,	/* this kernel or machine cannot run it */
	EXIT_RUNTIME = 3,	/* it ran and failed */
};

enum trigger { TRIGGER_XDP, TRIGGER_RAW_TP, TRIGGER_FENTRY, TRIGGER_NIC };
enum key_order { KEYS_SEQ, KEYS_RANDOM };
enum loop_kind { LOOP_AUTO, LOOP_FOR, LOOP_BPF_LOOP };

/* Which keys each producer visits. */
enum key_layout {
	LAYOUT_SHARED,		/* every producer walks all prefilled keys */
	LAYOUT_SLICED,		/* each producer its own slice of the prefilled keys */
	LAYOUT_FULL,		/* map filled to max-entries, sliced per producer */
	LAYOUT_CHURN,		/* keys [nr-entries, max-entries), sliced per producer */
	LAYOUT_CHURN_PAIRS,	/* the same, one slice per adding/deleting pair */
	LAYOUT_STRIDED,		/* htab-mem: producer p's batch keys p, p + P, p + 2P, ... */
	LAYOUT_STRIDED_PAIRS,	/* htab-mem: pair k's keys k, k + P/2, ... */
	LAYOUT_ABSENT,		/* map full; producer p updates the absent key max + p */
	LAYOUT_FROM_FIRST,	/* bpf-hashmap-lookup: keys 1..nr, every run from the first */
};

/* A benchmark's headline figure: for a benchmark that carries a kernel
 * bench's name, the figure that bench prints, in its unit. */
enum figure {
	FIG_WALL,		/* operations per second of wall time, all producers */
	FIG_KERNEL,		/* operations per second of in-kernel time, all producers */
	FIG_RUNS_PER_PROD,	/* program runs per producer per second of wall time */
	FIG_EVENTS_PER_PROD,	/* operations per second of in-kernel time, per producer */
	FIG_BYTES,		/* mem: bytes per element, no producers */
};

struct config {
	const struct bench *bench;
	int producers;
	int prod_cpus[MAX_PRODUCERS];	/* pinning, when nr_prod_cpus > 0 */
	int nr_prod_cpus;		/* MAX_PRODUCERS for -a */
	int warmup;			/* seconds dropped before the summary */
	int duration;			/* seconds measured */
	bool quiet;
	bool verbose;
	bool dry_run;			/* validate the options, load nothing */
	bool perf;			/* --perf: counters of the producer threads */
	enum placement placement;	/* --placement: prod_cpus chosen by topology */
	const char *iface;		/* --trigger nic: the interface */
	bool xdp_pass;			/* --trigger nic: pass packets on, else drop */
	bool force;			/* --trigger nic: replace an XDP program already there */
	const char *json_path;
	const char *label;
	enum trigger trigger;
	enum loop_kind loop;		/* auto: bpf_for where the kernel has it */
	/* map under test; families fill the defaults left at NULL / -1 */
	const char *map_name;
	int key_size;
	int value_size;
	long max_entries;
	int prefix_len;			/* LPM trie keys; -1 until validated */
	long nr_entries;		/* prefilled keys; -1 until validated */
	int prealloc;			/* -1 default, 0 --no-prealloc, 1 --prealloc */
	enum key_order keys;
	unsigned int seed;
	int batch;			/* operations per program run; -1: the benchmark's */
	bool all;			/* mem: every map type */
	const char *use_case;		/* htab-mem: which churn benchmark */
	int argc;
	char **argv;
};

struct run;

struct family {
	const char *name;
	/* Fill defaults and reject bad combinations: one-line error, EXIT_USAGE. */
	int (*validate)(struct config *cfg);
	/* Create maps, load programs, prefill: outside any timing. */
	int (*setup)(struct run *run);
	/* Run one batch for producer prod (called from its thread); 0 or -errno. */
	int (*run)(struct run *run, int prod);
	/* Consistent copy of every producer's counters. */
	void (*measure)(struct run *run, struct prod_counters *out);
	void (*teardown)(struct run *run);
	/* Once per producer thread, before its first run. */
	int (*thread_init)(struct run *run, int prod);
	/* For the free benchmarks: create a map named name, filled as the
	 * configuration says, and return its fd in *fd; an exit status. */
	int (*new_filled_map)(struct run *run, const char *name, int *fd);
	/* Instead of setup/run/measure/teardown: measure without producers and
	 * return the result's family-specific part in *out; an exit status. */
	int (*oneshot)(struct run *run, json_t **out);
	/* For benchmarks that track memory: the map's memlock and the bytes its
	 * cgroup is charged now, -1 where unknown. */
	void (*memory)(struct run *run, long long *memlock, long long *charged);
};

/* A benchmark is its contract: the row of the table in registry.c says the
 * workload, and the family code reads it from here. */
struct bench {
	const char *name;
	const char *aliases[3];		/* e.g. the kernel selftests bench's names */
	const struct family *family;
	enum bench_op op;
	enum key_layout layout;
	const char *help;
	const char *workload;		/* keys, order, map state, flags, batch, sync */
	enum figure figure;
	int batch;			/* default operations per program run (0: 1024) */
	int runs_weight;		/* FIG_RUNS_PER_PROD: count per run (0: 1) */
	const struct family *target;	/* free benchmarks: whose maps are freed */
	bool single_producer;		/* the op needs the map to itself */
	bool no_prefill;		/* the map starts empty */
	bool slow;			/* report K ops/s and ms/op */
	bool track_mem;			/* sample the map's memory every second */
};

/* Name, unit and clock of a benchmark's figure, e.g. "per-prod-op", "k/s",
 * "wall"; scale converts M ops/s into the unit. */
struct figure_desc {
	const char *name, *unit, *clock;
	double scale;
};
struct figure_desc figure_of(const struct bench *b);

/* One run: its configuration and what setup resolved about the kernel. */
struct perf_counters;

struct run {
	struct config *cfg;
	void *priv;
	int map_type;			/* enum bpf_map_type value from BTF */
	const char *map_type_name;	/* e.g. BPF_MAP_TYPE_HASH */
	const char *loop;		/* "bpf_for" or "bpf_loop" */
	const char *trigger;		/* trigger actually used */
	const char *timing;		/* what the in-kernel time covers */
	__u32 map_flags;
	int batch;			/* batch size actually used */
	long key_set;			/* distinct keys the producers visit */
	char warning[160];		/* a caveat for the output and the result, or "" */
	struct perf_counters *perf;	/* --perf, else NULL */
	const char *nic_mode;		/* --trigger nic: "native" or "generic" XDP */
};

extern const struct bench benches[];
extern const int nr_benches;
const struct bench *bench_find(const char *name);

/* One line on stderr, prefixed "mapbench: ". */
void mb_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The last line mb_err printed, or "". */
const char *mb_last_error(void);

#endif
