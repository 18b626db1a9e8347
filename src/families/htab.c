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
#include "cpu.h"
#include "free.h"
#include "maps.h"
#include "memory.h"
#include "peer.h"
#include "progs.h"


struct htab_state {
	struct progs progs;	/* first: the progs_* callbacks find it here */
	struct htab_bpf *skel;
	struct memcg cg;	/* htab-mem: where the map's memory is charged */
};

int htab_mem_max_entries(const struct host *host)
{
	int cpus = host->online_cpus;

	return cpus * 64 > 8192 ? cpus * 64 : 8192;
}

static int htab_check(const struct plan *plan)
{
	if (plan->key_size < 4 || plan->key_size > MAX_KEY_SIZE) {
		mb_err("--key-size must be from 4 to %d bytes, not %d", MAX_KEY_SIZE, plan->key_size);
		return EXIT_USAGE;
	}
	if (plan->max_entries > UINT32_MAX / 2) {
		mb_err("--max-entries must be below %u", UINT32_MAX / 2);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

static int resolve_map_type(const struct plan *plan, struct run *run)
{
	static char name[64];
	long type = map_kind_type(plan->map, name, sizeof(name));

	run->map_type_name = name;
	if (type < 0) {
		mb_err("this kernel (%s) has no %s", kernel_release(), name);
		return EXIT_UNSUPPORTED;
	}
	run->map_type = type;
	return EXIT_OK;
}

static void htab_key(const struct plan *plan, void *key, __u32 id)
{
	*(__u32 *)key = id;
}

static __u32 htab_map_flags(const struct plan *plan)
{
	return (plan->prealloc == 0 ? BPF_F_NO_PREALLOC : 0) |
	       (plan->zero_seed > 0 ? BPF_F_ZERO_SEED : 0) | plan->map->flags | plan->extra_map_flags;
}

/* A map as the configuration describes it, filled from user space with keys
 * [0, nr-entries): what the free and mem benchmarks measure. */
static int htab_new_filled_map(const struct plan *plan, struct run *run, const char *name,
			       int *fd)
{
	/* resolved once per run: a free benchmark creates a map every run */
	int err = run->map_type_name ? EXIT_OK : resolve_map_type(plan, run);
	char what[96];

	if (err)
		return err;
	run->map_flags = htab_map_flags(plan);
	snprintf(what, sizeof(what), "%s map (%s)", plan->map_name, run->map_type_name);
	return map_create_filled(&(struct map_spec){
		.name = name, .what = what, .type = run->map_type, .key_size = plan->key_size,
		.value_size = plan->value_size, .flags = run->map_flags,
		.max_entries = plan->max_entries, .n = plan->nr_entries,
		.value_buf = plan->map->percpu ?
			     ((plan->value_size + 7) & ~7) * libbpf_num_possible_cpus() :
			     plan->value_size,
		.plan = plan, .key = htab_key, .retries = &run->fill_retries }, fd);
}

/* The key bytes past the id as the kernel bench's program writes them,
 * word w = key_word(w), in each CPU's buffer and in the shared one. */
static int set_key_padding(struct htab_bpf *skel, const struct plan *plan, __u32 (*key_word)(int))
{
	int ncpu = libbpf_num_possible_cpus();
	/* per-CPU values are laid out 8-byte aligned, one per possible CPU */
	size_t stride = (bpf_map__value_size(skel->maps.scratch) + 7) & ~7;
	char *vals = calloc(ncpu, stride);
	__u32 zero = 0;
	int err;

	if (!vals)
		return -ENOMEM;
	for (int w = 1; w < plan->key_size / 4; w++) {
		for (int c = 0; c < ncpu; c++)
			((__u32 *)(vals + c * stride))[w] = key_word(w);
		((__u32 *)skel->bss->shared_key)[w] = key_word(w);
	}
	err = bpf_map__update_elem(skel->maps.scratch, &zero, sizeof(zero), vals, ncpu * stride,
				   BPF_ANY);
	free(vals);
	return err;
}

static void configure_maps(struct htab_bpf *skel, struct run *run)
{
	const struct plan *plan = run->plan;
	__u32 val_off = (plan->key_size + 7) & ~7;

	run->map_flags = htab_map_flags(plan);
	bpf_map__set_type(skel->maps.target, run->map_type);
	bpf_map__set_key_size(skel->maps.target, plan->key_size);
	bpf_map__set_value_size(skel->maps.target, plan->value_size);
	bpf_map__set_max_entries(skel->maps.target, plan->max_entries);
	bpf_map__set_map_flags(skel->maps.target, run->map_flags);
	bpf_map__set_value_size(skel->maps.scratch, val_off + plan->value_size);
	skel->rodata->val_off = val_off;
	skel->rodata->bench_op = plan->bench->op;
	skel->rodata->partner_op = walk_partner_op(plan);
	skel->rodata->op_at_run_time = plan->bench->kernel && plan->bench->kernel->op_at_run_time;
	skel->rodata->bench_tgid = getpid();
	skel->rodata->record_batches = plan->batch_times;
	skel->rodata->trigger_syscall = TRIGGER_SYSCALL;
	skel->rodata->key_shared = plan->bench->kernel && plan->bench->kernel->shared_key;
	skel->rodata->key_index = plan->keys == KEYS_INDEX;
}

/* The keys array holds the walk's key order, which the kernel bench
 * computes in its program: its charge is left out of the cgroup figures. */
static void count_own_maps(struct htab_state *st, struct run *run)
{
	long long keys = map_memlock(bpf_map__fd(st->progs.keys));

	run->own_bytes = keys > 0 ? keys : 0;
}

static int open_and_load(struct htab_state *st, struct run *run)
{
	int err;

	st->skel = htab_bpf__open();
	if (!st->skel) {
		mb_err("opening the BPF object failed: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	configure_maps(st->skel, run);
	err = progs_prepare(&st->progs, run, st->skel->obj);
	return err ?: progs_loaded(&st->progs, run, htab_bpf__load(st->skel),
				   st->skel->bss->ctl, st->skel->bss->cnt);
}

static int htab_setup(struct run *run)
{
	const struct kernel_bench *kernel = run->plan->bench->kernel;
	struct htab_state *st = calloc(1, sizeof(*st));
	int err;

	if (!st)
		return EXIT_RUNTIME;
	run->priv = st;
	err = resolve_map_type(run->plan, run);
	if (err)
		return err;
	if (run->plan->bench->track_mem && memcg_enter(&st->cg) && !run->plan->quiet)
		printf("No memory cgroup to use: charged memory is left out\n");
	err = open_and_load(st, run);
	if (err == EXIT_FALLBACK) {
		trigger_fall_back(run);
		htab_bpf__destroy(st->skel);
		err = open_and_load(st, run);
	}
	if (err)
		return err;
	err = map_read_back_flags(bpf_map__fd(st->skel->maps.target), run);
	if (err)
		return err;
	if (kernel && kernel->key_word &&
	    (err = set_key_padding(st->skel, run->plan, kernel->key_word))) {
		mb_err("writing the key padding failed: %s", strerror(-err));
		return EXIT_RUNTIME;
	}
	err = progs_fill(&st->progs, run->plan, keys_load_ids);
	if (run->plan->bench->track_mem)
		count_own_maps(st, run);
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

static void htab_memory(struct run *run, long long *memlock, long long *charged,
			long long *peak)
{
	struct htab_state *st = run->priv;
	long long now = memcg_usage(&st->cg), most = memcg_peak(&st->cg);

	*memlock = map_memlock(bpf_map__fd(st->skel->maps.target));
	*charged = now < 0 ? -1 : now - run->own_bytes;
	*peak = most < 0 ? -1 : most - run->own_bytes;
}

static long long htab_entries(struct run *run)
{
	struct htab_state *st = run->priv;
	int fd = bpf_map__fd(st->skel->maps.target);
	char key[MAX_KEY_SIZE], next[MAX_KEY_SIZE];
	long long n = 0;
	void *prev = NULL;

	while (!bpf_map_get_next_key(fd, prev, next)) {
		memcpy(key, next, sizeof(key));
		prev = key;
		n++;
	}
	return errno == ENOENT ? n : -1;
}

const struct family htab_family = {
	.name = "htab",
	.check = htab_check,
	.setup = htab_setup,
	.run = progs_run,
	.measure = progs_measure,
	.batch_times = progs_batch_times,
	.set_batch = progs_set_batch,
	.teardown = htab_teardown,
	.thread_init = progs_thread_init,
	.new_filled_map = htab_new_filled_map,
	.fills = HASH_MAPS,
	.memory = htab_memory,
	.entries = htab_entries,
	.packet_driven = true,
};
