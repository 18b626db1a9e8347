/* SPDX-License-Identifier: GPL-2.0 */
/* Counters and timing shared by every BPF program of mapbench. */
#ifndef MAPBENCH_COMMON_BPF_H
#define MAPBENCH_COMMON_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "bench_shared.h"

#define ENOENT 2
#define E2BIG 7

#define barrier() asm volatile("" ::: "memory")

struct prod_counters cnt[MAX_PRODUCERS];

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
	__u32 e = -err;

	if (e >= ERRNO_SLOTS)
		e = ERRNO_SLOTS - 1;
	c->errs[e]++;
}

#endif
