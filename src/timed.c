// SPDX-License-Identifier: GPL-2.0
/* A program that times its own batches: its counters, its bound and its
 * ring of batch times, for the families built on one (timed.h). */
#include <string.h>
#include <bpf/libbpf.h>
#include "counters.h"
#include "timed.h"

int timed_prog_check(const struct plan *plan)
{
	const struct bench *b = plan->bench;

	if (plan->trigger != (int)b->trigger || plan->loop != (int)b->loop) {
		mb_err("%s runs the kernel bench's program and its may_goto loop: drop --trigger "
		       "and --loop", b->name);
		return EXIT_USAGE;
	}
	if (plan->key_size != b->key_size || plan->value_size != b->value_size ||
	    plan->max_entries != b->max_entries || plan->nr_entries != b->nr_entries ||
	    plan->extra_map_flags) {
		mb_err("%s's maps are the kernel bench's: drop the map options", b->name);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

void timed_prog_size(const struct plan *plan, struct bpf_map *ring, bool *record_batches)
{
	*record_batches = plan->batch_times;
	if (plan->batch_times)
		bpf_map__set_max_entries(ring, plan->producers * BATCH_RING);
}

int timed_prog_init(struct timed_prog *t, const struct plan *plan,
		    const struct prod_counters *cnt, volatile __u32 *batch_iters,
		    const struct bpf_map *ring)
{
	int err;

	t->cnt = cnt;
	t->batch_iters = batch_iters;
	*batch_iters = plan->batch;
	err = plan->batch_times ? batch_ring_map(&t->ring, bpf_map__fd(ring), plan->producers) : 0;
	if (err) {
		mb_err("mapping the batch times failed: %s", strerror(-err));
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

void timed_prog_free(struct timed_prog *t)
{
	batch_ring_unmap(&t->ring);
}

void timed_prog_measure(struct run *run, struct prod_counters *out)
{
	const struct timed_prog *t = run->priv;

	counters_snapshot(t->cnt, run->plan->producers, out);
}

long timed_prog_batch_times(struct run *run, int prod, __u64 first, __u64 end, double *out)
{
	const struct timed_prog *t = run->priv;

	return batch_ring_read(&t->ring, prod, first, end, out);
}

void timed_prog_set_batch(struct run *run, __u32 batch)
{
	struct timed_prog *t = run->priv;

	*t->batch_iters = batch;
}
