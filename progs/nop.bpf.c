// SPDX-License-Identifier: GPL-2.0
/* The selftests bench's bpf-nop (linux 7.3): a loop that does nothing,
 * bounded by may_goto, timed in the kernel around the whole loop, one
 * batch a run of a syscall program. Its bound is read from memory at every
 * iteration, as the kernel's volatile batch_iters is, so the iterations
 * are its instruction for instruction: what its timing library's loop
 * costs, under every benchmark that uses it. */
#include "common.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* The iterations of a batch; user space sets it (--batch, or auto). */
volatile __u32 batch_iters;

/* What user space passes to each run: its producer. */
struct nop_args {
	__u32 prod;
};

SEC("syscall") int nop(struct nop_args *args)
{
	__u32 id = args->prod;
	struct prod_counters *c;
	__u64 t0, ns, i;

	if (id >= MAX_PRODUCERS)
		return 1;
	c = &cnt[id];
	t0 = bpf_ktime_get_ns();
	/* i is 64 bits: the kernel builds its program for alu32 (-mcpu=v3),
	 * we for the default CPU, where a 32-bit count is zero-extended at
	 * every iteration; so the iteration is its four instructions */
	for (i = 0; i < batch_iters && can_loop; i++)
		;
	ns = bpf_ktime_get_ns() - t0;
	record_batch(id, c, i, ns);
	account(c, i, ns, 0, 0);
	return 0;
}
