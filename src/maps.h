/* SPDX-License-Identifier: GPL-2.0 */
/* The map kinds mapbench runs on, by --map name, and their types resolved
 * from the running kernel's BTF. */
#ifndef MAPBENCH_MAPS_H
#define MAPBENCH_MAPS_H
#include <stdbool.h>

enum prealloc_rule { PREALLOC_EITHER, PREALLOC_ALWAYS, PREALLOC_NEVER };

struct map_kind {
	const char *name;		/* --map */
	const char *suffix;		/* BPF_MAP_TYPE_<suffix> */
	unsigned int bit;		/* in a benchmark's maps mask */
	enum prealloc_rule prealloc;
	const char *prealloc_why;	/* the refusal when the plan asks otherwise */
	bool percpu;
	bool evicts;			/* full, it evicts to insert: keys may outnumber it */
	unsigned int flags;		/* BPF_F_* the kind is created with */
};

#define MAP_HTAB	(1u << 0)
#define MAP_PERCPU	(1u << 1)
#define MAP_LRU		(1u << 2)
#define MAP_LRU_PERCPU	(1u << 3)
#define MAP_RHTAB	(1u << 4)
#define MAP_LPM		(1u << 5)
#define MAP_LRU_NOCOMMON	(1u << 6)
#define MAP_ARRAY	(1u << 7)
#define MAP_BLOOM	(1u << 8)
#define LRU_MAPS (MAP_LRU | MAP_LRU_PERCPU | MAP_LRU_NOCOMMON)
#define HASH_MAPS (MAP_HTAB | MAP_PERCPU | LRU_MAPS | MAP_RHTAB)
/* The kinds with a random hash seed that BPF_F_ZERO_SEED can zero. */
#define SEEDED_MAPS (MAP_HTAB | MAP_PERCPU | LRU_MAPS | MAP_BLOOM)

/* The kind called name ('-' and '_' alike), or NULL. */
const struct map_kind *map_kind_find(const char *name);
/* "htab, percpu, lru or rhtab": the kinds of a mask, for messages. */
const char *map_kinds_list(unsigned int mask, char *buf, int len);
struct run;
struct bpf_map;
/* run->map_flags as the kernel holds them, not as asked: the proof that a
 * flag such as BPF_F_NO_COMMON_LRU reached the map. An exit status. */
int map_read_back_flags(int fd, struct run *run);
/* A loaded object's map under test in run: its type (BPF_MAP_TYPE_LRU_HASH
 * from libbpf's "lru_hash") and flags read back. An exit status. */
int map_record(const struct bpf_map *map, struct run *run);
/* The kind's BPF_MAP_TYPE_ name in buf and its value from BTF, or -1. */
long map_kind_type(const struct map_kind *k, char *name, int len);

/* A hash map's elements as one read takes them: n keys then n values
 * (one value each: not a per-CPU map's). */
struct map_drain {
	long n;
	void *keys, *values;
};
/* Room for n elements of these sizes; 0 or -ENOMEM. */
int map_drain_init(struct map_drain *d, long n, int key_size, int value_size);
void map_drain_free(struct map_drain *d);
/* Delete every element of a hash map of at most d->n (one walk of the
 * kernel's batch op, read out into d); 0 or -errno. */
int map_delete_all(int fd, struct map_drain *d);

#endif
