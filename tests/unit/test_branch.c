// SPDX-License-Identifier: GPL-2.0
/* The branch predictor (plugin/branch.c) on fixed outcome traces and the
 * decoder on x86's conditional branch forms: a branch that always goes one
 * way costs one miss to learn, a loop's exit is learnt from the history, a
 * pattern longer than the history is not, and each vCPU learns alone. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <cmocka.h>
#include "branch.h"

static struct mb_branch *new_branch(unsigned int table_bits, unsigned int history_bits)
{
	const struct mb_branch_geometry g = { table_bits, history_bits };
	struct mb_branch *b = mb_branch_new(&g, 2);

	assert_non_null(b);
	return b;
}

/* Mispredictions of the branch at pc over n outcomes, outcome i = taken(i). */
static unsigned int misses(struct mb_branch *b, int cpu, uint64_t pc, unsigned int n,
			   bool (*taken)(unsigned int))
{
	unsigned int missed = 0;

	for (unsigned int i = 0; i < n; i++)
		missed += mb_branch_resolve(b, cpu, pc, taken(i));
	return missed;
}

static bool always(unsigned int i)
{
	return true;
}

/* a loop of 8 iterations: taken 7 times, then out */
static bool loop_of_8(unsigned int i)
{
	return i % 8 != 7;
}

/* a fixed pattern of period 40, too long for 12 bits of history to tell apart */
static bool long_pattern(unsigned int i)
{
	return (0x9d3a5c61f1ull >> (i % 40)) & 1;
}

static void a_steady_branch_costs_its_first_outcomes(void **state)
{
	struct mb_branch *b = new_branch(12, 0);

	/* weakly not taken: one miss, then strongly taken */
	assert_int_equal(misses(b, 0, 0x1000, 100, always), 1);
	mb_branch_free(b);
}

static void a_loop_exit_is_learnt_from_the_history(void **state)
{
	struct mb_branch *with = new_branch(12, 10), *without = new_branch(12, 0);

	/* trained, then measured */
	misses(with, 0, 0x1000, 800, loop_of_8);
	misses(without, 0, 0x1000, 800, loop_of_8);
	assert_int_equal(misses(with, 0, 0x1000, 800, loop_of_8), 0);
	/* a counter alone misses every exit */
	assert_int_equal(misses(without, 0, 0x1000, 800, loop_of_8), 100);
	mb_branch_free(with);
	mb_branch_free(without);
}

static void a_pattern_longer_than_the_history_is_missed(void **state)
{
	struct mb_branch *b = new_branch(14, 4);

	misses(b, 0, 0x1000, 4000, long_pattern);
	assert_true(misses(b, 0, 0x1000, 4000, long_pattern) > 400);
	mb_branch_free(b);
}

static void each_vcpu_learns_alone_and_a_flush_forgets(void **state)
{
	struct mb_branch *b = new_branch(12, 6);

	/* one miss at each counter the filling history passes: 6 + 1 */
	assert_int_equal(misses(b, 0, 0x1000, 50, always), 7);
	assert_int_equal(misses(b, 1, 0x1000, 50, always), 7);	/* its own counters */
	assert_int_equal(misses(b, 0, 0x1000, 50, always), 0);
	mb_branch_flush(b);
	assert_int_equal(misses(b, 0, 0x1000, 50, always), 7);
	mb_branch_free(b);
}

static void geometry_out_of_range_is_refused(void **state)
{
	const struct mb_branch_geometry none = { 0, 0 }, long_history = { 8, 9 },
					 huge = { MB_BRANCH_TABLE_BITS_MAX + 1, 0 };

	assert_null(mb_branch_new(&none, 1));
	assert_null(mb_branch_new(&long_history, 1));
	assert_null(mb_branch_new(&huge, 1));
}

static void conditional_branches_are_decoded_with_their_targets(void **state)
{
	const uint8_t jne8[] = { 0x75, 0xfe }, je32[] = { 0x0f, 0x84, 0x00, 0x01, 0x00, 0x00 },
		      hinted[] = { 0x3e, 0x74, 0x10 }, jrcxz[] = { 0xe3, 0x05 },
		      jmp8[] = { 0xeb, 0x10 }, call[] = { 0xe8, 0, 0, 0, 0 },
		      cmov[] = { 0x0f, 0x44, 0xc1 }, short_je32[] = { 0x0f, 0x84, 0x00 };
	uint64_t target = 0;

	assert_true(mb_branch_decode(jne8, sizeof(jne8), 0x1000, &target));
	assert_int_equal(target, 0x1000);	/* jne . : back to itself */
	assert_true(mb_branch_decode(je32, sizeof(je32), 0x1000, &target));
	assert_int_equal(target, 0x1106);
	assert_true(mb_branch_decode(hinted, sizeof(hinted), 0x1000, &target));
	assert_int_equal(target, 0x1013);
	assert_true(mb_branch_decode(jrcxz, sizeof(jrcxz), 0x1000, &target));
	assert_int_equal(target, 0x1007);
	/* unconditional jumps, calls, a conditional move, a cut-off branch */
	assert_false(mb_branch_decode(jmp8, sizeof(jmp8), 0x1000, &target));
	assert_false(mb_branch_decode(call, sizeof(call), 0x1000, &target));
	assert_false(mb_branch_decode(cmov, sizeof(cmov), 0x1000, &target));
	assert_false(mb_branch_decode(short_je32, sizeof(short_je32), 0x1000, &target));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_steady_branch_costs_its_first_outcomes),
		cmocka_unit_test(a_loop_exit_is_learnt_from_the_history),
		cmocka_unit_test(a_pattern_longer_than_the_history_is_missed),
		cmocka_unit_test(each_vcpu_learns_alone_and_a_flush_forgets),
		cmocka_unit_test(geometry_out_of_range_is_refused),
		cmocka_unit_test(conditional_branches_are_decoded_with_their_targets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
