// SPDX-License-Identifier: GPL-2.0
/* Driving a producer family's BPF object: load, prefill, start, fire, read. */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "batches.h"
#include "counters.h"
#include "keys.h"
#include "log.h"
#include "progs.h"

#define FILL_BATCH (1 << 16)

int progs_prepare(struct progs *p, struct run *run, struct bpf_object *obj)
{
	int err;

	memset(p, 0, sizeof(*p));
	p->obj = obj;
	p->keys = bpf_object__find_map_by_name(obj, "keys");
	bpf_map__set_max_entries(p->keys, walk_key_slots(run->plan));
	p->batch_times = bpf_object__find_map_by_name(obj, "batch_times");
	if (run->plan->batch_times)
		bpf_map__set_max_entries(p->batch_times, run->plan->producers * BATCH_RING);
	log_clear();
	err = trigger_prepare(&p->trig, obj, run);
	if (!err && !run->plan->bench->no_prefill && run->plan->nr_entries) {
		p->fill = bpf_object__find_program_by_name(obj, "fill");
		bpf_program__set_autoload(p->fill, true);
	}
	return err;
}

int progs_loaded(struct progs *p, struct run *run, int err, struct prod_ctl *ctl,
		 struct prod_counters *cnt)
{
	if (err)
		return trigger_explain_load_error(&p->trig, run, err);
	p->ctl = ctl;
	p->cnt = cnt;
	return EXIT_OK;
}

/* Insert keys[0..nr) with the fill program on producer slot 0, untimed. */
static int prefill(struct progs *p, const struct plan *plan)
{
	struct prod_ctl *c = &p->ctl[0], whole = { .lo = 0, .hi = plan->nr_entries };
	long nr = plan->nr_entries;
	__u64 errs;

	if (!nr)
		return EXIT_OK;
	if (plan->keys == KEYS_INDEX && keys_index_form(plan, &whole, 1))
		return EXIT_RUNTIME;	/* plan_resolve() checked the form: no memory */
	/* a run per chunk, each one pass over its keys (--keys index's rule) */
	for (long done = 0; done < nr; done += FILL_BATCH) {
		long hi = done + FILL_BATCH < nr ? done + FILL_BATCH : nr;
		int err;

		*c = (struct prod_ctl){ .op = MB_OP_FILL, .lo = done, .hi = hi, .cur = done,
					.batch = (hi - done + UNROLL - 1) / UNROLL * UNROLL,
					.id_first = whole.id_first + done * whole.id_step,
					.id_step = whole.id_step };
		err = xdp_test_run(p->fill, 0);

		if (err) {
			mb_err("prefill failed: BPF_PROG_TEST_RUN: %s", strerror(-err));
			return EXIT_RUNTIME;
		}
	}
	errs = counters_errors(p->cnt, 1);
	if (errs) {
		mb_err("prefill of %ld keys failed %llu times (%s)", nr, (unsigned long long)errs,
		       strerror(counters_first_errno(p->cnt, 1)));
		return EXIT_RUNTIME;
	}
	if (p->cnt[0].misses) {
		mb_err("prefill of %ld keys found the map full %llu times: raise --max-entries",
		       nr, (unsigned long long)p->cnt[0].misses);
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

int progs_fill(struct progs *p, const struct plan *plan, keys_loader load)
{
	int err = load(p->keys, plan, KEYS_FILL);

	if (!err && !plan->bench->no_prefill && (err = prefill(p, plan)))
		return err;
	if (!err && keys_visit_differs(plan))
		err = load(p->keys, plan, KEYS_VISIT);
	if (err) {
		mb_err("writing the keys to visit failed: %s", strerror(-err));
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

/* The batch rings, read-only in user space. */
static int map_ring(struct progs *p, const struct plan *plan)
{
	int err;

	if (!plan->batch_times)
		return EXIT_OK;
	err = batch_ring_map(&p->ring, bpf_map__fd(p->batch_times), plan->producers);
	if (err) {
		mb_err("mapping the batch times failed: %s", strerror(-err));
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

int progs_start(struct progs *p, struct run *run)
{
	int err = map_ring(p, run->plan);

	if (err)
		return err;
	memset(p->cnt, 0, sizeof(*p->cnt) * MAX_PRODUCERS);
	walk_assign(run->plan, p->ctl);
	if (run->plan->keys == KEYS_INDEX &&
	    keys_index_form(run->plan, p->ctl, run->plan->producers)) {
		mb_err("out of memory for the key ids");
		return EXIT_RUNTIME;
	}
	for (int i = 0; i < MAX_PRODUCERS; i++)
		p->ctl[i].xdp_action = run->plan->xdp_pass ? 2 /* XDP_PASS */ : 1 /* XDP_DROP */;
	return trigger_attach(&p->trig, run);
}

void progs_stop(struct progs *p)
{
	trigger_detach(&p->trig);
	batch_ring_unmap(&p->ring);
}

int progs_thread_init(struct run *run, int prod)
{
	struct progs *p = run->priv;

	return trigger_thread_init(&p->trig, prod);
}

int progs_run(struct run *run, int prod)
{
	struct progs *p = run->priv;

	return trigger_fire(&p->trig, prod);
}

void progs_measure(struct run *run, struct prod_counters *out)
{
	struct progs *p = run->priv;

	counters_snapshot(p->cnt, run->plan->producers, out);
}

void progs_set_batch(struct run *run, __u32 batch)
{
	struct progs *p = run->priv;

	for (int i = 0; i < run->plan->producers; i++)
		p->ctl[i].batch = batch;
}

long progs_batch_times(struct run *run, int prod, __u64 first, __u64 end, double *out)
{
	struct progs *p = run->priv;

	return batch_ring_read(&p->ring, prod, first, end, out);
}
