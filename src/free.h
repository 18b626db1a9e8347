/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MAPBENCH_FREE_H
#define MAPBENCH_FREE_H
#include "bench.h"

/* htab-free, lpm-trie-free: how long the kernel takes to free a map holding
 * nr-entries elements, for maps of the bench's target family. */
extern const struct family free_family;

/* Address of a kernel symbol from /proc/kallsyms, or 0 (absent or hidden). */
unsigned long long kallsyms_lookup(const char *name);
/* Insert n keys and values into map fd, in batches where the map type
 * supports them; 0 or -errno. */
int map_fill(int fd, const void *keys, size_t key_size, const void *vals, size_t val_size, long n);

#endif
