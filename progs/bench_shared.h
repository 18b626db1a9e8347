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

enum bench_op {
	MB_OP_NOOP,          /* key fetch only: the harness's own cost */
	MB_OP_LOOKUP,        /* lookup, counting hits and misses */
	MB_OP_UPDATE,        /* update existing keys, BPF_EXIST (ENOENT = miss) */
	MB_OP_OVERWRITE,     /* update, BPF_ANY */
	MB_OP_DELETE,        /* delete (ENOENT = miss); htab-delete refills untimed */
	MB_OP_ADD_DEL_BATCH, /* add a batch, then delete it; both timed */
	MB_OP_ADD,           /* add_del_on_diff_cpu's adding half (E2BIG = miss); the
			      * next producer runs MB_OP_DELETE on the same keys */
	MB_OP_FILL,          /* prefill: BPF_ANY, counted but taken before the baseline */
	MB_OP__COUNT,
};

struct prod_ctl {
	__u32 op;
	__u32 lo;	/* this producer's keys are perm[lo..hi) */
	__u32 hi;
	__u32 cur;	/* next index into perm, kept across runs */
	__u32 batch;	/* operations per program run, a multiple of UNROLL */
	__u32 pad[3];
};

struct prod_counters {
	__u64 seq;	/* odd while the producer updates the fields below */
	__u64 ops;
	__u64 ns;	/* in-kernel time spent in timed operations */
	__u64 runs;
	__u64 hits;
	__u64 misses;
	__u64 errs[ERRNO_SLOTS];
} __attribute__((aligned(64)));

#endif
