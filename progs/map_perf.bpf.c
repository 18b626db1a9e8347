// SPDX-License-Identifier: GPL-2.0
/* samples/bpf map_perf_test's workloads: one program per test on the
 * syscall the kernel's uses, doing its map work per syscall (an event).
 * User space loads the one test's program, as a ksyscall (the kernel's
 * kprobe) or, where kprobes are refused, on the syscall's tracepoint.
 * Unlike the kernel's programs these run for mapbench's producers only and
 * time their map work, so each event's in-kernel cost is counted too. */
#include "tasks.bpf.h"
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

/* The kernel's maps, its names and sizes; user space sets the run's
 * max_entries on the test's map, as map_perf_test's entries argument. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, long);
	__uint(max_entries, 1000);
} hash_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__type(key, __u32);
	__type(value, long);
	__uint(max_entries, 1000);
} percpu_hash_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, long);
	__uint(max_entries, 1000);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} hash_map_alloc SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__type(key, __u32);
	__type(value, long);
	__uint(max_entries, 1000);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} percpu_hash_map_alloc SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, __u32);
	__type(value, long);
	__uint(max_entries, 10000);
} lru_hash_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, __u32);
	__type(value, long);
	__uint(max_entries, 10000);
	__uint(map_flags, BPF_F_NO_COMMON_LRU);
} nocommon_lru_hash_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(key_size, 8);
	__uint(value_size, sizeof(long));
	__uint(max_entries, 10000);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} lpm_trie_map_alloc SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, long);
	__uint(max_entries, 1000);
} array_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, __u32);
	__type(value, long);
	__uint(max_entries, 1000);
} lru_hash_lookup_map SEC(".maps");

/* INNER_LRU_HASH_PREALLOC: an LRU map per CPU in an array of maps, CPU 0's
 * this one (statically), the others' made by user space on their CPU's
 * NUMA node, as the kernel's. */
struct inner_lru {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, __u32);
	__type(value, long);
	__uint(max_entries, 1000);
	__uint(map_flags, BPF_F_NUMA_NODE);
	__uint(numa_node, 0);
} inner_lru_hash_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1024);
	__uint(key_size, sizeof(__u32));
	__array(values, struct inner_lru);
} array_of_lru_hashs SEC(".maps") = {
	.values = { &inner_lru_hash_map },
};

/* What one event did, for its producer's counters. */
struct event {
	__u64 hits, misses;
};

/* Each task is pinned to a CPU of its own (map_perf_test's shape): CPU ->
 * producer + 1, 0 for none, set before load. A load from read-only data,
 * where a map lookup would add its code to every event. */
#define MAP_PERF_MAX_CPUS 4096
const volatile __u8 cpu_prod[MAP_PERF_MAX_CPUS];

static __always_inline struct prod_counters *producer(void)
{
	__u32 cpu = bpf_get_smp_processor_id(), prod;

	if (!our_task(bpf_get_current_pid_tgid()) || cpu >= MAP_PERF_MAX_CPUS)
		return NULL;
	prod = cpu_prod[cpu] - 1;	/* 0, no producer, wraps past the bound */
	return prod < MAX_PRODUCERS ? &cnt[prod] : NULL;
}

/* The work functions count lookups into e on the timed events; on the
 * others e is NULL, known so where they are inlined, and the counting is
 * compiled out: those events run the kernel's map work alone. */

/* HASH_PREALLOC .. PERCPU_HASH_KMALLOC: ten times update (BPF_ANY), lookup
 * and, when found, delete of the task's own key (its tid). */
static __always_inline void churn(void *map, struct event *e)
{
	__u32 key = bpf_get_current_pid_tgid();
	long init_val = 1;

	for (int i = 0; i < 10; i++) {
		bpf_map_update_elem(map, &key, &init_val, BPF_ANY);
		if (bpf_map_lookup_elem(map, &key)) {
			if (e)
				e->hits++;
			bpf_map_delete_elem(map, &key);
		} else if (e) {
			e->misses++;
		}
	}
}

/* LRU_HASH_PREALLOC, NOCOMMON_LRU_HASH_PREALLOC: one update of a random
 * key, so nearly every event inserts and, once full, evicts. */
static __always_inline void lru_insert(void *map, struct prod_counters *c)
{
	__u32 key = bpf_get_prandom_u32();
	long val = 1;
	long err = bpf_map_update_elem(map, &key, &val, BPF_ANY);

	if (err)
		count_errno(c, err);
}

/* INNER_LRU_HASH_PREALLOC: the random update into this CPU's own LRU map. */
static __always_inline void cpu_lru_insert(struct prod_counters *c)
{
	__u32 cpu = bpf_get_smp_processor_id();
	void *map = bpf_map_lookup_elem(&array_of_lru_hashs, &cpu);

	if (map)
		lru_insert(map, c);
	else
		count_errno(c, -ENOENT);
}

/* The address map_perf_test's connect() carries: two magic words, the test
 * case, and the first of 32 keys to look up (LRU_HASH_LOOKUP). */
union connect_addr {
	__u16 words[8];
	struct {
		__u16 magic0, magic1, test_case, unused16;
		__u32 unused32, key;
	};
};

/* LRU_HASH_LOOKUP: 32 lookups of consecutive keys from the one connect()
 * carries (user space advances it by 32 an event, as the kernel's). */
static __always_inline void lru_lookups(__u32 key, struct event *e)
{
	__u64 hits = 0;

#pragma clang loop unroll(full)
	for (int i = 0; i < 32; i++) {
		if (bpf_map_lookup_elem(&lru_hash_lookup_map, &key) && e)
			hits++;
		key++;
	}
	if (e) {
		e->hits = hits;
		e->misses = 32 - hits;
	}
}

/* The first of n lookups of one key, counted: the others find the same,
 * and counting each would add to every lookup what the kernel's loop has
 * not. */
static __always_inline void count_first(void *found, int n, struct event *e)
{
	if (!e)
		return;
	if (found)
		e->hits += n;
	else
		e->misses += n;
}

/* LPM_KMALLOC: 32 lookups of 192.168.0.1/32. */
static __always_inline void lpm_lookups(struct event *e)
{
	union {
		__u32 b32[2];
		__u8 b8[8];
	} key = { .b8 = { 32, 0, 0, 0, 192, 168, 0, 1 } };

	count_first(bpf_map_lookup_elem(&lpm_trie_map_alloc, &key), 32, e);
#pragma clang loop unroll(full)
	for (int i = 1; i < 32; i++)
		bpf_map_lookup_elem(&lpm_trie_map_alloc, &key);
}

/* HASH_LOOKUP, ARRAY_LOOKUP: 64 lookups of key 1. */
static __always_inline void lookups64(void *map, struct event *e)
{
	__u32 key = 1;

	count_first(bpf_map_lookup_elem(map, &key), 64, e);
#pragma clang loop unroll(full)
	for (int i = 1; i < 64; i++)
		bpf_map_lookup_elem(map, &key);
}

/* Which map each connect() test case updates (the kernel's test_case). */
const volatile __u32 connect_case;

static __always_inline void connect_work(void *uaddr, int addrlen, struct prod_counters *c,
					 struct event *e)
{
	union connect_addr a;

	if (addrlen != 28 /* sizeof(struct sockaddr_in6) */ ||
	    bpf_probe_read_user(&a, sizeof(a), uaddr + 8 /* sin6_addr */) ||
	    a.magic0 != 0xdead || a.magic1 != 0xbeef)
		return;
	if (connect_case == 0)
		lru_insert(&lru_hash_map, c);
	else if (connect_case == 1)
		lru_insert(&nocommon_lru_hash_map, c);
	else if (connect_case == 2)
		cpu_lru_insert(c);
	else
		lru_lookups(a.key, e);
}

/* The events whose map work is timed: one in CLOCK_EVERY, its time counted
 * for all CLOCK_EVERY. Two clock reads an event were most of the harness's
 * own cost beside the kernel's program (map_perf_test times in user space),
 * and that cost is in the figure. The timed events are those whose count
 * times the golden ratio falls in the first 1/CLOCK_EVERY of the circle (a
 * Weyl sequence): as many as every 16th, but never in step with what the
 * kernel does every 2^k events (an LRU map refills its CPU's free list
 * 128 nodes at a time), which every 16th event would time each time or
 * never. */
#define CLOCK_EVERY 16
#define GOLDEN32 2654435769u

static __always_inline bool timed_event(__u64 runs)
{
	return (__u32)(runs * GOLDEN32) < (__u32)(0x100000000ull / CLOCK_EVERY);
}

/* An untimed event: counted, without the seq that keeps a snapshot's ns
 * and ops in step (its ns are none; one event more or less in a snapshot's
 * ops is what the seq would buy, at two atomics an event). */
static __always_inline void count_event(struct prod_counters *c)
{
	c->ops++;
	c->runs++;
}

/* An event, its map work (which names e_) timed and its lookups counted one
 * time in CLOCK_EVERY; the others only counted. */
#define TIMED_EVENT(work) ({							\
	struct prod_counters *c_ = producer();					\
										\
	if (c_ && timed_event(c_->runs)) {					\
		struct event ev_ = {}, *e_ = &ev_;				\
		__u64 t0_ = bpf_ktime_get_ns();					\
										\
		work;								\
		account(c_, 1, (bpf_ktime_get_ns() - t0_) * CLOCK_EVERY,	\
			ev_.hits, ev_.misses);					\
	} else if (c_) {							\
		struct event *e_ = NULL;					\
										\
		work;								\
		count_event(c_);						\
	}									\
	0;									\
})

/* Each test twice: as the kernel's ksyscall, and on the syscall's
 * tracepoint for kernels that refuse kprobes. */
#define SYSCALL_PROGS(name, sys, work)						\
	SEC("ksyscall/" #sys) int BPF_KSYSCALL(ks_##name)			\
	{									\
		return TIMED_EVENT(work);					\
	}									\
	SEC("tp/syscalls/sys_enter_" #sys) int tp_##name(void *ctx)		\
	{									\
		return TIMED_EVENT(work);					\
	}

SYSCALL_PROGS(hash_prealloc, getuid, churn(&hash_map, e_))
SYSCALL_PROGS(percpu_hash_prealloc, geteuid, churn(&percpu_hash_map, e_))
SYSCALL_PROGS(hash_kmalloc, getgid, churn(&hash_map_alloc, e_))
SYSCALL_PROGS(percpu_hash_kmalloc, getegid, churn(&percpu_hash_map_alloc, e_))
SYSCALL_PROGS(lpm_kmalloc, gettid, lpm_lookups(e_))
SYSCALL_PROGS(hash_lookup, getpgid, lookups64(&hash_map, e_))
SYSCALL_PROGS(array_lookup, getppid, lookups64(&array_map, e_))

SEC("ksyscall/connect")
int BPF_KSYSCALL(ks_connect, int fd, void *uaddr, int addrlen)
{
	return TIMED_EVENT(connect_work(uaddr, addrlen, c_, e_));
}

SEC("tp/syscalls/sys_enter_connect")
int tp_connect(struct trace_event_raw_sys_enter *ctx)
{
	return TIMED_EVENT(connect_work((void *)ctx->args[1], ctx->args[2], c_, e_));
}
