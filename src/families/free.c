// SPDX-License-Identifier: GPL-2.0
/* The free benchmarks: the producer creates, fills and closes maps; the
 * kernel frees each in bpf_map_free_deferred on a workqueue, which
 * progs/free.bpf.c times. Only maps named after this process count. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "counters.h"
#include "free.h"
#include "free.skel.h"
#include "log.h"

#define ENOTSUPP 524	/* the kernel's internal "not supported", seen by user space */
#define FREE_WAIT_S 30

struct free_state {
	struct free_bpf *skel;
	char name[16];		/* of the maps to time */
	__u64 closed;		/* maps of that name closed */
};

/* Address of a kernel symbol from /proc/kallsyms, or 0 (absent or hidden). */
static unsigned long long kallsyms_lookup(const char *name)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	unsigned long long addr, found = 0;
	char sym[256], type;

	while (f && !found && fscanf(f, "%llx %c %255s%*[^\n]", &addr, &type, sym) == 3)
		if (!strcmp(sym, name))
			found = addr;
	if (f)
		fclose(f);
	return found;
}

/* ENOMEM from an insert is, for maps on the BPF memory allocator (LPM tries,
 * hash maps without prealloc), its per-CPU cache run dry before its refill
 * (irq work allocating with GFP_NOWAIT) or the frees of earlier maps (after
 * an RCU grace period) caught up: seen once in two make checks beside a
 * parallel kernel build. The insert is asked again after a wait that
 * doubles, up to FILL_PATIENCE_MS in all per fill, and counted. */
#define FILL_PATIENCE_MS 5000

static bool wait_to_retry(int err, int *waited_ms, long *retries)
{
	int ms = *waited_ms ? *waited_ms : 1;

	if (err != -ENOMEM || *waited_ms >= FILL_PATIENCE_MS)
		return false;
	usleep(ms * 1000);
	*waited_ms += ms;
	__atomic_fetch_add(retries, 1, __ATOMIC_RELAXED);
	return true;
}

/* The batch operation this map type lacks (LPM tries before 6.x): a fill
 * goes on one element at a time. */
static bool no_batch_ops(int err)
{
	return err == -EINVAL || err == -ENOTSUPP || err == -EOPNOTSUPP;
}

int map_fill(int fd, const void *keys, size_t key_size, const void *vals, size_t val_size,
	     long n, long *retries)
{
	bool batch = true;
	int waited = 0;

	for (long done = 0; done < n;) {
		const char *key = (const char *)keys + done * key_size;
		const char *val = (const char *)vals + done * val_size;
		__u32 count = n - done;
		int err;

		if (batch) {
			err = bpf_map_update_batch(fd, key, val, &count, NULL) ? -errno : 0;
			if (err && !done && no_batch_ops(err)) {
				batch = false;
				continue;
			}
			done += count;	/* the kernel says how many it took, also on error */
		} else {
			err = bpf_map_update_elem(fd, key, val, BPF_ANY) ? -errno : 0;
			done += !err;
		}
		if (err && !wait_to_retry(err, &waited, retries))
			return err;
	}
	return 0;
}

int map_create_filled(const struct map_spec *spec, int *fd)
{
	char *keys = calloc(spec->n + 1, spec->key_size);
	char *vals = calloc(spec->n + 1, spec->value_buf);
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = spec->flags);
	int err = EXIT_OK;

	*fd = -1;
	if (!keys || !vals)
		err = EXIT_RUNTIME;
	if (!err) {
		*fd = bpf_map_create(spec->type, spec->name, spec->key_size, spec->value_size,
				     spec->max_entries, &opts);
		if (*fd < 0) {
			mb_err("the kernel refused to create the %s: %s", spec->what, strerror(errno));
			err = EXIT_UNSUPPORTED;
		}
	}
	for (long i = 0; !err && i < spec->n; i++)
		spec->key(spec->plan, keys + i * spec->key_size, i);
	if (!err && (err = map_fill(*fd, keys, spec->key_size, vals, spec->value_buf, spec->n,
				    spec->retries))) {
		mb_err("filling the %s failed: %s", spec->what, strerror(-err));
		close(*fd);
		err = EXIT_RUNTIME;
	}
	free(keys);
	free(vals);
	return err;
}

static int free_check(const struct plan *plan)
{
	return plan->bench->target->check(plan);
}

/* Load with fentry/fexit, or where the kernel refuses them, tp_btf on the
 * workqueue events matched on the work function's address. */
static int load_timing(struct free_state *st, struct run *run)
{
	unsigned long long fn, tail_fn = kallsyms_lookup("free_mem_alloc_deferred");

	for (int fentry = 1; fentry >= 0; fentry--) {
		st->skel = free_bpf__open();
		if (!st->skel) {
			mb_err("opening the BPF object failed: %s", strerror(errno));
			return EXIT_RUNTIME;
		}
		memcpy((char *)st->skel->rodata->map_name, st->name, sizeof(st->name));
		bpf_program__set_autoload(st->skel->progs.free_entry, fentry);
		bpf_program__set_autoload(st->skel->progs.free_exit, fentry);
		bpf_program__set_autoload(st->skel->progs.wq_start, !fentry);
		bpf_program__set_autoload(st->skel->progs.wq_end, !fentry);
		st->skel->rodata->tail_fn = tail_fn;
		bpf_program__set_autoload(st->skel->progs.tail_queued, tail_fn);
		bpf_program__set_autoload(st->skel->progs.tail_done, tail_fn);
		if (!fentry) {
			fn = kallsyms_lookup("bpf_map_free_deferred");
			if (!fn) {
				mb_err("fentry is refused and bpf_map_free_deferred is not in /proc/kallsyms (kptr_restrict?): cannot time map frees here");
				return EXIT_UNSUPPORTED;
			}
			st->skel->rodata->free_fn = fn;
		}
		log_clear();
		if (!free_bpf__load(st->skel) && !free_bpf__attach(st->skel)) {
			run->timing = fentry ? "fentry/fexit on bpf_map_free_deferred"
					     : "tp_btf workqueue_execute_start/end of bpf_map_free_deferred";
			return EXIT_OK;
		}
		free_bpf__destroy(st->skel);
		st->skel = NULL;
	}
	mb_err("loading the map-free timing programs failed (run with -v for the verifier log)");
	return EXIT_UNSUPPORTED;
}

static int free_setup(struct run *run)
{
	const struct plan *plan = run->plan;
	const struct family *target = plan->bench->target;
	struct free_state *st = calloc(1, sizeof(*st));
	char probe[16];
	int fd, err;

	if (!st)
		return EXIT_RUNTIME;
	run->priv = st;
	snprintf(st->name, sizeof(st->name), "mbf%d", getpid());
	/* One map first, under another name, so a configuration the kernel
	 * refuses fails here with its own message. */
	snprintf(probe, sizeof(probe), "mbp%d", getpid());
	err = target->new_filled_map(plan, run, probe, &fd);
	if (err)
		return err;
	close(fd);
	err = load_timing(st, run);
	if (err)
		return err;
	memset(st->skel->bss->cnt, 0, sizeof(st->skel->bss->cnt));
	return EXIT_OK;
}

/* Until the kernel has freed every map closed so far and run the work
 * those frees queued (free.bpf.c's tails): one map in flight, so a fast
 * producer cannot pile work up on the machine that outlives the run. An
 * exit status: a kernel that has not finished in FREE_WAIT_S stops the run. */
static int wait_for_frees(struct free_state *st)
{
	struct free_bpf__bss *bss = st->skel->bss;
	__u64 queued, done;

	for (int ms = 0; ms < FREE_WAIT_S * 1000; ms++) {
		queued = __atomic_load_n(&bss->tails_queued, __ATOMIC_ACQUIRE);
		done = __atomic_load_n(&bss->tails_done, __ATOMIC_ACQUIRE);
		if (__atomic_load_n(&bss->cnt[0].ops, __ATOMIC_ACQUIRE) == st->closed &&
		    done == queued)
			return EXIT_OK;
		usleep(1000);
	}
	mb_err("the kernel has not finished freeing the last map after %d s (%llu of the RCU "
	       "barrier works its frees queued pending): the machine is backlogged; run again "
	       "once it has caught up", FREE_WAIT_S, (unsigned long long)(queued - done));
	return EXIT_RUNTIME;
}

static int free_run(struct run *run, int prod)
{
	struct free_state *st = run->priv;
	int fd;

	if (run->plan->bench->target->new_filled_map(run->plan, run, st->name, &fd))
		return -EIO;
	close(fd);	/* the last reference: the kernel queues the free */
	st->closed++;
	return wait_for_frees(st);
}

static void free_measure(struct run *run, struct prod_counters *out)
{
	struct free_state *st = run->priv;

	counters_snapshot(st->skel->bss->cnt, run->plan->producers, out);
}

static void free_teardown(struct run *run)
{
	struct free_state *st = run->priv;

	if (!st)
		return;
	free_bpf__destroy(st->skel);
	free(st);
	run->priv = NULL;
}

const struct family free_family = {
	.name = "free",
	.check = free_check,
	.setup = free_setup,
	.run = free_run,
	.measure = free_measure,
	.teardown = free_teardown,
	.slow = true,
};
