/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MAPBENCH_LPM_H
#define MAPBENCH_LPM_H
#include "bench.h"

extern const struct family lpm_family;

/* The trie key of id: prefix length plen (or the full key length for
 * lookups) and id in the bits just above plen, so ids 0..n-1 are n distinct
 * prefixes with no gaps. key holds 4 + key_size bytes. */
void lpm_key(void *key, int key_size, int plen, int key_prefixlen, __u32 id);

#endif
