/* SPDX-License-Identifier: GPL-2.0 */
/* Producers that are threads of this process making a syscall that runs the
 * program (the fentry, tp and raw_tp triggers): which producer the current
 * thread is. User space maps each producer thread's tid (trigger.c). */
#ifndef MAPBENCH_THREADS_BPF_H
#define MAPBENCH_THREADS_BPF_H

#include "tasks.bpf.h"

/* tid -> producer */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_PRODUCERS);
	__type(key, __u32);
	__type(value, __u32);
} tid2prod SEC(".maps");

/* Producer id of the current thread, or -1 (a thread not ours). */
static __always_inline __u32 task_prod_id(void)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid;
	__u32 *id;

	if (!our_task(pid_tgid))
		return -1;
	id = bpf_map_lookup_elem(&tid2prod, &tid);
	return id ? *id : -1;
}

#endif
