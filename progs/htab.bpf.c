// SPDX-License-Identifier: GPL-2.0
/* Producers for the hash-map family: hash, per-CPU hash, LRU, LRU per-CPU
 * and rhtab. User space sets the target map's type, sizes and flags before
 * loading. */
#include "common.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define ENOENT 2
#define E2BIG 7

/* Offset of the value inside the scratch buffer (after the key). */
const volatile __u32 val_off = 8;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__uint(key_size, 4);
	__uint(value_size, 8);
} target SEC(".maps");

/* Per-CPU key and value buffer: key at 0, value at val_off. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__uint(key_size, 4);
	__uint(value_size, 16);
} scratch SEC(".maps");

static __always_inline void family_step(__u32 op, struct batch_state *s)
{
	__u32 *id = next_key_id(s);
	long err;

	if (!id)
		return;
	*(__u32 *)s->key = *id;
	barrier();	/* noop must still store the key, as the others do */

	switch (op) {
	case MB_OP_LOOKUP:
		if (bpf_map_lookup_elem(&target, s->key))
			s->hits++;
		else
			s->misses++;
		break;
	case MB_OP_UPDATE:
		/* ENOENT: the key is gone (an LRU map evicted it), a miss. */
		err = bpf_map_update_elem(&target, s->key, s->val, BPF_EXIST);
		count_result(s, err, -ENOENT);
		break;
	case MB_OP_ADD:
		/* Racing the deleting CPU, the adder can find the map full. */
		err = bpf_map_update_elem(&target, s->key, s->val, BPF_ANY);
		count_result(s, err, -E2BIG);
		break;
	case MB_OP_OVERWRITE:
	case MB_OP_FILL:
		err = bpf_map_update_elem(&target, s->key, s->val, BPF_ANY);
		if (err)
			count_err(s, err);
		break;
	case MB_OP_DELETE:
		/* ENOENT: evicted, or not yet added by the other CPU. */
		err = bpf_map_delete_elem(&target, s->key);
		count_result(s, err, -ENOENT);
		break;
	}
}

#define TIMED_OP(op) case op: run_steps(op, &s, n, use_for); break

static __always_inline int htab_batch(__u32 id, bool use_for)
{
	struct batch_state s = {};
	struct prod_ctl *c;
	__u32 zero = 0, n, start;
	__u64 t0, t1, ops;
	void *buf;

	if (id >= MAX_PRODUCERS)
		return -1;
	buf = bpf_map_lookup_elem(&scratch, &zero);
	if (!buf)
		return -1;
	c = &ctl[id];
	s.cnt = &cnt[id];
	s.key = buf;
	s.val = buf + val_off;
	s.lo = c->lo;
	s.hi = c->hi;
	s.cur = start = c->cur;
	n = c->batch / UNROLL;
	ops = (__u64)n * UNROLL;

	t0 = bpf_ktime_get_ns();
	switch (c->op) {
	/* Each op gets its own copy of the loop, with the op a constant. */
	TIMED_OP(MB_OP_NOOP);
	TIMED_OP(MB_OP_LOOKUP);
	TIMED_OP(MB_OP_UPDATE);
	TIMED_OP(MB_OP_OVERWRITE);
	TIMED_OP(MB_OP_ADD);
	TIMED_OP(MB_OP_FILL);
	case MB_OP_DELETE:
		run_steps(MB_OP_DELETE, &s, n, use_for);
		t1 = bpf_ktime_get_ns();
		/* Refill outside the timed region. */
		s.cur = start;
		run_steps(MB_OP_FILL, &s, n, use_for);
		goto out;
	case MB_OP_ADD_DEL_BATCH:
		run_steps(MB_OP_OVERWRITE, &s, n, use_for);
		s.cur = start;
		run_steps(MB_OP_DELETE, &s, n, use_for);
		ops *= 2;
		break;
	default:
		return -1;
	}
	t1 = bpf_ktime_get_ns();
out:
	c->cur = s.cur;
	account(&s, ops, t1 - t0);
	return 0;
}

DEFINE_TRIGGERS(htab_batch)
