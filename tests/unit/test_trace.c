// SPDX-License-Identifier: GPL-2.0
/* A boot's model input recorded and replayed (plugin/trace.c) and the
 * machine a plugin argument list describes (plugin/machine.c): a replay on
 * the recorded machine counts what the recording counted, to the last
 * digit, page-table reads included; a replay that differs says so. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "machine.h"
#include "trace.h"

#define NCPUS 2
#define PT 0x100000ull		/* the page tables' pages: PML4 at 0x1000, PDPT, PD, then PTs */

static char words[] = "name=tiny,l1d=256:2,l2=512:2,llc=1024:2,line=64,dtlb=k:4:4,"
		      "stlb=k:16:4,pwc=2,rob=16,mshr=8,stream=2,stride=on,adjacent=on,"
		      "wait=3:10:40,branch=8:4";
static struct mb_trace trace;
static unsigned int generation;	/* bumped to remap every page */
static uint64_t stores;		/* recorded */

/* A 4-level table mapping each 4 KiB page, its last level elsewhere in each
 * generation; page 13 of every table is not mapped (the walk reads fail). */
static bool read_phys(void *ctx, uint64_t paddr, uint64_t *value)
{
	uint64_t entry = (paddr & 0xfff) / 8;
	bool read = true;

	if (paddr >> 12 == 1 || paddr >> 12 == 2)
		*value = (paddr & ~0xfffull) + 0x1000 + 1;
	else if (paddr >> 12 == 3)
		*value = PT + (entry + generation * 512) * 0x1000 + 1;
	else if ((read = entry != 13))
		*value = ((paddr - PT) / 8 * 7 + generation) << 12 | 1;
	else
		*value = 0;
	if (mb_trace_on(&trace))
		mb_trace_pte(&trace, paddr, *value, read);
	return read;
}

/* text (cut up) split at commas into argv; their number. */
static int split(char *text, char **argv)
{
	int argc = 0;

	for (char *w = strtok(text, ","); w; w = strtok(NULL, ","))
		argv[argc++] = w;
	return argc;
}

static void parse(char *text, struct mb_machine *m)
{
	char *argv[32];
	const char *bad, *why;
	int argc = split(text, argv);

	assert_int_equal(mb_machine_parse(m, argc, argv, &bad, &why), 0);
}

static void build(const char *text, struct mb_windows *w, mb_read_phys read, void *ctx)
{
	char copy[sizeof(words)];
	struct mb_machine m;
	const char *what, *why;

	strcpy(copy, text);
	parse(copy, &m);
	assert_int_equal(mb_machine_build(&m, w, NCPUS, fopen("/dev/null", "w"), read, ctx,
					  &what, &why), 0);
}

/* What the plugin does at a marker, a data access and a branch. */
static void mark(struct mb_windows *w, enum mb_mark mark, int cpu, const uint64_t *insns)
{
	mb_mmu_set_root(w->mmu, cpu, 0x1000);
	if (mb_trace_on(&trace)) {
		mb_trace_root(&trace, cpu, 0x1000);
		mb_trace_mark(&trace, mark, cpu, insns);
	}
	mb_windows_mark(w, mark, cpu, insns);
}

/* The k-th pointer of a chase. */
static uint64_t chased(uint64_t k)
{
	return k * 0x9e3779b97f4a7c15ull >> 40 << 6;
}

static void data(struct mb_windows *w, int cpu, enum mb_mode mode, uint64_t vaddr,
		 uint64_t value, uint64_t insns)
{
	struct mb_access a = { .vaddr = vaddr, .paddr = vaddr * 3 % (1 << 20), .size = 8,
			       .pc = 0x400 + vaddr % 5, .value = value, .insns = insns,
			       .store = vaddr % 16 == 8 };

	mb_windows_access(w, cpu, mode, &a, NULL);
	if (mb_trace_on(&trace)) {
		stores += a.store;
		mb_trace_access(&trace, w, cpu, mode, &a);
	}
}

/* A block of two instructions at 0x400 entered; its code the first time. */
static const uint8_t block_len[] = { 3, 1 }, block_code[] = { 0x48, 0x89, 0xe5, 0xc3 };
static bool block_written;

static void block(int cpu)
{
	if (!mb_trace_on(&trace))
		return;
	mb_trace_block(&trace, cpu, MB_KERNEL, 0x400, 2, block_len,
		       block_written ? NULL : block_code);
	block_written = true;
}

static void branch(struct mb_windows *w, int cpu, uint64_t pc, bool taken)
{
	mb_windows_branch(w, cpu, MB_KERNEL, pc, taken, NULL);
	if (mb_trace_on(&trace) && w->open)
		mb_trace_branch(&trace, cpu, MB_KERNEL, pc, taken);
}

/* Two runs on two vCPUs, the pages remapped between them: a trace of the
 * first budget accesses at path, or of all (budget 0). */
static void record(const char *path, uint64_t budget)
{
	char copy[sizeof(words)], *argv[32];
	struct mb_windows w;
	uint64_t insns[NCPUS * MB_MODES] = { 0 }, x = 7;
	int argc;

	build(words, &w, read_phys, NULL);
	strcpy(copy, words);
	argc = split(copy, argv);
	assert_int_equal(mb_trace_open(&trace, path, NCPUS, argc, argv, budget ? budget : ~0ull),
			 0);
	for (int run = 0; run < 2; run++, generation++) {
		mark(&w, MB_MARK_BEGIN, 0, insns);
		for (int i = 0; i < 3000; i++) {
			int cpu = i % 7 == 0;

			x = x * 6364136223846793005ull + 1442695040888963407ull;
			insns[cpu * MB_MODES] += 3;
			if (i == 1000)
				mark(&w, MB_MARK_TIMED, cpu, insns);
			if (i % 500 == 499)
				mark(&w, MB_MARK_NEXT, 0, insns);
			if (i % 50 == 0)
				block(cpu);
			/* every third access follows a pointer the one before loaded */
			if (i % 3)
				data(&w, cpu, i % 11 ? MB_KERNEL : MB_USER, 0x7000 + i % 40 * 8, 0,
				     insns[cpu * MB_MODES]);
			else
				data(&w, cpu, MB_KERNEL, chased(i), chased(i + 3), insns[cpu * MB_MODES]);
			branch(&w, cpu, 0x500 + i % 3, x >> 63);
		}
		mark(&w, MB_MARK_END, 0, insns);
	}
	mb_trace_close(&trace);
	mb_machine_free(&w);
}

static char *temp_path(void)
{
	static char path[] = "/tmp/mapbench-trace-XXXXXX";
	int fd;

	strcpy(path + strlen(path) - 6, "XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	return path;
}

/* The record after the one at *at (SIZE_MAX: the first), or false at the end. */
static bool next_record(const struct mb_replay *r, size_t *at, struct mb_trace_record *rec)
{
	if (*at == SIZE_MAX)
		*at = 0;
	else
		*at += sizeof(*rec) + (rec->type == MB_TRACE_MARK ?
				       NCPUS * MB_MODES * sizeof(uint64_t) : 0);
	if (*at + sizeof(*rec) > r->size)
		return false;
	memcpy(rec, r->data + *at, sizeof(*rec));
	return rec->type != MB_TRACE_END;
}

/* The replay of path on the machine its header names. */
static uint64_t replay(struct mb_replay *r, enum mb_replay_end *end_as)
{
	struct mb_windows w;
	uint64_t n;

	build(r->words, &w, mb_replay_read_phys, r);
	n = mb_replay_run(r, &w, end_as);
	mb_machine_free(&w);
	return n;
}

/* A fresh recording of budget accesses (0: all) at a new path, loaded into r. */
static char *recorded(uint64_t budget, struct mb_replay *r)
{
	char *path = temp_path();
	const char *why;

	generation = 0;
	stores = 0;
	block_written = false;
	record(path, budget);
	assert_int_equal(mb_replay_load(r, path, &why), 0);
	return path;
}

static void a_replay_counts_what_the_recording_counted(void **state)
{
	struct mb_trace_record rec;
	struct mb_replay r;
	uint64_t stored = 0, blocks = 0, code = 0;
	enum mb_replay_end end_as;
	/* ends in the second run, in its timed work */
	char *path = recorded(4400, &r);

	assert_int_equal(r.ncpus, NCPUS);
	assert_string_equal(r.words, words);
	for (size_t at = SIZE_MAX; next_record(&r, &at, &rec);) {
		stored += rec.type == MB_TRACE_ACCESS && rec.store;
		blocks += rec.type == MB_TRACE_BLOCK && rec.v[0] == 0x400 && rec.store == 2;
		/* the block's code, an instruction a record, before its first run */
		if (rec.type == MB_TRACE_CODE) {
			assert_int_equal(blocks, 0);
			assert_int_equal(rec.v[0], 0x400 + code * 3);
			assert_int_equal(rec.arg2, block_len[code]);
			assert_memory_equal(&rec.v[1], block_code + code * 3, rec.arg2);
			code++;
		}
	}
	assert_true(stores > 0);
	assert_int_equal(stored, stores);
	assert_int_equal(code, 2);
	/* one every 50 accesses: 60 in the first run, 28 in the second's first 1,400 */
	assert_int_equal(blocks, 60 + 28);
	assert_int_equal(replay(&r, &end_as), 4400);
	assert_int_equal(end_as, MB_REPLAY_SAME);
	/* twice: each replay starts from the trace, not from the last one */
	assert_int_equal(replay(&r, &end_as), 4400);
	assert_int_equal(end_as, MB_REPLAY_SAME);
	/* the trace read alone stops at its end too, before the counts' text */
	assert_int_equal(mb_replay_run(&r, NULL, &end_as), 4400);
	assert_int_equal(end_as, MB_REPLAY_CUT);
	mb_replay_free(&r);
	unlink(path);
}

static void a_replay_that_counts_otherwise_says_so(void **state)
{
	struct mb_replay r;
	struct mb_trace_record rec;
	size_t last = 0;
	enum mb_replay_end end_as;
	char *path = recorded(4400, &r);

	/* the last walk of the window the budget ended in finds its page unmapped */
	for (size_t at = SIZE_MAX; next_record(&r, &at, &rec);)
		if (rec.type == MB_TRACE_PTE && rec.arg && rec.v[0] >= PT)
			last = at;
	memcpy(&rec, r.data + last, sizeof(rec));
	rec.arg = false;
	memcpy(r.data + last, &rec, sizeof(rec));
	replay(&r, &end_as);
	assert_int_equal(end_as, MB_REPLAY_DIFFERS);
	mb_replay_free(&r);
	unlink(path);
}

static void a_trace_under_its_budget_replays_whole_with_nothing_to_check(void **state)
{
	struct mb_replay r;
	enum mb_replay_end end_as;
	char *path = recorded(0, &r);

	assert_int_equal(replay(&r, &end_as), 6000);
	assert_int_equal(end_as, MB_REPLAY_CUT);
	/* nothing simulated: the trace read alone, nothing to check */
	assert_int_equal(mb_replay_run(&r, NULL, &end_as), 6000);
	assert_int_equal(end_as, MB_REPLAY_CUT);
	mb_replay_free(&r);
	unlink(path);
}

static void what_is_not_a_trace_is_refused(void **state)
{
	char *path = temp_path();
	FILE *f = fopen(path, "w");
	struct mb_replay r;
	const char *why;

	fputs("model name=zen4 vcpus=1\n", f);
	fclose(f);
	assert_int_equal(mb_replay_load(&r, path, &why), -1);
	assert_non_null(strstr(why, "not a trace"));
	f = fopen(path, "w");
	fputs("mapbench-trace 1 vcpus=1\n", f);	/* no machine */
	fclose(f);
	assert_int_equal(mb_replay_load(&r, path, &why), -1);
	assert_non_null(strstr(why, "not a trace"));
	unlink(path);
	assert_int_equal(mb_replay_load(&r, path, &why), -1);
	assert_string_equal(why, strerror(ENOENT));
}

static void machine_words_parse_and_bad_ones_are_named(void **state)
{
	static const struct { const char *word, *why; } bad[] = {
		{ "l1d=32768", "BYTES:WAYS" },
		{ "stlb=x:16:4", "PAGES" },
		{ "branch=30:2", "TABLE_BITS 1..24" },
		{ "wait=1:2", "INSNS:INSNS:INSNS" },
		{ "trace_accesses=0", "1 or more" },
		{ "colour=red", "unknown argument" },
		{ "rob=64", "both rob= and mshr=" },
	};
	char text[] = "out=/x,l1d=256:2,profile=on,trace=/t,trace_accesses=9,direct_map=0x10";
	struct mb_machine m;
	const char *b, *why;

	parse(text, &m);
	assert_int_equal(m.cache.size[MB_L1D], 256);
	assert_string_equal(m.out, "/x");
	assert_string_equal(m.trace, "/t");
	assert_int_equal(m.trace_accesses, 9);
	assert_int_equal(m.direct_map, 0x10);
	assert_true(m.profile);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = { (char *)bad[i].word };

		assert_int_equal(mb_machine_parse(&m, 1, argv, &b, &why), -1);
		assert_non_null(strstr(why, bad[i].why));
	}
	/* a trace's header keeps the machine's words only */
	assert_false(mb_machine_word("out=/x"));
	assert_false(mb_machine_word("trace=/t"));
	assert_false(mb_machine_word("profile=on"));
	assert_true(mb_machine_word("l1d=256:2"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_replay_counts_what_the_recording_counted),
		cmocka_unit_test(a_replay_that_counts_otherwise_says_so),
		cmocka_unit_test(a_trace_under_its_budget_replays_whole_with_nothing_to_check),
		cmocka_unit_test(what_is_not_a_trace_is_refused),
		cmocka_unit_test(machine_words_parse_and_bad_ones_are_named),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
