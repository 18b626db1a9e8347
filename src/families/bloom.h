/* SPDX-License-Identifier: GPL-2.0 */
/* The bloom filter family: the selftests bench's bloom filter map
 * benchmarks, driven by progs/bloom.bpf.c. */
#ifndef MAPBENCH_BLOOM_H
#define MAPBENCH_BLOOM_H
#include "bench.h"

extern const struct family bloom_family;

/* What a run does (a row's family_op): peek or push every value (bloom-lookup,
 * -update), or probe the hashmap, with the filter in front or without
 * (hashmap-with-bloom, -without-bloom). The first three are the program's
 * BLOOM_* (progs/bloom.bpf.c). */
enum bloom_op { BLOOM_PEEK_ALL, BLOOM_PUSH_ALL, BLOOM_PROBE, BLOOM_PROBE_FILTERED };

#endif
