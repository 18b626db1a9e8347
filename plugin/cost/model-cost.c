// SPDX-License-Identifier: GPL-2.0
/* make model-cost: what the plugin's simulation costs the host per guest
 * access, without QEMU. A boot under the model is too noisy on a shared
 * machine to show a change in the plugin of 10% or 20% (two boots of one
 * kind differ by 15% and more), so this drives windows.c directly and times
 * it: host ns per access, best of three, the machine's mechanisms added one
 * at a time. It measures the simulation's host cost, not a modelled figure;
 * QEMU's callbacks come on top.
 *
 *   model-cost WORDS          a fixed trace shaped like 8-byte htab lookups
 *                             on the machine of plugin arguments WORDS
 *   model-cost --trace FILE   a boot's accesses (vmrun --model-trace), on
 *                             its own machine; exit 1 if the replay does not
 *                             count what the boot counted
 *
 * Exit: 0, 1 the replay counted otherwise, 2 bad input, 64 usage.
 *
 * The fixed trace: 48 accesses an op, 40 to four stack lines and 8 to one
 * element of a table of 1K or 1M entries picked by a fixed xorshift, every
 * address in a 1 GiB page as the direct map is. A boot's accesses cost the
 * simulation more than these (docs/vm.org): they are the gauge. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "machine.h"
#include "trace.h"

#define OPS 500000
#define ACCESSES_PER_OP 48
#define STACK_ACCESSES 40
#define TRIES 3
#define MAX_WORDS 64

/* exit statuses */
enum { DIFFERS = 1, INPUT = 2, USAGE = 64 };

/* The machine with its mechanisms up to the nth (0: the caches alone). */
struct row {
	const char *name;
	struct mb_machine m;
};

static int rows_of(const struct mb_machine *full, struct row *rows)
{
	struct mb_machine m = *full;
	int n = 0;

	m.tlb = (struct mb_tlb_geometry){ 0 };
	m.prefetch = (struct mb_prefetch_geometry){ 0 };
	m.overlap = (struct mb_overlap_geometry){ 0 };
	m.branch = (struct mb_branch_geometry){ 0 };
	rows[n++] = (struct row){ "caches", m };
	if (full->tlb.array[MB_DTLB_L1][0].entries) {
		m.tlb = full->tlb;
		rows[n++] = (struct row){ "+ TLBs", m };
	}
	if (full->prefetch.stream || full->prefetch.stride || full->prefetch.adjacent) {
		m.prefetch = full->prefetch;
		rows[n++] = (struct row){ "+ prefetchers", m };
	}
	if (full->overlap.rob) {
		m.overlap = full->overlap;
		rows[n++] = (struct row){ "+ overlaps", m };
	}
	if (full->branch.table_bits) {
		m.branch = full->branch;
		rows[n++] = (struct row){ "+ branch predictor", m };
	}
	return n;
}

static void build(const struct mb_machine *m, struct mb_windows *w, int ncpus, mb_read_phys read,
		  void *ctx)
{
	const char *what, *why;

	if (mb_machine_build(m, w, ncpus, fopen("/dev/null", "w"), read, ctx, &what, &why)) {
		fprintf(stderr, "model-cost: %s: %s\n", what, why);
		exit(INPUT);
	}
}

static double seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* Every entry present; a PDPTE is a leaf: 1 GiB pages under one table. */
static bool one_gib_pages(void *ctx, uint64_t paddr, uint64_t *value)
{
	*value = 0x1000 | 0x80 | 0x1;
	return true;
}

/* Host ns per access of one pass of the fixed trace. */
static double fixed_pass(const struct mb_machine *m, uint64_t entries)
{
	const uint64_t stack = 0xffffc90000010000ull, table = 0xffff888010000000ull;
	uint64_t insns[MB_MODES] = { 0 }, x = 88172645463325252ull, n = 0;
	struct mb_windows w;
	double start, ns;

	build(m, &w, 1, one_gib_pages, NULL);
	if (w.mmu)
		mb_mmu_set_root(w.mmu, 0, 0x1000);
	mb_windows_mark(&w, MB_MARK_BEGIN, 0, insns);
	start = seconds();
	for (int op = 0; op < OPS; op++) {
		uint64_t element;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		element = table + x % entries * 64;
		for (int i = 0; i < ACCESSES_PER_OP; i++, n++) {
			uint64_t vaddr = i < STACK_ACCESSES ? stack - i % 12 * 8 - i / 12 * 64 :
				       element + (i - STACK_ACCESSES) * 8;
			struct mb_access a = { .vaddr = vaddr, .paddr = vaddr & ((1ull << 30) - 1),
					       .size = 8, .pc = 0xffffffff81000000ull + i * 4,
					       .insns = n * 4 };

			mb_windows_access(&w, 0, MB_KERNEL, &a, NULL);
		}
	}
	ns = (seconds() - start) / n * 1e9;
	mb_machine_free(&w);
	return ns;
}

/* Host ns per access of one replay of r on m (NULL: the replay's own cost,
 * nothing simulated), and how it ended. */
static double replay_pass(const struct mb_machine *m, struct mb_replay *r,
			  enum mb_replay_end *end_as)
{
	struct mb_windows w;
	double start, ns;
	uint64_t n;

	if (m)
		build(m, &w, r->ncpus, mb_replay_read_phys, r);
	start = seconds();
	n = mb_replay_run(r, m ? &w : NULL, end_as);
	ns = n ? (seconds() - start) / n * 1e9 : 0;
	if (m)
		mb_machine_free(&w);
	return ns;
}

/* words split at commas into argv (words is cut up); their number, or -1. */
static int split(char *words, char **argv)
{
	int n = 0;

	for (char *w = strtok(words, ","); w; w = strtok(NULL, ","))
		if (n == MAX_WORDS)
			return -1;
		else
			argv[n++] = w;
	return n;
}

static void parse(char *words, struct mb_machine *m)
{
	char *argv[MAX_WORDS];
	const char *bad = "the machine", *why = "too many words";
	int argc = split(words, argv);

	if (argc < 0 || mb_machine_parse(m, argc, argv, &bad, &why)) {
		fprintf(stderr, "model-cost: %s: %s\n", bad, why);
		exit(INPUT);
	}
}

/* Each row's best of TRIES; the trace's last row checks the replay's counts. */
static int table(const struct mb_machine *full, struct mb_replay *r)
{
	static const uint64_t entries[] = { 1 << 10, 1 << 20 };
	static const char *const ends[] = {
		[MB_REPLAY_CUT] = "the trace was cut short (QEMU stopped before its budget): no counts to check",
		[MB_REPLAY_SAME] = "the replay on the boot's machine counts what the boot counted: yes",
		[MB_REPLAY_DIFFERS] = "the replay on the boot's machine counts what the boot counted: no",
	};
	struct row rows[5];
	int n = rows_of(full, rows);
	enum mb_replay_end end_as = MB_REPLAY_CUT;

	for (int i = r ? -1 : 0; i < n; i++) {
		printf("%-24s", i < 0 ? "reading the trace" : rows[i].name);
		for (size_t e = 0; e < (r ? 1 : 2); e++) {
			double best = 0;

			for (int t = 0; t < TRIES; t++) {
				double ns = r ? replay_pass(i < 0 ? NULL : &rows[i].m, r, &end_as) :
						fixed_pass(&rows[i].m, entries[e]);

				best = !t || ns < best ? ns : best;
			}
			if (r)
				printf("  %5.1f ns", best);
			else
				printf("  %s: %5.1f ns", entries[e] >> 20 ? "1M" : "1K", best);
		}
		putchar('\n');
	}
	if (!r)
		return 0;
	puts(ends[end_as]);
	return end_as == MB_REPLAY_DIFFERS ? DIFFERS : 0;
}

int main(int argc, char **argv)
{
	struct mb_machine m;
	struct mb_replay r;
	const char *why;
	int status;

	if (argc == 2 && strcmp(argv[1], "--trace")) {
		parse(argv[1], &m);
		printf("model-cost: host ns per guest access of the plugin's simulation alone "
		       "(%s, fixed 8-byte htab lookups, best of %d)\n", m.name, TRIES);
		return table(&m, NULL);
	}
	if (argc != 3 || strcmp(argv[1], "--trace")) {
		fprintf(stderr, "usage: model-cost WORDS | model-cost --trace FILE\n");
		return USAGE;
	}
	if (mb_replay_load(&r, argv[2], &why)) {
		fprintf(stderr, "model-cost: %s: %s\n", argv[2], why);
		return INPUT;
	}
	parse(r.words, &m);
	printf("model-cost: host ns per guest access of the plugin's simulation alone "
	       "(%s, the %d-vCPU boot's trace %s, best of %d)\n", m.name, r.ncpus, argv[2], TRIES);
	status = table(&m, &r);
	mb_replay_free(&r);
	return status;
}
