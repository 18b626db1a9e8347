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
#include "probe.h"
#include "progs.h"

#define LPM_DATA_MAX 256	/* the kernel's LPM_DATA_SIZE_MAX */
#define LPM_DEFAULT_ENTRIES 10000

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

static int lpm_validate(struct config *cfg)
{
	const char *name = cfg->bench->name;
	int bits = cfg->key_size * 8;

	if (cfg->map_name && strcmp(cfg->map_name, "lpm_trie")) {
		mb_err("%s runs on an LPM trie: drop --map %s", name, cfg->map_name);
		return EXIT_USAGE;
	}
	cfg->map_name = "lpm_trie";
	if (cfg->value_size < 0)
		cfg->value_size = 4;	/* the kernel bench's u32 value */
	if (cfg->key_size < 4 || cfg->key_size > LPM_DATA_MAX) {
		mb_err("--key-size is the address length in bytes (4 for IPv4, 16 for IPv6), from 4 to %d",
		       LPM_DATA_MAX);
		return EXIT_USAGE;
	}
	if (cfg->prefix_len < 0)
		cfg->prefix_len = bits;
	if (cfg->prefix_len < 1 || cfg->prefix_len > bits) {
		mb_err("--prefix-len must be from 1 to %d for %d-byte keys, not %d", bits,
		       cfg->key_size, cfg->prefix_len);
		return EXIT_USAGE;
	}
	if (cfg->prealloc == 1) {
		mb_err("LPM tries are never preallocated: drop --prealloc");
		return EXIT_USAGE;
	}
	if (cfg->nr_entries < 0)
		cfg->nr_entries = cfg->max_entries > 0 ? cfg->max_entries : LPM_DEFAULT_ENTRIES;
	if (cfg->nr_entries == 0) {
		mb_err("%s needs --nr-entries of at least 1", name);
		return EXIT_USAGE;
	}
	/* The id's low bytes come first in the address: a prefix keeps ids
	 * apart up to its whole bytes. */
	if (cfg->prefix_len < 32 && cfg->nr_entries > (1L << cfg->prefix_len / 8 * 8)) {
		mb_err("--nr-entries %ld needs more distinct prefixes than --prefix-len %d keeps apart (%ld: the id is a host-order u32, whole bytes count); raise --prefix-len",
		       cfg->nr_entries, cfg->prefix_len, 1L << cfg->prefix_len / 8 * 8);
		return EXIT_USAGE;
	}
	if (cfg->max_entries < 0)
		cfg->max_entries = cfg->nr_entries;
	return layout_validate(cfg);
}

void lpm_key(void *key, int key_size, int plen, __u32 id)
{
	__u8 *data = (__u8 *)key + sizeof(__u32);

	*(__u32 *)key = plen;
	memset(data, 0, key_size);
	memcpy(data, &id, key_size < 4 ? key_size : 4);
}

/* keys[] as whole trie keys in visiting order. */
static int load_keys(struct bpf_map *keys, const struct config *cfg, enum key_order order)
{
	size_t size = sizeof(__u32) + cfg->key_size;
	long n = cfg->max_entries;
	__u32 *ids = malloc(n * sizeof(*ids));
	char *buf = malloc(n * size);
	int err = -ENOMEM;

	if (ids && buf) {
		keys_ids(cfg, ids, order);
		for (long i = 0; i < n; i++)
			lpm_key(buf + i * size, cfg->key_size, cfg->prefix_len, ids[i]);
		err = keys_load(keys, buf, size, n);
	}
	free(ids);
	free(buf);
	return err;
}

static void stored_prefix(const struct config *cfg, void *key, __u32 id)
{
	lpm_key(key, cfg->key_size, cfg->prefix_len, id);
}

/* A trie as the configuration describes it, filled from user space: what
 * the free and mem benchmarks measure. */
static int lpm_new_filled_map(struct run *run, const char *name, int *fd)
{
	const struct config *cfg = run->cfg;

	set_map_type(run);
	return map_create_filled(&(struct map_spec){
		.name = name, .what = "LPM trie", .type = BPF_MAP_TYPE_LPM_TRIE,
		.key_size = sizeof(__u32) + cfg->key_size, .value_size = cfg->value_size,
		.flags = BPF_F_NO_PREALLOC, .max_entries = cfg->max_entries, .n = cfg->nr_entries,
		.value_buf = cfg->value_size, .cfg = cfg, .key = stored_prefix }, fd);
}

static int lpm_setup(struct run *run)
{
	struct config *cfg = run->cfg;
	struct lpm_state *st = calloc(1, sizeof(*st));
	size_t key_size = sizeof(__u32) + cfg->key_size;
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
	bpf_map__set_value_size(st->skel->maps.trie, cfg->value_size);
	bpf_map__set_max_entries(st->skel->maps.trie, cfg->max_entries);
	bpf_map__set_value_size(st->skel->maps.scratch, cfg->value_size);
	st->skel->rodata->bench_tgid = getpid();
	err = progs_prepare(&st->progs, run, st->skel->obj);
	bpf_map__set_value_size(st->progs.keys, key_size);
	if (!err)
		err = progs_loaded(&st->progs, run, lpm_bpf__load(st->skel),
				   st->skel->bss->ctl, st->skel->bss->cnt);
	if (!err)
		err = progs_fill(&st->progs, cfg, load_keys);
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
	.validate = lpm_validate,
	.setup = lpm_setup,
	.run = progs_run,
	.measure = progs_measure,
	.teardown = lpm_teardown,
	.thread_init = progs_thread_init,
	.new_filled_map = lpm_new_filled_map,
};
