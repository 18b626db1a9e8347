// SPDX-License-Identifier: GPL-2.0
/* CPU pinning for producers. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "parse.h"
#include "sysfs.h"
#include "cpu.h"

#define MAX_CPUS 4096

/* --guest-cpus: the CPUs of the machine the plan is for, when not this one. */
static int assumed_cpus;

void cpu_assume_online(int n)
{
	assumed_cpus = n;
}

int cpu_online_count(void)
{
	return assumed_cpus ?: sysconf(_SC_NPROCESSORS_ONLN);
}

bool cpu_is_online(int cpu)
{
	static int cpus[MAX_CPUS];
	static int n = -1;
	char buf[4096];

	if (assumed_cpus)
		return cpu >= 0 && cpu < assumed_cpus;
	if (n < 0 && !read_first_line("/sys/devices/system/cpu/online", buf, sizeof(buf)))
		n = parse_cpuset(buf, cpus, MAX_CPUS);
	if (n < 0)
		return cpu < cpu_online_count();
	for (int i = 0; i < n; i++)
		if (cpus[i] == cpu)
			return true;
	return false;
}

/* --placement: the producers' CPUs from the machine's topology. */
static int place_by_topology(struct plan *plan)
{
	const struct topology *t = machine_topology();

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

int cpu_plan(struct plan *plan)
{
	bool all = plan->nr_prod_cpus == MAX_PRODUCERS;	/* -a */

	/* another machine's topology is not readable here: its run places them */
	if (plan->placement != PLACE_NONE && assumed_cpus)
		return EXIT_OK;
	if (plan->placement != PLACE_NONE)
		return place_by_topology(plan);
	if (!plan->nr_prod_cpus)
		return EXIT_OK;
	if (all && plan->producers > cpu_online_count()) {
		mb_err("more pinned producers (%d) than online CPUs (%d): lower -p or drop -a",
		       plan->producers, cpu_online_count());
		return EXIT_USAGE;
	}
	if (!all && plan->producers > plan->nr_prod_cpus) {
		mb_err("--prod-affinity names %d CPUs for %d producers", plan->nr_prod_cpus,
		       plan->producers);
		return EXIT_USAGE;
	}
	for (int i = 0; i < plan->producers; i++)
		if (!cpu_is_online(plan->prod_cpus[i])) {
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
