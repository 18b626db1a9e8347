/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MAPBENCH_LPM_H
#define MAPBENCH_LPM_H
#include "bench.h"

extern const struct family lpm_family;

/* The trie key of id, laid out as the kernel's LPM bench does: prefix
 * length plen, then id as a host-order u32 at the start of the address
 * (the rest zero). key holds 4 + key_size bytes. */
void lpm_key(void *key, int key_size, int plen, __u32 id);

#endif
