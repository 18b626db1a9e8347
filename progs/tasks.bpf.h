/* SPDX-License-Identifier: GPL-2.0 */
/* Producers that are threads making syscalls: which producer the current
 * thread is. User space registers each thread's tid before its first run. */
#ifndef MAPBENCH_TASKS_BPF_H
#define MAPBENCH_TASKS_BPF_H

#include "common.bpf.h"

/* Only this process's threads are producers. */
const volatile __u32 bench_tgid;

/* tid -> producer */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_PRODUCERS);
	__type(key, __u32);
	__type(value, __u32);
} tid2prod SEC(".maps");

/* The current thread's producer id, or -1 for any other thread. */
static __always_inline __u32 task_prod_id(void)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid;
	__u32 *id;

	if ((pid_tgid >> 32) != bench_tgid)
		return -1;
	id = bpf_map_lookup_elem(&tid2prod, &tid);
	return id ? *id : -1;
}

#endif
