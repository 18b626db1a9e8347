// SPDX-License-Identifier: GPL-2.0
/* The resolve step: row defaults, then derived values, then checks. Only
 * this file writes a plan; everything after it reads a const one. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpu.h"
#include "keys.h"
#include "maps.h"
#include "peer.h"
#include "plan.h"
#include "prefixes.h"
#include "topology.h"
#include "trigger.h"

/* The map kind and its preallocation: the kind's rule where it has one,
 * else the user's choice, else the row's. */
static int resolve_map(const struct options *given, struct plan *p)
{
	const struct bench *b = p->bench;
	char kinds[96];

	p->map_name = given->map_name ?: b->map;
	if (given->all) {	/* each kind's own preallocation; the row's recorded */
		p->map_name = "all";
		p->prealloc = OR(given->prealloc, b->prealloc);
		return EXIT_OK;
	}
	p->map = map_kind_find(p->map_name);
	if (!p->map || !(p->map->bit & b->maps)) {
		if (b->maps == MAP_LPM)
			mb_err("%s runs on an LPM trie: drop --map %s", b->name, p->map_name);
		else
			mb_err("unknown map '%s' for %s: use %s", p->map_name, b->name,
			       map_kinds_list(b->maps, kinds, sizeof(kinds)));
		return EXIT_USAGE;
	}
	p->map_name = p->map->name;	/* lru-nocommon is recorded as lru_nocommon */
	if (given->map_flags.given && !(b->maps & HASH_MAPS)) {
		mb_err("--map_flags is for hash maps, as the kernel's bpf-hashmap-* take it, not %s",
		       b->name);
		return EXIT_USAGE;
	}
	p->extra_map_flags = OR(given->map_flags, 0);
	if (given->map_extra.given && !b->map_extra) {
		mb_err("--map-extra is the bloom filter's hash functions (bloom-*, hashmap-with-bloom), "
		       "not %s's", b->name);
		return EXIT_USAGE;
	}
	p->map_extra = OR(given->map_extra, b->map_extra);
	p->prealloc = p->map->prealloc == PREALLOC_ALWAYS ? 1 :
		      p->map->prealloc == PREALLOC_NEVER ? 0 : b->prealloc;
	if (given->prealloc.given && given->prealloc.value != p->prealloc &&
	    p->map->prealloc != PREALLOC_EITHER) {
		mb_err("%s", p->map->prealloc_why);
		return EXIT_USAGE;
	}
	p->prealloc = OR(given->prealloc, p->prealloc);
	/* A kind without a seed has nothing to zero: recorded as false. */
	p->zero_seed = p->map->bit & SEEDED_MAPS ? OR(given->zero_seed, 0) : 0;
	return EXIT_OK;
}

static int resolve_sizes(const struct options *given, const struct host *host, struct plan *p)
{
	const struct bench *b = p->bench;
	long nr_default;

	p->key_size = OR(given->key_size, b->key_size);
	p->value_size = OR(given->value_size, b->value_size);
	if (b->prefix_len == -1 && (given->prefix_len.given || given->prefix_mix.mixed)) {
		mb_err("--prefix-len is for LPM trie benchmarks, not %s", b->name);
		return EXIT_USAGE;
	}
	p->prefix_len = b->prefix_len == PREFIX_ALL ? OR(given->prefix_len, p->key_size * 8) : 0;
	p->prefix_mix = given->prefix_mix;
	if (p->prefix_mix.mixed)
		p->prefix_len = prefix_mix_longest(&p->prefix_mix);
	nr_default = b->nr_entries;
	p->max_entries = given->max_entries.given ? given->max_entries.value :
			 b->max_entries_of ? b->max_entries_of(host) :
			 b->max_entries == ENTRIES_NR ? OR(given->nr_entries, nr_default) :
			 b->max_entries;
	if (nr_default == ENTRIES_TWICE_MAX)
		nr_default = 2 * p->max_entries;
	else if (nr_default == ENTRIES_MAX || nr_default > p->max_entries)
		nr_default = p->max_entries;
	p->nr_entries = OR(given->nr_entries, nr_default);
	return EXIT_OK;
}

/* --keys index computes a key's id from its position: each producer's ids
 * (and the prefill's) must be a first id plus a step. */
static int index_keys_fit(const struct plan *p)
{
	struct prod_ctl ctl[MAX_PRODUCERS + 1];

	if (p->keys != KEYS_INDEX)
		return EXIT_OK;
	if (p->bench->maps & MAP_LPM) {
		mb_err("--keys index is the kernel bpf-hashmap-* benches' key walk: for hash maps, "
		       "not %s (LPM's is --keys counter)", p->bench->name);
		return EXIT_USAGE;
	}
	walk_assign(p, ctl);
	ctl[p->producers] = (struct prod_ctl){ .lo = 0, .hi = p->nr_entries };	/* the prefill */
	if (keys_index_form(p, ctl, p->producers + 1)) {
		mb_err("--keys index makes each id from its loop index, but %s's runs are not whole "
		       "passes over a first id plus a step (its walk is %s): use --keys seq",
		       p->bench->name, p->bench->walk->name);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

/* bpf_for runs UNROLL operations an iteration; a batch that is not a
 * multiple of it (--batch 1: one operation a program run) runs with
 * bpf_loop, one operation a callback. */
static int batch_loop_fit(struct plan *p)
{
	if (p->batch % UNROLL == 0)
		return EXIT_OK;
	if (p->loop == LOOP_FOR) {
		mb_err("--loop bpf_for runs %d operations an iteration, and the batch (%d) is not a "
		       "multiple of %d: use --loop bpf_loop, or a --batch that is", UNROLL, p->batch,
		       UNROLL);
		return EXIT_USAGE;
	}
	p->loop = LOOP_BPF_LOOP;
	return EXIT_OK;
}

/* The key walk's rules on nr-entries and order, then its batch fit. */
static int resolve_keys(const struct options *given, struct plan *p)
{
	const struct bench *b = p->bench;
	const struct key_walk *w = b->walk;
	int err;

	p->keys = OR(given->keys, (int)b->keys);
	if (p->keys == KEYS_PRANDOM && !(b->maps & MAP_LPM))
		p->keys = KEYS_RANDOM;	/* prandom is the LPM bench's --random */
	if (p->keys == KEYS_PRANDOM && op_works_to_end(b->op)) {
		mb_err("%s works through the keys in order, as the kernel bench does: drop --random",
		       b->name);
		return EXIT_USAGE;
	}
	if (p->keys == KEYS_COUNTER && !(b->maps & MAP_LPM)) {
		mb_err("--keys counter is the kernel LPM bench's key walk: for lpm-trie-* only, not %s",
		       b->name);
		return EXIT_USAGE;
	}
	if (p->prefix_mix.mixed && (p->keys == KEYS_COUNTER || p->keys == KEYS_PRANDOM)) {
		if (given->keys.given) {
			mb_err("--prefix-len with several lengths visits the prefixes in keys[], and "
			       "--keys %s makes keys in the program: use --keys seq or random",
			       keys_name(p->keys));
			return EXIT_USAGE;
		}
		p->keys = KEYS_SEQ;
	}
	p->seed = OR(given->seed, 1);
	if (given->zipf && !(w && w->draws)) {
		mb_err("--zipf skews keys that are drawn at random, and %s walks its keys in a "
		       "fixed order: use it with htab-lru-evict", b->name);
		return EXIT_USAGE;
	}
	p->zipf = given->zipf;
	if (!w)
		return EXIT_OK;
	if (w->draws && given->keys.given) {
		mb_err("%s draws its keys at random: drop --keys (--zipf skews the draws)", b->name);
		return EXIT_USAGE;
	}
	if (w->draws)
		p->keys = KEYS_DRAWN;
	if (w->pairs && p->producers % 2) {
		mb_err("%s adds on one producer and deletes on the next: -p must be even, not %d",
		       b->name, p->producers);
		return EXIT_USAGE;
	}
	if (w->fills_map && given->nr_entries.given && given->nr_entries.value != p->max_entries) {
		mb_err("%s fills the map: --nr-entries (%lld) must equal --max-entries (%ld) or be left out",
		       b->name, given->nr_entries.value, p->max_entries);
		return EXIT_USAGE;
	}
	if (op_works_to_end(b->op) && p->keys == KEYS_RANDOM) {
		mb_err("%s works through the keys in order, as the kernel bench does: drop --keys random",
		       b->name);
		return EXIT_USAGE;
	}
	if (w->kernel_order && p->keys == KEYS_RANDOM) {
		mb_err("%s visits its keys in the kernel bench's order: drop --keys random", b->name);
		return EXIT_USAGE;
	}
	if (w->starts_empty && OR(given->nr_entries, 0) > 0) {
		mb_err("%s starts from an empty map: drop --nr-entries", b->name);
		return EXIT_USAGE;
	}
	if (w->starts_empty)
		p->nr_entries = 0;
	if (w->fills_map)
		p->nr_entries = p->max_entries;
	if (p->nr_entries > p->max_entries && !(p->map && p->map->evicts)) {
		mb_err("--nr-entries (%ld) is larger than --max-entries (%ld), and %s maps do not "
		       "evict: raise --max-entries, or use --map lru, lru_percpu or lru_nocommon",
		       p->nr_entries, p->max_entries, p->map_name);
		return EXIT_USAGE;
	}
	err = w->fit(p);
	if (err || w->unbatched)
		return err;
	if (p->keys == KEYS_INDEX)	/* whole passes, as the kernel's */
		return index_keys_fit(p);
	return batch_loop_fit(p);
}

/* --hit-ratio: lookups of a hash map, whose visited keys come from keys[]
 * (absent ones put in place of some), not made from the loop index. */
static int resolve_hit_ratio(const struct options *given, struct plan *p)
{
	const struct bench *b = p->bench;

	p->hit_ratio = 1;
	if (given->hit_ratio < 0)
		return EXIT_OK;
	if (b->op != MB_OP_LOOKUP || (b->maps & MAP_LPM) || !b->walk || b->walk->draws) {
		mb_err("--hit-ratio is the share of hash-map lookups that find their key: for "
		       "htab-lookup or bpf-hashmap-lookup, not %s", b->name);
		return EXIT_USAGE;
	}
	if (p->keys == KEYS_INDEX) {
		mb_err("--hit-ratio puts absent keys among those %s visits, and --keys index makes "
		       "each key from its loop index: add --keys seq", b->name);
		return EXIT_USAGE;
	}
	p->hit_ratio = given->hit_ratio;
	return EXIT_OK;
}

/* Rounds' events per producer, for the families that run in rounds. */
static int resolve_count(const struct options *given, struct plan *p)
{
	const struct bench *b = p->bench;

	if (!b->family->round_reset) {
		if (given->count.given) {
			mb_err("--count is the events each of map_perf_test's tasks times: for "
			       "map-perf, not %s", b->name);
			return EXIT_USAGE;
		}
		return EXIT_OK;
	}
	p->count = OR(given->count, b->count);
	return EXIT_OK;
}

/* Every batch's time, for percentiles: mapbench's own rows record them; a
 * kernel bench's keep its harness as it is unless asked, or unless its
 * figure is over them. */
static int resolve_batch_times(const struct options *given, struct plan *p)
{
	const struct bench *b = p->bench;
	bool can = b->family->batch_times && !(b->walk && b->walk->unbatched);

	if ((OR(given->batch_times, 0) || given->machine_readable) && !can) {
		mb_err("%s: %s runs no batches whose times mapbench records: drop it",
		       given->machine_readable ? "--machine-readable" : "--batch-times on", b->name);
		return EXIT_USAGE;
	}
	if (given->machine_readable && !OR(given->batch_times, 1)) {
		mb_err("--machine-readable prints the batch times' figures: drop --batch-times off");
		return EXIT_USAGE;
	}
	p->batch_times = can && (given->machine_readable ||
				 OR(given->batch_times, !b->kernel || b->kernel->times_batches));
	return EXIT_OK;
}

/* --batch auto: only where the batch is the producers' own choice, not
 * bound to a key walk's slices, passes or range ends. */
static int resolve_batch_auto(const struct options *given, struct plan *p)
{
	const struct key_walk *w = p->bench->walk;

	if (!given->batch_auto && (given->batch.given || !p->bench->batch_auto))
		return EXIT_OK;
	if ((w && (w->unbatched || w->pairs || w->slices(p))) || p->keys == KEYS_INDEX ||
	    op_works_to_end(p->bench->op) || !p->bench->family->set_batch) {
		mb_err("--batch auto sizes the batch in the warmup, and %s's batch is bound to its "
		       "key walk (%s, keys %s): give --batch N", p->bench->name,
		       w ? w->name : "none", keys_name(p->keys));
		return EXIT_USAGE;
	}
	if (p->warmup < 1) {
		mb_err("--batch auto measures the first warmup second: give -w 1 or more%s",
		       given->batch_auto ? "" : ", or --batch N");
		return EXIT_USAGE;
	}
	p->batch_auto = true;
	return EXIT_OK;
}

static int resolve_trigger(const struct options *given, const struct host *host, struct plan *p)
{
	const struct bench *b = p->bench;

	if (given->trigger.given && b->trigger >= TRIGGER_CLOSE) {
		mb_err("%s runs no producer programs (%s): drop --trigger", b->name,
		       b->trigger == TRIGGER_CLOSE ? "its maps are freed by close()" : "it only creates maps");
		return EXIT_USAGE;
	}
	if (given->loop.given && b->loop == LOOP_NONE) {
		mb_err("%s runs no producer loop: drop --loop", b->name);
		return EXIT_USAGE;
	}
	p->trigger = OR(given->trigger, (int)b->trigger);
	/* asked for, a trigger is never swapped for another */
	p->trigger_fallback = !given->trigger.given && b->trigger_fallback ? b->trigger_fallback :
			      TRIGGER_NONE;
	p->loop = OR(given->loop, (int)b->loop);
	p->batch = OR(given->batch, p->trigger == TRIGGER_NIC ? UNROLL :
				    (int)row_batch(b, p->nr_entries));
	return trigger_plan(p, host);
}

/* What the options give the plan as they are: producers, timing, output. */
static void plan_start(const struct options *o, struct plan *p)
{
	memset(p, 0, sizeof(*p));
	p->bench = o->bench;
	p->producers = o->producers;
	memcpy(p->prod_cpus, o->prod_cpus, sizeof(p->prod_cpus));
	p->nr_prod_cpus = o->nr_prod_cpus;
	p->placement = o->placement;
	p->warmup = o->warmup;
	p->duration = o->duration;
	p->quiet = o->quiet;
	p->verbose = o->verbose;
	p->dry_run = o->dry_run;
	p->perf = o->perf;
	p->jit_symbols = o->jit_symbols;
	p->machine_readable = o->machine_readable;
	p->json_path = o->json_path;
	p->label = o->label;
	p->round = o->round;
	p->iface = o->iface;
	p->xdp_pass = o->xdp_pass;
	p->force = o->force;
	p->all = o->all;
	p->argc = o->argc;
	p->argv = o->argv;
}

/* Readers and writers of one map: producers [0, readers) run the row's op,
 * the rest its writer_op; -p, where given, is their sum. */
static int resolve_roles(const struct options *given, struct plan *p)
{
	const struct bench *b = p->bench;
	long long writers = OR(given->writers, 1), readers;

	if (!b->writer_op && (given->readers.given || given->writers.given)) {
		mb_err("--readers and --writers are for benchmarks that read and write one map "
		       "(htab-lookup-update, htab-lookup-delete), not %s", b->name);
		return EXIT_USAGE;
	}
	if (!b->writer_op)
		return EXIT_OK;
	readers = OR(given->readers, given->producers_given ? given->producers - writers : 1);
	if (readers < 1) {
		mb_err("-p %d leaves no readers beside %lld writers: raise -p or lower --writers",
		       given->producers, writers);
		return EXIT_USAGE;
	}
	if (given->producers_given && readers + writers != given->producers) {
		mb_err("-p %d is not --readers %lld plus --writers %lld: drop -p", given->producers,
		       readers, writers);
		return EXIT_USAGE;
	}
	if (readers + writers > MAX_PRODUCERS) {
		mb_err("--readers %lld and --writers %lld are more than %d producers: lower them",
		       readers, writers, MAX_PRODUCERS);
		return EXIT_USAGE;
	}
	p->producers = readers + writers;
	p->writers = writers;
	return EXIT_OK;
}

/* map_perf_test's shape: a task per online CPU, task i on the i-th, where
 * -p and the pinning options leave it to the row. */
static int resolve_tasks(const struct options *given, const struct host *host, struct plan *p)
{
	if (!p->bench->task_per_cpu)
		return EXIT_OK;
	if (!given->producers_given)
		p->producers = host->online_cpus < MAX_PRODUCERS ? host->online_cpus : MAX_PRODUCERS;
	if (p->producers > host->online_cpus) {
		mb_err("%s runs a task per CPU, each on its own: -p %d is more than the %d online CPUs",
		       p->bench->name, p->producers, host->online_cpus);
		return EXIT_USAGE;
	}
	if (p->nr_prod_cpus || p->placement != PLACE_NONE)
		return EXIT_OK;
	for (int i = 0; i < p->producers; i++)
		p->prod_cpus[p->nr_prod_cpus++] = host->online[i];
	return EXIT_OK;
}

int plan_resolve(const struct options *given, const struct host *host, struct plan *out)
{
	const struct bench *b = given->bench;
	int err;

	plan_start(given, out);
	if (b->single_producer && given->producers > 1) {
		mb_err("%s needs the map to itself: run it with -p 1", b->name);
		return EXIT_USAGE;
	}
	if (given->all && !b->family->takes_all) {
		mb_err("--all is for mem, not %s", b->name);
		return EXIT_USAGE;
	}
	err = resolve_roles(given, out) ?: resolve_tasks(given, host, out) ?: resolve_map(given, out) ?:
	      resolve_sizes(given, host, out) ?:
	      resolve_trigger(given, host, out) ?: resolve_keys(given, out) ?:
	      resolve_hit_ratio(given, out) ?: resolve_count(given, out) ?:
	      resolve_batch_times(given, out) ?:
	      resolve_batch_auto(given, out) ?:
	      cpu_plan(out, host);
	return err ?: b->family->check(out);
}

/* Its producers run batches of plan->batch operations: those over keys,
 * and those a family sizes itself (bpf-nop's loop). */
static bool batched(const struct bench *b)
{
	return b->walk || b->family->set_batch || b->family->fixed_batch;
}

/* params.prefix_lens: {"24": share, ...}. */
static json_t *prefix_mix_json(const struct prefix_mix *mix)
{
	json_t *o = json_object();
	char len[8];

	for (int i = 0; i <= PREFIX_MIX_MAX; i++)
		if (mix->weight[i]) {
			snprintf(len, sizeof(len), "%d", i);
			json_object_set_new(o, len, json_real(mix->weight[i]));
		}
	return o;
}

/* The mix prefix_mix_json() recorded, or none. */
static void prefix_mix_of(json_t *o, struct prefix_mix *mix)
{
	const char *len;
	json_t *share;

	memset(mix, 0, sizeof(*mix));
	json_object_foreach(o, len, share) {
		int i = atoi(len);

		if (i >= 0 && i <= PREFIX_MIX_MAX && json_number_value(share) > 0)
			mix->weight[i] = json_number_value(share), mix->mixed = true;
	}
}

json_t *plan_json(const struct plan *p)
{
	json_t *cpus = json_null(), *o;

	if (p->nr_prod_cpus) {
		cpus = json_array();
		for (int i = 0; i < p->producers; i++)
			json_array_append_new(cpus, json_integer(p->prod_cpus[i]));
	}
	o = json_pack("{s:s, s:b, s:b, s:i, s:i, s:I, s:I, s:o, s:s, s:I, s:i, s:o, s:i, s:i, s:i, s:I, s:s, s:s, s:s}",
		"map", p->map_name,
		"prealloc", p->prealloc != 0,
		"zero_seed", p->zero_seed > 0,
		"key_size", p->key_size,
		"value_size", p->value_size,
		"max_entries", (json_int_t)p->max_entries,
		"nr_entries", (json_int_t)p->nr_entries,
		"prefix_len", p->map && p->map->bit == MAP_LPM && !p->prefix_mix.mixed ?
			      json_integer(p->prefix_len) :
								   json_null(),
		"keys", keys_name(p->keys),
		"seed", (json_int_t)p->seed,
		"producers", p->producers,
		"prod_cpus", cpus,
		"warmup", p->warmup,
		"duration", p->duration,
		"batch", batched(p->bench) ? p->batch : 0,
		"key_set", (json_int_t)walk_key_set(p),
		"trigger", trigger_name(p->trigger),
		"loop", loop_name(p->loop),
		"key_walk", p->bench->walk ? p->bench->walk->name : "none");
	if (o && p->bench->walk && p->bench->walk->draws)
		json_object_set_new(o, "zipf", p->zipf ? json_real(p->zipf) : json_null());
	if (o && p->prefix_mix.mixed)
		json_object_set_new(o, "prefix_lens", prefix_mix_json(&p->prefix_mix));
	if (o && p->batch_auto)
		json_object_set_new(o, "batch_auto", json_true());
	if (o && p->batch_times)
		json_object_set_new(o, "batch_times", json_true());
	if (o && p->writers)
		json_object_set_new(o, "writers", json_integer(p->writers));
	if (o && p->count)
		json_object_set_new(o, "count", json_integer(p->count));
	if (o && p->hit_ratio < 1)
		json_object_set_new(o, "hit_ratio", json_real(p->hit_ratio));
	if (o && p->extra_map_flags)
		json_object_set_new(o, "extra_map_flags", json_integer(p->extra_map_flags));
	if (o && p->map_extra)
		json_object_set_new(o, "map_extra", json_integer(p->map_extra));
	if (o && p->placement != PLACE_NONE)
		json_object_set_new(o, "placement", json_string(placement_name(p->placement)));
	if (o && p->trigger == TRIGGER_NIC)
		json_object_update_new(o, json_pack("{s:s, s:s}", "iface", p->iface,
						    "xdp_action", p->xdp_pass ? "pass" : "drop"));
	return o;
}

/* The value in [0, n) that name_of() calls name, or -1. */
static int value_named(const char *name, const char *(*name_of)(int), int n)
{
	for (int i = 0; name && i < n; i++)
		if (!strcmp(name_of(i), name))
			return i;
	return -1;
}

static int param_named(json_t *params, const char *key, const char *(*name_of)(int), int n)
{
	return value_named(json_string_value(json_object_get(params, key)), name_of, n);
}

static long long int_field(json_t *params, const char *key, long long absent)
{
	json_t *v = json_object_get(params, key);

	return json_is_integer(v) ? json_integer_value(v) : absent;
}

/* A recorded number, given where the params have one. */
static struct maybe maybe_int(json_t *params, const char *key)
{
	json_t *v = json_object_get(params, key);

	return (struct maybe){ json_is_integer(v), json_is_integer(v) ? json_integer_value(v) : 0 };
}

/* A recorded name's value, given where the params have a known one. */
static struct maybe maybe_named(json_t *params, const char *key, const char *(*name_of)(int),
				int n)
{
	int v = param_named(params, key, name_of, n);

	return (struct maybe){ v >= 0, v };
}

/* The recorded params as options; the document stays loaded for the run,
 * since the plan points into its strings. */
static void given_from_params(json_t *pa, struct options *g)
{
	const char *map = json_string_value(json_object_get(pa, "map"));
	json_t *cpus = json_object_get(pa, "prod_cpus");
	int place = param_named(pa, "placement", placement_name, PLACE_SMT_PAIRS + 1);
	size_t i;
	json_t *c;

	g->all = map && !strcmp(map, "all");
	g->map_name = g->all ? NULL : map;
	GIVE(g->batch_times, json_is_true(json_object_get(pa, "batch_times")));
	g->batch_auto = json_is_true(json_object_get(pa, "batch_auto"));
	prefix_mix_of(json_object_get(pa, "prefix_lens"), &g->prefix_mix);
	if (json_is_boolean(json_object_get(pa, "prealloc")))
		GIVE(g->prealloc, json_is_true(json_object_get(pa, "prealloc")));
	if (json_is_true(json_object_get(pa, "zero_seed")))
		GIVE(g->zero_seed, 1);
	g->zipf = json_number_value(json_object_get(pa, "zipf"));
	if (json_is_number(json_object_get(pa, "hit_ratio")))
		g->hit_ratio = json_number_value(json_object_get(pa, "hit_ratio"));
	g->keys = maybe_named(pa, "keys", keys_name, KEYS_PRANDOM + 1);
	g->warmup = int_field(pa, "warmup", g->warmup);
	g->duration = int_field(pa, "duration", g->duration);
	if (batched(g->bench))
		g->batch = maybe_int(pa, "batch");
	/* the ones --trigger and --loop take: close and none are the rows' own */
	g->trigger = maybe_named(pa, "trigger", trigger_name, TRIGGER_CLOSE);
	if (g->bench->loop != LOOP_NONE)
		g->loop = maybe_named(pa, "loop", loop_name, LOOP_NONE);
	if (OR(g->trigger, -1) == TRIGGER_NIC) {
		g->iface = json_string_value(json_object_get(pa, "iface"));
		g->xdp_pass = !strcmp(json_string_value(json_object_get(pa, "xdp_action")) ?: "", "pass");
		return;	/* one producer slot per CPU, found again on this machine */
	}
	g->producers = int_field(pa, "producers", 1);
	g->producers_given = true;
	if (place > 0) {
		g->placement = place;
		return;
	}
	json_array_foreach(cpus, i, c)
		if (i < MAX_PRODUCERS)
			g->prod_cpus[g->nr_prod_cpus++] = json_integer_value(c);
}

int plan_from_result(const char *path, struct options *given, json_t **params_out)
{
	json_error_t e;
	json_t *doc = json_load_file(path, 0, &e), *params;
	const char *name;

	if (!doc) {
		mb_err("--from-result %s: not a result document (%s, line %d)", path, e.text, e.line);
		return EXIT_USAGE;
	}
	name = json_string_value(json_object_get(doc, "benchmark"));
	params = json_object_get(doc, "params");
	if (!name || !json_is_object(params)) {
		mb_err("--from-result %s: no benchmark and params in it: give a file ./bench --json wrote",
		       path);
		return EXIT_USAGE;
	}
	given->bench = bench_find(name, NULL);
	if (!given->bench) {
		mb_err("--from-result %s: this ./bench has no benchmark '%s' (./bench -l lists them)",
		       path, name);
		return EXIT_USAGE;
	}
	given_from_params(params, given);
	*params_out = params;
	return EXIT_OK;
}
