/* SPDX-License-Identifier: GPL-2.0 */
/* Branch prediction: a gshare predictor per vCPU over the guest's
 * conditional direct branches (x86's Jcc, JRCXZ and LOOP forms), counting
 * the branches it would have mispredicted (docs/vm.org). Its table holds
 * 2^table_bits two-bit counters, indexed by the branch's address XORed with
 * the last history_bits outcomes of the vCPU's branches. It stands in for
 * the far larger predictors of real cores: a branch a simple predictor
 * learns, theirs learns too; one that follows the data (a key compare, a
 * chain's end) neither learns well. */
#ifndef MAPBENCH_BRANCH_H
#define MAPBENCH_BRANCH_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MB_BRANCH_TABLE_BITS_MAX 24

struct mb_branch_geometry {
	unsigned int table_bits;	/* 2^table_bits counters, 1..MB_BRANCH_TABLE_BITS_MAX */
	unsigned int history_bits;	/* outcomes mixed into the index, 0..table_bits */
};

struct mb_branch;

/* NULL if out of memory or the geometry is out of range. */
struct mb_branch *mb_branch_new(const struct mb_branch_geometry *g, int ncpus);
void mb_branch_free(struct mb_branch *b);
/* Every counter back to weakly not taken, every history empty. */
void mb_branch_flush(struct mb_branch *b);
/* The conditional branch at pc went (taken or not): whether the predictor
 * guessed the other way; it learns the outcome either way. */
bool mb_branch_resolve(struct mb_branch *b, int cpu, uint64_t pc, bool taken);
/* Whether an instruction's bytes are a conditional direct branch; if so its
 * target, from its address pc. */
bool mb_branch_decode(const uint8_t *bytes, size_t len, uint64_t pc, uint64_t *target);

#endif
