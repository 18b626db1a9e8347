/* SPDX-License-Identifier: GPL-2.0 */
/* One resolve step: a benchmark's row and the user's options become the
 * plan every later step reads and none rewrites. */
#ifndef MAPBENCH_PLAN_H
#define MAPBENCH_PLAN_H
#include "bench.h"
#include "host.h"
#include "options.h"

/* The row's defaults filled in where given has none, derived values (batch
 * fitted to the keys, producers of --trigger nic, CPUs of --placement)
 * computed, then checked by the key walk, the trigger, the CPUs and the
 * family, for the machine host describes (it reads nothing else).
 * EXIT_OK, or an exit status after a one-line error. */
int plan_resolve(const struct options *given, const struct host *host, struct plan *out);
/* The plan's workload as the result's params record it: map, sizes,
 * entries, keys, batch, trigger, loop, key walk, producers and timing. */
json_t *plan_json(const struct plan *plan);
/* The options an earlier result's params and command recorded, as given
 * (so that plan_resolve() gives the same plan), but for those the option
 * table reads back from *params itself (cli.c); an exit status. */
int plan_from_result(const char *path, struct options *given, json_t **params);

#endif
