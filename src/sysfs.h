/* SPDX-License-Identifier: GPL-2.0 */
/* Reading the one-line files of /sys and /proc. */
#ifndef MAPBENCH_SYSFS_H
#define MAPBENCH_SYSFS_H
#include <stddef.h>

/* The first line of path without its newline, in buf; 0, or -errno (-EIO
 * for an empty file). */
int read_first_line(const char *path, char *buf, size_t len);
/* The number that path's first line starts with, or fallback. */
long long read_number(const char *path, long long fallback);

#endif
