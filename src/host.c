// SPDX-License-Identifier: GPL-2.0
/* The facts of a machine that a plan depends on. */
#include <net/if.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "host.h"
#include "parse.h"
#include "sysfs.h"
#include "topology.h"

static unsigned int interface_index(const char *name)
{
	return if_nametoindex(name);
}

void host_assume(struct host *h, int cpus)
{
	h->online_cpus = h->possible_cpus = cpus < HOST_MAX_CPUS ? cpus : HOST_MAX_CPUS;
	for (int i = 0; i < h->online_cpus; i++)
		h->online[i] = i;
	h->topology = NULL;
	h->assumed = true;
	h->ifindex = NULL;
}

void host_probe(struct host *h)
{
	char buf[4096];
	int n = -1;

	if (!read_first_line("/sys/devices/system/cpu/online", buf, sizeof(buf)))
		n = parse_cpuset(buf, h->online, HOST_MAX_CPUS);
	if (n < 0) {	/* no sysfs: count them, ids from 0 */
		host_assume(h, sysconf(_SC_NPROCESSORS_ONLN));
		n = h->online_cpus;
	}
	h->online_cpus = n;
	h->possible_cpus = libbpf_num_possible_cpus();
	h->topology = machine_topology();
	h->assumed = false;
	h->ifindex = interface_index;
}

bool host_cpu_online(const struct host *h, int cpu)
{
	for (int i = 0; i < h->online_cpus; i++)
		if (h->online[i] == cpu)
			return true;
	return false;
}
