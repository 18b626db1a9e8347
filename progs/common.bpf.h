/* SPDX-License-Identifier: GPL-2.0 */
/* Counters, timing and the batch loop shared by every producer family.
 *
 * A family defines, before including this header,
 *   static __always_inline void family_step(__u32 op, struct batch_state *s);
 * which performs one operation on the key at perm[s->cur] and advances s->cur.
 */
#ifndef MAPBENCH_COMMON_BPF_H
#define MAPBENCH_COMMON_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "bench_shared.h"

#define barrier() asm volatile("" ::: "memory")

/* Open-coded numeric iterator (kernel >= 6.4); weak so the object still
 * loads on older kernels, which use bpf_loop instead. */
extern int bpf_iter_num_new(struct bpf_iter_num *it, int start, int end) __weak __ksym;
extern int *bpf_iter_num_next(struct bpf_iter_num *it) __weak __ksym;
extern void bpf_iter_num_destroy(struct bpf_iter_num *it) __weak __ksym;

struct prod_ctl ctl[MAX_PRODUCERS];
struct prod_counters cnt[MAX_PRODUCERS];

/* Threads of this process that trigger through syscalls: tid -> producer. */
const volatile __u32 bench_tgid;
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_PRODUCERS);
	__type(key, __u32);
	__type(value, __u32);
} tid2prod SEC(".maps");

/* Key ids in the order the producers visit them (sequential or shuffled). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} perm SEC(".maps");

struct batch_state {
	void *key;
	void *val;
	__u32 cur;
	__u32 lo;
	__u32 hi;
	__u32 op;
	__u64 hits;
	__u64 misses;
	struct prod_counters *cnt;
};

static __always_inline void family_step(__u32 op, struct batch_state *s);

/* Fetch the next key id into the key buffer; NULL check only for the verifier. */
static __always_inline __u32 *next_key_id(struct batch_state *s)
{
	__u32 *id = bpf_map_lookup_elem(&perm, &s->cur);

	if (++s->cur >= s->hi)
		s->cur = s->lo;
	return id;
}

static __always_inline void count_err(struct batch_state *s, long err)
{
	__u32 e = -err;

	if (e >= ERRNO_SLOTS)
		e = ERRNO_SLOTS - 1;
	s->cnt->errs[e]++;
}

/* A hit on success, a miss on the one error the op expects, else an error. */
static __always_inline void count_result(struct batch_state *s, long err, long miss_err)
{
	if (!err)
		s->hits++;
	else if (err == miss_err)
		s->misses++;
	else
		count_err(s, err);
}

static __always_inline void steps_unrolled(__u32 op, struct batch_state *s)
{
#pragma unroll
	for (int u = 0; u < UNROLL; u++)
		family_step(op, s);
}

static int loop_cb(__u32 i, void *ctx)
{
	struct batch_state *s = ctx;

	steps_unrolled(s->op, s);
	return 0;
}

/* Run n * UNROLL operations of a constant op. With bpf_for the op is a
 * compile-time constant in the loop body; bpf_loop passes it at run time. */
static __always_inline void run_steps(__u32 op, struct batch_state *s, __u32 n, bool use_for)
{
	if (use_for) {
		struct bpf_iter_num it;
		int *v;

		bpf_iter_num_new(&it, 0, n);
		while ((v = bpf_iter_num_next(&it)))
			steps_unrolled(op, s);
		bpf_iter_num_destroy(&it);
	} else {
		s->op = op;
		bpf_loop(n, loop_cb, s, 0);
	}
}

/* Add one program run's results; seq lets user space take a consistent
 * snapshot of ops and ns without stopping the producer. */
static __always_inline void account(struct batch_state *s, __u64 ops, __u64 ns)
{
	struct prod_counters *c = s->cnt;

	__sync_fetch_and_add(&c->seq, 1);
	c->ops += ops;
	c->ns += ns;
	c->runs++;
	c->hits += s->hits;
	c->misses += s->misses;
	__sync_fetch_and_add(&c->seq, 1);
}

/* Producer id of the current thread for syscall triggers, or -1. */
static __always_inline int trigger_prod_id(void)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid;
	__u32 *id;

	if ((pid_tgid >> 32) != bench_tgid)
		return -1;
	id = bpf_map_lookup_elem(&tid2prod, &tid);
	return id ? (int)*id : -1;
}

/* Producer id carried in the first 4 bytes of the test packet. */
static __always_inline int xdp_prod_id(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;

	if (data + sizeof(__u32) > end)
		return -1;
	return *(__u32 *)data;
}

/* Entry points for every trigger; FAMILY_BATCH(id, use_for) runs one batch. */
#define DEFINE_TRIGGERS(FAMILY_BATCH)					\
SEC("xdp") int xdp_for(struct xdp_md *ctx)				\
{ return FAMILY_BATCH(xdp_prod_id(ctx), true) ? XDP_ABORTED : XDP_PASS; } \
SEC("xdp") int xdp_loop(struct xdp_md *ctx)				\
{ return FAMILY_BATCH(xdp_prod_id(ctx), false) ? XDP_ABORTED : XDP_PASS; } \
SEC("raw_tp/sys_enter") int raw_tp_for(void *ctx)			\
{ FAMILY_BATCH(trigger_prod_id(), true); return 0; }			\
SEC("raw_tp/sys_enter") int raw_tp_loop(void *ctx)			\
{ FAMILY_BATCH(trigger_prod_id(), false); return 0; }			\
SEC("fentry") int fentry_for(void *ctx)					\
{ FAMILY_BATCH(trigger_prod_id(), true); return 0; }			\
SEC("fentry") int fentry_loop(void *ctx)				\
{ FAMILY_BATCH(trigger_prod_id(), false); return 0; }

#endif
