// SPDX-License-Identifier: GPL-2.0
/* Which keys each producer visits, and the key order the BPF side reads. */
#include <errno.h>
#include <stdlib.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "keys.h"

static bool layout_is_churn(enum key_layout l)
{
	return l == LAYOUT_CHURN || l == LAYOUT_CHURN_PAIRS;
}

/* Number of key slices (pairs share one), or 0 if all producers walk the
 * whole key set. */
static int layout_slices(const struct config *cfg)
{
	switch (cfg->bench->layout) {
	case LAYOUT_SHARED:
		return 0;
	case LAYOUT_CHURN_PAIRS:
		return cfg->producers / 2;
	default:
		return cfg->producers;
	}
}

long layout_key_set(const struct config *cfg)
{
	return layout_is_churn(cfg->bench->layout) ? cfg->max_entries - cfg->nr_entries
						   : cfg->nr_entries;
}

int layout_validate(struct config *cfg)
{
	const struct bench *b = cfg->bench;
	long keys, per;
	int slices;

	if (b->layout == LAYOUT_FULL) {
		if (cfg->nr_entries >= 0 && cfg->nr_entries != cfg->max_entries) {
			mb_err("%s fills the map: --nr-entries (%ld) must equal --max-entries (%ld) or be left out",
			       b->name, cfg->nr_entries, cfg->max_entries);
			return EXIT_USAGE;
		}
		cfg->nr_entries = cfg->max_entries;
	}
	if (cfg->nr_entries < 0)
		cfg->nr_entries = layout_is_churn(b->layout) ? 0 : cfg->max_entries;
	if (cfg->nr_entries > cfg->max_entries) {
		mb_err("--nr-entries (%ld) is larger than --max-entries (%ld)",
		       cfg->nr_entries, cfg->max_entries);
		return EXIT_USAGE;
	}
	if (b->layout == LAYOUT_CHURN_PAIRS && cfg->producers % 2) {
		mb_err("%s adds on one producer and deletes on the next: -p must be even, not %d",
		       b->name, cfg->producers);
		return EXIT_USAGE;
	}
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
	cfg->batch -= cfg->batch % UNROLL;
	/* A batch must not visit a key twice where the op removes it. */
	if (slices && cfg->batch > per)
		cfg->batch = per - per % UNROLL;
	return EXIT_OK;
}

void layout_assign(const struct config *cfg, struct prod_ctl *ctl)
{
	long base = layout_is_churn(cfg->bench->layout) ? cfg->nr_entries : 0;
	long keys = layout_key_set(cfg);
	int slices = layout_slices(cfg);
	bool pairs = cfg->bench->layout == LAYOUT_CHURN_PAIRS;

	for (int p = 0; p < cfg->producers; p++) {
		struct prod_ctl *c = &ctl[p];
		int s = pairs ? p / 2 : p;

		c->op = pairs && p % 2 ? MB_OP_REMOVE : cfg->bench->op;
		c->batch = cfg->batch;
		if (slices) {
			c->lo = base + keys * s / slices;
			c->hi = base + keys * (s + 1) / slices;
			c->cur = c->lo;
		} else {
			/* Spread the producers' starting points over the shared keys. */
			c->lo = base;
			c->hi = base + keys;
			c->cur = base + keys * p / cfg->producers;
		}
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

int keys_load_ids(struct bpf_map *keys, const struct config *cfg)
{
	__u32 *ids = malloc(cfg->max_entries * sizeof(*ids));
	int err;

	if (!ids)
		return -ENOMEM;
	keys_permutation(ids, cfg->max_entries, cfg->nr_entries, cfg->keys, cfg->seed);
	err = keys_load(keys, ids, sizeof(*ids), cfg->max_entries);
	free(ids);
	return err;
}
