/* SPDX-License-Identifier: GPL-2.0 */
/* What a row of the benchmark table starts from: its family's defaults
 * (HTAB, LPM), named first; a field named again after them is the row's own
 * value (hence -Wno-override-init). registry.c's rows and each kernel
 * bench's rows in its peer file (src/peers/) are written with them, and
 * each file's rows join the table with BENCH_ROWS. */
#ifndef MAPBENCH_ROWS_H
#define MAPBENCH_ROWS_H
#include "bench.h"
#include "free.h"
#include "htab.h"
#include "keys.h"
#include "lpm.h"
#include "maps.h"

#define PRODUCERS .trigger = TRIGGER_XDP, .loop = LOOP_AUTO, .figure = FIG_WALL, .batch = 1024, \
	.prealloc = 1
#define HTAB .family = &htab_family, .maps = HASH_MAPS, .map = "htab", .key_size = 4, \
	.value_size = 8, .max_entries = 1000, .nr_entries = ENTRIES_MAX, .prefix_len = -1, \
	PRODUCERS
#define FREE .family = &free_family, .walk = &walk_whole_maps, .batch = 1, .keys = KEYS_SEQ, \
	.trigger = TRIGGER_CLOSE, .loop = LOOP_NONE, .figure = FIG_KERNEL, .single_producer = true, \
	.op = MB_OP_FREE

/* The kernel's LPM bench: BPF_PROG_TEST_RUN of an XDP program, 10000
 * operations a run, one per bpf_loop callback, keys from one shared counter. */
#define LPM .family = &lpm_family, .maps = MAP_LPM, .map = "lpm_trie", .key_size = 4, \
	.value_size = 4, .max_entries = ENTRIES_NR, .nr_entries = 10000, \
	.prefix_len = PREFIX_ALL, PRODUCERS, .batch = 10000, .loop = LOOP_BPF_LOOP, \
	.keys = KEYS_COUNTER

/* A file's table of rows joins the benchmarks before main() runs; -l lists
 * them in the order of place (registry.c's own rows are place 0). */
#define BENCH_ROWS(rows, place)							\
	static void __attribute__((constructor)) join_##rows(void)		\
	{									\
		bench_rows_add(rows, sizeof(rows) / sizeof(rows[0]), place);	\
	}

#endif
