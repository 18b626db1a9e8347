// SPDX-License-Identifier: GPL-2.0
/* The nop family: the selftests bench's bpf-nop (progs/nop.bpf.c), a
 * syscall program's empty may_goto loop run by BPF_PROG_TEST_RUN, a batch
 * a run, each batch's in-kernel time recorded. No map is under test. */
#include <errno.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "batches.h"
#include "counters.h"
#include "maps.h"
#include "nop.h"
#include "nop.skel.h"

struct nop_state {
	struct nop_bpf *skel;
	struct batch_ring ring;
};

/* Its program and loop are the kernel's; it has no map to size. */
static int nop_check(const struct plan *plan)
{
	const struct bench *b = plan->bench;

	if (plan->trigger != (int)b->trigger || plan->loop != (int)b->loop) {
		mb_err("%s runs the kernel's syscall program and its may_goto loop: drop --trigger "
		       "and --loop", b->name);
		return EXIT_USAGE;
	}
	if (plan->key_size != b->key_size || plan->value_size != b->value_size ||
	    plan->max_entries != b->max_entries || plan->nr_entries || plan->extra_map_flags) {
		mb_err("%s has no map under test: drop the map options", b->name);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

static int nop_setup(struct run *run)
{
	const struct plan *plan = run->plan;
	struct nop_state *st = calloc(1, sizeof(*st));
	int err;

	if (!st)
		return EXIT_RUNTIME;
	run->priv = st;
	run->loop = "can_loop";
	run->trigger_point = "BPF_PROG_TEST_RUN";
	run->timing = "bpf_ktime_get_ns around each batch's loop";
	st->skel = nop_bpf__open();
	if (!st->skel) {
		mb_err("opening the BPF object failed: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	st->skel->rodata->record_batches = plan->batch_times;
	if (plan->batch_times)
		bpf_map__set_max_entries(st->skel->maps.batch_times, plan->producers * BATCH_RING);
	err = nop_bpf__load(st->skel);
	if (err) {
		mb_err("loading the nop program failed: %s (it needs may_goto, Linux 6.9 or later)",
		       strerror(-err));
		return err == -EINVAL || err == -EOPNOTSUPP ? EXIT_UNSUPPORTED : EXIT_RUNTIME;
	}
	st->skel->bss->batch_iters = plan->batch;
	/* no map is under test: the one recorded is the program's global data
	 * (its loop bound and counters), as the kernel's bench has */
	err = map_record(st->skel->maps.bss, run);
	if (err)
		return err;
	err = plan->batch_times ?
	      batch_ring_map(&st->ring, bpf_map__fd(st->skel->maps.batch_times), plan->producers) : 0;
	if (err) {
		mb_err("mapping the batch times failed: %s", strerror(-err));
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

/* One batch: a run of the program with the producer as its argument. */
static int nop_run(struct run *run, int prod)
{
	struct nop_state *st = run->priv;
	__u32 args = prod;
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &args, .ctx_size_in = sizeof(args));

	if (bpf_prog_test_run_opts(bpf_program__fd(st->skel->progs.nop), &opts))
		return -errno;
	return opts.retval ? -EINVAL : 0;
}

static void nop_measure(struct run *run, struct prod_counters *out)
{
	struct nop_state *st = run->priv;

	counters_snapshot(st->skel->bss->cnt, run->plan->producers, out);
}

static long nop_batch_times(struct run *run, int prod, __u64 first, __u64 end, double *out)
{
	struct nop_state *st = run->priv;

	return batch_ring_read(&st->ring, prod, first, end, out);
}

/* One bound for every producer, as the kernel's one batch_iters. */
static void nop_set_batch(struct run *run, __u32 batch)
{
	struct nop_state *st = run->priv;

	st->skel->bss->batch_iters = batch;
}

static void nop_teardown(struct run *run)
{
	struct nop_state *st = run->priv;

	if (!st)
		return;
	batch_ring_unmap(&st->ring);
	nop_bpf__destroy(st->skel);
	free(st);
	run->priv = NULL;
}

const struct family nop_family = {
	.name = "nop",
	.check = nop_check,
	.setup = nop_setup,
	.run = nop_run,
	.measure = nop_measure,
	.batch_times = nop_batch_times,
	.set_batch = nop_set_batch,
	.teardown = nop_teardown,
};
