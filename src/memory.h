/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MAPBENCH_MEMORY_H
#define MAPBENCH_MEMORY_H
#include <stdbool.h>

/* The kernel's own accounting of a map (map_mem_usage), from the memlock
 * line of /proc/self/fdinfo/FD; -1 if unreadable. */
long long map_memlock(int fd);

/* A memory cgroup the bench creates, moves itself into, and removes: what
 * the kernel really charges for the maps created inside it. */
struct memcg {
	char dir[512];		/* the new cgroup */
	char home[512];		/* cgroup.procs to return to */
	const char *usage;	/* file names for this cgroup version */
	const char *peak;
	int version;		/* 1 or 2; 0 when no memory controller */
};

/* Create mapbench-PID and enter it; 0, or -errno with memcg->version 0 when
 * there is no memory controller to use (the caller records "unsupported").
 * First removes, with one line on stderr, the mapbench-PID cgroups of
 * processes that are gone and left them empty (killed with SIGKILL). */
int memcg_enter(struct memcg *cg);
/* Bytes charged now; -1 if unreadable. */
long long memcg_usage(const struct memcg *cg);
/* The most bytes charged since the cgroup was made (the kernel's htab-mem
 * reports it, setup included); -1 if unreadable. */
long long memcg_peak(const struct memcg *cg);
/* Usage once the frees of earlier maps (deferred to a workqueue and RCU)
 * have been uncharged: stable over several reads, or after a few seconds. */
long long memcg_settle(const struct memcg *cg);
/* Move back and remove the cgroup; safe to call twice or after a failed enter. */
void memcg_leave(struct memcg *cg);
/* "v1 <dir>", "v2 <dir>" or "none". */
const char *memcg_describe(const struct memcg *cg);

#endif
