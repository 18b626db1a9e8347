// SPDX-License-Identifier: GPL-2.0
/* Producers for LPM tries. keys[] holds whole trie keys (prefix length and
 * address bytes), generated before the run so that key generation is not
 * charged to the trie; lpm-trie-baseline measures fetching them and reading
 * their address word. */
#define FAMILY_DRAWS_KEYS
#include "batch.bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 1);
	__uint(key_size, 8);
	__uint(value_size, 8);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} trie SEC(".maps");

/* Per-CPU value buffer for updates. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__uint(key_size, 4);
	__uint(value_size, 8);
} scratch SEC(".maps");

/* --keys counter, the kernel LPM bench's keys: {plen, cur_key++ % nr}, from
 * one counter every CPU shares (their contention is part of its figure). */
const volatile bool key_counter;
const volatile __u32 counter_nr;
const volatile __u32 counter_plen;
__u32 cur_key;

/* Per-CPU buffer for the counter's key; user space sets its size. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__uint(key_size, 4);
	__uint(value_size, 8);
} keybuf SEC(".maps");

static __always_inline bool family_prepare(struct batch_state *s)
{
	__u32 zero = 0;

	s->val = bpf_map_lookup_elem(&scratch, &zero);
	s->key = bpf_map_lookup_elem(&keybuf, &zero);
	return s->val && s->key;
}

/* random: --random's key, the kernel LPM bench's bpf_get_prandom_u32() % nr
 * (charged); the fills (BPF_ANY: the prefill and refills) take the counter's,
 * so the trie holds every key below nr. */
static __always_inline void *counter_key(struct batch_state *s, bool random)
{
	__u32 *k = s->key;

	k[0] = counter_plen;
	k[1] = (random ? bpf_get_prandom_u32() : cur_key++) % counter_nr;
	return k;
}

static __always_inline void family_step(enum step_op op, struct batch_state *s, __u32 i,
					bool drawn)
{
	void *key;
	long err;

	if (op == STEP_NOOP)
		return;
	/* The counter makes its own keys and keys[] is not read; only ops
	 * that stop at their range's end move the position (where a run stops
	 * and restarts). */
	if (key_counter)
		key = !s->to_end || advance(s) ?
		      counter_key(s, drawn && op != STEP_UPDATE_ANY) : NULL;
	else
		key = next_key(s);
	if (!key)
		return;

	switch (op) {
	case STEP_KEY:
		/* Read the address word, as a lookup would, and keep the read. */
		asm volatile("" :: "r"(*(volatile __u32 *)(key + sizeof(__u32))) : "memory");
		break;
	case STEP_LOOKUP:
		if (!bpf_map_lookup_elem(&trie, key))
			s->misses++;
		break;
	case STEP_UPDATE_EXIST:
		err = bpf_map_update_elem(&trie, key, s->val, BPF_EXIST);
		count_result(s, err, -ENOENT);
		break;
	case STEP_UPDATE_ANY:
		err = bpf_map_update_elem(&trie, key, s->val, BPF_ANY);
		count_result(s, err, -E2BIG);
		break;
	case STEP_ADD:
		err = bpf_map_update_elem(&trie, key, s->val, BPF_NOEXIST);
		count_result(s, err, -E2BIG);
		break;
	case STEP_DELETE:
		err = bpf_map_delete_elem(&trie, key);
		count_result(s, err, -ENOENT);
		break;
	default:
		break;
	}
}
