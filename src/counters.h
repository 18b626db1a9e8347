/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MAPBENCH_COUNTERS_H
#define MAPBENCH_COUNTERS_H
#include "bench.h"

/* Copy n producers' counters, each consistent (ops and ns from the same
 * batches), while the producers keep running. */
void counters_snapshot(const struct prod_counters *src, int n, struct prod_counters *dst);
/* Sum of errs[] over producers and errnos. */
__u64 counters_errors(const struct prod_counters *c, int n);
/* Smallest errno counted, or 0. */
int counters_first_errno(const struct prod_counters *c, int n);

#endif
