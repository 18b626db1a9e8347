// SPDX-License-Identifier: GPL-2.0
/* The map_perf_test family: the kernel's maps and programs
 * (progs/map_perf.bpf.c), one test's program loaded, each producer a task
 * making the test's syscall, each syscall an event. */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "counters.h"
#include "map_perf.h"
#include "maps.h"
#include "map_perf.skel.h"
#include "topology.h"
#include "trigger.h"

/* map_perf_test_user.c's tests, in its enum test_type's order: a test's
 * bit in its FLAGS (a row's flag) is 1 << its place. */
enum test_type { HASH_PREALLOC, PERCPU_HASH_PREALLOC, HASH_KMALLOC, PERCPU_HASH_KMALLOC,
		 LRU_HASH_PREALLOC, NOCOMMON_LRU_HASH_PREALLOC, LPM_KMALLOC, HASH_LOOKUP,
		 ARRAY_LOOKUP, INNER_LRU_HASH_PREALLOC, LRU_HASH_LOOKUP, NR_TESTS };

static const struct map_perf_test tests[NR_TESTS] = {
	[HASH_PREALLOC] = { "HASH_PREALLOC", "hash_prealloc", "hash_map", SYS_getuid, -1,
			    "hash_map_perf pre-alloc", "events", 1 },
	[PERCPU_HASH_PREALLOC] = { "PERCPU_HASH_PREALLOC", "percpu_hash_prealloc",
				   "percpu_hash_map", SYS_geteuid, -1,
				   "percpu_hash_map_perf pre-alloc", "events", 1 },
	[HASH_KMALLOC] = { "HASH_KMALLOC", "hash_kmalloc", "hash_map_alloc", SYS_getgid, -1,
			   "hash_map_perf kmalloc", "events", 1 },
	[PERCPU_HASH_KMALLOC] = { "PERCPU_HASH_KMALLOC", "percpu_hash_kmalloc",
				  "percpu_hash_map_alloc", SYS_getegid, -1,
				  "percpu_hash_map_perf kmalloc", "events", 1 },
	[LRU_HASH_PREALLOC] = { "LRU_HASH_PREALLOC", "connect", "lru_hash_map", SYS_connect, 0,
				"lru_hash_map_perf pre-alloc", "events", 1 },
	[NOCOMMON_LRU_HASH_PREALLOC] = { "NOCOMMON_LRU_HASH_PREALLOC", "connect",
					 "nocommon_lru_hash_map", SYS_connect, 1,
					 "nocommon_lru_hash_map_perf pre-alloc", "events", 1 },
	[INNER_LRU_HASH_PREALLOC] = { "INNER_LRU_HASH_PREALLOC", "connect", "inner_lru_hash_map",
				      SYS_connect, 2, "inner_lru_hash_map_perf pre-alloc",
				      "events", 1 },
	[LPM_KMALLOC] = { "LPM_KMALLOC", "lpm_kmalloc", "lpm_trie_map_alloc", SYS_gettid, -1,
			  "lpm_perf kmalloc", "events", 1 },
	[HASH_LOOKUP] = { "HASH_LOOKUP", "hash_lookup", "hash_map", SYS_getpgid, -1,
			  "hash_lookup", "lookups", 64 },
	[ARRAY_LOOKUP] = { "ARRAY_LOOKUP", "array_lookup", "array_map", SYS_getppid, -1,
			   "array_lookup", "lookups", 64 },
	[LRU_HASH_LOOKUP] = { "LRU_HASH_LOOKUP", "connect", "lru_hash_lookup_map", SYS_connect, 3,
			      "lru_hash_lookup_perf pre-alloc", "events", 1 },
};

/* LRU_HASH_LOOKUP looks up 32 keys from one an event; the kernel fills at
 * least 32 keys whatever the entries. */
#define LOOKUP_KEYS 32

struct map_perf_state {
	struct map_perf_bpf *skel;
	struct bpf_link *link;
	const struct map_perf_test *test;
	long lookup_keys;		/* LRU_HASH_LOOKUP: keys filled */
	int map_fd;			/* the test's map */
	int inner_fd[MAX_PRODUCERS];	/* INNER_LRU_HASH_PREALLOC: producer p's map
					 * (CPU 0's the object's), or -1 */
	struct map_drain drain;		/* what emptying a map reads out */
};

/* The LRU tests insert a random key an event, so their maps fill; each of
 * map_perf_test's runs starts from new, empty maps. */
static bool fills_map(const struct map_perf_test *t)
{
	return t->connect_case >= 0 && t->connect_case < 3;
}

const struct map_perf_test *map_perf_test_of(const struct bench *b)
{
	unsigned int f = b->flag;

	if (!f || (f & (f - 1)) || f >= 1u << NR_TESTS)
		return NULL;
	return &tests[__builtin_ctz(f)];
}

/* The CPUs its programs can tell their tasks on: cpu_prod's size. */
#define TASK_CPUS sizeof(((struct map_perf_bpf *)0)->rodata->cpu_prod)

static bool one_task_per_cpu(const struct plan *plan)
{
	if (plan->nr_prod_cpus < plan->producers && plan->placement == PLACE_NONE)
		return false;
	for (int p = 0; p < plan->producers; p++)
		for (int q = 0; q < p; q++)
			if (plan->prod_cpus[p] == plan->prod_cpus[q])
				return false;
	return true;
}

/* Its maps are the kernel's, as its object declares them. */
static int map_perf_check(const struct plan *plan)
{
	const struct bench *b = plan->bench;

	if (!map_perf_test_of(b)) {	/* a row naming no test: a bug in the table */
		mb_err("%s names no map_perf_test test", b->name);
		return EXIT_USAGE;
	}
	if (!one_task_per_cpu(plan)) {
		mb_err("%s runs a task per CPU, each pinned to its own, as map_perf_test: give "
		       "-p up to the online CPUs and CPUs that differ", b->name);
		return EXIT_USAGE;
	}
	for (int p = 0; p < plan->producers; p++)
		if (plan->prod_cpus[p] >= (int)TASK_CPUS) {
			mb_err("%s's programs know CPUs 0 to %zu: pin its tasks there with "
			       "--prod-affinity", b->name, TASK_CPUS - 1);
			return EXIT_USAGE;
		}
	if (plan->trigger != TRIGGER_KSYSCALL && plan->trigger != TRIGGER_TP) {
		mb_err("%s runs map_perf_test's program on its syscall: --trigger takes tp (its "
		       "tracepoint) or nothing (the kernel's ksyscall)", b->name);
		return EXIT_USAGE;
	}
	if (plan->key_size != b->key_size || plan->value_size != b->value_size ||
	    plan->prealloc != b->prealloc || plan->extra_map_flags ||
	    plan->nr_entries != (b->nr_entries == ENTRIES_MAX ? plan->max_entries : 0)) {
		mb_err("%s's maps are map_perf_test's, as its program declares them: only "
		       "--max-entries (its entries argument) changes them", b->name);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

static struct bpf_program *program(struct map_perf_bpf *skel, const char *prefix,
				   const char *name)
{
	char full[64];

	snprintf(full, sizeof(full), "%s_%s", prefix, name);
	return bpf_object__find_program_by_name(skel->obj, full);
}

/* Producer p on its CPU, for the programs (cpu_prod holds p + 1); before
 * load, as it is read-only data. */
static void register_tasks(struct map_perf_state *st, const struct plan *plan)
{
	for (int p = 0; p < plan->producers; p++)
		st->skel->rodata->cpu_prod[plan->prod_cpus[p]] = p + 1;
}

/* Only the test's program, as the trigger asks: ksyscall (the kernel's) or
 * the syscall's tracepoint. */
static int open_and_load(struct map_perf_state *st, struct run *run)
{
	const struct map_perf_test *t = st->test;
	struct bpf_map *map, *inner;
	struct bpf_program *p;
	int err;

	st->skel = map_perf_bpf__open();
	if (!st->skel) {
		mb_err("opening the BPF object failed: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	bpf_object__for_each_program(p, st->skel->obj)
		bpf_program__set_autoload(p, false);
	bpf_program__set_autoload(program(st->skel, run->trigger == TRIGGER_TP ? "tp" : "ks",
					  t->prog), true);
	map = bpf_object__find_map_by_name(st->skel->obj, t->map);
	bpf_map__set_max_entries(map, run->plan->max_entries);
	if (run->plan->zero_seed > 0) {	/* the icount clock's same buckets every run */
		bpf_map__set_map_flags(map, bpf_map__map_flags(map) | BPF_F_ZERO_SEED);
		/* the maps of an array of maps share its inner map's flags */
		inner = bpf_map__inner_map(st->skel->maps.array_of_lru_hashs);
		if (t->connect_case == 2)
			bpf_map__set_map_flags(inner, bpf_map__map_flags(inner) | BPF_F_ZERO_SEED);
	}
	st->skel->rodata->bench_tgid = getpid();
	register_tasks(st, run->plan);
	st->skel->rodata->connect_case = t->connect_case < 0 ? 0 : t->connect_case;
	err = map_perf_bpf__load(st->skel);
	if (err) {
		mb_err("loading the %s program failed: %s (run with -v for the verifier log)",
		       t->prog, strerror(-err));
		return EXIT_RUNTIME;
	}
	st->map_fd = bpf_map__fd(map);
	return map_record(map, run);
}

/* What map_perf_test fills before its tasks start: LRU_HASH_LOOKUP's keys,
 * and hash_map_alloc, into which its fill_lpm_trie() writes what it means
 * for the trie (the 4-byte keys are the prefix lengths, so some of 0..32);
 * its trie stays empty. */
static int prefill(struct map_perf_state *st, const struct plan *plan)
{
	int lookup = bpf_map__fd(st->skel->maps.lru_hash_lookup_map);
	int alloc = bpf_map__fd(st->skel->maps.hash_map_alloc);
	long val = 1;

	st->lookup_keys = plan->max_entries > LOOKUP_KEYS ? plan->max_entries : LOOKUP_KEYS;
	if (st->test->connect_case == 3)
		for (__u32 key = 0; key < st->lookup_keys; key++)
			if (bpf_map_update_elem(lookup, &key, &val, BPF_NOEXIST) && errno != E2BIG) {
				mb_err("filling lru_hash_lookup_map failed: %s", strerror(errno));
				return EXIT_RUNTIME;
			}
	for (__u32 key = 0; key <= 32; key++)
		if (bpf_map_update_elem(alloc, &key, &val, BPF_ANY)) {
			mb_err("filling hash_map_alloc failed: %s", strerror(errno));
			return EXIT_RUNTIME;
		}
	return EXIT_OK;
}

static int attach(struct map_perf_state *st, struct run *run)
{
	const char *prefix = run->trigger == TRIGGER_TP ? "tp" : "ks";
	int err = run->trigger == TRIGGER_TP ? trigger_need_tracefs(run) : EXIT_OK;

	if (err)
		return err;
	st->link = bpf_program__attach(program(st->skel, prefix, st->test->prog));
	if (st->link)
		return EXIT_OK;
	if (run->trigger == TRIGGER_TP || run->plan->trigger_fallback != TRIGGER_TP) {
		mb_err("attaching the %s program failed: %s", st->test->prog, strerror(errno));
		return errno == EPERM || errno == EOPNOTSUPP ? EXIT_UNSUPPORTED : EXIT_RUNTIME;
	}
	return EXIT_FALLBACK;
}

/* INNER_LRU_HASH_PREALLOC: an LRU map for each producer's CPU but 0 (the
 * object's own), on that CPU's NUMA node, in the array at the CPU's index;
 * their fds are kept to empty them between rounds. */
static int cpu_lru_maps(struct map_perf_state *st, const struct plan *plan)
{
	const struct topology *topo = machine_topology();
	int outer = bpf_map__fd(st->skel->maps.array_of_lru_hashs);

	if (st->test->connect_case != 2)
		return EXIT_OK;
	for (int p = 0; p < plan->producers; p++) {
		__u32 cpu = plan->prod_cpus[p];
		LIBBPF_OPTS(bpf_map_create_opts, opts,
			    .map_flags = BPF_F_NUMA_NODE | (plan->zero_seed > 0 ? BPF_F_ZERO_SEED : 0),
			    .numa_node = topo && (int)cpu < topo->n ? topo->cpu[cpu].node : 0);
		int fd, err;

		if (!cpu)
			continue;
		fd = bpf_map_create(BPF_MAP_TYPE_LRU_HASH, "inner_lru_hash_map", sizeof(__u32),
				    sizeof(long), plan->max_entries, &opts);
		st->inner_fd[p] = fd;
		err = fd < 0 ? -errno : bpf_map_update_elem(outer, &cpu, &fd, BPF_ANY) ? -errno : 0;
		if (err) {
			mb_err("the LRU map of CPU %u failed: %s", cpu, strerror(-err));
			return EXIT_RUNTIME;
		}
	}
	return EXIT_OK;
}

/* Closed and marked none: the run's end, or a setup to be done again. */
static void close_inner_maps(struct map_perf_state *st)
{
	for (int p = 0; p < MAX_PRODUCERS; p++) {
		if (st->inner_fd[p] >= 0)
			close(st->inner_fd[p]);
		st->inner_fd[p] = -1;
	}
}

static int setup_on(struct map_perf_state *st, struct run *run)
{
	static char point[48];
	int err = open_and_load(st, run) ?: prefill(st, run->plan) ?:
		  cpu_lru_maps(st, run->plan) ?: attach(st, run);

	snprintf(point, sizeof(point), run->trigger == TRIGGER_TP ? "syscalls/sys_enter_%s" :
		 "ksyscall/%s", st->test->connect_case >= 0 ? "connect" : st->test->prog);
	run->trigger_point = point;
	return err;
}

static int map_perf_setup(struct run *run)
{
	struct map_perf_state *st = calloc(1, sizeof(*st));
	int err;

	if (!st)
		return EXIT_RUNTIME;
	run->priv = st;
	st->test = map_perf_test_of(run->plan->bench);
	memset(st->inner_fd, -1, sizeof(st->inner_fd));	/* none yet */
	if (fills_map(st->test) &&
	    map_drain_init(&st->drain, run->plan->max_entries, sizeof(__u32), sizeof(long)))
		return EXIT_RUNTIME;
	run->loop = "none";
	run->timing = "CLOCK_MONOTONIC around each task's round of events (map_perf_test's "
		      "figure); bpf_ktime_get_ns around the map work of one event in 16 "
		      "(a Weyl sequence picks it)";
	err = setup_on(st, run);
	if (err == EXIT_FALLBACK) {
		run_warn(run, "this kernel refuses kprobes, map_perf_test's ksyscall trigger: %s ran "
			 "on the syscall's tracepoint instead", run->plan->bench->name);
		map_perf_bpf__destroy(st->skel);
		st->skel = NULL;
		close_inner_maps(st);
		run->trigger = TRIGGER_TP;
		err = setup_on(st, run);
	}
	return err;
}

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* The LRU tests' events: connect(-1, ...) with map_perf_test's address,
 * EBADF after the program ran on its entry; the key (LRU_HASH_LOOKUP's
 * first of 32) moves on by 32 an event, wrapping, from 0 each round. The
 * syscall itself: libc's connect() in a process of several threads (ours)
 * sets the thread cancellable around it, which map_perf_test's tasks,
 * single-threaded processes, skip. */
static int connect_events(const struct map_perf_state *st, long n)
{
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6 };

	in6.sin6_addr.s6_addr16[0] = 0xdead;
	in6.sin6_addr.s6_addr16[1] = 0xbeef;
	in6.sin6_addr.s6_addr16[2] = st->test->connect_case;
	for (long i = 0; i < n; i++) {
		if (syscall(SYS_connect, -1, &in6, sizeof(in6)) != -1 || errno != EBADF)
			return -EPROTO;
		if (in6.sin6_addr.s6_addr32[3] < st->lookup_keys - LOOKUP_KEYS)
			in6.sin6_addr.s6_addr32[3] += LOOKUP_KEYS;
		else
			in6.sin6_addr.s6_addr32[3] = 0;
	}
	return 0;
}

/* A round: plan->count events of producer prod, timed in user space as
 * map_perf_test times its loop, into the task's wall counters (its
 * programs run in this thread, so nothing else writes them meanwhile). */
static int map_perf_run(struct run *run, int prod)
{
	struct map_perf_state *st = run->priv;
	struct prod_counters *c = &st->skel->bss->cnt[prod];
	long n = run->plan->count;
	__u64 t0 = mono_ns(), ns;
	int err = 0;

	if (st->test->connect_case >= 0)
		err = connect_events(st, n);
	else
		for (long i = 0; i < n; i++)
			syscall(st->test->syscall_nr);
	ns = mono_ns() - t0;
	if (err) {
		mb_err("connect(-1, ...) did not fail with EBADF: the %s event is not "
		       "map_perf_test's", st->test->name);
		return err;
	}
	__atomic_fetch_add(&c->seq, 1, __ATOMIC_SEQ_CST);
	c->wall_events += n;
	c->wall_ns += ns;
	__atomic_fetch_add(&c->seq, 1, __ATOMIC_SEQ_CST);
	return 0;
}

/* Between rounds: the maps the LRU tests fill emptied, so each round
 * starts as a map_perf_test run does; one batch call a map, untimed. */
static int map_perf_round_reset(struct run *run)
{
	struct map_perf_state *st = run->priv;
	const struct plan *plan = run->plan;
	int err;

	if (!fills_map(st->test))
		return EXIT_OK;
	err = map_delete_all(st->map_fd, &st->drain);
	for (int p = 0; !err && p < plan->producers; p++)
		if (st->inner_fd[p] >= 0)
			err = map_delete_all(st->inner_fd[p], &st->drain);
	if (err) {
		mb_err("emptying %s between rounds failed: %s", st->test->map, strerror(-err));
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

static void map_perf_measure(struct run *run, struct prod_counters *out)
{
	struct map_perf_state *st = run->priv;

	counters_snapshot(st->skel->bss->cnt, run->plan->producers, out);
}

static void map_perf_teardown(struct run *run)
{
	struct map_perf_state *st = run->priv;

	if (!st)
		return;
	bpf_link__destroy(st->link);
	close_inner_maps(st);
	map_perf_bpf__destroy(st->skel);
	map_drain_free(&st->drain);
	free(st);
	run->priv = NULL;
}

const struct family map_perf_family = {
	.name = "map_perf",
	.check = map_perf_check,
	.setup = map_perf_setup,
	.run = map_perf_run,
	.round_reset = map_perf_round_reset,
	.measure = map_perf_measure,
	.teardown = map_perf_teardown,
};
