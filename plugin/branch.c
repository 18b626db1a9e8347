// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>
#include "branch.h"
#include "le.h"

/* Two-bit counters: 0 and 1 predict not taken, 2 and 3 taken. */
#define WEAKLY_NOT_TAKEN 1

struct branch_cpu {
	uint64_t history;	/* the last outcomes, newest in bit 0 */
	uint8_t *counters;
};

struct mb_branch {
	struct mb_branch_geometry g;
	int ncpus;
	struct branch_cpu *cpus;
};

void mb_branch_free(struct mb_branch *b)
{
	if (!b)
		return;
	for (int i = 0; b->cpus && i < b->ncpus; i++)
		free(b->cpus[i].counters);
	free(b->cpus);
	free(b);
}

struct mb_branch *mb_branch_new(const struct mb_branch_geometry *g, int ncpus)
{
	struct mb_branch *b;

	if (!g->table_bits || g->table_bits > MB_BRANCH_TABLE_BITS_MAX ||
	    g->history_bits > g->table_bits || !(b = calloc(1, sizeof(*b))))
		return NULL;
	b->g = *g;
	b->ncpus = ncpus;
	b->cpus = calloc(ncpus, sizeof(*b->cpus));
	for (int i = 0; b->cpus && i < ncpus; i++)
		if (!(b->cpus[i].counters = malloc((size_t)1 << g->table_bits)))
			break;
	if (!b->cpus || (ncpus && !b->cpus[ncpus - 1].counters)) {
		mb_branch_free(b);
		return NULL;
	}
	mb_branch_flush(b);
	return b;
}

void mb_branch_flush(struct mb_branch *b)
{
	for (int i = 0; i < b->ncpus; i++) {
		memset(b->cpus[i].counters, WEAKLY_NOT_TAKEN, (size_t)1 << b->g.table_bits);
		b->cpus[i].history = 0;
	}
}

bool mb_branch_resolve(struct mb_branch *b, int cpu, uint64_t pc, bool taken)
{
	struct branch_cpu *c = &b->cpus[cpu];
	uint64_t mask = ((uint64_t)1 << b->g.table_bits) - 1;
	uint64_t history = c->history & (((uint64_t)1 << b->g.history_bits) - 1);
	uint8_t *counter = &c->counters[(pc ^ history) & mask];
	bool predicted = *counter >= 2;

	if (taken && *counter < 3)
		(*counter)++;
	else if (!taken && *counter > 0)
		(*counter)--;
	c->history = c->history << 1 | taken;
	return predicted != taken;
}

/* Prefixes a compiler puts before a Jcc: the branch hints (CS, DS) and BND. */
static bool branch_prefix(uint8_t byte)
{
	return byte == 0x2e || byte == 0x3e || byte == 0xf2;
}

bool mb_branch_decode(const uint8_t *bytes, size_t len, uint64_t pc, uint64_t *target)
{
	size_t i = 0;
	int64_t rel;

	while (i < len && branch_prefix(bytes[i]))
		i++;
	if (i + 2 == len && ((bytes[i] >= 0x70 && bytes[i] <= 0x7f) ||	/* Jcc rel8 */
			     (bytes[i] >= 0xe0 && bytes[i] <= 0xe3)))	/* LOOPcc, JRCXZ */
		rel = (int8_t)bytes[i + 1];
	else if (i + 6 == len && bytes[i] == 0x0f && bytes[i + 1] >= 0x80 && bytes[i + 1] <= 0x8f)
		rel = (int32_t)mb_le32(bytes + i + 2);			/* Jcc rel32 */
	else
		return false;
	*target = pc + len + rel;
	return true;
}
