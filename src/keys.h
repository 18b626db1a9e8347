/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MAPBENCH_KEYS_H
#define MAPBENCH_KEYS_H
#include "bench.h"

struct bpf_map;

/* Fill the batch and nr-entries defaults of the benchmark's layout, check
 * that it gives every producer keys to work on, and fit the batch to it;
 * one-line error and EXIT_USAGE otherwise. */
int layout_validate(struct config *cfg);
/* Distinct keys the producers visit under cfg's layout. */
long layout_key_set(const struct config *cfg);
/* Slots of the keys[] array the layout needs. */
long layout_key_slots(const struct config *cfg);
/* Adders and deleters in pairs that take turns. */
bool layout_is_pairs(enum key_layout l);
/* Each producer's op and key range. */
void layout_assign(const struct config *cfg, struct prod_ctl *ctl);
/* The kernel's htab-mem map size: max(8192, 64 x online CPUs). */
int htab_mem_max_entries(void);
/* perm[i] for i < n: ids [0, nr) then [nr, n), each part shuffled when random,
 * so the prefilled keys are always ids 0..nr-1. */
void keys_permutation(__u32 *perm, long n, long nr, enum key_order order, unsigned int seed);
/* The key id of every keys[] slot, in order (the prefill's: ids ascending)
 * or as --keys says. */
void keys_ids(const struct config *cfg, __u32 *ids, enum key_order order);
/* Write n values of size bytes each into the BPF array map keys; 0 or -errno. */
int keys_load(struct bpf_map *keys, const void *values, size_t size, long n);
/* keys_load() of keys_ids(): 4-byte key ids. */
int keys_load_ids(struct bpf_map *keys, const struct config *cfg, enum key_order order);

#endif
