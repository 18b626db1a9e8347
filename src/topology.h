/* SPDX-License-Identifier: GPL-2.0 */
/* The machine's CPU topology from sysfs (packages, NUMA nodes, cores, SMT
 * siblings, last-level cache domains), and producer placement by it. */
#ifndef MAPBENCH_TOPOLOGY_H
#define MAPBENCH_TOPOLOGY_H
#include <jansson.h>
#include <stdbool.h>
#include "bench.h"

#define TOPO_MAX_CPUS 1024

struct topo_cpu {
	int cpu;
	int package;	/* physical_package_id */
	int node;	/* NUMA node, 0 without NUMA */
	int core;	/* first CPU of its SMT siblings: one id per physical core */
	int thread;	/* its position among those siblings */
	int llc;	/* first CPU sharing its last-level cache (CCX/CCD on EPYC) */
};

struct topology {
	int n;				/* online CPUs */
	struct topo_cpu cpu[TOPO_MAX_CPUS];
	int packages, nodes, cores, llcs, threads_per_core;
	int llc_level;			/* cache level of the LLC, 0 if sysfs has none */
};

/* Read the topology under root ("/sys" on a machine, a fixture's copy in tests). */
int topology_read(const char *root, struct topology *t);
/* This machine's topology, read from /sys once; NULL if sysfs has none. */
const struct topology *machine_topology(void);
json_t *topology_json(const struct topology *t);
/* Takes an int, as plan.c looks names up by their value. */
const char *placement_name(int p);
/* CPUs for n producers by p; 0, or -E2BIG (more producers than CPUs) or
 * -ENOENT (smt-pairs without SMT siblings), with a one-line error printed. */
int topology_place(const struct topology *t, enum placement p, int n, int *out);

#endif
