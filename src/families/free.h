/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MAPBENCH_FREE_H
#define MAPBENCH_FREE_H
#include "bench.h"

/* htab-free, lpm-trie-free: how long the kernel takes to free a map holding
 * nr-entries elements, for maps of the bench's target family. */
extern const struct family free_family;

/* Insert n keys and values into map fd, in batches where the map type
 * supports them, an insert the allocator refused for now (ENOMEM) asked
 * again and counted in *retries; 0 or -errno. */
int map_fill(int fd, const void *keys, size_t key_size, const void *vals, size_t val_size, long n,
	     long *retries);

/* A map to create and fill from user space with keys 0..n-1 and zero values. */
struct map_spec {
	const char *name;
	const char *what;		/* for messages, e.g. "htab map (BPF_MAP_TYPE_HASH)" */
	__u32 type, key_size, value_size, flags;
	long max_entries, n;
	size_t value_buf;		/* bytes of one value in user space (per-CPU: all CPUs) */
	const struct plan *plan;
	void (*key)(const struct plan *plan, void *key, __u32 id);	/* key of id, zeroed */
	long *retries;			/* the run's fill_retries */
};

/* Create and fill; *fd on success. An exit status, after a one-line error. */
int map_create_filled(const struct map_spec *spec, int *fd);

#endif
