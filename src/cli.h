/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MAPBENCH_CLI_H
#define MAPBENCH_CLI_H
#include <stdio.h>
#include "bench.h"
#include "options.h"

enum cli_action { CLI_RUN, CLI_LIST, CLI_HELP, CLI_CONTRACTS, CLI_VERSION, CLI_OPTIONS,
		  CLI_SCENARIOS };

/* Parse argv into what the user gave (given bits, NULL strings; with
 * --from-result, what that result recorded). EXIT_OK, or an exit status
 * after one line on stderr. */
int cli_parse(int argc, char **argv, struct options *given, enum cli_action *action);
/* --help: the options, then cli_defaults(). */
void cli_usage(FILE *f);
/* Every benchmark's plan with no option given, one line each. */
void cli_defaults(FILE *f);
void cli_list(FILE *f);
/* --list-scenarios: group's rows, "  NAME  description" each, as the
 * kernel's xdp-lb lists its scenarios; EXIT_USAGE for a name with none. */
int cli_scenarios(FILE *f, const char *group);
/* --list-options: "--NAME value|flag [-X]" a line, for scripts that must
 * tell an option's value from the benchmark's name (scripts/vmrun). */
void cli_options(FILE *f);
/* The contract table (org): benchmark, alias, workload, key walk, trigger,
 * loop, batch, figure, unit, clock. */
void cli_contracts(FILE *f);
/* The same rows as JSON objects (--contracts --json FILE). */
json_t *cli_contracts_json(void);

#endif
