// SPDX-License-Identifier: GPL-2.0
/* libbpf message capture, the one-line error helper and run warnings. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "bench.h"
#include "log.h"

static char logbuf[1 << 16];
static size_t loglen;
static bool log_verbose;
/* Each thread its own: producers fail at once, each with its own line. */
static _Thread_local char last_error[512];

static int capture(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	size_t room = sizeof(logbuf) - loglen;
	va_list copy;
	int n;

	va_copy(copy, ap);
	if (log_verbose)
		vfprintf(stderr, fmt, copy);
	va_end(copy);
	if (room <= 1)
		return 0;
	n = vsnprintf(logbuf + loglen, room, fmt, ap);
	if (n > 0)
		loglen += (size_t)n < room ? (size_t)n : room - 1;
	return 0;
}

void log_setup(bool verbose)
{
	log_verbose = verbose;
	libbpf_set_print(capture);
}

void log_clear(void)
{
	loglen = 0;
	logbuf[0] = 0;
}

const char *log_find(const char *needle)
{
	static char line[512];
	const char *hit = strstr(logbuf, needle), *start, *end;

	if (!hit)
		return NULL;
	for (start = hit; start > logbuf && start[-1] != '\n'; start--)
		;
	end = strchr(hit, '\n');
	if (!end)
		end = logbuf + loglen;
	snprintf(line, sizeof(line), "%.*s", (int)(end - start), start);
	return line;
}

void mb_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	fprintf(stderr, "mapbench: %s\n", last_error);
}

const char *mb_last_error(void)
{
	return last_error;
}

void run_warn(struct run *run, const char *fmt, ...)
{
	va_list ap;

	if (run->nr_warnings == MAX_WARNINGS)
		return;
	va_start(ap, fmt);
	vsnprintf(run->warnings[run->nr_warnings++], sizeof(run->warnings[0]), fmt, ap);
	va_end(ap);
}
