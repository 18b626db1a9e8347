/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MAPBENCH_CPU_H
#define MAPBENCH_CPU_H
#include "bench.h"

/* Reject pinning to CPUs that are not online, or more pinned producers than CPUs. */
int cpu_validate(struct config *cfg);
/* Pin the calling thread to one CPU; 0 or -errno. */
int cpu_pin_self(int cpu);
int cpu_online_count(void);
bool cpu_is_online(int cpu);

#endif
