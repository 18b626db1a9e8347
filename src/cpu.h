/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MAPBENCH_CPU_H
#define MAPBENCH_CPU_H
#include "bench.h"
#include "host.h"

/* plan_resolve()'s part for the producers' CPUs: --placement chooses them
 * by topology; pinning to CPUs that are not online, or more pinned
 * producers than CPUs, is refused. */
int cpu_plan(struct plan *plan, const struct host *host);
/* Pin the calling thread to one CPU; 0 or -errno. */
int cpu_pin_self(int cpu);
/* This machine's online CPUs, now. */
int cpu_online_count(void);

#endif
