// SPDX-License-Identifier: GPL-2.0
/* Program selection, attachment and firing for the three triggers. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <net/if.h>
#include <linux/if_link.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <sys/mount.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "keys.h"
#include "log.h"
#include "probe.h"
#include "trigger.h"

/* The entry points of TRIGGER_SYSCALL by arch. */
static const char *const fentry_targets[] = { "__x64_sys_getpgid", "__arm64_sys_getpgid",
					      "__s390x_sys_getpgid", "sys_getpgid" };

const char *trigger_name(int kind)
{
	static const char *const names[] = { "xdp", "raw_tp", "fentry", "nic", "tp", "ksyscall",
					     "syscall", "close", "none" };

	return names[kind];
}

const char *loop_name(int kind)
{
	static const char *const names[] = { "auto", "bpf_for", "bpf_loop", "can_loop", "none" };

	return names[kind];
}

const char *run_loop_name(const struct run *run)
{
	return run->loop ? run->loop : loop_name(run->plan->loop);
}

/* The trigger's program base_for or base_loop; one whose loop is its own,
 * whatever the kernel has (bloom's), is base_own. */
static struct bpf_program *pick(struct bpf_object *obj, const char *base, bool use_for)
{
	char name[32], own[32];

	snprintf(name, sizeof(name), "%s_%s", base, use_for ? "for" : "loop");
	snprintf(own, sizeof(own), "%s_own", base);
	return bpf_object__find_program_by_name(obj, name) ?:
	       bpf_object__find_program_by_name(obj, own);
}

static const char *fentry_target(void)
{
	for (size_t i = 0; i < sizeof(fentry_targets) / sizeof(*fentry_targets); i++)
		if (kernel_has_func(fentry_targets[i]))
			return fentry_targets[i];
	return NULL;
}

/* --trigger nic: the CPUs that receive packets are the producers (one
 * counter slot per possible CPU id), each with its own keys; a benchmark
 * needs producer-driven BPF programs and no pairs. */
int trigger_plan(struct plan *plan, const struct host *host)
{
	int cpus = host->possible_cpus;

	if (plan->trigger != TRIGGER_NIC) {
		if (plan->iface || plan->xdp_pass || plan->force) {
			mb_err("--iface, --xdp-action and --force go with --trigger nic");
			return EXIT_USAGE;
		}
		return EXIT_OK;
	}
	if (!plan->iface) {
		mb_err("--trigger nic needs --iface DEV, the interface whose packets run the batches");
		return EXIT_USAGE;
	}
	if (host->ifindex && !host->ifindex(plan->iface)) {
		mb_err("--iface %s: no such interface here (ip link shows them)", plan->iface);
		return EXIT_USAGE;
	}
	if (!plan->bench->family->packet_driven || plan->bench->walk->pairs) {
		mb_err("%s cannot be driven by packets: --trigger nic runs the htab and lpm benchmarks whose producers work alone",
		       plan->bench->name);
		return EXIT_USAGE;
	}
	if (plan->producers != 1 || plan->nr_prod_cpus || plan->placement != PLACE_NONE) {
		mb_err("-p, -a, --prod-affinity and --placement do not apply to --trigger nic: the CPUs that receive the packets are the producers");
		return EXIT_USAGE;
	}
	if (cpus > MAX_PRODUCERS) {
		mb_err("--trigger nic: %d possible CPUs, mapbench counts at most %d", cpus, MAX_PRODUCERS);
		return EXIT_UNSUPPORTED;
	}
	plan->producers = cpus;
	return EXIT_OK;
}

int trigger_prepare(struct trigger_state *t, struct bpf_object *obj, struct run *run)
{
	struct bpf_program *p;
	const char *target;

	memset(t, 0, sizeof(*t));
	t->kind = run->trigger;
	t->pairs = run->plan->bench->walk && run->plan->bench->walk->pairs;
	t->use_for = kernel_has_func("bpf_iter_num_new");
	if (run->plan->loop == LOOP_FOR && !t->use_for) {
		mb_err("this kernel (%s) has no open-coded iterators (bpf_iter_num_new): use --loop bpf_loop",
		       kernel_release());
		return EXIT_UNSUPPORTED;
	}
	if (run->plan->loop == LOOP_BPF_LOOP)
		t->use_for = false;
	run->loop = t->use_for ? "bpf_for" : "bpf_loop";
	run->timing = "bpf_ktime_get_ns around each batch";
	bpf_object__for_each_program(p, obj)
		bpf_program__set_autoload(p, false);
	run->trigger_point = t->kind == TRIGGER_TP ?
		(t->pairs ? "syscalls/sys_enter_getpgid,syscalls/sys_enter_getppid"
			  : "syscalls/sys_enter_getpgid") :
		t->kind == TRIGGER_RAW_TP ? "sys_enter (getpgid only)" :
		t->kind == TRIGGER_NIC ? run->plan->iface : "BPF_PROG_TEST_RUN";
	t->tid2prod = bpf_object__find_map_by_name(obj, "tid2prod");
	if (t->kind == TRIGGER_XDP) {
		t->xdp = pick(obj, "xdp", t->use_for);
		bpf_program__set_autoload(t->xdp, true);
		return EXIT_OK;
	}
	if (t->kind == TRIGGER_NIC) {
		t->nic = pick(obj, "nic", t->use_for);
		bpf_program__set_autoload(t->nic, true);
		return EXIT_OK;
	}
	t->trace = pick(obj, t->kind == TRIGGER_RAW_TP ? "raw_tp" :
			     t->kind == TRIGGER_TP ? "tp" : "fentry", t->use_for);
	bpf_program__set_autoload(t->trace, true);
	if (t->kind == TRIGGER_TP && t->pairs) {
		t->trace_del = pick(obj, "tp_del", t->use_for);
		bpf_program__set_autoload(t->trace_del, true);
	}
	if (t->kind == TRIGGER_FENTRY) {
		target = fentry_target();
		if (!target) {
			mb_err("no getpgid syscall function in this kernel's BTF to attach fentry to; use --trigger raw_tp");
			return EXIT_UNSUPPORTED;
		}
		bpf_program__set_attach_target(t->trace, 0, target);
		run->trigger_point = target;
	}
	return EXIT_OK;
}

int trigger_explain_load_error(const struct trigger_state *t, const struct run *run, int err)
{
	const char *line;

	if (log_find("failed to create") && run->plan->extra_map_flags && err == -EINVAL) {
		mb_err("the kernel refused to create the %s map (%s) with map_flags 0x%x (EINVAL): "
		       "drop --map_flags or give bits this map type takes",
		       run->plan->map_name, run->map_type_name, run->map_flags);
		return EXIT_USAGE;
	}
	if (log_find("failed to create")) {
		mb_err("the kernel refused to create the %s map (%s): %s",
		       run->plan->map_name, run->map_type_name, strerror(-err));
		return EXIT_UNSUPPORTED;
	}
	if (t->kind == TRIGGER_FENTRY && err == -EPERM && run->plan->trigger_fallback != TRIGGER_NONE)
		return EXIT_FALLBACK;	/* the caller falls back, and says so */
	if (t->kind == TRIGGER_FENTRY && err == -EPERM) {
		mb_err("this kernel refuses fentry programs (EPERM: ftrace-based attachment is blocked); use --trigger xdp or --trigger raw_tp");
		return EXIT_UNSUPPORTED;
	}
	if (t->trace && (line = log_find("cannot use"))) {
		mb_err("the kernel's verifier refuses %s maps in %s programs (\"%s\"); use --trigger xdp",
		       run->plan->map_name, trigger_name(t->kind), line);
		return EXIT_UNSUPPORTED;
	}
	if (err == -E2BIG && !t->use_for) {
		mb_err("this kernel's verifier gives up on the bpf_loop producer loop (1M-instruction limit; kernels before 6.4 have no bpf_for): unsupported on %s",
		       kernel_release());
		return EXIT_UNSUPPORTED;
	}
	line = log_find("failed");
	mb_err("loading the BPF programs failed: %s%s%s (run with -v for the verifier log)",
	       strerror(-err), line ? ": " : "", line ? line : "");
	return EXIT_RUNTIME;
}

void trigger_fall_back(struct run *run)
{
	run_warn(run, "this kernel refuses %s programs, the kernel bench's trigger: %s ran on %s instead",
		 trigger_name(run->trigger), run->plan->bench->name,
		 trigger_name(run->plan->trigger_fallback));
	run->trigger = run->plan->trigger_fallback;
}

/* The nic program on --iface: refused if the interface has an XDP program
 * already (unless --force detaches it); native mode where the driver has it,
 * else generic, which the result's warning says. */
static int attach_nic(struct trigger_state *t, struct run *run)
{
	const struct plan *c = run->plan;
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	int ifindex = if_nametoindex(c->iface), err;

	if (!ifindex) {
		mb_err("--iface %s: no such interface here (ip link shows them)", c->iface);
		return EXIT_USAGE;
	}
	if (!bpf_xdp_query(ifindex, 0, &q) && q.prog_id) {
		if (!c->force) {
			mb_err("%s already has an XDP program (id %u): detach it, or give --force to replace it",
			       c->iface, q.prog_id);
			return EXIT_USAGE;
		}
		bpf_xdp_detach(ifindex, q.attach_mode == XDP_ATTACHED_SKB ? XDP_FLAGS_SKB_MODE :
			       q.attach_mode == XDP_ATTACHED_HW ? XDP_FLAGS_HW_MODE : XDP_FLAGS_DRV_MODE,
			       NULL);
	}
	t->link = bpf_program__attach_xdp(t->nic, ifindex);
	if (!t->link) {
		err = errno;
		mb_err("attaching XDP to %s failed: %s", c->iface, strerror(err));
		return err == EBUSY ? EXIT_USAGE : EXIT_RUNTIME;
	}
	memset(&q, 0, sizeof(q));
	q.sz = sizeof(q);
	bpf_xdp_query(ifindex, 0, &q);
	run->nic_mode = q.attach_mode == XDP_ATTACHED_SKB ? "generic" : "native";
	if (q.attach_mode == XDP_ATTACHED_SKB)
		run_warn(run, "generic XDP on %s (its driver has no native XDP): packets take the "
			 "kernel's slower generic path; per-packet figures are not the driver's",
			 c->iface);
	return EXIT_OK;
}

/* Syscall tracepoints are found through tracefs: mount it where it is
 * missing, as the kernel bench's users must. */
int trigger_need_tracefs(struct run *run)
{
	if (!access(TRACEFS "/events", F_OK) || !access("/sys/kernel/debug/tracing/events", F_OK))
		return EXIT_OK;
	if (mount("nodev", TRACEFS, "tracefs", 0, NULL)) {
		mb_err("--trigger tp needs tracefs, and mounting it at %s failed: %s; mount it (mount -t tracefs nodev %s) or use --trigger raw_tp",
		       TRACEFS, strerror(errno), TRACEFS);
		return EXIT_UNSUPPORTED;
	}
	run_warn(run, "tracefs was not mounted: mapbench mounted it at %s (left mounted)", TRACEFS);
	return EXIT_OK;
}

static int attach_one(struct bpf_program *prog, struct bpf_link **link, enum trigger kind)
{
	int err;

	*link = bpf_program__attach(prog);
	if (*link)
		return EXIT_OK;
	err = errno;
	mb_err("attaching the %s program failed: %s; use --trigger xdp", trigger_name(kind),
	       strerror(err));
	return err == EPERM || err == EOPNOTSUPP ? EXIT_UNSUPPORTED : EXIT_RUNTIME;
}

int trigger_attach(struct trigger_state *t, struct run *run)
{
	int err;

	if (t->kind == TRIGGER_NIC)
		return attach_nic(t, run);
	if (!t->trace)
		return EXIT_OK;
	if (t->kind == TRIGGER_TP && (err = trigger_need_tracefs(run)))
		return err;
	err = attach_one(t->trace, &t->link, t->kind);
	if (!err && t->trace_del)
		err = attach_one(t->trace_del, &t->link_del, t->kind);
	return err;
}

int trigger_thread_init(struct trigger_state *t, int prod)
{
	__u32 tid = gettid(), id = prod;

	if (!t->trace)
		return 0;
	return bpf_map__update_elem(t->tid2prod, &tid, sizeof(tid), &id, sizeof(id), BPF_ANY);
}

int xdp_test_run(struct bpf_program *prog, int prod)
{
	/* The producer id travels in the packet; 64 bytes is a minimal frame. */
	__u32 pkt[16] = { (__u32)prod };
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = pkt, .data_size_in = sizeof(pkt),
		    .repeat = 1);

	if (bpf_prog_test_run_opts(bpf_program__fd(prog), &opts))
		return -errno;
	return opts.retval == 2 /* XDP_PASS */ ? 0 : -EINVAL;
}

int trigger_fire(const struct trigger_state *t, int prod)
{
	if (t->kind == TRIGGER_XDP)
		return xdp_test_run(t->xdp, prod);
	/* tp as the kernel's htab-mem: a pair's deleter on its own syscall */
	if (t->kind == TRIGGER_TP && t->pairs && prod % 2)
		syscall(SYS_getppid);
	else
		syscall(TRIGGER_SYSCALL, 0);
	return 0;
}

void trigger_detach(struct trigger_state *t)
{
	bpf_link__destroy(t->link);
	bpf_link__destroy(t->link_del);
	t->link = t->link_del = NULL;
}
