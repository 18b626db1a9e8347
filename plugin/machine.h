/* SPDX-License-Identifier: GPL-2.0 */
/* The machine a plugin argument list describes (plugin.c's usage): parsed,
 * then built into a struct mb_windows with each mechanism it asks for. The
 * plugin and make model-cost (plugin/cost/) share it, so that a trace is
 * replayed on the very machine its boot ran. */
#ifndef MAPBENCH_MACHINE_H
#define MAPBENCH_MACHINE_H
#include <stdbool.h>
#include <stdio.h>
#include "windows.h"

struct mb_machine {
	const char *name;
	struct mb_geometry cache;
	struct mb_tlb_geometry tlb;		/* tlb.array[MB_DTLB_L1][0].entries 0: none */
	struct mb_overlap_geometry overlap;	/* rob 0: none */
	struct mb_prefetch_geometry prefetch;	/* no stream, stride or adjacent: none */
	struct mb_branch_geometry branch;	/* table_bits 0: none */
	uint64_t direct_map;			/* where the guest maps physical memory */
	/* the plugin's own, not the machine's (left out of a trace's header) */
	const char *out, *trace;
	uint64_t trace_accesses;
	bool profile;
};

/* argv[0..argc) as NAME=VALUE words; -1 with *bad the word and *why what to
 * give instead. */
int mb_machine_parse(struct mb_machine *m, int argc, char **argv, const char **bad,
		     const char **why);
/* Whether word is one of the machine's (not out=, trace=, ...). */
bool mb_machine_word(const char *word);
/* w with m's cache and mechanisms, writing to out (may be set later); -1
 * with *what and *why said where one cannot be built. read and ctx: the
 * walker's page-table reads. */
int mb_machine_build(const struct mb_machine *m, struct mb_windows *w, int ncpus, FILE *out,
		     mb_read_phys read, void *ctx, const char **what, const char **why);
/* Everything mb_machine_build made, out closed. */
void mb_machine_free(struct mb_windows *w);

#endif
