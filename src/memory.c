// SPDX-License-Identifier: GPL-2.0
/* Where memory figures come from: fdinfo memlock and the memory cgroup. */
#include <dirent.h>
#include <limits.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "memory.h"
#include "sysfs.h"

#define V1_ROOT "/sys/fs/cgroup/memory"
#define V2_ROOT "/sys/fs/cgroup"
/* Our cgroups are PREFIX<pid>: the pid tells a run in progress from a
 * cgroup left by a process that was killed (SIGKILL cannot be caught). */
#define PREFIX "mapbench-"
/* Deep enough for systemd's slices and container runtimes' nesting. */
#define MAX_DEPTH 8

long long map_memlock(int fd)
{
	char path[64], line[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock: %lld", &v) == 1)
			break;
	if (f)
		fclose(f);
	return v;
}

static int write_pid(const char *procs)
{
	FILE *f = fopen(procs, "w");
	int err = 0;

	if (!f)
		return -errno;
	if (fprintf(f, "%d\n", getpid()) < 0)
		err = -EIO;
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

/* This process's cgroup path under the hierarchy that has the memory
 * controller: "N:memory:/path" (v1) or "0::/path" (v2). */
static bool own_cgroup(int version, char *path, size_t len)
{
	FILE *f = fopen("/proc/self/cgroup", "r");
	char line[512];
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f)) {
		char *ctrl = strchr(line, ':'), *p;

		if (!ctrl || !(p = strchr(ctrl + 1, ':')))
			continue;
		*p++ = 0;
		p[strcspn(p, "\n")] = 0;
		if ((version == 1 && !strcmp(ctrl + 1, "memory")) ||
		    (version == 2 && line[0] == '0' && !ctrl[1])) {
			snprintf(path, len, "%s", p);
			found = true;
		}
	}
	if (f)
		fclose(f);
	return found;
}

static bool v2_has_memory(void)
{
	char buf[512];

	return !read_first_line(V2_ROOT "/cgroup.controllers", buf, sizeof(buf)) &&
	       strstr(buf, "memory");
}

/* name is PREFIX<pid> of a process that no longer exists, and dir holds no
 * task: a live pid (even one reused by another program) is never touched. */
static bool left_by_dead_process(const char *dir, const char *name)
{
	char procs[PATH_MAX + 16], line[32], *end;
	long pid;

	if (strncmp(name, PREFIX, strlen(PREFIX)))
		return false;
	pid = strtol(name + strlen(PREFIX), &end, 10);
	if (end == name + strlen(PREFIX) || *end || pid <= 0 || !kill(pid, 0) || errno != ESRCH)
		return false;
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	return read_first_line(procs, line, sizeof(line)) == -EIO;
}

/* Remove every cgroup below dir that a killed run left; how many. */
static int reap_below(const char *dir, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int removed = 0;

	while (d && (e = readdir(d))) {
		char sub[PATH_MAX];

		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name) >= (int)sizeof(sub))
			continue;
		if (left_by_dead_process(sub, e->d_name))
			removed += !rmdir(sub);
		else if (depth < MAX_DEPTH)
			removed += reap_below(sub, depth + 1);
	}
	if (d)
		closedir(d);
	return removed;
}

int memcg_enter(struct memcg *cg)
{
	char own[256], procs[600];
	const char *root;
	int err, reaped;

	memset(cg, 0, sizeof(*cg));
	if (v2_has_memory() && own_cgroup(2, own, sizeof(own))) {
		cg->version = 2, root = V2_ROOT;
		cg->usage = "memory.current";
		cg->peak = "memory.peak";
	} else if (!access(V1_ROOT "/memory.usage_in_bytes", R_OK) && own_cgroup(1, own, sizeof(own))) {
		cg->version = 1, root = V1_ROOT;
		cg->usage = "memory.usage_in_bytes";
		cg->peak = "memory.max_usage_in_bytes";
	} else {
		return -ENOENT;
	}
	reaped = reap_below(root, 0);
	if (reaped)
		fprintf(stderr, "mapbench: removed %d memory cgroup%s left by killed runs (" PREFIX "PID, PID gone)\n",
			reaped, reaped == 1 ? "" : "s");
	if (!strcmp(own, "/"))
		own[0] = 0;
	snprintf(cg->home, sizeof(cg->home), "%s%s/cgroup.procs", root, own);
	snprintf(cg->dir, sizeof(cg->dir), "%s%s/" PREFIX "%d", root, own, getpid());
	if (mkdir(cg->dir, 0755) && errno != EEXIST) {
		err = -errno;
		cg->version = 0;
		return err;
	}
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", cg->dir);
	err = write_pid(procs);
	if (err)
		memcg_leave(cg);
	return err;
}

static long long memcg_read(const struct memcg *cg, const char *file)
{
	char path[640];

	if (!cg->version)
		return -1;
	snprintf(path, sizeof(path), "%s/%s", cg->dir, file);
	return read_number(path, -1);
}

long long memcg_usage(const struct memcg *cg)
{
	return memcg_read(cg, cg->usage);
}

long long memcg_peak(const struct memcg *cg)
{
	return memcg_read(cg, cg->peak);
}

long long memcg_settle(const struct memcg *cg)
{
	long long prev = memcg_usage(cg), cur;
	int stable = 0;

	/* Frees go through a workqueue and RCU grace periods: give them a
	 * second before trusting a quiet spell. */
	for (int i = 0; cg->version && i < 200 && (i < 20 || stable < 5); i++) {
		usleep(50000);
		cur = memcg_usage(cg);
		stable = cur == prev ? stable + 1 : 0;
		prev = cur;
	}
	return prev;
}

void memcg_leave(struct memcg *cg)
{
	if (!cg->version)
		return;
	write_pid(cg->home);
	/* Charges of maps not yet freed keep the cgroup busy for a moment. */
	for (int i = 0; i < 100 && rmdir(cg->dir) && errno == EBUSY; i++)
		usleep(10000);
	cg->version = 0;
}

const char *memcg_describe(const struct memcg *cg)
{
	static char buf[600];

	if (!cg->version)
		return "none";
	snprintf(buf, sizeof(buf), "v%d %s", cg->version, cg->dir);
	return buf;
}
