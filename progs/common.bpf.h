/* SPDX-License-Identifier: GPL-2.0 */
/* Counters and timing shared by every BPF program of mapbench. */
#ifndef MAPBENCH_COMMON_BPF_H
#define MAPBENCH_COMMON_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "bench_shared.h"
#include "marker_cmd.h"

#define ENOENT 2
#define E2BIG 7

#define barrier() asm volatile("" ::: "memory")

struct prod_counters cnt[MAX_PRODUCERS];

/* may_goto (BPF_JMP | BPF_JCOND, kernel >= 6.9): the verifier gives the
 * loop it ends a budget and jumps to l_out once it is spent, so a loop
 * with no bound it can prove still loads. Written as its bytes: code,
 * registers, then the offset (instructions past the next one) in the low
 * half of a 4-byte word, as clang 14 places a 2-byte one wrongly, and the
 * rest of the zero immediate. Debian 12's clang 14 has no mnemonic for it. */
#define can_loop ({								\
	__label__ l_out, l_on;							\
	bool on_ = true;							\
										\
	asm volatile goto("1: .byte 0xe5, 0\n\t"				\
			  ".long ((%l[l_out] - 1b - 8) / 8) & 0xffff\n\t"	\
			  ".short 0" :::: l_out);				\
	goto l_on;								\
l_out:	on_ = false;								\
l_on:	on_;									\
})

/* The cache model's timed region (plugin/marker.h): a constant load the
 * x86 JIT emits as one movabs the plugin recognises, so that its counts per
 * op are the work between the two clock reads, as this program times it. */
#define mb_mark_timed(cmd) ({							\
	__u64 mark_;								\
										\
	asm volatile("%0 = %1 ll" : "=r"(mark_)					\
		     : "i"((__u64)MB_MARK_WORD(cmd) << 32 | MB_MARK_WORD(cmd))	\
		     : "memory");						\
})

/* Every batch's time and op count (bench_shared.h's BATCH_RING per
 * producer), read by user space through mmap; sized before load, one
 * entry where nothing records. */
const volatile bool record_batches;
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} batch_times SEC(".maps");

/* Before account(): slot c->runs of producer id's ring is this run's. */
static __always_inline void record_batch(__u32 id, struct prod_counters *c, __u64 ops, __u64 ns)
{
	__u32 slot = id * BATCH_RING + c->runs % BATCH_RING;
	__u64 *rec;

	if (!record_batches)
		return;
	rec = bpf_map_lookup_elem(&batch_times, &slot);
	if (rec)
		*rec = ns | ops << BATCH_NS_BITS;
}

/* Add timed work to a producer's counters; seq lets user space take a
 * consistent snapshot of ops and ns without stopping the producer. */
static __always_inline void account(struct prod_counters *c, __u64 ops, __u64 ns,
				    __u64 hits, __u64 misses)
{
	__sync_fetch_and_add(&c->seq, 1);
	c->ops += ops;
	c->ns += ns;
	c->runs++;
	c->hits += hits;
	c->misses += misses;
	c->recent_ns[(c->runs - 1) % RECENT_RUNS] = ns;
	__sync_fetch_and_add(&c->seq, 1);
}

static __always_inline void count_errno(struct prod_counters *c, long err)
{
#ifdef MB_ALU32
	/* a 64-bit bound: built for alu32, clang would bound the low half
	 * alone, and 6.12's verifier loses the upper half's zeros at a 32-bit
	 * negation */
	__u64 e = (__u32)-err;

	asm volatile("" : "+r"(e));
#else
	__u32 e = -err;
#endif
	if (e >= ERRNO_SLOTS)
		e = ERRNO_SLOTS - 1;
	c->errs[e]++;
}

#endif
