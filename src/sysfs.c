// SPDX-License-Identifier: GPL-2.0
/* One place that opens, reads and closes the small files of /sys and /proc. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sysfs.h"

int read_first_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	char *ok;

	if (!f)
		return -errno;
	ok = fgets(buf, len, f);
	fclose(f);
	if (!ok)
		return -EIO;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

long long read_number(const char *path, long long fallback)
{
	char buf[64], *end;
	long long v;

	if (read_first_line(path, buf, sizeof(buf)))
		return fallback;
	v = strtoll(buf, &end, 10);
	return end == buf ? fallback : v;
}
