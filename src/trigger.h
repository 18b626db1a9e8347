/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MAPBENCH_TRIGGER_H
#define MAPBENCH_TRIGGER_H
#include <sys/syscall.h>
#include "bench.h"
#include "host.h"

/* The syscall producers issue for the raw_tp, fentry and tp triggers (tp:
 * a pair's deleters issue getppid, as the kernel's htab-mem does). */
#define TRIGGER_SYSCALL SYS_getpgid
#define TRACEFS "/sys/kernel/tracing"

struct bpf_object;
struct bpf_program;
struct bpf_link;
struct bpf_map;

/* How producers make the kernel run a batch: BPF_PROG_TEST_RUN of an XDP
 * program, or a cheap syscall that a raw_tp or fentry program catches; or,
 * with --trigger nic, packets arriving on an interface (no producer threads).
 * The XDP test program is always loaded: setup prefills through it. */
struct trigger_state {
	enum trigger kind;
	bool use_for;			/* bpf_for, else bpf_loop */
	struct bpf_program *xdp;	/* --trigger xdp's program, else NULL */
	struct bpf_program *trace;	/* raw_tp, fentry or tp, or NULL */
	struct bpf_program *trace_del;	/* tp: the deleters' program (getppid) */
	bool pairs;			/* adders and deleters taking turns */
	struct bpf_program *nic;	/* --trigger nic: runs on each received packet */
	struct bpf_link *link;		/* owned by the process: gone when it dies */
	struct bpf_link *link_del;
	struct bpf_map *tid2prod;
};

/* plan_resolve()'s part for the trigger: --trigger nic takes one producer
 * slot per possible CPU and needs --iface and a benchmark whose producers
 * work alone; the nic options go with nothing else. One-line error, EXIT_USAGE. */
int trigger_plan(struct plan *plan, const struct host *host);
/* Before load: choose programs for the trigger and loop kind. */
int trigger_prepare(struct trigger_state *t, struct bpf_object *obj, struct run *run);
/* Not an exit status: the row's own trigger (fentry) is refused and the
 * plan names a fallback; the family loads again with it. */
#define EXIT_FALLBACK 100
/* After a failed load: one line saying why and what to do; returns the exit
 * status (or EXIT_FALLBACK, silently). */
int trigger_explain_load_error(const struct trigger_state *t, const struct run *run, int err);
/* After EXIT_FALLBACK: the run takes the plan's fallback trigger, and its
 * warning says so; the family then loads again. */
void trigger_fall_back(struct run *run);
int trigger_attach(struct trigger_state *t, struct run *run);
/* tracefs mounted (mounting it, with a warning, where it is not): syscall
 * tracepoints attach through it. An exit status after a one-line error. */
int trigger_need_tracefs(struct run *run);
int trigger_thread_init(struct trigger_state *t, int prod);
/* One run of XDP program prog for producer prod (BPF_PROG_TEST_RUN, the
 * id in the packet); 0 or -errno. */
int xdp_test_run(struct bpf_program *prog, int prod);
/* One batch for producer prod through the configured trigger; 0 or -errno. */
int trigger_fire(const struct trigger_state *t, int prod);
void trigger_detach(struct trigger_state *t);
/* The loop a run used: the one its family resolved, else the plan's. */
const char *run_loop_name(const struct run *run);

#endif
