/* SPDX-License-Identifier: GPL-2.0 */
/* The benchmark interface: a benchmark is a row of the table (registry.c's
 * own rows, a kernel bench's in its peer file: its whole contract), the command line gives options, plan_resolve()
 * (plan.c) turns both into one read-only plan, and a family implements
 * check/setup/run/measure/teardown against that plan. */
#ifndef MAPBENCH_BENCH_H
#define MAPBENCH_BENCH_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>
#include <linux/types.h>
#include "bench_shared.h"

enum exit_status {
	EXIT_OK = 0,
	EXIT_USAGE = 1,		/* bad input: fix the command line */
	EXIT_UNSUPPORTED = 2,	/* this kernel or machine cannot run it */
	EXIT_RUNTIME = 3,	/* it ran and failed */
};

/* How a batch reaches the kernel. The first five are --trigger's choices;
 * ksyscall (map_perf_test's kprobe on a syscall), syscall (BPF_PROG_TEST_RUN
 * of a syscall program: bpf-nop), close (the free benchmarks) and none (mem)
 * belong to rows only. tp is the kernel bench's syscall
 * tracepoint (sys_enter_getpgid; the deleters of pairs on sys_enter_getppid). */
enum trigger { TRIGGER_XDP, TRIGGER_RAW_TP, TRIGGER_FENTRY, TRIGGER_NIC, TRIGGER_TP,
	       TRIGGER_KSYSCALL, TRIGGER_SYSCALL_PROG, TRIGGER_CLOSE, TRIGGER_NONE };
/* seq and random walk a precomputed key array; counter is the kernel's LPM
 * bench: cur_key++ % nr from one counter all CPUs share, and prandom its
 * --random: bpf_get_prandom_u32() % nr; index makes ids from the loop index
 * (bpf-hashmap-*, htab-mem). */
enum key_order { KEYS_SEQ, KEYS_RANDOM, KEYS_COUNTER, KEYS_INDEX, KEYS_PRANDOM,
		 KEYS_DRAWN /* a walk that draws its keys (keys.h); not a --keys choice */ };
/* --placement: how producers are pinned by the machine's topology (topology.c). */
enum placement { PLACE_NONE, PLACE_COMPACT, PLACE_SPREAD_LLC, PLACE_SPREAD_NODE, PLACE_SMT_PAIRS };
/* can_loop: a loop bounded by may_goto, the kernel timing library's (a
 * row's, bpf-nop). */
enum loop_kind { LOOP_AUTO, LOOP_FOR, LOOP_BPF_LOOP, LOOP_CAN_LOOP, LOOP_NONE };

/* A benchmark's headline figure: for a benchmark that carries a kernel
 * bench's name, the figure that bench prints, in its unit. */
enum figure {
	FIG_WALL,		/* operations per second of wall time, all producers */
	FIG_KERNEL,		/* operations per second of in-kernel time, all producers */
	FIG_RUNS_PER_PROD,	/* batches per producer per second of wall time (op_batches) */
	FIG_EVENTS_PER_PROD,	/* operations per second of in-kernel time, per producer */
	FIG_BYTES,		/* mem: bytes per element, no producers */
	FIG_BATCH_MEDIAN,	/* ns per operation, the median of the batches' (lower is better) */
	FIG_EVENTS_PER_TASK,	/* program runs (events) per producer per second of wall time */
};

/* Sentinels of a row's entry counts. */
#define ENTRIES_MAX (-2)	/* nr-entries: as many as max-entries (a full map) */
#define ENTRIES_NR (-3)		/* max-entries: as many as nr-entries */
#define ENTRIES_TWICE_MAX (-4)	/* nr-entries: twice max-entries (a map that must evict) */
#define PREFIX_ALL (-2)		/* prefix-len: every bit of the key */
#define BATCH_NR_ENTRIES (-2)	/* batch: nr-entries, a run visits every value */

/* --prefix-len with several lengths: each length's share of an LPM trie's
 * prefixes (they sum to 1), lengths up to 64 bits. */
#define PREFIX_MIX_MAX 64
struct prefix_mix {
	bool mixed;
	double weight[PREFIX_MIX_MAX + 1];
};

struct host;
struct key_walk;
struct lb_scenario;
struct map_kind;
struct kernel_bench;

/* The resolved plan of one run (plan_resolve()): every value set, from the
 * options (options.h), the row and the machine. */
struct plan {
	const struct bench *bench;
	int producers;
	int writers;			/* producers [producers - writers, producers) run the
					 * row's writer_op, the others its op (readers) */
	int prod_cpus[MAX_PRODUCERS];	/* pinning, when nr_prod_cpus > 0 */
	int nr_prod_cpus;		/* MAX_PRODUCERS for -a */
	int warmup;			/* seconds dropped before the summary */
	int duration;			/* seconds measured */
	bool quiet;
	bool verbose;
	bool dry_run;			/* validate the options, load nothing */
	bool perf;			/* --perf: counters of the producer threads */
	bool jit_symbols;		/* --jit-symbols: record the programs' addresses */
	bool machine_readable;		/* --machine-readable: the kernel timing library's line */
	enum placement placement;	/* --placement: prod_cpus chosen by topology */
	const char *iface;		/* --trigger nic: the interface */
	bool xdp_pass;			/* --trigger nic: pass packets on, else drop */
	bool force;			/* --trigger nic: replace an XDP program already there */
	const char *json_path;
	const char *label;
	int round;			/* --round: the run's round in an interleaved series, or 0 */
	int trigger;			/* enum trigger */
	enum trigger trigger_fallback;	/* where the kernel refuses trigger (the row's
					 * fentry), this one with a warning; TRIGGER_NONE: none */
	int loop;			/* enum loop_kind; auto: bpf_for where the kernel has it */
	/* the map under test */
	const char *map_name;
	const struct map_kind *map;	/* resolved from map_name */
	int key_size;
	int value_size;
	long max_entries;
	int prefix_len;			/* LPM trie keys' prefix bits (mixed: the longest);
					 * 0 for other maps */
	struct prefix_mix prefix_mix;	/* LPM: several lengths, each its share */
	long nr_entries;		/* prefilled keys */
	int prealloc;			/* 1, or 0: BPF_F_NO_PREALLOC */
	int zero_seed;			/* 1: BPF_F_ZERO_SEED, where the kind has a seed */
	__u32 extra_map_flags;		/* --map_flags: BPF_F_* bits added to the kind's */
	int map_extra;			/* --map-extra: the row's map_extra where not given */
	int keys;			/* enum key_order */
	long long seed;
	double zipf;			/* drawn keys: Zipf's exponent, or 0 for uniform */
	double hit_ratio;		/* lookups: the share of visits to present keys (1: all) */
	int batch;			/* operations per program run */
	bool batch_times;		/* record every batch's time (percentiles) */
	bool batch_auto;		/* --batch auto: batch sized in the first warmup second */
	bool all;			/* mem: every map type */
	long count;			/* rounds (family->round_reset): events per producer
					 * a round; 0 for other families */
	int argc;
	char **argv;
};

struct run;

struct family {
	const char *name;
	/* Refuse what the family cannot run: one-line error, EXIT_USAGE. Only
	 * checks: every default and derived value is already in the plan. */
	int (*check)(const struct plan *plan);
	/* Create maps, load programs, prefill: outside any timing. */
	int (*setup)(struct run *run);
	/* Run one batch for producer prod (called from its thread); 0, -errno,
	 * or an exit status after the family's own one-line error. */
	int (*run)(struct run *run, int prod);
	/* Consistent copy of every producer's counters. */
	void (*measure)(struct run *run, struct prod_counters *out);
	/* ns per op of producer prod's runs [first, end) still in its batch
	 * ring (progs/common.bpf.h), into out; how many. NULL: the family
	 * records no batches. */
	long (*batch_times)(struct run *run, int prod, __u64 first, __u64 end, double *out);
	/* Every producer's batch from its next run on (--batch auto). */
	void (*set_batch)(struct run *run, __u32 batch);
	void (*teardown)(struct run *run);
	/* Once per producer thread, before its first run. */
	int (*thread_init)(struct run *run, int prod);
	/* Producers run in rounds, all starting each one together (plan->count
	 * events each, as map_perf_test's tasks): called by the last producer
	 * to finish a round, before the next starts; an exit status. NULL: no
	 * rounds. */
	int (*round_reset)(struct run *run);
	/* For the free and mem benchmarks: create a map named name as plan
	 * describes it, filled with keys [0, nr-entries), and return its fd in
	 * *fd; an exit status. */
	int (*new_filled_map)(const struct plan *plan, struct run *run, const char *name, int *fd);
	/* The map kinds (maps.h bits) whose maps new_filled_map makes. */
	unsigned int fills;
	/* Instead of setup/run/measure/teardown: measure without producers,
	 * print its own lines (unless quiet) and hand back in *part the
	 * members it adds to the result (mem: "memory"); an exit status. */
	int (*oneshot)(struct run *run, json_t **part);
	/* For benchmarks that track memory: the map's memlock, the bytes its
	 * cgroup is charged now and at most so far, less mapbench's own maps
	 * the kernel bench does not have (run->own_bytes); -1 where unknown. */
	void (*memory)(struct run *run, long long *memlock, long long *charged, long long *peak);
	/* Elements in the map under test now (read from user space, untimed),
	 * or -1 on failure. */
	long long (*entries)(struct run *run);
	/* What it can do, for the checks that would otherwise name it: */
	bool packet_driven;	/* its producers' programs run from packets (--trigger nic) */
	bool takes_all;		/* --all: it measures every map kind */
	bool slow;		/* an op takes milliseconds: figures in K ops/s and ms/op */
	bool fixed_batch;	/* a run is the row's batch of ops, never resized (bloom) */
};

/* A benchmark is its contract: every default and choice of its workload is
 * in its row of the table, and nowhere else. */
struct bench {
	const char *name;
	const char *aliases[3];		/* e.g. the kernel selftests bench's names */
	const char *group;		/* htab-mem: the name --use-case chooses within */
	const char *use_case;
	const char *help;
	const char *workload;		/* prose: what the row's values mean together */
	const struct family *family;
	const struct family *target;	/* free benchmarks: whose maps are freed */
	enum bench_op op;
	int family_op;			/* what a run does where bench_op cannot say it:
					 * the family's own (bloom.h's enum bloom_op) */
	/* Readers and writers of one map: the writers' op (the readers run op);
	 * MB_OP_NOOP: every producer runs op. */
	enum bench_op writer_op;
	const struct key_walk *walk;	/* which keys each producer visits (keys.h) */
	unsigned int maps;		/* the map kinds it runs on (maps.h) */
	const char *map;		/* default map kind */
	int key_size, value_size;
	long max_entries;		/* or ENTRIES_NR */
	int (*max_entries_of)(const struct host *host);	/* instead of max_entries: the machine's */
	long nr_entries;		/* or ENTRIES_MAX; a default above max is max */
	int prefix_len;			/* LPM: PREFIX_ALL; -1: none */
	int prealloc;			/* where the map kind leaves the choice */
	enum key_order keys;		/* the default key order */
	int batch;			/* operations per program run */
	enum trigger trigger;
	int trigger_fallback;		/* the kernel bench's trigger where the kernel
					 * refuses it: the nearest that works (0: none) */
	enum loop_kind loop;
	enum figure figure;
	const struct kernel_bench *kernel;	/* the kernel bench it is (src/peers/), or NULL */
	const char *kernel_source;	/* its file in the kernel's tree */
	bool single_producer;		/* the op needs the map to itself */
	bool no_prefill;		/* the map starts empty */
	bool track_mem;			/* sample the map's memory every second */
	bool counts_evictions;		/* its misses insert into a map that evicts */
	bool task_per_cpu;		/* -p defaults to every online CPU, producer i on CPU i */
	unsigned int flag;		/* its bit in its group's test mask (--flags) */
	long count;			/* rounds: events per producer a round (--count) */
	int map_extra;			/* the map's map_extra (a bloom filter's hash
					 * functions, --map-extra); 0: the map has none */
	bool batch_auto;		/* --batch auto unless --batch N is given */
	const struct lb_scenario *scenario;	/* xdp-lb: its packet and the state it meets */
};

/* Name, unit and clock of a benchmark's figure, e.g. "per-prod-op", "k/s",
 * "wall"; scale converts M ops/s into the unit. */
struct figure_desc {
	const char *name, *unit, *clock;
	double scale;
};
struct figure_desc figure_of(const struct bench *b);
/* A row's operations per run, given the prefilled keys: nr_entries where
 * a run visits every value (BATCH_NR_ENTRIES), else the row's batch. */
static inline long row_batch(const struct bench *b, long nr_entries)
{
	return b->batch == BATCH_NR_ENTRIES ? nr_entries : b->batch;
}
/* "lookup", "update", ...: what an op does to each key, for output lines. */
const char *bench_op_name(enum bench_op op);

#define MAX_WARNINGS 4

/* One run: its plan and what setup found out about the kernel. */
struct perf_counters;
struct samples;

/* What a run shows as it goes, given by main.c (output.c's lines): the
 * sampler reports through it, below the output. */
struct progress {
	void (*sample)(const struct run *run, const struct samples *s, int i);
};

struct run {
	const struct plan *plan;
	const struct progress *progress;
	void *priv;
	int map_type;			/* enum bpf_map_type value from BTF */
	const char *map_type_name;	/* e.g. BPF_MAP_TYPE_HASH */
	int trigger;			/* the trigger used: the plan's, or its fallback */
	const char *trigger_point;	/* where it fires, e.g. syscalls/sys_enter_getpgid */
	const char *loop;		/* "bpf_for" or "bpf_loop" */
	const char *timing;		/* what the in-kernel time covers */
	__u32 map_flags;		/* as the kernel reports them, once the map exists */
	char warnings[MAX_WARNINGS][200];	/* caveats for the output and the result */
	int nr_warnings;
	struct perf_counters *perf;	/* --perf, else NULL */
	json_t *programs;		/* --jit-symbols: the loaded programs' kallsyms */
	long long own_bytes;		/* mapbench's maps left out of the cgroup figures */
	const char *nic_mode;		/* --trigger nic: "native" or "generic" XDP */
	/* rows that count evictions: elements at the end, and the inserts the
	 * map did not keep (over the whole run, warmup included); -1 unknown */
	long long entries_end, evictions;
	/* --batch auto: the batch set after the first warmup second (0: none)
	 * and the in-kernel ns per op it was sized from */
	long batch_calibrated;
	double calibration_per_op_ns;
	/* inserts of user-space fills the kernel refused for now (ENOMEM) and
	 * was asked again (free.h's map_fill) */
	long fill_retries;
};

/* Display units: M ops/s and ns/op, or K ops/s and ms/op for slow ops. */
struct units {
	double tput, lat;	/* multipliers from M ops/s and ns */
	const char *tput_unit, *lat_unit;
};

static inline struct units units_of(const struct run *run)
{
	if (run->plan->bench->family->slow)
		return (struct units){ 1e3, 1e-6, "K", "ms" };
	return (struct units){ 1, 1, "M", "ns" };
}

/* A JSON number, or null for a figure that is not one (NAN: not measured). */
static inline json_t *json_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* Add a caveat to the run's output and result. */
void run_warn(struct run *run, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Every row, in the order -l lists them: registry.c's own, then each
 * kernel bench's from its peer file (rows.h: BENCH_ROWS). */
extern const struct bench *benches;
extern int nr_benches;
/* Join a table of n rows to benches, at place (before main() runs). */
void bench_rows_add(const struct bench *rows, int n, int place);
/* The row by name or alias, or within a group by use case (NULL: the
 * group's first row). */
const struct bench *bench_find(const char *name, const char *use_case);
/* The row of group name whose flag is flag, or NULL. */
const struct bench *bench_find_flag(const char *name, unsigned int flag);
/* "1 HASH_PREALLOC, 2 ...": the flags of group name's rows, for messages. */
const char *bench_flags_list(const char *name, char *buf, int len);

/* Names of enum trigger and enum loop_kind values (int: plan.c looks
 * values up by name through these). */
const char *trigger_name(int kind);
const char *loop_name(int kind);

/* One line on stderr, prefixed "mapbench: ". */
void mb_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The last line mb_err printed in this thread, or "". */
const char *mb_last_error(void);

#endif
