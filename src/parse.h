/* SPDX-License-Identifier: GPL-2.0 */
/* Parsing of option values: a leaf, used by the CLI and by the sysfs readers. */
#ifndef MAPBENCH_PARSE_H
#define MAPBENCH_PARSE_H

/* "0-3,6" -> cpus[]; returns the count, or -1 on a malformed or too long list. */
int parse_cpuset(const char *s, int *cpus, int max);
/* Decimal count with an optional K or M (x1000, x1000000) suffix; -1 if invalid. */
long parse_count(const char *s);

#endif
