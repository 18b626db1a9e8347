// SPDX-License-Identifier: GPL-2.0
/* Reading the BPF side's per-producer counters from the mmapped .bss. */
#include <string.h>
#include "counters.h"

void counters_snapshot(const struct prod_counters *src, int n, struct prod_counters *dst)
{
	for (int p = 0; p < n; p++) {
		const volatile struct prod_counters *s = &src[p];
		__u64 seq;

		do {
			seq = s->seq;
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			memcpy(&dst[p], (const void *)s, sizeof(dst[p]));
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
		} while ((seq & 1) || seq != s->seq);
	}
}

__u64 counters_errors(const struct prod_counters *c, int n)
{
	__u64 sum = 0;

	for (int p = 0; p < n; p++)
		for (int e = 0; e < ERRNO_SLOTS; e++)
			sum += c[p].errs[e];
	return sum;
}

int counters_first_errno(const struct prod_counters *c, int n)
{
	for (int e = 1; e < ERRNO_SLOTS; e++)
		for (int p = 0; p < n; p++)
			if (c[p].errs[e])
				return e;
	return 0;
}
