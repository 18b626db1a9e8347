/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MAPBENCH_RESULT_H
#define MAPBENCH_RESULT_H
#include <jansson.h>
#include "sampler.h"
#include "stats.h"

#define RESULT_SCHEMA "mapbench-result"
#define RESULT_SCHEMA_VERSION 3

/* failed and unsupported documents carry a "reason": the one-line error. */
enum run_status { RUN_COMPLETE, RUN_INTERRUPTED, RUN_FAILED, RUN_UNSUPPORTED };

/* The self-describing result document (schema in README.org): the samples
 * and their summary of a throughput benchmark, or mem's report (the other
 * NULL; both NULL for a run that measured nothing); reason says why a run
 * failed or is unsupported. */
json_t *result_json(const struct run *run, const struct samples *s,
		    const struct run_summary *sum, json_t *part,
		    enum run_status status, const char *reason);
/* A number, or null where it is not finite: JSON has no NaN. */
/* Check, before a run, that path can be written: its folder exists (inside
 * a results/ folder, missing folders are made; nowhere else) and is a
 * writable directory. 0 or -errno. */
int result_check_path(const char *path);
/* Write atomically: a temporary file in the same directory, then rename.
 * 0 or -errno; nothing is left behind on failure. */
int result_write(const char *path, json_t *doc);

#endif
