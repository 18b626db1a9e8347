// SPDX-License-Identifier: GPL-2.0
/* Map kinds: names, preallocation rules and types from the kernel's BTF
 * (never a hard-coded number: rhtab's value depends on the kernel). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bench.h"
#include "log.h"
#include "maps.h"
#include "probe.h"

static const struct map_kind kinds[] = {
	{ "htab", "HASH", MAP_HTAB },
	{ "percpu", "PERCPU_HASH", MAP_PERCPU, .percpu = true },
	{ "lru", "LRU_HASH", MAP_LRU, PREALLOC_ALWAYS,
	  "LRU maps are always preallocated: drop --no-prealloc", .evicts = true },
	{ "lru_percpu", "LRU_PERCPU_HASH", MAP_LRU_PERCPU, PREALLOC_ALWAYS,
	  "LRU maps are always preallocated: drop --no-prealloc", .percpu = true, .evicts = true },
	/* map_perf_test's NOCOMMON_LRU_HASH_PREALLOC: an LRU list per CPU */
	{ "lru_nocommon", "LRU_HASH", MAP_LRU_NOCOMMON, PREALLOC_ALWAYS,
	  "LRU maps are always preallocated: drop --no-prealloc", .evicts = true,
	  .flags = BPF_F_NO_COMMON_LRU },
	{ "rhtab", "RHASH", MAP_RHTAB, PREALLOC_NEVER,
	  "rhtab maps cannot be preallocated (they need BPF_F_NO_PREALLOC): drop --prealloc" },
	{ "array", "ARRAY", MAP_ARRAY, PREALLOC_ALWAYS,
	  "array maps are always preallocated: drop --no-prealloc" },
	{ "bloom_filter", "BLOOM_FILTER", MAP_BLOOM, PREALLOC_ALWAYS,
	  "bloom filters are always preallocated: drop --no-prealloc" },
	{ "lpm_trie", "LPM_TRIE", MAP_LPM, PREALLOC_NEVER,
	  "LPM tries are never preallocated: drop --prealloc" },
};

#define NR_KINDS (int)(sizeof(kinds) / sizeof(kinds[0]))

/* a and b equal, '-' matching '_' (map_perf_test's names have dashes) */
static bool same_name(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (*a != *b && !(strchr("-_", *a) && strchr("-_", *b)))
			return false;
	return *a == *b;
}

const struct map_kind *map_kind_find(const char *name)
{
	for (int i = 0; name && i < NR_KINDS; i++)
		if (same_name(kinds[i].name, name))
			return &kinds[i];
	return NULL;
}

const char *map_kinds_list(unsigned int mask, char *buf, int len)
{
	int n = 0, total = 0, at = 0;

	for (int i = 0; i < NR_KINDS; i++)
		total += !!(mask & kinds[i].bit);
	buf[0] = 0;
	for (int i = 0; i < NR_KINDS; i++) {
		if (!(mask & kinds[i].bit))
			continue;
		at += snprintf(buf + at, len > at ? len - at : 0, "%s%s",
			       !n ? "" : n + 1 == total ? " or " : ", ", kinds[i].name);
		n++;
	}
	return buf;
}

int map_read_back_flags(int fd, struct run *run)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	int err = bpf_obj_get_info_by_fd(fd, &info, &len);

	if (err) {
		mb_err("reading the map's info back failed: %s", strerror(-err));
		return EXIT_RUNTIME;
	}
	run->map_flags = info.map_flags;
	return EXIT_OK;
}

int map_record(const struct bpf_map *map, struct run *run)
{
	static char name[48];
	const char *lower;
	int at = snprintf(name, sizeof(name), "BPF_MAP_TYPE_");

	run->map_type = bpf_map__type(map);
	for (lower = libbpf_bpf_map_type_str(run->map_type); lower && *lower &&
	     at < (int)sizeof(name) - 1; lower++)
		name[at++] = toupper(*lower);
	name[at] = 0;
	run->map_type_name = name;
	return map_read_back_flags(bpf_map__fd(map), run);
}

long map_kind_type(const struct map_kind *k, char *name, int len)
{
	snprintf(name, len, "BPF_MAP_TYPE_%s", k->suffix);
	return kernel_map_type(k->suffix);
}

int map_drain_init(struct map_drain *d, long n, int key_size, int value_size)
{
	d->n = n;
	d->keys = calloc(n, key_size);
	d->values = calloc(n, value_size);
	return d->keys && d->values ? 0 : -ENOMEM;
}

void map_drain_free(struct map_drain *d)
{
	free(d->keys);
	free(d->values);
	memset(d, 0, sizeof(*d));
}

int map_delete_all(int fd, struct map_drain *d)
{
	__u32 token, count;
	void *in = NULL;
	int err;

	do {
		count = d->n;
		err = bpf_map_lookup_and_delete_batch(fd, in, &token, d->keys, d->values, &count,
						      NULL);
		in = &token;
	} while (!err);
	return err == -ENOENT ? 0 : err;
}
