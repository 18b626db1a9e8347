/* SPDX-License-Identifier: GPL-2.0 */
/* samples/bpf map_perf_test's tests (progs/map_perf.bpf.c): each producer
 * is one of its tasks, each run of it one syscall, an event. */
#ifndef MAPBENCH_MAP_PERF_H
#define MAPBENCH_MAP_PERF_H
#include "bench.h"

/* One of map_perf_test's tests, as its map_perf_test_user.c has it. */
struct map_perf_test {
	const char *name;	/* its enum test_type name, e.g. HASH_KMALLOC */
	const char *prog;	/* the programs ks_<prog> and tp_<prog> */
	const char *map;	/* the map its entries argument resizes */
	long syscall_nr;	/* the syscall an event makes */
	int connect_case;	/* connect()'s test case, or -1 */
	const char *line;	/* its line's name, e.g. "hash_map_perf kmalloc" */
	const char *unit;	/* "events", or "lookups" (events x per_event) */
	int per_event;
};

extern const struct family map_perf_family;

/* The test a map_perf_test row runs: the one its flag is the bit of. */
const struct map_perf_test *map_perf_test_of(const struct bench *b);

#endif
