/* SPDX-License-Identifier: GPL-2.0 */
/* Producers that are threads making syscalls: whether the current thread is
 * one of this process's. User space sets bench_tgid before load. */
#ifndef MAPBENCH_TASKS_BPF_H
#define MAPBENCH_TASKS_BPF_H

#include "common.bpf.h"

const volatile __u32 bench_tgid;

/* The current thread belongs to the benchmark's process. */
static __always_inline bool our_task(__u64 pid_tgid)
{
	return (pid_tgid >> 32) == bench_tgid;
}

#endif
