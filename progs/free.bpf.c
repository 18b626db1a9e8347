// SPDX-License-Identifier: GPL-2.0
/* Time the kernel spends freeing the bench's own maps, in
 * bpf_map_free_deferred: with fentry/fexit where the kernel allows it, else
 * with tp_btf on the workqueue events around that work item. */
#include "common.bpf.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

/* Address of bpf_map_free_deferred (tp_btf method only). */
const volatile __u64 free_fn;
/* Name of the maps to time: the bench names its maps after its pid. */
const volatile char map_name[16];

/* Address of free_mem_alloc_deferred, 0 where the kernel has none: the
 * work a non-preallocated map's free queues to release its element caches
 * once RCU readers are done. It is not timed, but it waits for RCU barriers
 * one after another, so maps freed faster than that pile up work on the
 * machine; the bench waits until the tails its own frees queued have run
 * (tails_done == tails_queued) before the next map. */
const volatile __u64 tail_fn;
__u64 tails_queued, tails_done;
/* The task running one of our frees (the bench frees one map at a time),
 * and the tails it queued, by work item. */
__u64 freeing_task;
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u64);
	__type(value, __u8);
} tails SEC(".maps");

/* Start time per work item being run. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, __u64);
} starts SEC(".maps");

static __always_inline bool ours(struct work_struct *work)
{
	struct bpf_map *map = (void *)work - bpf_core_field_offset(struct bpf_map, work);
	char name[16];

	if (bpf_probe_read_kernel(name, sizeof(name), &map->name))
		return false;
	for (int i = 0; i < sizeof(name); i++) {
		if (name[i] != map_name[i])
			return false;
		if (!name[i])
			break;
	}
	return true;
}

static __always_inline void start(struct work_struct *work)
{
	__u64 key = (__u64)work, now;

	if (!ours(work))
		return;
	now = bpf_ktime_get_ns();
	bpf_map_update_elem(&starts, &key, &now, BPF_ANY);
	freeing_task = bpf_get_current_pid_tgid();
}

/* The work item may be freed memory by now: only its address is used. */
static __always_inline void end(struct work_struct *work)
{
	__u64 key = (__u64)work, now = bpf_ktime_get_ns(), *t0;

	t0 = bpf_map_lookup_elem(&starts, &key);
	if (!t0)
		return;
	account(&cnt[0], 1, now - *t0, 0, 0);
	bpf_map_delete_elem(&starts, &key);
	freeing_task = 0;
}

SEC("fentry/bpf_map_free_deferred")
int BPF_PROG(free_entry, struct work_struct *work)
{
	start(work);
	return 0;
}

SEC("fexit/bpf_map_free_deferred")
int BPF_PROG(free_exit, struct work_struct *work)
{
	end(work);
	return 0;
}

SEC("tp_btf/workqueue_execute_start")
int BPF_PROG(wq_start, struct work_struct *work)
{
	if ((__u64)work->func == free_fn)
		start(work);
	return 0;
}

/* Only our free work items have a start time: no need to match the
 * function (which the verifier will not let us read here anyway). */
SEC("tp_btf/workqueue_execute_end")
int BPF_PROG(wq_end, struct work_struct *work)
{
	end(work);
	return 0;
}

SEC("tp_btf/workqueue_queue_work")
int BPF_PROG(tail_queued, int cpu, struct pool_workqueue *pwq, struct work_struct *work)
{
	__u64 key = (__u64)work;
	__u8 one = 1;

	if ((__u64)work->func != tail_fn || bpf_get_current_pid_tgid() != freeing_task)
		return 0;
	if (!bpf_map_update_elem(&tails, &key, &one, BPF_ANY))
		__sync_fetch_and_add(&tails_queued, 1);
	return 0;
}

/* raw_tp: tp_btf refuses to read a function pointer argument. */
SEC("raw_tp/workqueue_execute_end")
int BPF_PROG(tail_done, struct work_struct *work, void *function)
{
	__u64 key = (__u64)work;

	if ((__u64)function == tail_fn && !bpf_map_delete_elem(&tails, &key))
		__sync_fetch_and_add(&tails_done, 1);
	return 0;
}
