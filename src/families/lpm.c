// SPDX-License-Identifier: GPL-2.0
/* The LPM trie family, driven by progs/lpm.bpf.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "free.h"
#include "keys.h"
#include "lpm.h"
#include "lpm.skel.h"
#include "maps.h"
#include "probe.h"
#include "peer.h"
#include "prefixes.h"
#include "progs.h"

#define LPM_DATA_MAX 256	/* the kernel's LPM_DATA_SIZE_MAX */

struct lpm_state {
	struct progs progs;	/* first: the progs_* callbacks find it here */
	struct lpm_bpf *skel;
};

static void set_map_type(struct run *run)
{
	run->map_type = BPF_MAP_TYPE_LPM_TRIE;
	run->map_type_name = "BPF_MAP_TYPE_LPM_TRIE";
	run->map_flags = BPF_F_NO_PREALLOC;
}

/* Several lengths: as long as the key, room for each length's prefixes
 * (of every keys[] slot: load_keys() makes a prefix for each), and
 * producers that visit keys[] (not the free benchmark's whole maps). */
static int check_mix(const struct plan *plan)
{
	long prefixes = walk_key_slots(plan);
	int over = prefix_mix_overfull(&plan->prefix_mix, prefixes);

	if (plan->prefix_len > plan->key_size * 8) {
		mb_err("--prefix-len %d is longer than the %d-byte key: raise --key-size",
		       plan->prefix_len, plan->key_size);
		return EXIT_USAGE;
	}
	if (over >= 0) {
		mb_err("--nr-entries or --max-entries, the larger (%ld), gives /%d more prefixes than "
		       "the %ld there are: lower its share or the entries", prefixes, over,
		       1L << over);
		return EXIT_USAGE;
	}
	if (!plan->bench->walk || plan->bench->walk->unbatched) {
		mb_err("--prefix-len with several lengths is for the benchmarks whose producers visit "
		       "prefixes (lpm-trie-lookup, -update, -insert, -delete), not %s",
		       plan->bench->name);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

static int lpm_check(const struct plan *plan)
{
	int bits = plan->key_size * 8;

	if (plan->key_size < 4 || plan->key_size > LPM_DATA_MAX) {
		mb_err("--key-size is the address length in bytes (4 for IPv4, 16 for IPv6), from 4 to %d",
		       LPM_DATA_MAX);
		return EXIT_USAGE;
	}
	if (plan->prefix_mix.mixed)
		return check_mix(plan);
	if (plan->prefix_len < 1 || plan->prefix_len > bits) {
		mb_err("--prefix-len must be from 1 to %d for %d-byte keys, not %d", bits,
		       plan->key_size, plan->prefix_len);
		return EXIT_USAGE;
	}
	if (plan->nr_entries == 0) {
		mb_err("%s needs --nr-entries of at least 1", plan->bench->name);
		return EXIT_USAGE;
	}
	/* The id's low bytes come first in the address: a prefix keeps ids
	 * apart up to its whole bytes. */
	if (plan->prefix_len < 32 && plan->nr_entries > (1L << plan->prefix_len / 8 * 8)) {
		mb_err("--nr-entries %ld needs more distinct prefixes than --prefix-len %d keeps apart (%ld: the id is a host-order u32, whole bytes count); raise --prefix-len",
		       plan->nr_entries, plan->prefix_len, 1L << plan->prefix_len / 8 * 8);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

void lpm_key(void *key, int key_size, int plen, __u32 id)
{
	__u8 *data = (__u8 *)key + sizeof(__u32);

	*(__u32 *)key = plen;
	memset(data, 0, key_size);
	memcpy(data, &id, key_size < 4 ? key_size : 4);
}

/* keys[] as whole trie keys in visiting order; with several prefix
 * lengths the prefixes of a table, lookups visiting addresses under them. */
static int load_keys(struct bpf_map *keys, const struct plan *plan, enum key_use use)
{
	size_t size = sizeof(__u32) + plan->key_size;
	long n = plan->max_entries, slots = walk_key_slots(plan);
	__u32 *ids = malloc(slots * sizeof(*ids));
	char *buf = malloc(n * size);
	bool address = use == KEYS_VISIT && plan->bench->op == MB_OP_LOOKUP;
	struct prefix_table table = { 0 };
	int err = -ENOMEM;

	if (ids && buf && (!plan->prefix_mix.mixed ||
			   !prefix_table_make(&table, &plan->prefix_mix, slots, plan->seed))) {
		err = keys_ids(plan, ids, use);
		for (long i = 0; !err && i < n; i++)
			if (plan->prefix_mix.mixed)
				prefix_key(&table, ids[i], plan->key_size, address, buf + i * size);
			else
				lpm_key(buf + i * size, plan->key_size, plan->prefix_len, ids[i]);
		err = err ?: keys_load(keys, buf, size, n);
	}
	prefix_table_free(&table);
	free(ids);
	free(buf);
	return err;
}

static void stored_prefix(const struct plan *plan, void *key, __u32 id)
{
	lpm_key(key, plan->key_size, plan->prefix_len, id);
}

/* A trie as the configuration describes it, filled from user space: what
 * the free and mem benchmarks measure. */
static int lpm_new_filled_map(const struct plan *plan, struct run *run, const char *name,
			      int *fd)
{
	set_map_type(run);
	return map_create_filled(&(struct map_spec){
		.name = name, .what = "LPM trie", .type = BPF_MAP_TYPE_LPM_TRIE,
		.key_size = sizeof(__u32) + plan->key_size, .value_size = plan->value_size,
		.flags = BPF_F_NO_PREALLOC, .max_entries = plan->max_entries, .n = plan->nr_entries,
		.value_buf = plan->value_size, .plan = plan, .key = stored_prefix,
		.retries = &run->fill_retries }, fd);
}

static int lpm_setup(struct run *run)
{
	const struct plan *plan = run->plan;
	struct lpm_state *st = calloc(1, sizeof(*st));
	size_t key_size = sizeof(__u32) + plan->key_size;
	int err;

	if (!st)
		return EXIT_RUNTIME;
	run->priv = st;
	set_map_type(run);
	st->skel = lpm_bpf__open();
	if (!st->skel) {
		mb_err("opening the BPF object failed: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	bpf_map__set_key_size(st->skel->maps.trie, key_size);
	bpf_map__set_value_size(st->skel->maps.trie, plan->value_size);
	bpf_map__set_max_entries(st->skel->maps.trie, plan->max_entries);
	bpf_map__set_value_size(st->skel->maps.scratch, plan->value_size);
	st->skel->rodata->bench_op = plan->bench->op;
	st->skel->rodata->partner_op = walk_partner_op(plan);
	st->skel->rodata->op_at_run_time = plan->bench->kernel &&
					   plan->bench->kernel->op_at_run_time;
	st->skel->rodata->bench_tgid = getpid();
	st->skel->rodata->record_batches = plan->batch_times;
	st->skel->rodata->trigger_syscall = TRIGGER_SYSCALL;
	st->skel->rodata->key_counter = plan->keys == KEYS_COUNTER || plan->keys == KEYS_PRANDOM;
	st->skel->rodata->keys_drawn = plan->keys == KEYS_PRANDOM;
	st->skel->rodata->counter_nr = plan->nr_entries;
	st->skel->rodata->counter_plen = plan->prefix_len;
	bpf_map__set_value_size(st->skel->maps.keybuf, key_size);
	err = progs_prepare(&st->progs, run, st->skel->obj);
	bpf_map__set_value_size(st->progs.keys, key_size);
	if (!err)
		err = progs_loaded(&st->progs, run, lpm_bpf__load(st->skel),
				   st->skel->bss->ctl, st->skel->bss->cnt);
	if (!err)
		err = progs_fill(&st->progs, plan, load_keys);
	return err ?: progs_start(&st->progs, run);
}

static void lpm_teardown(struct run *run)
{
	struct lpm_state *st = run->priv;

	if (!st)
		return;
	progs_stop(&st->progs);
	lpm_bpf__destroy(st->skel);
	free(st);
	run->priv = NULL;
}

const struct family lpm_family = {
	.name = "lpm",
	.check = lpm_check,
	.setup = lpm_setup,
	.run = progs_run,
	.measure = progs_measure,
	.batch_times = progs_batch_times,
	.set_batch = progs_set_batch,
	.teardown = lpm_teardown,
	.thread_init = progs_thread_init,
	.new_filled_map = lpm_new_filled_map,
	.fills = MAP_LPM,
	.packet_driven = true,
};
