/* SPDX-License-Identifier: GPL-2.0 */
/* --perf: hardware and software counters of the producer threads (kernel
 * mode, where the BPF programs they trigger run, when the PMU allows it) over
 * the measured intervals, reported per map operation. */
#ifndef MAPBENCH_PERF_H
#define MAPBENCH_PERF_H
#include <jansson.h>
#include <stdio.h>
#include "bench.h"

#define PERF_EVENTS 10

struct perf_counters {
	int fd[MAX_PRODUCERS][PERF_EVENTS];	/* -1: not open (yet, or refused) */
	int open_err[PERF_EVENTS];		/* errno of the first refusal, or 0 */
	bool user_too[PERF_EVENTS];		/* kernel-only refused: user+kernel mode */
	double start[PERF_EVENTS];		/* at the start of the measured intervals */
	double total[PERF_EVENTS];		/* over the measured intervals */
	bool started;
};

void perf_init(struct perf_counters *pc);
/* Open every counter for the calling producer thread. */
void perf_open_thread(struct perf_counters *pc, int prod);
/* Mark the start and the end of the measured intervals. */
void perf_mark_start(struct perf_counters *pc, int nprod);
void perf_mark_end(struct perf_counters *pc, int nprod);
void perf_close(struct perf_counters *pc, int nprod);
/* "Perf: cycles 123.4/op, ..., dTLB-load-misses not supported (...)". */
void perf_print(const struct perf_counters *pc, __u64 ops, FILE *out);
json_t *perf_json(const struct perf_counters *pc, __u64 ops);

#endif
