// SPDX-License-Identifier: GPL-2.0
/* Environment recorded with every result. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <bpf/libbpf.h>
#include "cpu.h"
#include "env.h"
#include "sysfs.h"
#include "topology.h"
#include "trigger.h"

#ifndef MAPBENCH_REV
#define MAPBENCH_REV "unknown"
#endif

json_t *env_bpf_programs(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	json_t *out = json_array();
	unsigned long long addr;
	char line[512], name[256], module[16], type;

	/* "ADDR t bpf_prog_TAG_NAME\t[bpf]": a program's image, not the kernel's bpf_prog_* */
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s [%15[^]]]", &addr, &type, name, module) == 4 &&
		    addr && !strcmp(module, "bpf") && !strncmp(name, "bpf_prog_", 9)) {
			char hex[24];

			snprintf(hex, sizeof(hex), "0x%llx", addr);
			json_array_append_new(out, json_pack("{s:s, s:s}", "name", name, "addr", hex));
		}
	if (f)
		fclose(f);
	return out;
}

const char *mapbench_revision(void)
{
	return MAPBENCH_REV;
}

static json_t *file_or_unknown(const char *path)
{
	char buf[4096];

	return json_string(read_first_line(path, buf, sizeof(buf)) ? "unknown" : buf);
}

static json_t *cpu_model(void)
{
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "r");
	json_t *model = NULL;

	while (f && !model && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!strncmp(line, "model name", 10) && colon) {
			line[strcspn(line, "\n")] = 0;
			model = json_string(colon + 2);
		}
	}
	if (f)
		fclose(f);
	return model ? model : json_string("unknown");
}

static json_t *vulnerabilities(void)
{
	const char *dir = "/sys/devices/system/cpu/vulnerabilities";
	json_t *obj = json_object();
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[512];

	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		json_object_set_new(obj, e->d_name, file_or_unknown(path));
	}
	if (d)
		closedir(d);
	return obj;
}

static json_t *now_utc(void)
{
	char buf[32];
	time_t t = time(NULL);

	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	return json_string(buf);
}

json_t *env_json(const struct run *run)
{
	struct utsname u;
	char host[256] = "unknown", libbpf[32];

	uname(&u);
	gethostname(host, sizeof(host) - 1);
	snprintf(libbpf, sizeof(libbpf), "%u.%u", libbpf_major_version(), libbpf_minor_version());
	return json_pack("{s:s, s:s, s:s, s:o, s:s, s:o, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:s, s:s, s:o, s:o, s:s, s:s, s:o}",
		"kernel_release", u.release,
		"kernel_version", u.version,
		"machine", u.machine,
		"boot_id", file_or_unknown("/proc/sys/kernel/random/boot_id"),
		"host", host,
		"cpu_model", cpu_model(),
		"online_cpus", cpu_online_count(),
		"smt_active", file_or_unknown("/sys/devices/system/cpu/smt/active"),
		"cpufreq_governor", file_or_unknown("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
		"cpufreq_boost", file_or_unknown("/sys/devices/system/cpu/cpufreq/boost"),
		"mitigations", vulnerabilities(),
		"cmdline", file_or_unknown("/proc/cmdline"),
		"bpf_jit_enable", file_or_unknown("/proc/sys/net/core/bpf_jit_enable"),
		"bpf_jit_harden", file_or_unknown("/proc/sys/net/core/bpf_jit_harden"),
		"date", now_utc(),
		"libbpf_version", libbpf,
		"mapbench_revision", mapbench_revision(),
		"label", run->plan->label ? json_string(run->plan->label) : json_null(),
		"round", run->plan->round ? json_integer(run->plan->round) : json_null(),
		"trigger", trigger_name(run->trigger),
		"loop", run_loop_name(run),
		"topology", machine_topology() ? topology_json(machine_topology()) : json_null());
}
