// SPDX-License-Identifier: GPL-2.0
/* Option parsing: numbers, CPU lists, aliases, errors. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include "cli.h"
#include "parse.h"

static int parse(struct options *cfg, enum cli_action *action, const char *line)
{
	static char buf[512];
	static char *argv[32];
	int argc = 0;

	strcpy(buf, line);
	for (char *t = strtok(buf, " "); t; t = strtok(NULL, " "))
		argv[argc++] = t;
	return cli_parse(argc, argv, cfg, action);
}

static void counts(void **state)
{
	assert_int_equal(parse_count("750"), 750);
	assert_int_equal(parse_count("1K"), 1000);
	assert_int_equal(parse_count("1M"), 1000000);
	assert_int_equal(parse_count("-1"), -1);
	assert_int_equal(parse_count("12x"), -1);
	assert_int_equal(parse_count(""), -1);
}

static void cpusets(void **state)
{
	int cpus[8];

	assert_int_equal(parse_cpuset("0-2,5", cpus, 8), 4);
	assert_int_equal(cpus[3], 5);
	assert_int_equal(parse_cpuset("3", cpus, 8), 1);
	assert_int_equal(parse_cpuset("2-1", cpus, 8), -1);
	assert_int_equal(parse_cpuset("0,", cpus, 8), -1);
	assert_int_equal(parse_cpuset("a", cpus, 8), -1);
	assert_int_equal(parse_cpuset("0-9", cpus, 8), -1);
}

static void kernel_bench_spellings(void **state)
{
	struct options cfg;
	enum cli_action a;

	assert_int_equal(parse(&cfg, &a, "bench bpf-hashmap-lookup --nr_entries 500 --key_size 8 "
				"--max_entries 1K --producers 2 -a --nr_loops 64"), EXIT_OK);
	assert_string_equal(cfg.bench->name, "bpf-hashmap-lookup");
	assert_int_equal(OR(cfg.nr_entries, -1), 500);
	assert_int_equal(OR(cfg.key_size, -1), 8);
	assert_int_equal(OR(cfg.max_entries, -1), 1000);
	assert_int_equal(cfg.producers, 2);
	assert_int_equal(OR(cfg.batch, -1), 64);
	assert_int_equal(cfg.nr_prod_cpus, MAX_PRODUCERS);
	assert_int_equal(parse(&cfg, &a, "bench htab-full-update"), EXIT_OK);
	assert_string_equal(cfg.bench->name, "bpf-hashmap-full-update");
	assert_int_equal(parse(&cfg, &a, "bench overwrite"), EXIT_OK);
	assert_string_equal(cfg.bench->name, "htab-mem-overwrite");
	assert_int_equal(parse(&cfg, &a, "bench htab-mem --use-case add_del_on_diff_cpu"), EXIT_OK);
	assert_string_equal(cfg.bench->name, "htab-mem-add_del_on_diff_cpu");
	/* the peers' own words: htab-mem's and xdp-lb's */
	assert_int_equal(parse(&cfg, &a, "bench htab-mem --preallocated"), EXIT_OK);
	assert_int_equal(OR(cfg.prealloc, -1), 1);
	assert_int_equal(parse(&cfg, &a, "bench xdp-lb --scenario tcp-v4-ch"), EXIT_OK);
	assert_string_equal(cfg.bench->name, "xdp-lb-tcp-v4-ch");
}

static void options_anywhere(void **state)
{
	struct options cfg;
	enum cli_action a;

	assert_int_equal(parse(&cfg, &a, "bench -p 2 htab-lookup --map lru --keys random "
				"--trigger raw_tp --json x.json --label before -q"), EXIT_OK);
	assert_string_equal(cfg.map_name, "lru");
	assert_int_equal(OR(cfg.keys, -1), KEYS_RANDOM);
	assert_int_equal(OR(cfg.trigger, -1), TRIGGER_RAW_TP);
	assert_string_equal(cfg.json_path, "x.json");
	assert_string_equal(cfg.label, "before");
	assert_true(cfg.quiet);
	assert_false(cfg.nr_entries.given);	/* left to the row, by plan_resolve() */
}

static void usage_errors(void **state)
{
	struct options cfg;
	enum cli_action a;

	assert_int_equal(parse(&cfg, &a, "bench"), EXIT_USAGE);
	assert_int_equal(parse(&cfg, &a, "bench no-such-bench"), EXIT_USAGE);
	assert_int_equal(parse(&cfg, &a, "bench htab-lookup --bogus"), EXIT_USAGE);
	assert_int_equal(parse(&cfg, &a, "bench htab-lookup -p 0"), EXIT_USAGE);
	assert_int_equal(parse(&cfg, &a, "bench htab-lookup --trigger kprobe"), EXIT_USAGE);
	assert_int_equal(parse(&cfg, &a, "bench htab-lookup --keys sorted"), EXIT_USAGE);
	assert_int_equal(parse(&cfg, &a, "bench htab-lookup --max-entries"), EXIT_USAGE);
	assert_int_equal(parse(&cfg, &a, "bench htab-lookup htab-update"), EXIT_USAGE);
	assert_int_equal(parse(&cfg, &a, "bench -l"), EXIT_OK);
	assert_int_equal(a, CLI_LIST);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(counts),
		cmocka_unit_test(cpusets),
		cmocka_unit_test(kernel_bench_spellings),
		cmocka_unit_test(options_anywhere),
		cmocka_unit_test(usage_errors),
	};
	return cmocka_run_group_tests_name("cli", tests, NULL, NULL);
}
