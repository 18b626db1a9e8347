// SPDX-License-Identifier: GPL-2.0
/* Topology and placement over sysfs trees captured from real kernels
 * (tests/fixtures/sysfs/, see its README). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "topology.h"

#define FIXTURE(name) "tests/fixtures/sysfs/" name

static struct topology t;

static void read_fixture(const char *root)
{
	assert_int_equal(topology_read(root, &t), 0);
}

/* The counts topology_read() finds in a fixture. */
static void assert_shape(const char *root, int n, int packages, int nodes, int cores,
			 int threads_per_core, int llcs)
{
	read_fixture(root);
	assert_int_equal(t.n, n);
	assert_int_equal(t.packages, packages);
	assert_int_equal(t.nodes, nodes);
	assert_int_equal(t.cores, cores);
	assert_int_equal(t.threads_per_core, threads_per_core);
	assert_int_equal(t.llcs, llcs);
	assert_int_equal(t.llc_level, 3);
}

static void two_sockets_two_nodes_smt(void **state)
{
	assert_shape(FIXTURE("2s-2numa-smt"), 8, 2, 2, 4, 2, 2);
	assert_int_equal(t.cpu[5].node, 1);
	assert_int_equal(t.cpu[5].core, 4);
	assert_int_equal(t.cpu[5].thread, 1);
	assert_int_equal(t.cpu[5].llc, 4);
}

static void one_socket_four_llcs(void **state)
{
	assert_shape(FIXTURE("1s-4llc-smt"), 16, 1, 1, 8, 2, 4);
	assert_int_equal(t.cpu[9].llc, 8);
}

static void small_vm_without_smt(void **state)
{
	assert_shape(FIXTURE("host-2vcpu"), 2, 1, 1, 2, 1, 1);
}

static void missing_tree_is_an_error(void **state)
{
	assert_int_equal(topology_read(FIXTURE("no-such-machine"), &t), -ENOENT);
}

static void place(const char *fixture, enum placement p, int n, const int *want)
{
	int got[TOPO_MAX_CPUS];

	read_fixture(fixture);
	assert_int_equal(topology_place(&t, p, n, got), 0);
	assert_memory_equal(got, want, n * sizeof(int));
}

static void compact_fills_an_llcs_cores_then_their_siblings(void **state)
{
	place(FIXTURE("1s-4llc-smt"), PLACE_COMPACT, 5, (int[]){ 0, 2, 1, 3, 4 });
}

static void spread_llc_deals_over_llcs(void **state)
{
	place(FIXTURE("1s-4llc-smt"), PLACE_SPREAD_LLC, 6, (int[]){ 0, 4, 8, 12, 2, 6 });
}

static void spread_node_deals_over_nodes(void **state)
{
	place(FIXTURE("2s-2numa-smt"), PLACE_SPREAD_NODE, 4, (int[]){ 0, 4, 2, 6 });
}

static void smt_pairs_share_a_core(void **state)
{
	place(FIXTURE("1s-4llc-smt"), PLACE_SMT_PAIRS, 4, (int[]){ 0, 1, 2, 3 });
}

static void impossible_placements_are_refused(void **state)
{
	int got[TOPO_MAX_CPUS];

	read_fixture(FIXTURE("host-2vcpu"));
	assert_int_equal(topology_place(&t, PLACE_SMT_PAIRS, 2, got), -ENOENT);
	assert_int_equal(topology_place(&t, PLACE_COMPACT, 3, got), -E2BIG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(two_sockets_two_nodes_smt),
		cmocka_unit_test(one_socket_four_llcs),
		cmocka_unit_test(small_vm_without_smt),
		cmocka_unit_test(missing_tree_is_an_error),
		cmocka_unit_test(compact_fills_an_llcs_cores_then_their_siblings),
		cmocka_unit_test(spread_llc_deals_over_llcs),
		cmocka_unit_test(spread_node_deals_over_nodes),
		cmocka_unit_test(smt_pairs_share_a_core),
		cmocka_unit_test(impossible_placements_are_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
