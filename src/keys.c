// SPDX-License-Identifier: GPL-2.0
/* Key walks (which keys each producer visits) and the key order the BPF
 * side reads. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "keys.h"

static int all_share(const struct plan *plan)
{
	return 0;
}

static int per_producer(const struct plan *plan)
{
	return plan->producers;
}

static int per_pair(const struct plan *plan)
{
	return plan->producers / 2;
}

static long prefilled(const struct plan *plan)
{
	return plan->nr_entries;
}

/* The keys above the prefilled ones: [nr-entries, max-entries). */
static long above_prefill(const struct plan *plan)
{
	return plan->max_entries - plan->nr_entries;
}

static long batch_per_slice(const struct plan *plan)
{
	return (long)plan->bench->walk->slices(plan) * plan->batch;
}

static long one_per_producer(const struct plan *plan)
{
	return plan->producers;
}

/* Producers start spread over the shared keys. */
static void spread(const struct plan *plan, int p, long *lo, long *hi, long *cur)
{
	*lo = 0, *hi = plan->nr_entries, *cur = plan->nr_entries * p / plan->producers;
}

static void from_first(const struct plan *plan, int p, long *lo, long *hi, long *cur)
{
	*lo = *cur = 0, *hi = plan->nr_entries;
}

/* Slice g of [base, base + key set) for producer p (or p's pair). */
static void slice(const struct plan *plan, int p, long *lo, long *hi, long *cur)
{
	const struct key_walk *w = plan->bench->walk;
	long base = w->key_set == above_prefill ? plan->nr_entries : 0;
	long keys = w->key_set(plan);
	int slices = w->slices(plan), g = w->pairs ? p / 2 : p;

	*lo = *cur = base + keys * g / slices;
	*hi = base + keys * (g + 1) / slices;
}

static void batch_slice(const struct plan *plan, int p, long *lo, long *hi, long *cur)
{
	int g = plan->bench->walk->pairs ? p / 2 : p;

	*lo = *cur = (long)g * plan->batch, *hi = *lo + plan->batch;
}

static void absent_key(const struct plan *plan, int p, long *lo, long *hi, long *cur)
{
	*lo = *cur = plan->max_entries + p, *hi = *lo + 1;
}

/* bpf-hashmap-lookup's keys are 1..nr. */
static int ids_from_one(const struct plan *plan, __u32 *ids)
{
	for (long i = 0; i < walk_key_slots(plan); i++)
		ids[i] = i + 1;
	return 0;
}

/* The kernel's htab-mem: key j of group g is g + j x groups. */
static int ids_strided(const struct plan *plan, __u32 *ids)
{
	long groups = plan->bench->walk->slices(plan);

	for (long g = 0; g < groups; g++)
		for (long j = 0; j < plan->batch; j++)
			ids[g * plan->batch + j] = g + j * groups;
	return 0;
}

/* Draws from [0, nr): enough that a key's next visit is a fresh draw, not
 * the sequence coming round again (a cycle longer than the map would make
 * LRU miss every time), within a keys[] array of 64 MiB. */
static long drawn_len(const struct plan *plan)
{
	long n = 8 * plan->nr_entries;

	return n < (1L << 16) ? 1L << 16 : n > (1L << 24) ? 1L << 24 : n;
}

static void drawn_range(const struct plan *plan, int p, long *lo, long *hi, long *cur)
{
	long n = drawn_len(plan);

	*lo = 0, *hi = n, *cur = n * p / plan->producers;
}

/* GSL's Walker alias table for Zipf; its generators abort on no memory. */
int keys_draw(__u32 *ids, long n, long nr, double zipf, unsigned int seed)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_ran_discrete_t *table = NULL;

	gsl_rng_set(rng, seed);
	if (zipf > 0) {	/* id k weighs 1 / (k + 1)^s: id 0 is the hottest */
		double *weight = malloc(nr * sizeof(*weight));

		if (!weight) {
			gsl_rng_free(rng);
			return -ENOMEM;
		}
		for (long k = 0; k < nr; k++)
			weight[k] = pow(k + 1, -zipf);
		table = gsl_ran_discrete_preproc(nr, weight);
		free(weight);
	}
	for (long i = 0; i < n; i++)
		ids[i] = table ? gsl_ran_discrete(rng, table) : gsl_rng_uniform_int(rng, nr);
	if (table)
		gsl_ran_discrete_free(table);
	gsl_rng_free(rng);
	return 0;
}

static int ids_drawn(const struct plan *plan, __u32 *ids)
{
	return keys_draw(ids, drawn_len(plan), plan->nr_entries, plan->zipf, plan->seed);
}

static int at_least_one_key(struct plan *plan)
{
	if (plan->nr_entries < 1) {
		mb_err("%s needs at least one key: raise --nr-entries", plan->bench->name);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

/* Whole passes over the keys in each run, as bpf-hashmap-lookup does. */
static int whole_passes(struct plan *plan)
{
	int err = at_least_one_key(plan);

	if (!err && plan->batch >= plan->nr_entries)
		plan->batch = plan->batch / plan->nr_entries * plan->nr_entries;
	return err;
}

/* Producers that remove keys need a batch of distinct keys each; a batch
 * must not visit a key twice where the op removes it (ops that work to the
 * end of their range stop there by themselves). */
static int fit_slices(struct plan *plan)
{
	const struct key_walk *w = plan->bench->walk;
	int slices = w->slices(plan);
	long per = w->key_set(plan) / slices;

	if (per < UNROLL) {
		mb_err("%s needs at least %d keys per producer, but has %ld (%s / producers); raise it",
		       plan->bench->name, UNROLL, per,
		       w->key_set == above_prefill ? "max-entries minus nr-entries" : "nr-entries");
		return EXIT_USAGE;
	}
	if (plan->batch > per && !op_works_to_end(plan->bench->op))
		plan->batch = per - per % UNROLL;
	return EXIT_OK;
}

static int fit_batch_slices(struct plan *plan)
{
	const struct key_walk *w = plan->bench->walk;
	long groups = w->slices(plan);

	if (groups * plan->batch > plan->max_entries) {
		mb_err("%s needs %d keys per %s (--batch) for %ld %ss, more than --max-entries %ld",
		       plan->bench->name, plan->batch, w->pairs ? "pair" : "producer", groups,
		       w->pairs ? "pair" : "producer", plan->max_entries);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

static int writer_slices(const struct plan *plan)
{
	return plan->writers;
}

/* Readers start spread over every prefilled key; writer w owns slice w of
 * them (a batch that deletes visits a key once). */
static void reader_or_writer(const struct plan *plan, int p, long *lo, long *hi, long *cur)
{
	int readers = plan->producers - plan->writers;

	*lo = 0, *hi = plan->nr_entries;
	if (p < readers) {
		*cur = plan->nr_entries * p / readers;
		return;
	}
	*lo = *cur = plan->nr_entries * (p - readers) / plan->writers;
	*hi = plan->nr_entries * (p - readers + 1) / plan->writers;
}

static int no_fit(struct plan *plan)
{
	return EXIT_OK;
}

const struct key_walk walk_shared = {
	.name = "shared", .doc = "every producer walks all prefilled keys",
	.slices = all_share, .key_set = prefilled, .range = spread, .fit = at_least_one_key,
};
const struct key_walk walk_from_first = {
	.name = "from-first", .doc = "keys 1..nr, every run from the first",
	.kernel_order = true, .slices = all_share, .key_set = prefilled, .range = from_first,
	.ids = ids_from_one, .fit = whole_passes,
};
const struct key_walk walk_sliced = {
	.name = "sliced", .doc = "each producer its own slice of the prefilled keys",
	.slices = per_producer, .key_set = prefilled, .range = slice, .fit = fit_slices,
};
const struct key_walk walk_full = {
	.name = "full", .doc = "map filled to max-entries, sliced per producer",
	.fills_map = true, .slices = per_producer, .key_set = prefilled, .range = slice,
	.fit = fit_slices,
};
const struct key_walk walk_churn = {
	.name = "churn", .doc = "keys [nr-entries, max-entries), sliced per producer",
	.slices = per_producer, .key_set = above_prefill, .range = slice, .fit = fit_slices,
};
const struct key_walk walk_churn_pairs = {
	.name = "churn-pairs", .doc = "keys [nr-entries, max-entries), a slice per adding/deleting pair",
	.pairs = true, .slices = per_pair, .key_set = above_prefill, .range = slice,
	.fit = fit_slices,
};
const struct key_walk walk_strided = {
	.name = "strided", .doc = "producer p's batch keys p, p + P, p + 2P, ... (htab-mem)",
	.kernel_order = true, .starts_empty = true, .slices = per_producer,
	.key_set = batch_per_slice, .range = batch_slice, .ids = ids_strided,
	.fit = fit_batch_slices,
};
const struct key_walk walk_strided_pairs = {
	.name = "strided-pairs", .doc = "pair k's batch keys k, k + P/2, ... (htab-mem)",
	.pairs = true, .kernel_order = true, .starts_empty = true, .slices = per_pair,
	.key_set = batch_per_slice, .range = batch_slice, .ids = ids_strided,
	.fit = fit_batch_slices,
};
const struct key_walk walk_absent = {
	.name = "absent", .doc = "map full; producer p updates the absent key max + p",
	.kernel_order = true, .fills_map = true, .slices = all_share, .key_set = one_per_producer,
	.range = absent_key, .fit = no_fit, .extra_slots_per_producer = 1,
};

const struct key_walk walk_drawn = {
	.name = "drawn", .doc = "keys drawn from [0, nr), uniform or --zipf, one sequence all share",
	.draws = true, .slices = all_share, .key_set = prefilled, .range = drawn_range,
	.ids = ids_drawn, .slots = drawn_len, .fit = at_least_one_key,
};

const struct key_walk walk_readers_writers = {
	.name = "readers-writers", .doc = "readers spread over the prefilled keys; writer w its slice w",
	.slices = writer_slices, .key_set = prefilled, .range = reader_or_writer,
	.fit = fit_slices,
};

const struct key_walk walk_whole_maps = {
	.name = "whole-maps", .doc = "whole maps of nr-entries keys, created, filled and closed",
	.unbatched = true, .slices = all_share, .key_set = prefilled, .range = spread,
	.fit = no_fit,
};

const char *keys_name(int order)
{
	static const char *const names[] = { "seq", "random", "counter", "index", "prandom",
					     "drawn" };

	return names[order];
}

/* Whether the range's ids are id_first + i x id_step (setting the two) and
 * its runs are whole passes from lo, as --keys index walks them. */
static bool index_fits(const __u32 *ids, struct prod_ctl *c)
{
	__u32 span = c->hi - c->lo;

	c->id_first = span ? ids[c->lo] : 0;
	c->id_step = span > 1 ? ids[c->lo + 1] - ids[c->lo] : 0;
	for (__u32 i = 0; i < span; i++)
		if (ids[c->lo + i] != c->id_first + i * c->id_step)
			return false;
	return c->cur == c->lo && (span <= 1 || c->batch % span == 0);
}

int keys_index_form(const struct plan *plan, struct prod_ctl *ctl, int n)
{
	__u32 *ids = malloc(walk_key_slots(plan) * sizeof(*ids));
	int ok = 1;

	if (!ids)
		return -ENOMEM;
	if (keys_ids(plan, ids, KEYS_FILL)) {
		free(ids);
		return -ENOMEM;
	}
	for (int p = 0; p < n && ok; p++)
		ok = index_fits(ids, &ctl[p]);
	free(ids);
	return ok ? 0 : -EINVAL;
}

long walk_key_slots(const struct plan *plan)
{
	const struct key_walk *w = plan->bench->walk;
	long keys = plan->nr_entries > plan->max_entries ? plan->nr_entries : plan->max_entries;

	return w->slots ? w->slots(plan) : keys + (long)w->extra_slots_per_producer * plan->producers;
}

long walk_key_set(const struct plan *plan)
{
	return plan->bench->walk ? plan->bench->walk->key_set(plan) : 0;
}

__u32 walk_partner_op(const struct plan *plan)
{
	const struct key_walk *w = plan->bench->walk;

	if (w && w->pairs)
		return MB_OP_REMOVE;
	return plan->bench->writer_op ?: plan->bench->op;
}

/* Pairs: the second of each runs the partner op; readers and writers: the
 * last plan->writers do. */
static __u32 walk_op(const struct plan *plan, int p)
{
	bool partner = plan->bench->walk->pairs ? p % 2 : p >= plan->producers - plan->writers;

	return partner ? walk_partner_op(plan) : plan->bench->op;
}

void walk_assign(const struct plan *plan, struct prod_ctl *ctl)
{
	const struct key_walk *w = plan->bench->walk;

	for (int p = 0; p < plan->producers; p++) {
		struct prod_ctl *c = &ctl[p];
		long lo, hi, cur;

		w->range(plan, p, &lo, &hi, &cur);
		c->op = walk_op(plan, p);
		c->batch = plan->batch;
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

bool keys_visit_differs(const struct plan *plan)
{
	/* mixed prefix lengths: lookups visit addresses under the prefixes */
	return plan->keys != KEYS_SEQ || plan->hit_ratio < 1 || plan->prefix_mix.mixed;
}

/* --hit-ratio: a share 1 - hit_ratio of the slots, evenly spread (slot i
 * where floor((i + 1) x share) steps up), so every batch misses its share;
 * each gets an id above every slot's, which no prefill stores. */
static void put_absent(const struct plan *plan, __u32 *ids, long n)
{
	double share = 1 - plan->hit_ratio;

	for (long i = 0; i < n; i++)
		if ((long)((i + 1) * share) > (long)(i * share))
			ids[i] = n + 1 + i;
}

int keys_ids(const struct plan *plan, __u32 *ids, enum key_use use)
{
	long n = walk_key_slots(plan);
	int err;

	keys_permutation(ids, n, plan->nr_entries, use == KEYS_VISIT ? plan->keys : KEYS_SEQ,
			 plan->seed);
	err = plan->bench->walk->ids ? plan->bench->walk->ids(plan, ids) : 0;
	if (!err && use == KEYS_VISIT && plan->hit_ratio < 1)
		put_absent(plan, ids, n);
	return err;
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

int keys_load_ids(struct bpf_map *keys, const struct plan *plan, enum key_use use)
{
	long n = walk_key_slots(plan);
	__u32 *ids = malloc(n * sizeof(*ids));
	int err;

	if (!ids)
		return -ENOMEM;
	err = keys_ids(plan, ids, use) ?: keys_load(keys, ids, sizeof(*ids), n);
	free(ids);
	return err;
}
