/* SPDX-License-Identifier: GPL-2.0 */
/* A boot's model input, recorded (the plugin's trace= option) and replayed
 * without QEMU (make model-cost): what the windows were given, in order,
 * so that the simulation's host cost can be measured on a real boot's
 * accesses, and a replay shown to count what the boot counted.
 *
 * A text header, "mapbench-trace 1 vcpus=N WORDS" (WORDS: the machine's
 * plugin arguments, comma-separated), then records of struct mb_trace_record
 * in the host's byte order: accesses (after the model took them, so that
 * the page-table reads of their walks come first), branches, markers
 * (followed by every vCPU's instruction counters), page-table roots and
 * page-table reads; in the windows also the blocks of instructions entered,
 * each block's code before its first run. When the budget of accesses is
 * spent, an end record and the counts of the window then open, as text
 * (mb_counts_write), close it. */
#ifndef MAPBENCH_TRACE_H
#define MAPBENCH_TRACE_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "windows.h"

enum mb_trace_type {
	MB_TRACE_ACCESS = 'A', MB_TRACE_BRANCH = 'B', MB_TRACE_MARK = 'M',
	MB_TRACE_ROOT = 'R', MB_TRACE_PTE = 'P', MB_TRACE_END = 'E',
	MB_TRACE_BLOCK = 'X', MB_TRACE_CODE = 'C',
};

#define MB_TRACE_INSN_MAX 16	/* bytes of an instruction's code record (x86: 15 at most) */

struct mb_trace_record {
	uint8_t type, cpu;
	uint8_t arg, arg2;	/* access: mode, size; branch: mode, taken; mark: its
				 * command; page-table read: whether it read; block:
				 * mode; code: the instruction's length */
	uint32_t store;		/* access: a store; block: its instructions */
	uint64_t v[5];		/* access: vaddr, paddr, pc, value, insns; branch: pc;
				 * root: CR3; page-table read: paddr, value; block:
				 * vaddr; code: vaddr, then the instruction's bytes */
};

struct mb_trace {
	FILE *f;
	uint64_t left;		/* accesses still to record; the trace is closed at 0 */
	int ncpus;
};

/* Start recording to path: 0, or -1 with errno. */
int mb_trace_open(struct mb_trace *t, const char *path, int ncpus, int nwords,
		  char *const *words, uint64_t accesses);
/* Whether t still records. */
static inline bool mb_trace_on(const struct mb_trace *t)
{
	return t->f != NULL;
}
/* An access the windows took: value and insns filled. At the budget's last
 * one, w's open counts are written and the trace closed. */
void mb_trace_access(struct mb_trace *t, const struct mb_windows *w, int cpu, enum mb_mode mode,
		     const struct mb_access *a);
void mb_trace_branch(struct mb_trace *t, int cpu, enum mb_mode mode, uint64_t pc, bool taken);
void mb_trace_mark(struct mb_trace *t, enum mb_mark mark, int cpu, const uint64_t *insns);
void mb_trace_root(struct mb_trace *t, int cpu, uint64_t cr3);
void mb_trace_pte(struct mb_trace *t, uint64_t paddr, uint64_t value, bool read);
/* A block of n instructions at vaddr entered; before it, where code is not
 * NULL, its instructions (len[i] bytes each, one after the other in code). */
void mb_trace_block(struct mb_trace *t, int cpu, enum mb_mode mode, uint64_t vaddr,
		    unsigned int n, const uint8_t *len, const uint8_t *code);
/* Stop recording (at QEMU's exit): what is there stays readable. */
void mb_trace_close(struct mb_trace *t);

struct mb_replay_pte {
	uint64_t key;		/* paddr + 1; 0: empty */
	uint64_t value;
	bool read;		/* false: the walker could not read it */
};

/* A recorded trace, in memory. */
struct mb_replay {
	int ncpus;
	char *words;		/* the machine's plugin arguments, comma-separated */
	unsigned char *data;
	size_t size;
	/* the page-table reads seen so far, by physical address (open addressing) */
	struct mb_replay_pte *ptes;
	size_t pte_size, pte_used;
};

/* Load path: 0, or -1 with *why. */
int mb_replay_load(struct mb_replay *r, const char *path, const char **why);
void mb_replay_free(struct mb_replay *r);
/* The walker's page-table reads during a replay: ctx is the struct mb_replay. */
bool mb_replay_read_phys(void *ctx, uint64_t paddr, uint64_t *value);
/* How a replay ended: the trace's counts equal w's, or differ, or the trace
 * has none (cut short before its budget, or nothing simulated). */
enum mb_replay_end { MB_REPLAY_CUT, MB_REPLAY_SAME, MB_REPLAY_DIFFERS };

/* Feed the whole trace to w (built for r's vCPUs, read_phys from r): the
 * accesses replayed, and how it ended. w NULL: the trace read and its
 * page-table reads kept, nothing simulated (the replay's own cost). */
uint64_t mb_replay_run(struct mb_replay *r, struct mb_windows *w, enum mb_replay_end *end_as);

#endif
