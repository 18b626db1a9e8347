/* SPDX-License-Identifier: GPL-2.0 */
/* Families whose one program times its own batches, as the kernel's
 * bench_bpf_timing.c programs do (bpf-nop, xdp-lb): a loop bounded by the
 * program's global batch_iters, each batch's time and count in its ring
 * (progs/common.bpf.h). A family's state starts with a struct timed_prog,
 * and its check, measure, batch_times and set_batch are these
 * (TIMED_PROG_FAMILY in its struct family). */
#ifndef MAPBENCH_TIMED_H
#define MAPBENCH_TIMED_H
#include <stdbool.h>
#include "batches.h"
#include "bench.h"

struct bpf_map;

struct timed_prog {
	const struct prod_counters *cnt;	/* the program's cnt[] */
	volatile __u32 *batch_iters;
	struct batch_ring ring;
};

/* Its program, loop and maps are the kernel bench's: no --trigger, --loop
 * or map option. */
int timed_prog_check(const struct plan *plan);
/* Before load: the ring sized for the plan's producers where it records
 * batch times (*record_batches: the program's read-only switch). */
void timed_prog_size(const struct plan *plan, struct bpf_map *ring, bool *record_batches);
/* After load: the program's counters and bound, set to the plan's batch,
 * and its ring mapped. An exit status. */
int timed_prog_init(struct timed_prog *t, const struct plan *plan,
		    const struct prod_counters *cnt, volatile __u32 *batch_iters,
		    const struct bpf_map *ring);
void timed_prog_free(struct timed_prog *t);

void timed_prog_measure(struct run *run, struct prod_counters *out);
long timed_prog_batch_times(struct run *run, int prod, __u64 first, __u64 end, double *out);
/* One bound for every producer, as the kernel's one batch_iters. */
void timed_prog_set_batch(struct run *run, __u32 batch);

#define TIMED_PROG_FAMILY .check = timed_prog_check, .measure = timed_prog_measure, \
	.batch_times = timed_prog_batch_times, .set_batch = timed_prog_set_batch

#endif
