/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MAPBENCH_CPU_H
#define MAPBENCH_CPU_H
#include "bench.h"

/* plan_resolve()'s part for the producers' CPUs: --placement chooses them
 * by topology; pinning to CPUs that are not online, or more pinned
 * producers than CPUs, is refused. */
int cpu_plan(struct plan *plan);
/* Pin the calling thread to one CPU; 0 or -errno. */
int cpu_pin_self(int cpu);
/* Answer for a machine with CPUs 0..n-1 online (--dry-run --guest-cpus). */
void cpu_assume_online(int n);
int cpu_online_count(void);
bool cpu_is_online(int cpu);

#endif
