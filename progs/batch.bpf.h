/* SPDX-License-Identifier: GPL-2.0 */
/* The batch loop and the trigger entry points shared by the producer
 * families (htab, lpm).
 *
 * A family includes this header, then defines the two hooks it declares:
 *   static __always_inline bool family_prepare(struct batch_state *s);
 *	set s->key and s->val for this CPU; false on failure;
 *   static __always_inline void family_step(enum step_op op, struct batch_state *s, __u32 i,
 *					      bool drawn);
 *	one operation on the next key (next_key(), or loop index i with
 *	--keys index; drawn: keys_drawn, a constant in each callback); it
 *	counts misses and errors, hits are the rest.
 *
 * User space sets, before load, the op of the run (bench_op) and of the
 * second producer of each pair (partner_op): read-only data, so the
 * verifier walks those ops' paths and no other (unless op_at_run_time: a
 * kernel bench's shape). The prefill is a program of its own (fill). Each
 * producer's op, range and batch are in ctl[].
 */
#ifndef MAPBENCH_BATCH_BPF_H
#define MAPBENCH_BATCH_BPF_H

#include "threads.bpf.h"

/* Open-coded numeric iterator (kernel >= 6.4); weak so the object still
 * loads on older kernels, which use bpf_loop instead. */
extern int bpf_iter_num_new(struct bpf_iter_num *it, int start, int end) __weak __ksym;
extern int *bpf_iter_num_next(struct bpf_iter_num *it) __weak __ksym;
extern void bpf_iter_num_destroy(struct bpf_iter_num *it) __weak __ksym;

/* One map operation; a batch op (enum bench_op) runs one or two of these. */
enum step_op {
	STEP_NOOP,		/* nothing */
	STEP_KEY,		/* fetch the key only */
	STEP_LOOKUP,
	STEP_UPDATE_EXIST,	/* ENOENT = miss */
	STEP_UPDATE_ANY,	/* E2BIG (map full) = miss */
	STEP_ADD,		/* BPF_NOEXIST, E2BIG = miss */
	STEP_DELETE,		/* ENOENT = miss */
	STEP_LOOKUP_INSERT,	/* lookup; a miss is inserted, BPF_ANY */
};

struct prod_ctl ctl[MAX_PRODUCERS];

/* enum bench_op of the run's producers and of a pair's second producer
 * (bench_op where there are no pairs). */
const volatile __u32 bench_op;
const volatile __u32 partner_op;
/* The op read from ctl[] at run time instead, as a kernel bench whose
 * program switches on its op does (the LPM bench): the verifier then walks
 * every op, and the program is the kernel's shape. */
const volatile bool op_at_run_time;

/* The syscall producer threads issue; raw_tp sees every syscall (the producers' futex
 * calls when they take turns too) and runs a batch only for this one. */
const volatile long trigger_syscall;
/* Keys (or key ids) in the order producers visit them; user space sets the
 * value size, so the value has no BTF type. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(key_size, 4);
	__uint(value_size, 4);
} keys SEC(".maps");

struct batch_state {
	void *key;
	void *val;
	__u32 cur;
	__u32 lo;
	__u32 hi;
	bool to_end;		/* stop at hi instead of wrapping to lo */
	__u32 id_first;		/* --keys index: the key at loop index i is */
	__u32 id_step;		/* id_first + i x id_step */
	__u64 misses;
	__u64 errors;
	struct prod_counters *cnt;
};

static __always_inline bool family_prepare(struct batch_state *s);
static __always_inline void family_step(enum step_op op, struct batch_state *s, __u32 i,
					bool drawn);

/* Keys drawn by a helper at each step (lpm's --random; a family that has
 * them defines FAMILY_DRAWS_KEYS) run in callbacks of their own: a helper call
 * in a callback makes every step of it save and restore the registers the
 * call clobbers, and the steps without the draw would pay for it
 * (lpm-trie-baseline: 49 instructions a step, not 57). Elsewhere it is a
 * constant: a load per step would grow the verifier's states (6.12 gives up
 * on htab's bpf_for loops). */
#ifdef FAMILY_DRAWS_KEYS
const volatile bool keys_drawn;
#else
#define keys_drawn false
#endif

/* --keys index (families that make ids, htab): the loop index is the
 * position, as in the kernel's bpf-hashmap-* and htab-mem: a run is whole
 * passes over the range from lo, one inner loop per pass (plan_resolve()
 * checks), and keys[] is not read. */
const volatile bool key_index;

/* Moves this producer's position on (wrapping at hi, or stopping there
 * for to_end); false past the end. */
static __always_inline bool advance(struct batch_state *s)
{
	if (s->to_end && s->cur >= s->hi)
		return false;
	if (++s->cur >= s->hi && !s->to_end)
		s->cur = s->lo;
	return true;
}

/* The next key of this producer's range, or NULL past its end (to_end). */
static __always_inline void *next_key(struct batch_state *s)
{
	__u32 slot = s->cur;

	if (!advance(s))
		return NULL;
	return bpf_map_lookup_elem(&keys, &slot);
}

/* A miss on the one error the op expects, else an error; success (a hit)
 * costs nothing here: hits are the run's ops less the two. */
static __always_inline void count_result(struct batch_state *s, long err, int miss_err)
{
	/* 32 bits: map ops returned int before 6.4, and the upper half of the
	 * register is then not theirs (6.1 gave 0xfffffff9 for -E2BIG) */
	if (!(int)err)
		return;
	if ((int)err == miss_err) {
		s->misses++;
	} else {
		s->errors++;
		count_errno(s->cnt, err);
	}
}

static __always_inline void steps_unrolled(__u32 op, struct batch_state *s)
{
#pragma unroll
	for (int u = 0; u < UNROLL; u++)
		family_step(op, s, 0, keys_drawn);
}

/* One bpf_loop callback per step op, each doing one step: a constant op, as
 * in the bpf_for loops, and few enough paths for older verifiers (6.1 gives
 * up on a callback holding UNROLL steps: the 1M-instruction limit). */
#define LOOP_CB_KEYS(step, name, drawn)					\
	static int loop_cb_##name(__u32 i, void *ctx)			\
	{								\
		family_step(step, ctx, i, drawn);			\
		return 0;						\
	}								\
	static int pass_cb_##name(__u32 i, void *ctx)			\
	{								\
		struct batch_state *s = ctx;				\
									\
		bpf_loop(s->hi - s->lo, loop_cb_##name, ctx, 0);	\
		return 0;						\
	}
#define LOOP_CB(step)							\
	LOOP_CB_KEYS(step, step, false)					\
	LOOP_CB_KEYS(step, drawn_##step, true)
LOOP_CB(STEP_NOOP)
LOOP_CB(STEP_KEY)
LOOP_CB(STEP_LOOKUP)
LOOP_CB(STEP_UPDATE_EXIST)
LOOP_CB(STEP_UPDATE_ANY)
LOOP_CB(STEP_ADD)
LOOP_CB(STEP_DELETE)
LOOP_CB(STEP_LOOKUP_INSERT)

/* With --keys index a range of more than one key is walked in passes. */
#define LOOPS(name)								\
	if (passes)								\
		bpf_loop(passes, pass_cb_##name, s, 0);				\
	else									\
		bpf_loop(ops, loop_cb_##name, s, 0)
#define LOOP_CASE(step) case step:						\
	if (keys_drawn) {							\
		LOOPS(drawn_##step);						\
	} else {								\
		LOOPS(step);							\
	}									\
	break

/* --keys index with bpf_for: a loop per pass over a range of more than one
 * key (passes), else one loop over the single key. */
static __always_inline void index_steps(__u32 op, struct batch_state *s, __u32 ops,
					__u32 passes)
{
	struct bpf_iter_num outer, inner;
	int *v, *i;

	if (!passes) {
		bpf_iter_num_new(&outer, 0, ops);
		while ((v = bpf_iter_num_next(&outer)))
			family_step(op, s, 0, keys_drawn);
		bpf_iter_num_destroy(&outer);
		return;
	}
	bpf_iter_num_new(&outer, 0, passes);
	while ((v = bpf_iter_num_next(&outer))) {
		bpf_iter_num_new(&inner, 0, s->hi - s->lo);
		while ((i = bpf_iter_num_next(&inner)))
			family_step(op, s, *i, keys_drawn);
		bpf_iter_num_destroy(&inner);
	}
	bpf_iter_num_destroy(&outer);
}

/* ops steps of a constant op (a multiple of UNROLL, or with --keys index
 * whole passes), each loop its own copy with the op a constant (inlined
 * from the TIMED cases below). */
static __always_inline void run_steps(__u32 op, struct batch_state *s, __u32 ops, bool use_for)
{
	__u32 span = s->hi - s->lo;
	__u32 passes = key_index && span > 1 ? ops / span : 0;

	if (use_for && key_index) {
		index_steps(op, s, ops, passes);
	} else if (use_for) {
		struct bpf_iter_num it;
		int *v;

		bpf_iter_num_new(&it, 0, ops / UNROLL);
		while ((v = bpf_iter_num_next(&it)))
			steps_unrolled(op, s);
		bpf_iter_num_destroy(&it);
	} else {
		switch (op) {
		LOOP_CASE(STEP_NOOP);
		LOOP_CASE(STEP_KEY);
		LOOP_CASE(STEP_LOOKUP);
		LOOP_CASE(STEP_UPDATE_EXIST);
		LOOP_CASE(STEP_UPDATE_ANY);
		LOOP_CASE(STEP_ADD);
		LOOP_CASE(STEP_DELETE);
		LOOP_CASE(STEP_LOOKUP_INSERT);
		}
	}
}

/* Steps over keys from start again, outside the timed region and without
 * touching the counts of the timed part; leaves cur at start. */
static __always_inline void untimed_steps(__u32 op, struct batch_state *s, __u32 start,
					  __u32 ops, bool use_for)
{
	__u64 misses = s->misses, errors = s->errors;

	s->cur = start;
	run_steps(op, s, ops, use_for);
	s->misses = misses;
	s->errors = errors;
	s->cur = start;
}

/* After a to_end op reached the range's end: the opposite op over the
 * whole range, untimed, and the next run starts again from lo. */
static __always_inline void reset_range(__u32 op, struct batch_state *s, bool use_for)
{
	if (s->cur < s->hi)
		return;
	untimed_steps(op, s, s->lo, (s->hi - s->lo + UNROLL - 1) / UNROLL * UNROLL, use_for);
}

#define TIMED(bench_op, step) case bench_op: run_steps(step, s, ops, use_for); break

/* The timed part of a batch of op: each case's loops with their step op a
 * constant. false for an op that is not one. */
static __always_inline bool timed_steps(__u32 op, struct batch_state *s, __u64 ops, bool use_for)
{
	__u32 start = s->cur;

	switch (op) {
	TIMED(MB_OP_NOOP, STEP_NOOP);
	TIMED(MB_OP_BASELINE, STEP_KEY);
	TIMED(MB_OP_LOOKUP, STEP_LOOKUP);
	TIMED(MB_OP_UPDATE, STEP_UPDATE_EXIST);
	TIMED(MB_OP_OVERWRITE, STEP_UPDATE_ANY);
	TIMED(MB_OP_FILL, STEP_UPDATE_ANY);
	TIMED(MB_OP_ADD, STEP_ADD);
	TIMED(MB_OP_REMOVE, STEP_DELETE);
	TIMED(MB_OP_DELETE, STEP_DELETE);
	TIMED(MB_OP_DRAIN, STEP_DELETE);
	TIMED(MB_OP_FILL_UP, STEP_ADD);
	TIMED(MB_OP_LOOKUP_INSERT, STEP_LOOKUP_INSERT);
	case MB_OP_ADD_DEL_BATCH:
		run_steps(STEP_UPDATE_ANY, s, ops, use_for);
		s->cur = start;
		run_steps(STEP_DELETE, s, ops, use_for);
		break;
	default:
		return false;
	}
	return true;
}

/* The op producer c runs in this program: the fill's, or bench_op, or
 * partner_op for the second producer of a pair; -1 for none. Read again
 * where it is used: held in a register across the timed loop, it would
 * cost the loop spills at every step. */
static __always_inline __u32 op_of(const struct prod_ctl *c, bool filling)
{
	if (filling)
		return MB_OP_FILL;
	if (op_at_run_time)
		return c->op;
	if (c->op == bench_op)
		return bench_op;
	if (c->op == partner_op)
		return partner_op;
	return -1;
}

/* One batch of producer c's op, counted in cnt. Its op is read-only data
 * (or the fill's constant), so the verifier walks that op's case alone. */
static __always_inline int run_op(__u32 id, struct prod_ctl *c, struct prod_counters *cnt,
				  bool use_for, bool filling)
{
	struct batch_state s = { .cnt = cnt };
	__u64 t0, t1, ops, hits;
	__u32 start, op;
	bool known;

	if (!family_prepare(&s))
		return -1;
	s.lo = c->lo;
	s.hi = c->hi;
	s.id_first = c->id_first;
	s.id_step = c->id_step;
	s.cur = start = c->cur;
	s.to_end = op_works_to_end(op_of(c, filling));
	ops = c->batch;

	t0 = bpf_ktime_get_ns();
	mb_mark_timed(MB_MARK_TIMED);
	known = timed_steps(op_of(c, filling), &s, ops, use_for);
	mb_mark_timed(MB_MARK_UNTIMED);
	t1 = bpf_ktime_get_ns();
	if (!known)
		return -1;
	op = op_of(c, filling);
	ops *= op_batches(op);
	if (s.to_end)
		ops = s.cur - start;	/* the run stopped at the range's end */
	/* the untimed companion: refill what delete took, or reset the range */
	if (op == MB_OP_DELETE)
		untimed_steps(STEP_UPDATE_ANY, &s, start, ops, use_for);
	else if (op == MB_OP_DRAIN)
		reset_range(STEP_UPDATE_ANY, &s, use_for);
	else if (op == MB_OP_FILL_UP)
		reset_range(STEP_DELETE, &s, use_for);
	c->cur = s.cur;
	/* the loop alone and key fetches make no map operation to hit */
	hits = op == MB_OP_NOOP || op == MB_OP_BASELINE ? 0 : ops - s.misses - s.errors;
	if (!filling)
		record_batch(id, s.cnt, ops, t1 - t0);
	account(s.cnt, ops, t1 - t0, hits, s.misses);
	return 0;
}

/* One program run: a batch of producer id's op. */
static __always_inline int run_batch(__u32 id, bool use_for)
{
	if (id >= MAX_PRODUCERS)
		return -1;
	return run_op(id, &ctl[id], &cnt[id], use_for, false);
}

/* Producer id carried in the first 4 bytes of the test packet. */
static __always_inline __u32 xdp_prod_id(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;

	if (data + sizeof(__u32) > end)
		return -1;
	return *(__u32 *)data;
}

/* The prefill, untimed: producer slot 0's range, BPF_ANY, with bpf_loop
 * (every kernel mapbench runs on has it). */
SEC("xdp") int fill(struct xdp_md *ctx)
{
	return run_op(0, &ctl[0], &cnt[0], false, true) ? XDP_ABORTED : XDP_PASS;
}

SEC("xdp") int xdp_for(struct xdp_md *ctx)
{
	return run_batch(xdp_prod_id(ctx), true) ? XDP_ABORTED : XDP_PASS;
}

SEC("xdp") int xdp_loop(struct xdp_md *ctx)
{
	return run_batch(xdp_prod_id(ctx), false) ? XDP_ABORTED : XDP_PASS;
}

/* --trigger nic: each packet received on the interface runs a batch for the
 * CPU that received it (a producer per CPU), then is dropped or passed. */
static __always_inline int nic_packet(bool use_for)
{
	__u32 cpu = bpf_get_smp_processor_id();

	if (cpu >= MAX_PRODUCERS || run_batch(cpu, use_for))
		return XDP_ABORTED;
	return ctl[cpu].xdp_action;
}

SEC("xdp") int nic_for(struct xdp_md *ctx)
{
	return nic_packet(true);
}

SEC("xdp") int nic_loop(struct xdp_md *ctx)
{
	return nic_packet(false);
}

/* sys_enter(regs, id): the second argument is the syscall's number. */
static __always_inline bool is_trigger_syscall(struct bpf_raw_tracepoint_args *ctx)
{
	return ctx->args[1] == trigger_syscall;
}

SEC("raw_tp/sys_enter") int raw_tp_for(struct bpf_raw_tracepoint_args *ctx)
{
	if (is_trigger_syscall(ctx))
		run_batch(task_prod_id(), true);
	return 0;
}

SEC("raw_tp/sys_enter") int raw_tp_loop(struct bpf_raw_tracepoint_args *ctx)
{
	if (is_trigger_syscall(ctx))
		run_batch(task_prod_id(), false);
	return 0;
}

/* A syscall-driven entry point NAME_for / NAME_loop at section SEC_NAME:
 * the producer whose thread made the syscall runs a batch. */
#define SYSCALL_ENTRY(sec_name, name)						\
SEC(sec_name) int name##_for(void *ctx)						\
{										\
	run_batch(task_prod_id(), true);					\
	return 0;								\
}										\
SEC(sec_name) int name##_loop(void *ctx)					\
{										\
	run_batch(task_prod_id(), false);					\
	return 0;								\
}

/* tp, the kernel bench's trigger: its own syscall's tracepoint fires only for
 * it; a pair's deleters issue getppid (as the kernel's htab-mem does). */
SYSCALL_ENTRY("tp/syscalls/sys_enter_getpgid", tp)
SYSCALL_ENTRY("tp/syscalls/sys_enter_getppid", tp_del)
SYSCALL_ENTRY("fentry", fentry)

#endif
