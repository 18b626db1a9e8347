/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MAPBENCH_LOG_H
#define MAPBENCH_LOG_H
#include <stdbool.h>

/* Route libbpf's messages into a buffer (and to stderr with -v), so that a
 * failed load can be explained in one line. */
void log_setup(bool verbose);
void log_clear(void);
/* The first captured line containing needle, without its newline, or NULL. */
const char *log_find(const char *needle);

#endif
