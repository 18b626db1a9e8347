// SPDX-License-Identifier: GPL-2.0
/* Producers for the hash-map family: hash, per-CPU hash, LRU, LRU per-CPU
 * and rhtab. User space sets the target map's type, sizes and flags before
 * loading; keys[] holds 4-byte key ids. */
#include "batch.bpf.h"

char LICENSE[] SEC("license") = "GPL";

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

/* bpf-hashmap-lookup's key buffer: one that every CPU writes, as the
 * kernel's global key[] (their stores contend; that is in its figure). */
const volatile bool key_shared;
__u8 shared_key[MAX_KEY_SIZE] __attribute__((aligned(8)));

static __always_inline bool family_prepare(struct batch_state *s)
{
	__u32 zero = 0;
	void *buf = bpf_map_lookup_elem(&scratch, &zero);

	if (!buf)
		return false;
	s->key = key_shared ? (void *)shared_key : buf;
	s->val = buf + val_off;
	return true;
}

static __always_inline void family_step(enum step_op op, struct batch_state *s, __u32 i,
					bool drawn)
{
	__u32 *id;
	long err;

	if (op == STEP_NOOP)
		return;
	/* Keys are key_size bytes with the id first: write it into the buffer. */
	if (key_index) {
		*(__u32 *)s->key = s->id_first + i * s->id_step;
	} else {
		id = next_key(s);
		if (!id)
			return;
		*(__u32 *)s->key = *id;
	}
	barrier();

	switch (op) {
	case STEP_LOOKUP:
		if (!bpf_map_lookup_elem(&target, s->key))
			s->misses++;
		break;
	case STEP_UPDATE_EXIST:
		/* ENOENT: the key is gone (an LRU map evicted it). */
		err = bpf_map_update_elem(&target, s->key, s->val, BPF_EXIST);
		count_result(s, err, -ENOENT);
		break;
	case STEP_UPDATE_ANY:
		/* E2BIG: a full map (always, for absent keys in bpf-hashmap-full-update;
		 * now and then for a full non-preallocated map under concurrency). */
		err = bpf_map_update_elem(&target, s->key, s->val, BPF_ANY);
		count_result(s, err, -E2BIG);
		break;
	case STEP_ADD:
		err = bpf_map_update_elem(&target, s->key, s->val, BPF_NOEXIST);
		count_result(s, err, -E2BIG);
		break;
	case STEP_LOOKUP_INSERT:
		if (bpf_map_lookup_elem(&target, s->key))
			break;
		s->misses++;	/* an insert: an eviction once the map is full */
		err = bpf_map_update_elem(&target, s->key, s->val, BPF_ANY);
		count_result(s, err, 0);
		break;
	case STEP_DELETE:
		/* ENOENT: evicted, or not yet added by the other CPU. */
		err = bpf_map_delete_elem(&target, s->key);
		count_result(s, err, -ENOENT);
		break;
	default:
		break;
	}
}
