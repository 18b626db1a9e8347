/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MAPBENCH_HTAB_H
#define MAPBENCH_HTAB_H
#include "bench.h"

/* The hash maps (htab, percpu, lru, lru_percpu, rhtab) driven by progs/htab.bpf.c. */
extern const struct family htab_family;

/* The kernel's htab-mem map size: max(8192, 64 x online CPUs). */
int htab_mem_max_entries(const struct host *host);

#endif
