/* SPDX-License-Identifier: GPL-2.0 */
/* Mixed prefix lengths for LPM tries (--prefix-len 8..32, or 24:60,16:40):
 * how many prefixes of each length a trie holds, and which. */
#ifndef MAPBENCH_PREFIXES_H
#define MAPBENCH_PREFIXES_H
#include <stdbool.h>
#include <linux/types.h>
#include "bench.h"

/* "LO..HI" (every length from LO to HI, equally) or "LEN:WEIGHT,..." into
 * mix, lengths 0..PREFIX_MIX_MAX; 0, or -1 with the error said. */
int prefix_mix_parse(const char *s, struct prefix_mix *mix);
/* The longest length the mix gives a share. */
int prefix_mix_longest(const struct prefix_mix *mix);
/* How many of n prefixes have each length: n x share rounded, the
 * remainders to the largest fractions, so they sum to n. */
void prefix_mix_counts(const struct prefix_mix *mix, long n, long count[PREFIX_MIX_MAX + 1]);
/* The first length that holds more prefixes than it has room for (2^len
 * distinct ones), or -1. */
int prefix_mix_overfull(const struct prefix_mix *mix, long n);

/* n distinct prefixes under the mix: prefix id's length and its bits,
 * left-aligned in 64. */
struct prefix_table {
	long n;
	__u8 *len;
	__u64 *top;
};

/* Lengths shuffled over the ids (seeded), and within each length distinct
 * bits scattered over its space; 0 or -ENOMEM. */
int prefix_table_make(struct prefix_table *t, const struct prefix_mix *mix, long n,
		      unsigned int seed);
void prefix_table_free(struct prefix_table *t);
/* Trie key (u32 prefix length, then key_size address bytes) of prefix id:
 * the prefix as stored, or (address) a whole address under it, the host
 * bits drawn from the id, with the key's full length. */
void prefix_key(const struct prefix_table *t, long id, int key_size, bool address, void *key);

#endif
