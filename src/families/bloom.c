// SPDX-License-Identifier: GPL-2.0
/* The bloom filter family (progs/bloom.bpf.c): a bloom filter, the array of
 * the values it holds and, for the hashmap rows, a hash map keyed by the
 * same values, filled from user space before the first run; producers are
 * threads calling getpgid, which runs the program (fentry, or the tracepoint
 * where fentry is refused). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gsl/gsl_rng.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bloom.h"
#include "bloom.skel.h"
#include "maps.h"
#include "progs.h"

#define BLOOM_MAX_HASHES 15	/* the kernel's: map_extra's low 4 bits */

struct bloom_state {
	struct progs progs;	/* first: the progs_* callbacks find its trigger and counters */
	struct bloom_bpf *skel;
};

/* Each value is a hashmap key too (the kernel ties the two sizes), and
 * every value the array holds must be possible in value_size bytes. */
static int bloom_check(const struct plan *plan)
{
	if (plan->value_size < 2 || plan->value_size > 256) {
		mb_err("--value_size must be from 2 to 256 bytes, as the kernel's bloom bench takes "
		       "it, not %d", plan->value_size);
		return EXIT_USAGE;
	}
	if (plan->key_size) {
		mb_err("%s keys its hashmap by the value itself: drop --key-size (--value_size sets "
		       "both)", plan->bench->name);
		return EXIT_USAGE;
	}
	if (plan->value_size < 8 && plan->nr_entries > 1L << (8 * plan->value_size)) {
		mb_err("--nr_entries %ld: %d-byte values have only %ld distinct ones", plan->nr_entries,
		       plan->value_size, 1L << (8 * plan->value_size));
		return EXIT_USAGE;
	}
	if (plan->nr_entries < 1 || plan->max_entries != plan->nr_entries) {
		mb_err("%s sizes every map to --nr_entries (1 or more): drop --max-entries",
		       plan->bench->name);
		return EXIT_USAGE;
	}
	if (plan->map_extra < 1 || plan->map_extra > BLOOM_MAX_HASHES) {
		mb_err("--nr_hash_funcs must be from 1 to %d, not %d", BLOOM_MAX_HASHES,
		       plan->map_extra);
		return EXIT_USAGE;
	}
	if (plan->batch != row_batch(plan->bench, plan->nr_entries)) {
		if (plan->bench->batch == BATCH_NR_ENTRIES)
			mb_err("%s's run is the kernel's, a walk of every value: drop --batch",
			       plan->bench->name);
		else
			mb_err("%s's run is the kernel's, %d probes: drop --batch", plan->bench->name,
			       plan->bench->batch);
		return EXIT_USAGE;
	}
	if (plan->keys != (int)plan->bench->keys) {
		mb_err("%s's values are drawn from --seed, as the kernel's from getrandom: drop --keys",
		       plan->bench->name);
		return EXIT_USAGE;
	}
	if (plan->trigger != TRIGGER_FENTRY && plan->trigger != TRIGGER_TP) {
		mb_err("%s runs from getpgid, as the kernel's: --trigger fentry or tp",
		       plan->bench->name);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

static void size_maps(struct bloom_bpf *skel, const struct plan *plan)
{
	__u32 seed = plan->zero_seed > 0 ? BPF_F_ZERO_SEED : 0;

	bpf_map__set_max_entries(skel->maps.values, plan->nr_entries);
	bpf_map__set_value_size(skel->maps.values, plan->value_size);
	bpf_map__set_max_entries(skel->maps.bloom, plan->nr_entries);
	bpf_map__set_value_size(skel->maps.bloom, plan->value_size);
	bpf_map__set_map_extra(skel->maps.bloom, plan->map_extra);
	bpf_map__set_map_flags(skel->maps.bloom, seed);
	bpf_map__set_max_entries(skel->maps.hashmap, plan->nr_entries);
	bpf_map__set_key_size(skel->maps.hashmap, plan->value_size);
	bpf_map__set_value_size(skel->maps.hashmap, plan->value_size);
	/* the hashmap rows' map under test: --no-prealloc and --map_flags are its */
	bpf_map__set_map_flags(skel->maps.hashmap, seed | plan->extra_map_flags |
			       (plan->prealloc ? 0 : BPF_F_NO_PREALLOC));
}

static int open_and_load(struct bloom_state *st, struct run *run)
{
	const struct plan *plan = run->plan;
	bool filtered = plan->bench->family_op == BLOOM_PROBE_FILTERED;
	int err;

	st->skel = bloom_bpf__open();
	if (!st->skel) {
		mb_err("opening the BPF object failed: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	size_maps(st->skel, plan);
	st->skel->rodata->bloom_op = filtered ? BLOOM_PROBE : plan->bench->family_op;
	st->skel->rodata->use_bloom = filtered;
	st->skel->rodata->bench_tgid = getpid();
	st->skel->bss->value_size = plan->value_size;
	err = trigger_prepare(&st->progs.trig, st->skel->obj, run);
	if (err)
		return err;
	err = bloom_bpf__load(st->skel);
	return err ? trigger_explain_load_error(&st->progs.trig, run, err) : EXIT_OK;
}

/* The row's maps filled from --seed (the kernel's from getrandom; seeded, two
 * builds measure the same values): bloom-lookup and -update's array and
 * filter with the same values; the hashmap rows' hashmap with distinct ones
 * (each its own key), and the filter with them where it is in front. Then
 * the probes' random bytes. */
static int fill(struct bloom_state *st, const struct plan *plan)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	bool filtered = plan->bench->family_op == BLOOM_PROBE_FILTERED;
	bool probes = filtered || plan->bench->family_op == BLOOM_PROBE;
	int values = bpf_map__fd(st->skel->maps.values), bloom = bpf_map__fd(st->skel->maps.bloom);
	int hashmap = bpf_map__fd(st->skel->maps.hashmap);
	unsigned char val[256];
	int err = 0;

	if (!rng)
		return EXIT_RUNTIME;
	gsl_rng_set(rng, plan->seed);
	for (__u32 i = 0; i < plan->nr_entries && !err; i++) {
		do {
			for (int b = 0; b < plan->value_size; b++)
				val[b] = gsl_rng_uniform_int(rng, 256);
			err = probes && bpf_map_update_elem(hashmap, val, val, BPF_NOEXIST) ? -errno : 0;
		} while (err == -EEXIST);
		if (!err && !probes && bpf_map_update_elem(values, &i, val, BPF_ANY))
			err = -errno;
		if (!err && (!probes || filtered) &&
		    bpf_map_update_elem(bloom, NULL, val, BPF_ANY))
			err = -errno;
	}
	for (size_t b = 0; b < sizeof(st->skel->bss->rand_vals); b++)
		st->skel->bss->rand_vals[b] = gsl_rng_uniform_int(rng, 256);
	gsl_rng_free(rng);
	if (err) {
		mb_err("filling the maps failed: %s", strerror(-err));
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

static int bloom_setup(struct run *run)
{
	struct bloom_state *st = calloc(1, sizeof(*st));
	bool probes;
	int err;

	if (!st)
		return EXIT_RUNTIME;
	run->priv = st;
	err = open_and_load(st, run);
	if (err == EXIT_FALLBACK) {
		trigger_fall_back(run);
		bloom_bpf__destroy(st->skel);
		err = open_and_load(st, run);
	}
	if (err)
		return err;
	probes = run->plan->bench->family_op >= BLOOM_PROBE;
	run->loop = probes ? "for" : "bpf_for_each_map_elem";
	run->timing = "bpf_ktime_get_ns around each run's walk or probes";
	err = map_record(probes ? st->skel->maps.hashmap : st->skel->maps.bloom, run) ?:
	      fill(st, run->plan);
	if (err)
		return err;
	st->progs.cnt = st->skel->bss->cnt;
	memset(st->skel->bss->cnt, 0, sizeof(st->skel->bss->cnt));
	return trigger_attach(&st->progs.trig, run);
}

static void bloom_teardown(struct run *run)
{
	struct bloom_state *st = run->priv;

	if (!st)
		return;
	progs_stop(&st->progs);
	bloom_bpf__destroy(st->skel);
	free(st);
	run->priv = NULL;
}

const struct family bloom_family = {
	.name = "bloom",
	.check = bloom_check,
	.setup = bloom_setup,
	.run = progs_run,
	.measure = progs_measure,
	.teardown = bloom_teardown,
	.thread_init = progs_thread_init,
	.fixed_batch = true,
};
