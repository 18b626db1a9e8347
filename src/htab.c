// SPDX-License-Identifier: GPL-2.0
/* The hash-map family: hash, per-CPU hash, LRU, LRU per-CPU and rhtab maps
 * driven by progs/htab.bpf.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "htab.h"
#include "htab.skel.h"
#include "keys.h"
#include "log.h"
#include "probe.h"
#include "free.h"
#include "memory.h"
#include "progs.h"

#define MAX_KEY_SIZE 512	/* the kernel's MAX_BPF_STACK limit for hash keys */

struct htab_state {
	struct progs progs;	/* first: the progs_* callbacks find it here */
	struct htab_bpf *skel;
	struct memcg cg;	/* htab-mem: where the map's memory is charged */
};

static const struct { const char *name, *suffix; bool lru, rhtab, percpu; } map_kinds[] = {
	{ "htab", "HASH" },
	{ "percpu", "PERCPU_HASH", .percpu = true },
	{ "lru", "LRU_HASH", .lru = true },
	{ "lru_percpu", "LRU_PERCPU_HASH", .lru = true, .percpu = true },
	{ "rhtab", "RHASH", .rhtab = true },
};

static int map_kind(const char *name)
{
	for (size_t i = 0; i < sizeof(map_kinds) / sizeof(*map_kinds); i++)
		if (!strcmp(map_kinds[i].name, name))
			return i;
	return -1;
}

static const char *htab_map_suffix(const char *map_name)
{
	int k = map_kind(map_name);

	return k < 0 ? NULL : map_kinds[k].suffix;
}

static int htab_validate(struct config *cfg)
{
	int k;

	if (!cfg->map_name)
		cfg->map_name = "htab";
	if (cfg->value_size < 0)
		cfg->value_size = 8;
	/* htab-mem keeps the kernel bench's defaults: max(8192, 64 x CPUs)
	 * entries, no prealloc. */
	if (cfg->max_entries < 0)
		cfg->max_entries = cfg->bench->track_mem ? htab_mem_max_entries() : 1000;
	if (cfg->prealloc < 0 && cfg->bench->track_mem && strncmp(cfg->map_name, "lru", 3))
		cfg->prealloc = 0;
	if (cfg->prefix_len >= 0) {
		mb_err("--prefix-len is for LPM trie benchmarks, not %s", cfg->bench->name);
		return EXIT_USAGE;
	}
	k = map_kind(cfg->map_name);

	if (k < 0) {
		mb_err("unknown map '%s' for %s: use htab, percpu, lru, lru_percpu or rhtab",
		       cfg->map_name, cfg->bench->name);
		return EXIT_USAGE;
	}
	if (cfg->key_size < 4 || cfg->key_size > MAX_KEY_SIZE) {
		mb_err("--key-size must be from 4 to %d bytes, not %d", MAX_KEY_SIZE, cfg->key_size);
		return EXIT_USAGE;
	}
	if (map_kinds[k].lru && cfg->prealloc == 0) {
		mb_err("LRU maps are always preallocated: drop --no-prealloc");
		return EXIT_USAGE;
	}
	if (map_kinds[k].rhtab) {
		if (cfg->prealloc == 1) {
			mb_err("rhtab maps cannot be preallocated (they need BPF_F_NO_PREALLOC): drop --prealloc");
			return EXIT_USAGE;
		}
		cfg->prealloc = 0;
	}
	if (cfg->max_entries > UINT32_MAX / 2) {
		mb_err("--max-entries must be below %u", UINT32_MAX / 2);
		return EXIT_USAGE;
	}
	return layout_validate(cfg);
}

static int resolve_map_type(struct run *run)
{
	const char *suffix = htab_map_suffix(run->cfg->map_name);
	static char name[64];
	long type = kernel_map_type(suffix);

	snprintf(name, sizeof(name), "BPF_MAP_TYPE_%s", suffix);
	run->map_type_name = name;
	if (type < 0) {
		mb_err("this kernel (%s) has no %s", kernel_release(), name);
		return EXIT_UNSUPPORTED;
	}
	run->map_type = type;
	return EXIT_OK;
}

static void htab_key(const struct config *cfg, void *key, __u32 id)
{
	*(__u32 *)key = id;
}

/* A map as the configuration describes it, filled from user space with keys
 * [0, nr-entries): what the free and mem benchmarks measure. */
static int htab_new_filled_map(struct run *run, const char *name, int *fd)
{
	const struct config *cfg = run->cfg;
	bool percpu = map_kinds[map_kind(cfg->map_name)].percpu;
	int err = run->map_type_name ? EXIT_OK : resolve_map_type(run);
	char what[96];

	if (err)
		return err;
	run->map_flags = cfg->prealloc == 0 ? BPF_F_NO_PREALLOC : 0;
	snprintf(what, sizeof(what), "%s map (%s)", cfg->map_name, run->map_type_name);
	return map_create_filled(&(struct map_spec){
		.name = name, .what = what, .type = run->map_type, .key_size = cfg->key_size,
		.value_size = cfg->value_size, .flags = run->map_flags,
		.max_entries = cfg->max_entries, .n = cfg->nr_entries,
		.value_buf = percpu ? ((cfg->value_size + 7) & ~7) * libbpf_num_possible_cpus()
				    : cfg->value_size,
		.cfg = cfg, .key = htab_key }, fd);
}

/* bpf-hashmap-lookup's key bytes past the id: word i is i x 2654435761. */
static int set_key_padding(struct htab_bpf *skel, const struct config *cfg)
{
	int ncpu = libbpf_num_possible_cpus();
	/* per-CPU values are laid out 8-byte aligned, one per possible CPU */
	size_t stride = (bpf_map__value_size(skel->maps.scratch) + 7) & ~7;
	char *vals = calloc(ncpu, stride);
	__u32 zero = 0;
	int err;

	if (!vals)
		return -ENOMEM;
	for (int c = 0; c < ncpu; c++)
		for (int w = 1; w < cfg->key_size / 4; w++)
			((__u32 *)(vals + c * stride))[w] = 2654435761u * w;
	err = bpf_map__update_elem(skel->maps.scratch, &zero, sizeof(zero), vals, ncpu * stride,
				   BPF_ANY);
	free(vals);
	return err;
}

static void configure_maps(struct htab_bpf *skel, struct run *run)
{
	const struct config *cfg = run->cfg;
	__u32 val_off = (cfg->key_size + 7) & ~7;

	run->map_flags = cfg->prealloc == 0 ? BPF_F_NO_PREALLOC : 0;
	bpf_map__set_type(skel->maps.target, run->map_type);
	bpf_map__set_key_size(skel->maps.target, cfg->key_size);
	bpf_map__set_value_size(skel->maps.target, cfg->value_size);
	bpf_map__set_max_entries(skel->maps.target, cfg->max_entries);
	bpf_map__set_map_flags(skel->maps.target, run->map_flags);
	bpf_map__set_value_size(skel->maps.scratch, val_off + cfg->value_size);
	skel->rodata->val_off = val_off;
	skel->rodata->bench_tgid = getpid();
}

static int htab_setup(struct run *run)
{
	struct htab_state *st = calloc(1, sizeof(*st));
	int err;

	if (!st)
		return EXIT_RUNTIME;
	run->priv = st;
	err = resolve_map_type(run);
	if (err)
		return err;
	if (run->cfg->bench->track_mem) {
		char name[32];

		snprintf(name, sizeof(name), "mapbench-%d", getpid());
		if (memcg_enter(&st->cg, name) && !run->cfg->quiet)
			printf("No memory cgroup to use: charged memory is left out\n");
	}
	st->skel = htab_bpf__open();
	if (!st->skel) {
		mb_err("opening the BPF object failed: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	configure_maps(st->skel, run);
	err = progs_prepare(&st->progs, run, st->skel->obj);
	if (!err)
		err = progs_loaded(&st->progs, run, htab_bpf__load(st->skel),
				   st->skel->bss->ctl, st->skel->bss->cnt);
	if (err)
		return err;
	if (run->cfg->bench->layout == LAYOUT_FROM_FIRST &&
	    (err = set_key_padding(st->skel, run->cfg))) {
		mb_err("writing the key padding failed: %s", strerror(-err));
		return EXIT_RUNTIME;
	}
	err = progs_fill(&st->progs, run->cfg, keys_load_ids);
	return err ?: progs_start(&st->progs, run);
}

static void htab_teardown(struct run *run)
{
	struct htab_state *st = run->priv;

	if (!st)
		return;
	progs_stop(&st->progs);
	htab_bpf__destroy(st->skel);
	memcg_leave(&st->cg);
	free(st);
	run->priv = NULL;
}

static void htab_memory(struct run *run, long long *memlock, long long *charged)
{
	struct htab_state *st = run->priv;

	*memlock = map_memlock(bpf_map__fd(st->skel->maps.target));
	*charged = memcg_usage(&st->cg);
}

const struct family htab_family = {
	.name = "htab",
	.validate = htab_validate,
	.setup = htab_setup,
	.run = progs_run,
	.measure = progs_measure,
	.teardown = htab_teardown,
	.thread_init = progs_thread_init,
	.new_filled_map = htab_new_filled_map,
	.memory = htab_memory,
};
