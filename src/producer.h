/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MAPBENCH_PRODUCER_H
#define MAPBENCH_PRODUCER_H
#include <pthread.h>
#include <stdatomic.h>
#include "bench.h"

/* An adding and a deleting producer taking turns, as the kernel's htab-mem
 * add_del_on_diff_cpu does with a barrier: the deleter runs a batch only
 * after the adder's, and the adder its next only after the deleter's. */
struct turn {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	int next;		/* 0: the adder (even producer), 1: the deleter */
};

struct producers {
	struct run *run;
	pthread_t threads[MAX_PRODUCERS];
	struct turn turns[MAX_PRODUCERS / 2];
	bool take_turns;
	int started;
	atomic_bool stop;
	atomic_int failed;	/* first failing producer's exit status, or 0 */
};

/* Start cfg->producers threads, each pinned (if asked) and running batches. */
int producers_start(struct producers *p, struct run *run);
/* Stop and join; returns the first producer failure (exit status) or 0. */
int producers_stop(struct producers *p);

#endif
