// SPDX-License-Identifier: GPL-2.0
/* Counts and CPU lists as the command line and sysfs spell them. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include "parse.h"

long parse_count(const char *s)
{
	char *end;
	long v, mul = 1;

	if (!s || !*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s)
		return -1;
	if (*end == 'K' || *end == 'k')
		mul = 1000, end++;
	else if (*end == 'M' || *end == 'm')
		mul = 1000000, end++;
	if (*end || v > LONG_MAX / mul)
		return -1;
	return v * mul;
}

int parse_cpuset(const char *s, int *cpus, int max)
{
	int n = 0;

	if (!*s)
		return -1;
	while (*s) {
		char *end;
		long lo = strtol(s, &end, 10), hi;

		if (end == s || lo < 0 || *s == '-' || *s == '+')
			return -1;
		hi = lo;
		if (*end == '-') {
			s = end + 1;
			hi = strtol(s, &end, 10);
			if (end == s || hi < lo)
				return -1;
		}
		for (long c = lo; c <= hi; c++) {
			if (n >= max)
				return -1;
			cpus[n++] = (int)c;
		}
		if (*end == ',' && end[1])
			end++;
		else if (*end)
			return -1;
		s = end;
	}
	return n;
}
