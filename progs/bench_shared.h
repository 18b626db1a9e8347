/* SPDX-License-Identifier: GPL-2.0 */
/* Layout shared by the BPF producers and user space: per-producer control
 * (written by user space) and counters (written by one producer each). */
#ifndef MAPBENCH_BENCH_SHARED_H
#define MAPBENCH_BENCH_SHARED_H

#define MAX_PRODUCERS 128
/* errs[e] counts -e; errno values >= ERRNO_SLOTS - 1 share the last slot. */
#define ERRNO_SLOTS 64
/* Map operations per loop iteration: amortises the loop's own cost. */
#define UNROLL 8
/* Runs whose in-kernel times each producer keeps: the kernel's
 * bpf-hashmap-lookup reports from its last 32 runs per CPU. */
#define RECENT_RUNS 32
/* Each producer's last BATCH_RING batches, their in-kernel time and op
 * count in one word (ns in the low BATCH_NS_BITS, ops above): the record
 * of run r is slot r % BATCH_RING of the producer's ring. */
#define BATCH_RING 4096
#define BATCH_NS_BITS 40
/* Hash keys up to the kernel's MAX_BPF_STACK (programs hold a key there). */
#define MAX_KEY_SIZE 512

/* What one program run does (prod_ctl.op). Only the named part is timed. */
enum bench_op {
	MB_OP_NOOP,          /* the loop alone */
	MB_OP_BASELINE,      /* fetch each key, no map operation */
	MB_OP_LOOKUP,        /* lookup; hits and misses counted */
	MB_OP_UPDATE,        /* update existing keys, BPF_EXIST (ENOENT = miss) */
	MB_OP_OVERWRITE,     /* update, BPF_ANY (E2BIG: the map is full, a miss) */
	MB_OP_DELETE,        /* delete (ENOENT = miss); refill afterwards, untimed */
	MB_OP_ADD_DEL_BATCH, /* add a batch (BPF_ANY), then delete it; both timed */
	MB_OP_ADD,           /* add, BPF_NOEXIST; a full map (E2BIG) is a miss */
	MB_OP_REMOVE,        /* delete, no refill (ENOENT = miss) */
	MB_OP_FILL,          /* prefill: update BPF_ANY, before the baseline */
	MB_OP_FREE,          /* user space: create, fill and close whole maps */
	MB_OP_DRAIN,         /* delete in order to the range's end; then refill it, untimed */
	MB_OP_FILL_UP,       /* add (BPF_NOEXIST) in order to the range's end; then empty it, untimed */
	MB_OP_LOOKUP_INSERT, /* lookup; a miss inserts the key (BPF_ANY): a cache, evicting when full */
};

/* Batches of map operations an op runs per program run: an add batch then
 * a delete batch is two (the kernel's htab-mem counts them so). */
static inline int op_batches(unsigned int op)
{
	return op == MB_OP_ADD_DEL_BATCH ? 2 : 1;
}

/* Ops that stop at the end of the producer's key range instead of wrapping. */
static inline int op_works_to_end(unsigned int op)
{
	return op == MB_OP_DRAIN || op == MB_OP_FILL_UP;
}

struct prod_ctl {
	__u32 op;
	__u32 lo;	/* this producer's keys are keys[lo..hi) */
	__u32 hi;
	__u32 cur;	/* next index into keys, kept across runs */
	__u32 batch;	/* operations per program run, a multiple of UNROLL */
	__u32 xdp_action;	/* --trigger nic: what a received packet becomes */
	/* --keys index: the key id at slot s is id_first + (s - lo) x id_step,
	 * made in the program (keys[] is not read) */
	__u32 id_first;
	__u32 id_step;
};

struct prod_counters {
	__u64 seq;	/* odd while the producer updates the fields below */
	__u64 ops;
	__u64 ns;	/* in-kernel time spent in timed operations */
	__u64 runs;
	__u64 hits;
	__u64 misses;
	__u64 errs[ERRNO_SLOTS];
	__u64 recent_ns[RECENT_RUNS];	/* in-kernel time of run i % RECENT_RUNS */
	/* Families whose tasks time their own events in user space (map_perf's
	 * rounds, as map_perf_test): events done and their wall time, written
	 * by the producer's thread, which is the one its programs run in. */
	__u64 wall_events;
	__u64 wall_ns;
} __attribute__((aligned(64)));

#endif
