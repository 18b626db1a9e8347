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

static void wake_all(struct producers *p)
{
	for (int i = 0; p->take_turns && i < p->run->plan->producers / 2; i++) {
		pthread_mutex_lock(&p->turns[i].lock);
		pthread_cond_broadcast(&p->turns[i].changed);
		pthread_mutex_unlock(&p->turns[i].lock);
	}
}

static void fail(struct producers *p, int status)
{
	int none = 0;

	atomic_compare_exchange_strong(&p->failed, &none, status);
	atomic_store(&p->stop, true);
	wake_all(p);
}

/* Wait for producer id's turn; false once the run stops. */
static bool wait_turn(struct producers *p, int id)
{
	struct turn *t = &p->turns[id / 2];
	bool go;

	pthread_mutex_lock(&t->lock);
	while (t->next != id % 2 && !atomic_load(&p->stop))
		pthread_cond_wait(&t->changed, &t->lock);
	go = !atomic_load(&p->stop);
	pthread_mutex_unlock(&t->lock);
	return go;
}

static void pass_turn(struct producers *p, int id)
{
	struct turn *t = &p->turns[id / 2];

	pthread_mutex_lock(&t->lock);
	t->next = !(id % 2);
	pthread_cond_signal(&t->changed);
	pthread_mutex_unlock(&t->lock);
}

static void *producer_main(void *opaque)
{
	struct producer_arg *a = opaque;
	struct producers *p = a->p;
	struct run *run = p->run;
	const struct family *f = run->plan->bench->family;
	int err;

	if (run->plan->nr_prod_cpus) {
		err = cpu_pin_self(run->plan->prod_cpus[a->id]);
		if (err) {
			mb_err("pinning producer %d to CPU %d failed: %s", a->id,
			       run->plan->prod_cpus[a->id], strerror(-err));
			fail(p, EXIT_RUNTIME);
			return NULL;
		}
	}
	if (f->thread_init && f->thread_init(run, a->id)) {
		mb_err("producer %d could not register with the BPF programs", a->id);
		fail(p, EXIT_RUNTIME);
		return NULL;
	}
	if (run->perf)
		perf_open_thread(run->perf, a->id);
	while (!atomic_load_explicit(&p->stop, memory_order_relaxed)) {
		if (p->take_turns && !wait_turn(p, a->id))
			break;
		err = f->run(run, a->id);
		if (err) {
			mb_err("producer %d: running a batch failed: %s", a->id, strerror(-err));
			fail(p, EXIT_RUNTIME);
			break;
		}
		if (p->take_turns)
			pass_turn(p, a->id);
	}
	return NULL;
}

int producers_start(struct producers *p, struct run *run)
{
	memset(p, 0, sizeof(*p));
	p->run = run;
	p->take_turns = run->plan->bench->walk && run->plan->bench->walk->pairs;
	for (int i = 0; p->take_turns && i < run->plan->producers / 2; i++) {
		pthread_mutex_init(&p->turns[i].lock, NULL);
		pthread_cond_init(&p->turns[i].changed, NULL);
	}
	/* --trigger nic: packets run the batches; no threads to start. */
	for (int i = 0; run->plan->trigger != TRIGGER_NIC && i < run->plan->producers; i++) {
		args[i] = (struct producer_arg){ p, i };
		if (pthread_create(&p->threads[i], NULL, producer_main, &args[i])) {
			mb_err("starting producer thread %d failed", i);
			fail(p, EXIT_RUNTIME);
			return EXIT_RUNTIME;
		}
		p->started++;
	}
	return EXIT_OK;
}

int producers_stop(struct producers *p)
{
	atomic_store(&p->stop, true);
	wake_all(p);
	for (int i = 0; i < p->started; i++)
		pthread_join(p->threads[i], NULL);
	p->started = 0;
	return atomic_load(&p->failed);
}
