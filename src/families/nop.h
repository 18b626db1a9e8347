/* SPDX-License-Identifier: GPL-2.0 */
/* The selftests bench's bpf-nop: its timing loop doing nothing. */
#ifndef MAPBENCH_NOP_H
#define MAPBENCH_NOP_H
#include "bench.h"

extern const struct family nop_family;

#endif
