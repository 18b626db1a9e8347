/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MAPBENCH_PRODUCER_H
#define MAPBENCH_PRODUCER_H
#include <pthread.h>
#include <stdatomic.h>
#include "bench.h"

/* An adding and a deleting producer taking turns as the kernel's htab-mem
 * add_del_on_diff_cpu does: the adder runs a batch, then both cross the
 * pair's barrier twice, the deleter running its batch between the two.
 * The adder decides when to stop (quit), so neither is left waiting. */
struct turn {
	pthread_barrier_t barrier;
	atomic_bool quit;
};

/* Rounds (family->round_reset): the producers still running meet between
 * rounds; the last to arrive resets and opens the next (gen). */
struct rounds {
	pthread_mutex_t lock;
	pthread_cond_t next;
	int arrived;
	unsigned int gen;
};

struct producers {
	struct run *run;
	pthread_t threads[MAX_PRODUCERS];
	bool running[MAX_PRODUCERS];	/* threads[i] was started */
	struct turn turns[MAX_PRODUCERS / 2];
	bool take_turns;
	struct rounds rounds;
	atomic_bool stop;
	atomic_int failed;	/* first failing producer's exit status, or 0 */
	char reason[512];	/* its error line, written by that thread only */
};

/* Start cfg->producers threads, each pinned (if asked) and running batches. */
int producers_start(struct producers *p, struct run *run);
/* Stop and join; returns the first producer failure (exit status, its
 * line in p->reason) or 0. */
int producers_stop(struct producers *p);

#endif
