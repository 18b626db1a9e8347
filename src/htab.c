// SPDX-License-Identifier: GPL-2.0
/* The hash-map family: hash, per-CPU hash, LRU, LRU per-CPU and rhtab maps
 * driven by progs/htab.bpf.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "counters.h"
#include "htab.h"
#include "htab.skel.h"
#include "keys.h"
#include "log.h"
#include "probe.h"
#include "trigger.h"

#define MAX_KEY_SIZE 512	/* the kernel's MAX_BPF_STACK limit for hash keys */
#define FILL_BATCH (1 << 16)

struct htab_state {
	struct htab_bpf *skel;
	struct trigger_state trig;
};

static const struct { const char *name, *suffix; bool lru, rhtab; } map_kinds[] = {
	{ "htab", "HASH" },
	{ "percpu", "PERCPU_HASH" },
	{ "lru", "LRU_HASH", .lru = true },
	{ "lru_percpu", "LRU_PERCPU_HASH", .lru = true },
	{ "rhtab", "RHASH", .rhtab = true },
};

static int map_kind(const char *name)
{
	for (size_t i = 0; i < sizeof(map_kinds) / sizeof(*map_kinds); i++)
		if (!strcmp(map_kinds[i].name, name))
			return i;
	return -1;
}

const char *htab_map_suffix(const char *map_name)
{
	int k = map_kind(map_name);

	return k < 0 ? NULL : map_kinds[k].suffix;
}

static int htab_validate(struct config *cfg)
{
	int k = map_kind(cfg->map_name);

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
	bpf_map__set_max_entries(skel->maps.perm, cfg->max_entries);
	skel->rodata->val_off = val_off;
	skel->rodata->bench_tgid = getpid();
}

/* Insert keys [0, nr) through the XDP program on producer slot 0. */
static int prefill(struct htab_state *st, const struct config *cfg)
{
	struct prod_ctl *c = &st->skel->bss->ctl[0];
	long nr = cfg->nr_entries;
	__u64 errs;

	if (!nr)
		return EXIT_OK;
	*c = (struct prod_ctl){ .op = MB_OP_FILL, .lo = 0, .hi = nr };
	c->batch = nr < FILL_BATCH ? (nr + UNROLL - 1) / UNROLL * UNROLL : FILL_BATCH;
	for (long done = 0; done < nr; done += c->batch) {
		int err = trigger_xdp(&st->trig, 0);

		if (err) {
			mb_err("prefill failed: BPF_PROG_TEST_RUN: %s", strerror(-err));
			return EXIT_RUNTIME;
		}
	}
	errs = counters_errors(st->skel->bss->cnt, 1);
	if (errs) {
		mb_err("prefill of %ld keys failed %llu times (%s)", nr, (unsigned long long)errs,
		       strerror(counters_first_errno(st->skel->bss->cnt, 1)));
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

static int htab_setup(struct run *run)
{
	struct config *cfg = run->cfg;
	struct htab_state *st = calloc(1, sizeof(*st));
	int err;

	if (!st)
		return EXIT_RUNTIME;
	run->priv = st;
	err = resolve_map_type(run);
	if (err)
		return err;
	st->skel = htab_bpf__open();
	if (!st->skel) {
		mb_err("opening the BPF object failed: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	configure_maps(st->skel, run);
	err = trigger_prepare(&st->trig, st->skel->obj, run);
	if (err)
		return err;
	log_clear();
	err = htab_bpf__load(st->skel);
	if (err)
		return trigger_explain_load_error(&st->trig, run, err);
	err = keys_load(st->skel->maps.perm, cfg);
	if (err) {
		mb_err("writing the key permutation failed: %s", strerror(-err));
		return EXIT_RUNTIME;
	}
	err = prefill(st, cfg);
	if (err)
		return err;
	memset(st->skel->bss->cnt, 0, sizeof(st->skel->bss->cnt));
	layout_assign(cfg, st->skel->bss->ctl);
	run->batch = cfg->batch;
	run->key_set = layout_key_set(cfg);
	return trigger_attach(&st->trig);
}

static int htab_thread_init(struct run *run, int prod)
{
	struct htab_state *st = run->priv;

	return trigger_thread_init(&st->trig, prod);
}

static int htab_run(struct run *run, int prod)
{
	struct htab_state *st = run->priv;

	return trigger_fire(&st->trig, prod);
}

static void htab_measure(struct run *run, struct prod_counters *out)
{
	struct htab_state *st = run->priv;

	counters_snapshot(st->skel->bss->cnt, run->cfg->producers, out);
}

static void htab_teardown(struct run *run)
{
	struct htab_state *st = run->priv;

	if (!st)
		return;
	trigger_detach(&st->trig);
	htab_bpf__destroy(st->skel);
	free(st);
	run->priv = NULL;
}

const struct family htab_family = {
	.name = "htab",
	.validate = htab_validate,
	.setup = htab_setup,
	.run = htab_run,
	.measure = htab_measure,
	.teardown = htab_teardown,
	.thread_init = htab_thread_init,
};
