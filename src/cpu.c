// SPDX-License-Identifier: GPL-2.0
/* CPU pinning for producers. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cpu.h"
#include "topology.h"

int cpu_online_count(void)
{
	return sysconf(_SC_NPROCESSORS_ONLN);
}

/* --placement: the producers' CPUs from the machine's topology. */
static int place_by_topology(struct plan *plan, const struct topology *t)
{
	if (plan->nr_prod_cpus) {
		mb_err("--placement and -a/--prod-affinity both choose the producers' CPUs: give one");
		return EXIT_USAGE;
	}
	if (!t) {
		mb_err("--placement: cannot read the CPU topology under /sys/devices/system/cpu");
		return EXIT_UNSUPPORTED;
	}
	if (topology_place(t, plan->placement, plan->producers, plan->prod_cpus))
		return EXIT_USAGE;
	plan->nr_prod_cpus = plan->producers;
	return EXIT_OK;
}

int cpu_plan(struct plan *plan, const struct host *host)
{
	bool all = plan->nr_prod_cpus == MAX_PRODUCERS;	/* -a */

	/* another machine's topology is not readable here: its run places them */
	if (plan->placement != PLACE_NONE && host->assumed)
		return EXIT_OK;
	if (plan->placement != PLACE_NONE)
		return place_by_topology(plan, host->topology);
	if (!plan->nr_prod_cpus)
		return EXIT_OK;
	if (all && plan->producers > host->online_cpus) {
		mb_err("more pinned producers (%d) than online CPUs (%d): lower -p or drop -a",
		       plan->producers, host->online_cpus);
		return EXIT_USAGE;
	}
	if (!all && plan->producers > plan->nr_prod_cpus) {
		mb_err("--prod-affinity names %d CPUs for %d producers", plan->nr_prod_cpus,
		       plan->producers);
		return EXIT_USAGE;
	}
	for (int i = 0; i < plan->producers; i++)
		if (!host_cpu_online(host, plan->prod_cpus[i])) {
			mb_err("CPU %d in --prod-affinity is not online", plan->prod_cpus[i]);
			return EXIT_USAGE;
		}
	return EXIT_OK;
}

int cpu_pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return -pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}
