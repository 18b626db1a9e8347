/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MAPBENCH_PROGS_H
#define MAPBENCH_PROGS_H
#include "batches.h"
#include "bench.h"
#include "keys.h"
#include "trigger.h"

/* What every producer family's skeleton has (progs/batch.bpf.h): the run
 * state a family keeps first in its run->priv. */
struct progs {
	struct bpf_object *obj;
	struct bpf_map *keys;
	struct prod_ctl *ctl;		/* the skeleton's mmapped .bss */
	struct prod_counters *cnt;
	struct trigger_state trig;
	struct bpf_program *fill;	/* the prefill's program, or NULL (no prefill) */
	struct bpf_map *batch_times;
	struct batch_ring ring;		/* batch_times mapped, where recorded */
};

/* Before load: record the object, pick programs (the trigger's, and the
 * prefill's where the benchmark has one), set the keys array size. */
int progs_prepare(struct progs *p, struct run *run, struct bpf_object *obj);
/* After the skeleton's load: its result, explained in one line on failure. */
int progs_loaded(struct progs *p, struct run *run, int err, struct prod_ctl *ctl,
		 struct prod_counters *cnt);
/* Writes keys[] for its use; 0 or -errno. */
typedef int (*keys_loader)(struct bpf_map *keys, const struct plan *plan, enum key_use use);
/* keys[] in id order, the prefill of keys[0..nr-entries) (unless the
 * benchmark starts empty), then keys[] as the producers visit them: --keys
 * random walks memory that was filled in id order. An exit status. */
int progs_fill(struct progs *p, const struct plan *plan, keys_loader load);
/* Zero the counters, give each producer its keys, attach the trigger. */
int progs_start(struct progs *p, struct run *run);
void progs_stop(struct progs *p);

/* Family callbacks for families whose run->priv starts with struct progs. */
int progs_thread_init(struct run *run, int prod);
int progs_run(struct run *run, int prod);
void progs_measure(struct run *run, struct prod_counters *out);
void progs_set_batch(struct run *run, __u32 batch);
long progs_batch_times(struct run *run, int prod, __u64 first, __u64 end, double *out);

#endif
