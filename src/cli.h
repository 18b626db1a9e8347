/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MAPBENCH_CLI_H
#define MAPBENCH_CLI_H
#include <stdio.h>
#include "bench.h"

enum cli_action { CLI_RUN, CLI_LIST, CLI_HELP, CLI_CONTRACTS };

/* Parse argv into cfg. Returns EXIT_OK or EXIT_USAGE (after one line on stderr). */
int cli_parse(int argc, char **argv, struct config *cfg, enum cli_action *action);
/* "0-3,6" -> cpus[]; returns the count, or -1 on a malformed or too long list. */
int parse_cpuset(const char *s, int *cpus, int max);
/* Decimal count with an optional K or M (x1000, x1000000) suffix; -1 if invalid. */
long parse_count(const char *s);
void cli_usage(FILE *f);
void cli_list(FILE *f);
/* The contract table (org): benchmark, alias, workload, figure, unit, clock. */
void cli_contracts(FILE *f);

#endif
