/* SPDX-License-Identifier: GPL-2.0 */
/* What the command line (or an earlier result, --from-result) gave, before
 * anything is resolved. A workload value the row has a default for says
 * whether it was given; plan_resolve() (plan.c) turns the row, these and
 * the machine's facts into the plan. */
#ifndef MAPBENCH_OPTIONS_H
#define MAPBENCH_OPTIONS_H
#include <stdbool.h>
#include "bench.h"

/* A value the user may leave to the row. */
struct maybe {
	bool given;
	long long value;
};

#define GIVE(m, v) ((m) = (struct maybe){ true, (v) })
/* The given value, or dflt. */
#define OR(m, dflt) ((m).given ? (m).value : (dflt))

struct options {
	const struct bench *bench;
	/* the producers and their CPUs */
	int producers;
	bool producers_given;		/* -p (or a result's): rows with a task per CPU ask */
	int prod_cpus[MAX_PRODUCERS];
	int nr_prod_cpus;		/* MAX_PRODUCERS for -a */
	enum placement placement;
	/* how to run and report */
	int warmup, duration;
	bool quiet, verbose, dry_run, perf, machine_readable, jit_symbols;
	bool batch_auto;		/* --batch auto: sized in the warmup */
	int guest_cpus;			/* --dry-run for a guest with this many CPUs, or 0 */
	const char *json_path, *label;
	int round;
	const char *from_result;
	/* --trigger nic */
	const char *iface;
	bool xdp_pass, force;
	/* the workload: the row's value where not given */
	const char *map_name;		/* NULL: the row's */
	bool all;			/* mem: every map kind */
	const char *use_case;		/* a group's (htab-mem, xdp-lb): which of its rows */
	const char *list_group;		/* --list-scenarios: the group named */
	double zipf;			/* --zipf: the exponent; 0: not given */
	struct prefix_mix prefix_mix;	/* --prefix-len LO..HI or LEN:WEIGHT,... */
	double hit_ratio;		/* --hit-ratio: the share of lookups that hit; -1: not given */
	struct maybe flags;		/* --flags: a group's member by its test bit */
	struct maybe count;		/* --count: rounds' events per producer */
	struct maybe trigger, loop, key_size, value_size, max_entries, prefix_len, nr_entries,
		     prealloc, zero_seed, keys, seed, batch, map_flags, map_extra, readers, writers,
		     batch_times;
	int argc;
	char **argv;
};

/* Nothing given: one producer, a second of warmup, five measured. */
void options_init(struct options *o);

#endif
