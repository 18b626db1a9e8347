// SPDX-License-Identifier: GPL-2.0
/* Which keys each producer visits, and the key order the BPF side reads. */
#include <errno.h>
#include <stdlib.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "cpu.h"
#include "keys.h"

#define DEFAULT_BATCH 1024
/* bpf-hashmap-lookup's defaults: 500 keys in a 1000-entry map. */
#define FROM_FIRST_NR 500

static bool layout_is_churn(enum key_layout l)
{
	return l == LAYOUT_CHURN || l == LAYOUT_CHURN_PAIRS;
}

bool layout_is_pairs(enum key_layout l)
{
	return l == LAYOUT_CHURN_PAIRS || l == LAYOUT_STRIDED_PAIRS;
}

static bool layout_is_strided(enum key_layout l)
{
	return l == LAYOUT_STRIDED || l == LAYOUT_STRIDED_PAIRS;
}

/* Producers, or pairs of producers, that share nothing. */
static int key_groups(const struct config *cfg)
{
	return layout_is_pairs(cfg->bench->layout) ? cfg->producers / 2 : cfg->producers;
}

/* Number of key slices, or 0 if all producers walk the whole key set. */
static int layout_slices(const struct config *cfg)
{
	switch (cfg->bench->layout) {
	case LAYOUT_SHARED:
	case LAYOUT_FROM_FIRST:
		return 0;
	default:
		return key_groups(cfg);
	}
}

long layout_key_set(const struct config *cfg)
{
	switch (cfg->bench->layout) {
	case LAYOUT_CHURN:
	case LAYOUT_CHURN_PAIRS:
		return cfg->max_entries - cfg->nr_entries;
	case LAYOUT_STRIDED:
	case LAYOUT_STRIDED_PAIRS:
		return (long)key_groups(cfg) * cfg->batch;
	case LAYOUT_ABSENT:
		return cfg->producers;
	default:
		return cfg->nr_entries;
	}
}

long layout_key_slots(const struct config *cfg)
{
	return cfg->max_entries + (cfg->bench->layout == LAYOUT_ABSENT ? cfg->producers : 0);
}

int htab_mem_max_entries(void)
{
	int cpus = cpu_online_count();

	return cpus * 64 > 8192 ? cpus * 64 : 8192;
}

/* Defaults and checks of the layouts that follow a kernel bench. */
static int kernel_layout_validate(struct config *cfg)
{
	const struct bench *b = cfg->bench;
	long groups = key_groups(cfg);

	if (cfg->keys == KEYS_RANDOM) {
		mb_err("%s visits its keys in the kernel bench's order: drop --keys random", b->name);
		return EXIT_USAGE;
	}
	switch (b->layout) {
	case LAYOUT_STRIDED:
	case LAYOUT_STRIDED_PAIRS:
		if (cfg->nr_entries > 0) {
			mb_err("%s starts from an empty map: drop --nr-entries", b->name);
			return EXIT_USAGE;
		}
		cfg->nr_entries = 0;
		if (groups * cfg->batch > cfg->max_entries) {
			mb_err("%s needs %d keys per %s (--batch) for %ld %ss, more than --max-entries %ld",
			       b->name, cfg->batch, layout_is_pairs(b->layout) ? "pair" : "producer",
			       groups, layout_is_pairs(b->layout) ? "pair" : "producer",
			       cfg->max_entries);
			return EXIT_USAGE;
		}
		return EXIT_OK;
	case LAYOUT_ABSENT:
		return EXIT_OK;	/* the map is filled: see layout_validate() */
	default:	/* LAYOUT_FROM_FIRST: whole passes over the keys per run */
		if (cfg->nr_entries < 0)
			cfg->nr_entries = cfg->max_entries < FROM_FIRST_NR ? cfg->max_entries
									   : FROM_FIRST_NR;
		if (cfg->nr_entries < 1) {
			mb_err("%s needs at least one key: raise --nr-entries", b->name);
			return EXIT_USAGE;
		}
		if (cfg->batch >= cfg->nr_entries)
			cfg->batch = cfg->batch / cfg->nr_entries * cfg->nr_entries;
		return EXIT_OK;
	}
}

int layout_validate(struct config *cfg)
{
	const struct bench *b = cfg->bench;
	long keys, per;
	int slices;

	if (cfg->batch < 0)
		cfg->batch = b->batch ?: DEFAULT_BATCH;
	if (layout_is_pairs(b->layout) && cfg->producers % 2) {
		mb_err("%s adds on one producer and deletes on the next: -p must be even, not %d",
		       b->name, cfg->producers);
		return EXIT_USAGE;
	}
	if (b->layout == LAYOUT_FULL || b->layout == LAYOUT_ABSENT) {
		if (cfg->nr_entries >= 0 && cfg->nr_entries != cfg->max_entries) {
			mb_err("%s fills the map: --nr-entries (%ld) must equal --max-entries (%ld) or be left out",
			       b->name, cfg->nr_entries, cfg->max_entries);
			return EXIT_USAGE;
		}
		cfg->nr_entries = cfg->max_entries;
	}
	if (op_works_to_end(b->op) && cfg->keys == KEYS_RANDOM) {
		mb_err("%s works through the keys in order, as the kernel bench does: drop --keys random",
		       b->name);
		return EXIT_USAGE;
	}
	if (layout_is_strided(b->layout) || b->layout == LAYOUT_ABSENT ||
	    b->layout == LAYOUT_FROM_FIRST) {
		int err = kernel_layout_validate(cfg);

		if (err)
			return err;
	}
	if (cfg->nr_entries < 0)
		cfg->nr_entries = layout_is_churn(b->layout) ? 0 : cfg->max_entries;
	if (cfg->nr_entries > cfg->max_entries) {
		mb_err("--nr-entries (%ld) is larger than --max-entries (%ld)",
		       cfg->nr_entries, cfg->max_entries);
		return EXIT_USAGE;
	}
	cfg->batch -= cfg->batch % UNROLL;
	if (cfg->batch < UNROLL)
		cfg->batch = UNROLL;
	if (layout_is_strided(b->layout) || b->layout == LAYOUT_ABSENT)
		return EXIT_OK;
	keys = layout_key_set(cfg);
	slices = layout_slices(cfg);
	per = slices ? keys / slices : keys;
	if (!slices && per < 1) {
		mb_err("%s needs at least one key: raise --nr-entries", b->name);
		return EXIT_USAGE;
	}
	/* Producers that remove keys need a batch of distinct keys each. */
	if (slices && per < UNROLL) {
		mb_err("%s needs at least %d keys per producer, but has %ld (%s / producers); raise it",
		       b->name, UNROLL, per,
		       layout_is_churn(b->layout) ? "max-entries minus nr-entries" : "nr-entries");
		return EXIT_USAGE;
	}
	/* A batch must not visit a key twice where the op removes it; ops that
	 * work to the end of the range stop there by themselves. */
	if (slices && cfg->batch > per && !op_works_to_end(b->op))
		cfg->batch = per - per % UNROLL;
	return EXIT_OK;
}

/* Producer p's range of keys[] slots: [*lo, *hi), starting at *cur. */
static void producer_range(const struct config *cfg, int p, long *lo, long *hi, long *cur)
{
	const struct bench *b = cfg->bench;
	long base = layout_is_churn(b->layout) ? cfg->nr_entries : 0;
	long keys = layout_key_set(cfg);
	int slices = layout_slices(cfg);
	int g = layout_is_pairs(b->layout) ? p / 2 : p;

	switch (b->layout) {
	case LAYOUT_SHARED:
		/* Spread the producers' starting points over the shared keys. */
		*lo = 0, *hi = keys, *cur = keys * p / cfg->producers;
		return;
	case LAYOUT_FROM_FIRST:
		*lo = *cur = 0, *hi = keys;
		return;
	case LAYOUT_STRIDED:
	case LAYOUT_STRIDED_PAIRS:
		*lo = *cur = (long)g * cfg->batch, *hi = *lo + cfg->batch;
		return;
	case LAYOUT_ABSENT:
		*lo = *cur = cfg->max_entries + p, *hi = *lo + 1;
		return;
	default:
		*lo = *cur = base + keys * g / slices;
		*hi = base + keys * (g + 1) / slices;
	}
}

void layout_assign(const struct config *cfg, struct prod_ctl *ctl)
{
	for (int p = 0; p < cfg->producers; p++) {
		struct prod_ctl *c = &ctl[p];
		long lo, hi, cur;

		producer_range(cfg, p, &lo, &hi, &cur);
		c->op = layout_is_pairs(cfg->bench->layout) && p % 2 ? MB_OP_REMOVE : cfg->bench->op;
		c->batch = cfg->batch;
		c->lo = lo, c->hi = hi, c->cur = cur;
	}
}

static void shuffle(__u32 *a, long n, unsigned short state[3])
{
	for (long i = n - 1; i > 0; i--) {
		unsigned long r = (unsigned long)nrand48(state) << 31 | nrand48(state);
		long j = r % (i + 1);
		__u32 t = a[i];

		a[i] = a[j];
		a[j] = t;
	}
}

void keys_permutation(__u32 *perm, long n, long nr, enum key_order order, unsigned int seed)
{
	unsigned short state[3] = { 0x330e, (unsigned short)seed, (unsigned short)(seed >> 16) };

	for (long i = 0; i < n; i++)
		perm[i] = i;
	if (order == KEYS_RANDOM) {
		shuffle(perm, nr, state);
		shuffle(perm + nr, n - nr, state);
	}
}

void keys_ids(const struct config *cfg, __u32 *ids, enum key_order order)
{
	const struct bench *b = cfg->bench;
	long n = layout_key_slots(cfg);
	int groups = key_groups(cfg);

	keys_permutation(ids, n, cfg->nr_entries, order, cfg->seed);
	if (b->layout == LAYOUT_FROM_FIRST)
		for (long i = 0; i < n; i++)
			ids[i] = i + 1;
	/* The kernel's htab-mem: key j of group g is g + j x groups. */
	if (layout_is_strided(b->layout))
		for (long g = 0; g < groups; g++)
			for (long j = 0; j < cfg->batch; j++)
				ids[g * cfg->batch + j] = g + j * groups;
}

int keys_load(struct bpf_map *keys, const void *values, size_t size, long n)
{
	const long chunk = 1 << 16;
	__u32 *idx = malloc(chunk * sizeof(*idx));
	int err = 0;

	if (!idx)
		return -ENOMEM;
	for (long off = 0; off < n && !err; off += chunk) {
		__u32 count = n - off < chunk ? n - off : chunk;

		for (__u32 i = 0; i < count; i++)
			idx[i] = off + i;
		if (bpf_map_update_batch(bpf_map__fd(keys), idx, (const char *)values + off * size,
					 &count, NULL))
			err = -errno;
	}
	free(idx);
	return err;
}

int keys_load_ids(struct bpf_map *keys, const struct config *cfg, enum key_order order)
{
	long n = layout_key_slots(cfg);
	__u32 *ids = malloc(n * sizeof(*ids));
	int err;

	if (!ids)
		return -ENOMEM;
	keys_ids(cfg, ids, order);
	err = keys_load(keys, ids, sizeof(*ids), n);
	free(ids);
	return err;
}
