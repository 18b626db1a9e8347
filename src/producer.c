// SPDX-License-Identifier: GPL-2.0
/* Producer threads: each runs its benchmark's batches back to back. */
#include <errno.h>
#include <string.h>
#include "cpu.h"
#include "keys.h"
#include "perf.h"
#include "producer.h"

struct producer_arg {
	struct producers *p;
	int id;
};

static struct producer_arg args[MAX_PRODUCERS];

/* The adder's last crossing: the deleter wakes, sees quit and ends. */
static void quit_pair(struct turn *t)
{
	atomic_store(&t->quit, true);
	pthread_barrier_wait(&t->barrier);
}

/* Set stop and wake the producers waiting for a round to see it (under
 * the lock, so none is between its check and its wait). */
static void set_stop(struct producers *p)
{
	atomic_store(&p->stop, true);
	if (!p->run->plan->bench->family->round_reset)
		return;
	pthread_mutex_lock(&p->rounds.lock);
	pthread_cond_broadcast(&p->rounds.next);
	pthread_mutex_unlock(&p->rounds.lock);
}

/* Stop the run; the first failure keeps its status and the line the
 * failing thread's mb_err printed (read after the threads are joined). */
static void fail(struct producers *p, int status)
{
	int none = 0;

	if (atomic_compare_exchange_strong(&p->failed, &none, status))
		snprintf(p->reason, sizeof(p->reason), "%s", mb_last_error());
	set_stop(p);
}

/* One batch of producer id; a failure stops the run (a deleter goes on
 * taking its turns until its adder quits). */
static void run_batch(struct producers *p, int id)
{
	int err = p->run->plan->bench->family->run(p->run, id);

	if (err < 0)
		mb_err("producer %d: running a batch failed: %s", id, strerror(-err));
	if (err)
		fail(p, err < 0 ? EXIT_RUNTIME : err);
}

static bool stopped(struct producers *p)
{
	return atomic_load_explicit(&p->stop, memory_order_relaxed);
}

static void adder_loop(struct producers *p, int id)
{
	struct turn *t = &p->turns[id / 2];

	while (!stopped(p)) {
		run_batch(p, id);
		pthread_barrier_wait(&t->barrier);	/* the deleter's turn */
		pthread_barrier_wait(&t->barrier);	/* it is done */
	}
	quit_pair(t);
}

static void deleter_loop(struct producers *p, int id)
{
	struct turn *t = &p->turns[id / 2];

	for (;;) {
		pthread_barrier_wait(&t->barrier);
		if (atomic_load(&t->quit))
			break;
		run_batch(p, id);
		pthread_barrier_wait(&t->barrier);
	}
}

/* Wait for every producer to end its round; the last to arrive resets
 * the maps (family->round_reset) and opens the next. False: the run
 * stops (a producer that stops never arrives, and stop wakes the rest). */
static bool next_round(struct producers *p)
{
	struct rounds *r = &p->rounds;
	int err = 0;

	pthread_mutex_lock(&r->lock);
	if (++r->arrived == p->run->plan->producers) {
		r->arrived = 0;
		if (!stopped(p))
			err = p->run->plan->bench->family->round_reset(p->run);
		r->gen++;
		pthread_cond_broadcast(&r->next);
	} else {
		unsigned int gen = r->gen;

		while (r->gen == gen && !stopped(p))
			pthread_cond_wait(&r->next, &r->lock);
	}
	pthread_mutex_unlock(&r->lock);
	if (err)
		fail(p, err);
	return !stopped(p);
}

static void *producer_main(void *opaque)
{
	struct producer_arg *a = opaque;
	struct producers *p = a->p;
	struct run *run = p->run;
	const struct family *f = run->plan->bench->family;
	bool deleter = p->take_turns && a->id % 2;
	int err;

	if (run->plan->nr_prod_cpus) {
		err = cpu_pin_self(run->plan->prod_cpus[a->id]);
		if (err) {
			mb_err("pinning producer %d to CPU %d failed: %s", a->id,
			       run->plan->prod_cpus[a->id], strerror(-err));
			fail(p, EXIT_RUNTIME);
		}
	}
	if (!stopped(p) && f->thread_init && f->thread_init(run, a->id)) {
		mb_err("producer %d could not register with the BPF programs", a->id);
		fail(p, EXIT_RUNTIME);
	}
	if (run->perf)
		perf_open_thread(run->perf, a->id);
	if (deleter)
		deleter_loop(p, a->id);
	else if (p->take_turns)
		adder_loop(p, a->id);
	else if (f->round_reset)
		while (next_round(p))
			run_batch(p, a->id);
	else
		while (!stopped(p))
			run_batch(p, a->id);
	return NULL;
}

/* Start producer i; false (the run stopped) if the thread cannot start. */
static bool start_thread(struct producers *p, int i)
{
	args[i] = (struct producer_arg){ p, i };
	if (pthread_create(&p->threads[i], NULL, producer_main, &args[i])) {
		mb_err("starting producer thread %d failed", i);
		fail(p, EXIT_RUNTIME);
		return false;
	}
	p->running[i] = true;
	return true;
}

int producers_start(struct producers *p, struct run *run)
{
	int n = run->plan->trigger == TRIGGER_NIC ? 0 : run->plan->producers;
	bool ok = true;

	memset(p, 0, sizeof(*p));
	p->run = run;
	p->take_turns = run->plan->bench->walk && run->plan->bench->walk->pairs;
	for (int i = 0; p->take_turns && i < run->plan->producers / 2; i++)
		pthread_barrier_init(&p->turns[i].barrier, NULL, 2);
	pthread_mutex_init(&p->rounds.lock, NULL);
	pthread_cond_init(&p->rounds.next, NULL);
	/* --trigger nic: packets run the batches; no threads to start. A pair's
	 * deleter starts first: an adder without one would wait for ever. */
	for (int i = 0; ok && i < n; i++)
		if (!p->take_turns || i % 2)
			ok = start_thread(p, i);
	for (int i = 0; ok && p->take_turns && i < n; i += 2)
		ok = start_thread(p, i);
	for (int i = 1; p->take_turns && i < n; i += 2)
		if (p->running[i] && !p->running[i - 1])
			quit_pair(&p->turns[i / 2]);	/* its adder did not start */
	return ok ? EXIT_OK : EXIT_RUNTIME;
}

int producers_stop(struct producers *p)
{
	set_stop(p);
	for (int i = 0; i < MAX_PRODUCERS; i++)
		if (p->running[i])
			pthread_join(p->threads[i], NULL);
	for (int i = 0; p->take_turns && i < p->run->plan->producers / 2; i++)
		pthread_barrier_destroy(&p->turns[i].barrier);
	pthread_mutex_destroy(&p->rounds.lock);
	pthread_cond_destroy(&p->rounds.next);
	memset(p->running, 0, sizeof(p->running));
	return atomic_load(&p->failed);
}
