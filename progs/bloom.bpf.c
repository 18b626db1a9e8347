// SPDX-License-Identifier: GPL-2.0
/* The selftests bench's bloom filter map benchmarks
 * (benchs/bench_bloom_filter_map.c and progs/bloom_filter_bench.c): a run of
 * the program, from getpgid, does what the kernel's does, op for op, its
 * per-CPU tally of each result included (a helper call and an increment an
 * op: they are in its figure), timed around in the kernel and counted for
 * the producer whose thread made the call. User space sizes the maps, sets
 * the op and fills the values and random bytes before the first run. */
#include "threads.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* What a run does (enum bloom_op in src/families/bloom.h). */
#define BLOOM_PEEK_ALL 0	/* bloom-lookup: peek every value of values[] */
#define BLOOM_PUSH_ALL 1	/* bloom-update: push every value of values[] */
#define BLOOM_PROBE 2		/* hashmap-*-bloom: 1024 random values looked up */

/* The values every map was filled with, in order (the kernel's array_map). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(key_size, 4);
	__uint(value_size, 8);
} values SEC(".maps");

/* The map under test: no key, its hash functions in map_extra. */
struct {
	__uint(type, BPF_MAP_TYPE_BLOOM_FILTER);
	__uint(max_entries, 1);
	__uint(value_size, 8);
	__uint(map_extra, 3);
} bloom SEC(".maps");

/* hashmap-*-bloom: each value is its own key. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__uint(key_size, 8);
	__uint(value_size, 8);
} hashmap SEC(".maps");

/* The probes' source, as large as the kernel's: a run starts at a random
 * byte below 2^21 and steps value_size bytes a probe. */
#define RAND_BYTES 2500000
#define RAND_MASK ((1u << 21) - 1)
#define PROBES 1024
__u8 rand_vals[RAND_BYTES];

const volatile __u32 bloom_op;
/* hashmap-with-bloom: a value the filter rules out skips the hashmap */
const volatile bool use_bloom;
/* Read from memory at every probe, as the kernel's global is. */
__u8 value_size;

/* The kernel program's tally, a cache-aligned slot per CPU: a run's hits
 * and drops are its CPU's slot after less before (a program does not move
 * CPU, nor run twice at once on one). */
#define TALLY_HIT 0
#define TALLY_DROP 1
struct {
	__u32 n[3];
} __attribute__((aligned(256))) tally[256];

static __always_inline void tally_one(__u32 what)
{
	tally[bpf_get_smp_processor_id() & 255].n[what]++;
}

/* A failed push or peek, which ends the run; in a global, as the kernel's
 * error is: kept in the callback's context, the callback would hold that
 * in a callee-saved register, which costs the JIT's callback a push and a
 * pop an op. */
long run_error;

struct walk_ctx {
	struct bpf_map *map;
	bool update;
};

/* One value of values[] pushed into or peeked in the filter; an error ends
 * the walk. */
static __u64 visit(struct bpf_map *map, __u32 *key, void *val, struct walk_ctx *w)
{
	long err = w->update ? bpf_map_push_elem(w->map, val, 0) : bpf_map_peek_elem(w->map, val);

	if (err) {
		run_error = err;
		return 1;
	}
	tally_one(TALLY_HIT);
	return 0;
}

/* PROBES values from rand_vals, each looked up in the hashmap unless the
 * filter rules it out (a hit, as the kernel counts it); a lookup that finds
 * nothing is a drop. The probes made, or fewer after an error. */
static __always_inline __u64 probe(void)
{
	__u32 index = bpf_get_prandom_u32();
	long e;
	int i;

	for (i = 0; i < PROBES; i++, index += value_size) {
		index &= RAND_MASK;
		if (use_bloom) {
			e = bpf_map_peek_elem(&bloom, rand_vals + index);
			if (e) {
				if (e != -ENOENT) {
					run_error = e;
					break;
				}
				tally_one(TALLY_HIT);
				continue;
			}
		}
		if (bpf_map_lookup_elem(&hashmap, rand_vals + index))
			tally_one(TALLY_HIT);
		else
			tally_one(TALLY_DROP);
	}
	return i;
}

/* One run for the producer whose thread triggered it. */
static __always_inline int run(void)
{
	struct walk_ctx w = { .map = (struct bpf_map *)&bloom, .update = bloom_op == BLOOM_PUSH_ALL };
	__u32 id = task_prod_id();
	struct prod_counters *c;
	__u32 hits, drops, *slot;
	__u64 t0, ns, ops;

	if (id >= MAX_PRODUCERS)
		return 0;
	c = &cnt[id];
	slot = tally[bpf_get_smp_processor_id() & 255].n;
	hits = slot[TALLY_HIT];
	drops = slot[TALLY_DROP];
	t0 = bpf_ktime_get_ns();
	mb_mark_timed(MB_MARK_TIMED);
	if (bloom_op == BLOOM_PROBE)
		ops = probe();
	else
		ops = bpf_for_each_map_elem(&values, visit, &w, 0);
	mb_mark_timed(MB_MARK_UNTIMED);
	ns = bpf_ktime_get_ns() - t0;
	if (run_error) {	/* shared by the CPUs: seen by one run, then cleared */
		count_errno(c, run_error);
		run_error = 0;
	}
	account(c, ops, ns, slot[TALLY_HIT] - hits, slot[TALLY_DROP] - drops);
	return 0;
}

/* The kernel bench's trigger, and its tracepoint where fentry is refused
 * (trigger.c attaches the one the run uses; _own: the loop is the
 * program's own, not the trigger's bpf_for or bpf_loop). */
SEC("fentry") int fentry_own(void *ctx)
{
	return run();
}

SEC("tp/syscalls/sys_enter_getpgid") int tp_own(void *ctx)
{
	return run();
}
