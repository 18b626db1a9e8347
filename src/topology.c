// SPDX-License-Identifier: GPL-2.0
/* CPU topology from sysfs and producer placement by it. Missing files (VMs,
 * containers) fall back to one package, node and LLC, never to a failure. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"
#include "parse.h"
#include "sysfs.h"
#include "topology.h"

/* The CPUs of a sysfs cpu list file (e.g. "0-3,8"), or -errno. */
static int read_cpus(const char *path, int *cpus, int max)
{
	char buf[8192];
	int err = read_first_line(path, buf, sizeof(buf));

	return err ? err : parse_cpuset(buf, cpus, max);
}

/* The first CPU of its last-level cache's shared_cpu_list, and that level. */
static int llc_of(const char *root, int cpu, int *level)
{
	char path[512];
	int best = -1, first = -1, cpus[TOPO_MAX_CPUS];

	for (int i = 0;; i++) {
		char type[32];
		int lvl;

		snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/cache/index%d/level",
			 root, cpu, i);
		lvl = (int)read_number(path, -1);
		if (lvl < 0)
			break;
		snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/cache/index%d/type",
			 root, cpu, i);
		if (read_first_line(path, type, sizeof(type)) || !strcmp(type, "Instruction") || lvl <= best)
			continue;
		snprintf(path, sizeof(path),
			 "%s/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list", root, cpu, i);
		if (read_cpus(path, cpus, TOPO_MAX_CPUS) > 0) {
			best = lvl;
			first = cpus[0];
		}
	}
	*level = best < 0 ? 0 : best;
	return first;
}

static int count_distinct(const struct topology *t, size_t off)
{
	int n = 0;

	for (int i = 0; i < t->n; i++) {
		int v = *(const int *)((const char *)&t->cpu[i] + off);
		bool seen = false;

		for (int j = 0; j < i && !seen; j++)
			seen = *(const int *)((const char *)&t->cpu[j] + off) == v;
		n += !seen;
	}
	return n;
}

static void read_nodes(const char *root, struct topology *t)
{
	char path[512];
	int cpus[TOPO_MAX_CPUS];

	for (int node = 0, misses = 0; misses < 64; node++) {
		int n;

		snprintf(path, sizeof(path), "%s/devices/system/node/node%d/cpulist", root, node);
		n = read_cpus(path, cpus, TOPO_MAX_CPUS);
		if (n < 0) {
			misses++;	/* node ids may have holes */
			continue;
		}
		for (int i = 0; i < n; i++)
			for (int c = 0; c < t->n; c++)
				if (t->cpu[c].cpu == cpus[i])
					t->cpu[c].node = node;
	}
}

int topology_read(const char *root, struct topology *t)
{
	char path[512];
	int online[TOPO_MAX_CPUS], sib[TOPO_MAX_CPUS], level = 0;

	memset(t, 0, sizeof(*t));
	snprintf(path, sizeof(path), "%s/devices/system/cpu/online", root);
	t->n = read_cpus(path, online, TOPO_MAX_CPUS);
	if (t->n <= 0)
		return t->n ? t->n : -ENOENT;
	t->threads_per_core = 1;
	for (int i = 0; i < t->n; i++) {
		struct topo_cpu *c = &t->cpu[i];
		int nsib;

		c->cpu = online[i];
		snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/topology/physical_package_id",
			 root, c->cpu);
		c->package = (int)read_number(path, 0);
		snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/topology/thread_siblings_list",
			 root, c->cpu);
		nsib = read_cpus(path, sib, TOPO_MAX_CPUS);
		c->core = nsib > 0 ? sib[0] : c->cpu;
		for (int s = 0; s < nsib; s++)
			if (sib[s] == c->cpu)
				c->thread = s;
		if (nsib > t->threads_per_core)
			t->threads_per_core = nsib;
		c->llc = llc_of(root, c->cpu, &level);
		if (c->llc < 0)
			c->llc = c->package;
		t->llc_level = level;
	}
	read_nodes(root, t);
	t->packages = count_distinct(t, offsetof(struct topo_cpu, package));
	t->nodes = count_distinct(t, offsetof(struct topo_cpu, node));
	t->cores = count_distinct(t, offsetof(struct topo_cpu, core));
	t->llcs = count_distinct(t, offsetof(struct topo_cpu, llc));
	return 0;
}

const struct topology *machine_topology(void)
{
	static struct topology t;	/* large: not on the stack */
	static int err = 1;

	if (err > 0)
		err = topology_read("/sys", &t);
	return err ? NULL : &t;
}

json_t *topology_json(const struct topology *t)
{
	json_t *cpus = json_array();

	for (int i = 0; i < t->n; i++) {
		const struct topo_cpu *c = &t->cpu[i];

		json_array_append_new(cpus, json_pack("{s:i, s:i, s:i, s:i, s:i, s:i}",
			"cpu", c->cpu, "package", c->package, "node", c->node, "core", c->core,
			"thread", c->thread, "llc", c->llc));
	}
	return json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:o}", "online_cpus", t->n,
			 "packages", t->packages, "numa_nodes", t->nodes, "cores", t->cores,
			 "threads_per_core", t->threads_per_core, "llc_domains", t->llcs,
			 "llc_level", t->llc_level, "cpus", cpus);
}

const char *placement_name(int p)
{
	static const char *const names[] = { "none", "compact", "spread-llc", "spread-node",
					     "smt-pairs" };

	return names[p];
}

static int cmp_keys(const int *ka, const int *kb, int n)
{
	for (int i = 0; i < n; i++)
		if (ka[i] != kb[i])
			return ka[i] < kb[i] ? -1 : 1;
	return 0;
}

/* compact (and spread-*, before dealing out): an LLC's physical cores first,
 * then their siblings. */
static int cmp_compact(const void *a, const void *b)
{
	const struct topo_cpu *x = a, *y = b;

	return cmp_keys((int[]){ x->node, x->llc, x->thread, x->core, x->cpu },
			(int[]){ y->node, y->llc, y->thread, y->core, y->cpu }, 5);
}

/* smt-pairs: the siblings of a core next to each other. */
static int cmp_pairs(const void *a, const void *b)
{
	const struct topo_cpu *x = a, *y = b;

	return cmp_keys((int[]){ x->node, x->llc, x->core, x->thread, x->cpu },
			(int[]){ y->node, y->llc, y->core, y->thread, y->cpu }, 5);
}

/* Deal the sorted CPUs out round-robin over their groups (LLCs or nodes,
 * contiguous in sorted order): each group's first CPU, then each's second... */
static void deal(const struct topo_cpu *sorted, int ncpu, bool by_node, int n, int *out)
{
	int got = 0;

	for (int round = 0; got < n; round++)
		for (int i = 0, rank = 0; i < ncpu && got < n; i++) {
			int g = by_node ? sorted[i].node : sorted[i].llc;
			int prev = i ? (by_node ? sorted[i - 1].node : sorted[i - 1].llc) : -1;

			rank = g == prev ? rank + 1 : 0;
			if (rank == round)
				out[got++] = sorted[i].cpu;
		}
}

int topology_place(const struct topology *t, enum placement p, int n, int *out)
{
	struct topo_cpu *sorted;

	if (n > t->n) {
		mb_err("--placement %s: %d producers but %d online CPUs; lower -p", placement_name(p),
		       n, t->n);
		return -E2BIG;
	}
	if (p == PLACE_SMT_PAIRS && t->threads_per_core < 2) {
		mb_err("--placement smt-pairs: this machine has no SMT siblings (one thread per core)");
		return -ENOENT;
	}
	sorted = malloc(t->n * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	memcpy(sorted, t->cpu, t->n * sizeof(*sorted));
	qsort(sorted, t->n, sizeof(*sorted), p == PLACE_SMT_PAIRS ? cmp_pairs : cmp_compact);
	if (p == PLACE_SPREAD_LLC || p == PLACE_SPREAD_NODE)
		deal(sorted, t->n, p == PLACE_SPREAD_NODE, n, out);
	else
		for (int i = 0; i < n; i++)
			out[i] = sorted[i].cpu;
	free(sorted);
	return 0;
}
