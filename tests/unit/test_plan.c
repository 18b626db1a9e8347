// SPDX-License-Identifier: GPL-2.0
/* The resolve step, a rule per row: a command line and a machine (CPU
 * count, whether it is this one), then either a field of the plan or the
 * one-line error. plan_resolve() reads nothing but its arguments, so these
 * hold on any machine that runs the tests. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include "cli.h"
#include "keys.h"
#include "map_perf.h"
#include "plan.h"

struct rule {
	const char *why;
	const char *line;	/* the command line after ./bench */
	int cpus;
	int status;		/* of plan_resolve() */
	const char *field;	/* EXIT_OK: a field of the plan ... */
	long value;		/* ... and its value */
	const char *says;	/* else: a part of the error line */
};

/* Interfaces of the made-up machine: only "eth0". */
static unsigned int one_interface(const char *name)
{
	return !strcmp(name, "eth0") ? 2 : 0;
}

static long field_of(const struct plan *p, const char *name)
{
	const struct { const char *name; long value; } fields[] = {
		{ "max_entries", p->max_entries }, { "prealloc", p->prealloc },
		{ "keys", p->keys }, { "producers", p->producers }, { "batch", p->batch },
		{ "nr_prod_cpus", p->nr_prod_cpus }, { "trigger_fallback", p->trigger_fallback },
		{ "zero_seed", p->zero_seed }, { "prefix_len", p->prefix_len }, { "loop", p->loop },
		{ "writers", p->writers }, { "batch_auto", p->batch_auto },
	};

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (!strcmp(fields[i].name, name))
			return fields[i].value;
	fail_msg("no field %s in the test's table", name);
	return 0;
}

static const struct rule rules[] = {
	{ "htab-mem's map is max(8192, 64 x CPUs), as the kernel's",
	  "htab-mem", 2, EXIT_OK, "max_entries", 8192 },
	{ "... on a machine of 256 CPUs", "htab-mem", 256, EXIT_OK, "max_entries", 16384 },
	{ "pairs need an even producer count",
	  "-p 3 htab-add_del_on_diff_cpu", 4, EXIT_USAGE, .says = "-p must be even" },
	{ "LRU maps are always preallocated",
	  "htab-lookup --map lru --no-prealloc", 2, EXIT_USAGE, .says = "always preallocated" },
	{ "rhtab is never preallocated", "htab-lookup --map rhtab", 2, EXIT_OK, "prealloc", 0 },
	{ "zero seed only where the map kind has a seed",
	  "htab-lookup --map rhtab --zero-seed", 2, EXIT_OK, "zero_seed", 0 },
	{ "--random on a hash map is a permutation", "htab-lookup --random", 2, EXIT_OK,
	  "keys", KEYS_RANDOM },
	{ "--random on a trie is the LPM bench's prandom", "lpm-trie-lookup --random", 2,
	  EXIT_OK, "keys", KEYS_PRANDOM },
	{ "an LPM key's prefix covers the key", "lpm-trie-lookup --key-size 8", 2, EXIT_OK,
	  "prefix_len", 64 },
	{ "-a pins no more producers than CPUs", "-a -p 4 htab-lookup", 2, EXIT_USAGE,
	  .says = "more pinned producers (4) than online CPUs (2)" },
	{ "... which a larger machine has", "-a -p 4 htab-lookup", 4, EXIT_OK, "producers", 4 },
	{ "--prod-affinity names online CPUs", "--prod-affinity 5 htab-lookup", 2, EXIT_USAGE,
	  .says = "CPU 5 in --prod-affinity is not online" },
	{ "... as it is on a larger machine", "--prod-affinity 5 htab-lookup", 8, EXIT_OK,
	  "nr_prod_cpus", 1 },
	{ "--all is mem's", "--all htab-lookup", 2, EXIT_USAGE, .says = "--all is for mem" },
	{ "no more prefilled keys than entries", "htab-lookup --nr-entries 2000", 2, EXIT_USAGE,
	  .says = "larger than --max-entries" },
	{ "a batch is kept as given", "htab-lookup --batch 1001", 2, EXIT_OK, "batch", 1001 },
	{ "... and one that is not whole unrolled steps runs with bpf_loop",
	  "htab-lookup --batch 1", 2, EXIT_OK, "loop", LOOP_BPF_LOOP },
	{ "... which bpf_for cannot", "htab-lookup --batch 1 --loop bpf_for", 2, EXIT_USAGE,
	  .says = "is not a multiple of 8" },
	{ "whole unrolled steps keep bpf_for", "htab-lookup --batch 16", 2, EXIT_OK, "loop",
	  LOOP_AUTO },
	{ "--hit-ratio is for lookups", "htab-update --hit-ratio 0.5", 2, EXIT_USAGE,
	  .says = "not htab-update" },
	{ "... of hash maps", "lpm-trie-lookup --hit-ratio 0.5", 2, EXIT_USAGE,
	  .says = "not lpm-trie-lookup" },
	{ "... whose keys come from keys[]", "bpf-hashmap-lookup --hit-ratio 0.5", 2, EXIT_USAGE,
	  .says = "add --keys seq" },
	{ "... as they do with --keys seq", "bpf-hashmap-lookup --hit-ratio 0.5 --keys seq", 2,
	  EXIT_OK, "keys", KEYS_SEQ },
	{ "readers and writers: one of each by default", "htab-lookup-update", 2, EXIT_OK,
	  "producers", 2 },
	{ "... -p is their sum, one writer unless given", "-p 3 htab-lookup-update", 2, EXIT_OK,
	  "writers", 1 },
	{ "... or the readers' count beside the writers given",
	  "-p 4 --writers 3 htab-lookup-delete", 2, EXIT_OK, "writers", 3 },
	{ "... and a -p that is not their sum is refused",
	  "-p 2 --readers 2 --writers 1 htab-lookup-update", 2, EXIT_USAGE,
	  .says = "-p 2 is not --readers 2 plus --writers 1" },
	{ "... as one that leaves no reader", "-p 1 htab-lookup-update", 2, EXIT_USAGE,
	  .says = "leaves no readers" },
	{ "--writers only where producers write one map", "--writers 2 htab-lookup", 2,
	  EXIT_USAGE, .says = "not htab-lookup" },
	{ "--batch auto where producers share the keys", "htab-lookup --batch auto", 2, EXIT_OK,
	  "batch_auto", 1 },
	{ "... not where the batch is a slice's", "htab-delete --batch auto", 2, EXIT_USAGE,
	  .says = "bound to its key walk (sliced" },
	{ "... nor the kernel's whole passes", "bpf-hashmap-lookup --batch auto", 2, EXIT_USAGE,
	  .says = "keys index" },
	{ "... and it needs a warmup second", "-w 0 htab-lookup --batch auto", 2, EXIT_USAGE,
	  .says = "-w 1 or more" },
	{ "a map-filling walk takes no --nr-entries", "htab-overwrite-full --nr-entries 10", 2,
	  EXIT_USAGE, .says = "fills the map" },
	{ "ops that work to the range's end take keys in order", "lpm-trie-insert --random", 2,
	  EXIT_USAGE, .says = "works through the keys in order" },
	{ "the free benchmarks run no producer programs", "htab-free --trigger xdp", 2,
	  EXIT_USAGE, .says = "runs no producer programs" },
	{ "a kernel bench's trigger falls back where refused", "bpf-hashmap-lookup", 2, EXIT_OK,
	  "trigger_fallback", TRIGGER_TP },
	{ "... never a trigger that was asked for", "bpf-hashmap-lookup --trigger fentry", 2,
	  EXIT_OK, "trigger_fallback", TRIGGER_NONE },
	{ "--trigger nic: a producer per possible CPU", "--trigger nic --iface eth0 htab-lookup",
	  8, EXIT_OK, "producers", 8 },
	{ "--trigger nic: a batch per packet is one unrolled step",
	  "--trigger nic --iface eth0 htab-lookup", 8, EXIT_OK, "batch", UNROLL },
	{ "--trigger nic: the interface is there", "--trigger nic --iface eth9 htab-lookup", 8,
	  EXIT_USAGE, .says = "--iface eth9: no such interface here" },
	{ "--trigger nic: producers that work alone",
	  "--trigger nic --iface eth0 htab-add_del_on_diff_cpu", 8, EXIT_USAGE,
	  .says = "cannot be driven by packets" },
	{ "--placement on another machine: its run places them",
	  "--placement compact -p 2 htab-lookup", -4, EXIT_OK, "nr_prod_cpus", 0 },
};

/* The machine of a rule: n CPUs, this kind (interfaces known) for n > 0,
 * another machine's (--guest-cpus) for n < 0. */
static const struct host *machine(int cpus)
{
	static struct host h;

	host_assume(&h, cpus > 0 ? cpus : -cpus);
	if (cpus > 0) {
		h.assumed = false;
		h.ifindex = one_interface;
	}
	return &h;
}

static void each_rule_holds(void **state)
{
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		const struct rule *r = &rules[i];
		char line[256], *argv[32] = { "bench" };
		struct options given;
		struct plan plan;
		enum cli_action action;
		int argc = 1;

		snprintf(line, sizeof(line), "%s", r->line);
		for (char *t = strtok(line, " "); t; t = strtok(NULL, " "))
			argv[argc++] = t;
		if (cli_parse(argc, argv, &given, &action))
			fail_msg("%s: '%s' does not parse", r->why, r->line);
		if (plan_resolve(&given, machine(r->cpus), &plan) != r->status)
			fail_msg("%s: '%s' on %d CPUs: status is not %d (%s)", r->why, r->line,
				 r->cpus, r->status, mb_last_error());
		if (r->status == EXIT_OK && field_of(&plan, r->field) != r->value)
			fail_msg("%s: '%s': %s is %ld, not %ld", r->why, r->line, r->field,
				 field_of(&plan, r->field), r->value);
		if (r->status != EXIT_OK && !strstr(mb_last_error(), r->says))
			fail_msg("%s: '%s' says \"%s\"", r->why, r->line, mb_last_error());
	}
}

/* A map-perf row's flag is its test's bit in map_perf_test's FLAGS, and
 * the test it finds by it is the one its use case names. */
static void each_map_perf_row_finds_its_test_by_its_flag(void **state)
{
	int rows = 0;

	for (int i = 0; i < nr_benches; i++) {
		const struct map_perf_test *t;

		if (benches[i].family != &map_perf_family)
			continue;
		t = map_perf_test_of(&benches[i]);
		if (!t || strcmp(t->name, benches[i].use_case))
			fail_msg("%s: flag %u finds %s", benches[i].name, benches[i].flag,
				 t ? t->name : "no test");
		rows++;
	}
	assert_int_equal(rows, 11);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_rule_holds),
		cmocka_unit_test(each_map_perf_row_finds_its_test_by_its_flag),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
