/* SPDX-License-Identifier: GPL-2.0 */
/* What plan_resolve() knows of the machine a plan is for: probed from this
 * one before resolving, or assumed for a guest's plan (--dry-run
 * --guest-cpus), so that resolving is a function of the row, the options
 * and these facts, and a test can give it any machine. */
#ifndef MAPBENCH_HOST_H
#define MAPBENCH_HOST_H
#include <stdbool.h>

#define HOST_MAX_CPUS 4096

struct topology;

struct host {
	int online_cpus;			/* how many are online */
	int online[HOST_MAX_CPUS];		/* their ids */
	int possible_cpus;			/* counter slots the kernel keeps per CPU */
	const struct topology *topology;	/* NULL: unreadable, or not this machine's */
	bool assumed;				/* another machine's: its own run places producers */
	/* The index of a network interface, or 0 where there is none; NULL
	 * where the machine's interfaces are not known here. */
	unsigned int (*ifindex)(const char *name);
};

/* This machine's facts. */
void host_probe(struct host *h);
/* A machine with CPUs 0..cpus-1, all online and possible, whose topology
 * and interfaces are not known here (a guest's plan: its run checks them). */
void host_assume(struct host *h, int cpus);
bool host_cpu_online(const struct host *h, int cpu);

#endif
