/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MAPBENCH_PRODUCER_H
#define MAPBENCH_PRODUCER_H
#include <pthread.h>
#include <stdatomic.h>
#include "bench.h"

struct producers {
	struct run *run;
	pthread_t threads[MAX_PRODUCERS];
	int started;
	atomic_bool stop;
	atomic_int failed;	/* first failing producer's exit status, or 0 */
};

/* Start cfg->producers threads, each pinned (if asked) and running batches. */
int producers_start(struct producers *p, struct run *run);
/* Stop and join; returns the first producer failure (exit status) or 0. */
int producers_stop(struct producers *p);

#endif
