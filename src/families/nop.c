// SPDX-License-Identifier: GPL-2.0
/* The nop family: the selftests bench's bpf-nop (progs/nop.bpf.c), a
 * syscall program's empty may_goto loop run by BPF_PROG_TEST_RUN, a batch
 * a run, each batch's in-kernel time recorded. No map is under test. */
#include <errno.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "maps.h"
#include "nop.h"
#include "nop.skel.h"
#include "timed.h"

struct nop_state {
	struct timed_prog timed;	/* first: timed.h's functions read it */
	struct nop_bpf *skel;
};

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
	timed_prog_size(plan, st->skel->maps.batch_times, &st->skel->rodata->record_batches);
	err = nop_bpf__load(st->skel);
	if (err) {
		mb_err("loading the nop program failed: %s (it needs may_goto, Linux 6.9 or later)",
		       strerror(-err));
		return err == -EINVAL || err == -EOPNOTSUPP ? EXIT_UNSUPPORTED : EXIT_RUNTIME;
	}
	/* no map is under test: the one recorded is the program's global data
	 * (its loop bound and counters), as the kernel's bench has */
	err = map_record(st->skel->maps.bss, run);
	if (err)
		return err;
	return timed_prog_init(&st->timed, plan, st->skel->bss->cnt, &st->skel->bss->batch_iters,
			       st->skel->maps.batch_times);
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

static void nop_teardown(struct run *run)
{
	struct nop_state *st = run->priv;

	if (!st)
		return;
	timed_prog_free(&st->timed);
	nop_bpf__destroy(st->skel);
	free(st);
	run->priv = NULL;
}

const struct family nop_family = {
	.name = "nop",
	TIMED_PROG_FAMILY,
	.setup = nop_setup,
	.run = nop_run,
	.teardown = nop_teardown,
};
