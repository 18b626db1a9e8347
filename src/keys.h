/* SPDX-License-Identifier: GPL-2.0 */
/* Key walks: which keys each producer visits, in which order. A benchmark's
 * row names one; each is a small table of callbacks (keys.c). */
#ifndef MAPBENCH_KEYS_H
#define MAPBENCH_KEYS_H
#include "bench.h"

struct bpf_map;

struct key_walk {
	const char *name;		/* params.key_walk and --contracts */
	const char *doc;
	bool pairs;			/* adders and deleters in pairs that take turns */
	bool kernel_order;		/* the kernel bench's order: --keys random is refused */
	bool fills_map;			/* nr-entries is max-entries */
	bool starts_empty;		/* nr-entries is 0 */
	/* Key slices that producers (or pairs) own alone; 0: all walk every key. */
	int (*slices)(const struct plan *plan);
	/* Distinct keys the producers visit. */
	long (*key_set)(const struct plan *plan);
	/* Producer p's range of keys[] slots [*lo, *hi), starting at *cur. */
	void (*range)(const struct plan *plan, int p, long *lo, long *hi, long *cur);
	/* Overrides the key ids of the keys[] slots (NULL: slot i holds id i). */
	int (*ids)(const struct plan *plan, __u32 *ids);	/* 0 or -ENOMEM */
	/* Check the plan's keys and fit its batch to them: plan_resolve() only. */
	int (*fit)(struct plan *plan);
	int extra_slots_per_producer;	/* keys[] beyond max-entries */
	/* keys[] slots the walk reads (NULL: max-entries or nr-entries, the
	 * larger, plus the extra slots) */
	long (*slots)(const struct plan *plan);
	bool draws;			/* keys drawn at random, with repeats (--zipf) */
	bool unbatched;			/* a run is one whole-map operation, not a batch */
};

extern const struct key_walk walk_shared, walk_from_first, walk_sliced, walk_full,
	walk_churn, walk_churn_pairs, walk_strided, walk_strided_pairs, walk_absent, walk_whole_maps,
	walk_drawn, walk_readers_writers;

/* "seq", "random", "counter", "index" or "prandom" (enum key_order). */
const char *keys_name(int order);
/* --keys index: sets id_first and id_step of ctl[0..n) from the ids of
 * their ranges; -EINVAL where a range's ids are not id_first + i x id_step
 * or its runs are not whole passes from its first key. */
int keys_index_form(const struct plan *plan, struct prod_ctl *ctl, int n);
/* Slots of the keys[] array the plan's walk needs. */
long walk_key_slots(const struct plan *plan);
/* Distinct keys the producers visit (0 without a walk). */
long walk_key_set(const struct plan *plan);
/* The op of the second producer of each pair (MB_OP_REMOVE: it deletes
 * what its partner added), of the writers (the row's writer_op), or the
 * benchmark's op. */
__u32 walk_partner_op(const struct plan *plan);
/* Each producer's op and key range. */
void walk_assign(const struct plan *plan, struct prod_ctl *ctl);
/* perm[i] for i < n: ids [0, nr) then [nr, n), each part shuffled when random,
 * so the prefilled keys are always ids 0..nr-1. */
void keys_permutation(__u32 *perm, long n, long nr, enum key_order order, unsigned int seed);
/* n key ids drawn from [0, nr): uniformly, or Zipf-distributed with
 * exponent zipf > 0 (id k drawn in proportion to 1 / (k + 1)^zipf); 0 or
 * -ENOMEM. */
int keys_draw(__u32 *ids, long n, long nr, double zipf, unsigned int seed);
/* What keys[] is written for: the prefill (ids ascending), or the producers'
 * visits (in --keys order, with absent keys for --hit-ratio). */
enum key_use { KEYS_FILL, KEYS_VISIT };
/* Whether the visits differ from the prefill's keys[]: written again. */
bool keys_visit_differs(const struct plan *plan);
/* The key id of every keys[] slot for use. */
int keys_ids(const struct plan *plan, __u32 *ids, enum key_use use);
/* Write n values of size bytes each into the BPF array map keys; 0 or -errno. */
int keys_load(struct bpf_map *keys, const void *values, size_t size, long n);
/* keys_load() of keys_ids(): 4-byte key ids. */
int keys_load_ids(struct bpf_map *keys, const struct plan *plan, enum key_use use);

#endif
