// SPDX-License-Identifier: GPL-2.0
/* The mem benchmark: create and fill maps of two sizes inside a memory
 * cgroup of our own, and read what the kernel accounts (memlock) and what it
 * charged; the slope between the sizes is the cost of one element. */
#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "htab.h"
#include "lpm.h"
#include "mem.h"
#include "memory.h"
#include "sampler.h"

struct mem_kind {
	const char *label;
	const char *map;
	int prealloc;		/* as config.prealloc */
};

/* The seed table's rows, and the other map types, for --all. */
static const struct mem_kind all_kinds[] = {
	{ "Standard (prealloc)", "htab", 1 },
	{ "Standard (non-prealloc)", "htab", 0 },
	{ "Per-CPU (prealloc)", "percpu", 1 },
	{ "Per-CPU (non-prealloc)", "percpu", 0 },
	{ "LRU", "lru", -1 },
	{ "LRU per-CPU", "lru_percpu", -1 },
	{ "rhtab", "rhtab", 0 },
	{ "LPM trie", "lpm_trie", -1 },
};

static const struct family *family_of(const char *map)
{
	return !strcmp(map, "lpm_trie") ? &lpm_family : &htab_family;
}

void two_point_fit(double x1, double y1, double x2, double y2, double *slope, double *fixed)
{
	*slope = (y2 - y1) / (x2 - x1);
	*fixed = y1 - *slope * x1;
}

long mem_small_size(long max)
{
	long pow2 = 1;

	while (pow2 < max)
		pow2 <<= 1;
	return pow2 / 2 + 1;
}

/* The configuration of one row, validated by the map's own family. */
static int row_config(const struct config *base, const struct mem_kind *k, struct config *out)
{
	*out = *base;
	out->map_name = k->map;
	out->prealloc = k->prealloc;
	out->nr_entries = -1;
	out->max_entries = base->max_entries;
	if (!strcmp(k->map, "lpm_trie"))
		out->map_name = NULL;
	return family_of(k->map)->validate(out);
}

/* The one row of a run without --all: the map the options describe. */
static struct mem_kind user_kind(const struct config *cfg)
{
	static char label[64];

	snprintf(label, sizeof(label), "%s%s", cfg->map_name,
		 cfg->prealloc == 0 ? " (non-prealloc)" : "");
	return (struct mem_kind){ label, cfg->map_name, cfg->prealloc };
}

static int mem_validate(struct config *cfg)
{
	struct config row;
	struct mem_kind k;
	int err;

	if (!cfg->map_name)
		cfg->map_name = "htab";
	if (cfg->value_size < 0)
		cfg->value_size = 8;
	k = user_kind(cfg);
	if (cfg->max_entries < 0)
		cfg->max_entries = 1000000;
	if (cfg->nr_entries >= 0) {
		mb_err("mem fills every map it measures: drop --nr-entries");
		return EXIT_USAGE;
	}
	if (cfg->max_entries - mem_small_size(cfg->max_entries) < cfg->max_entries / 10) {
		mb_err("--max-entries %ld is too close above a power of two for a slope: use 1M or a power of two",
		       cfg->max_entries);
		return EXIT_USAGE;
	}
	if (!cfg->all)
		err = row_config(cfg, &k, &row);
	for (size_t i = 0; cfg->all && i < sizeof(all_kinds) / sizeof(*all_kinds); i++)
		if ((err = row_config(cfg, &all_kinds[i], &row)))
			return err;
	if (cfg->all)
		cfg->map_name = "all";
	cfg->nr_entries = cfg->max_entries;	/* every map is filled */
	return err;
}

static __u32 key_size_of(int fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.key_size;
}

/* Remove every element, the way a program would, one at a time. */
static void map_empty(int fd, size_t key_size)
{
	char *cur = malloc(key_size), *next = malloc(key_size);
	int have = cur && next && !bpf_map_get_next_key(fd, NULL, cur);

	while (have) {
		have = !bpf_map_get_next_key(fd, cur, next);
		bpf_map_delete_elem(fd, cur);
		memcpy(cur, next, key_size);
	}
	free(cur);
	free(next);
}

struct point {
	long long memlock, charged;
	int fd;			/* held open until the row is done */
};

/* Create a map of size entries holding n, and read both figures. The maps of
 * a row stay open, so no free is pending while the next one is charged. */
static int measure_point(struct run *run, const struct memcg *cg, long size, long n,
			 struct point *pt, long long *after_delete)
{
	const struct family *f = family_of(run->cfg->map_name);
	long long before = memcg_usage(cg);
	char name[16];
	int fd, err;

	snprintf(name, sizeof(name), "mbm%d", getpid());
	run->cfg->max_entries = size;
	run->cfg->nr_entries = n;
	run->map_type_name = NULL;
	err = f->new_filled_map(run, name, &fd);
	if (err)
		return err;
	pt->memlock = map_memlock(fd);
	pt->charged = before < 0 ? -1 : memcg_usage(cg) - before;
	if (after_delete) {
		map_empty(fd, key_size_of(fd));
		*after_delete = map_memlock(fd);
	}
	pt->fd = fd;
	return EXIT_OK;
}

static void close_points(struct point *pts, int n)
{
	for (int i = 0; i < n; i++)
		if (pts[i].fd > 0)
			close(pts[i].fd);
}

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static double per_cpu_value_bytes(const struct config *cfg)
{
	if (strcmp(cfg->map_name, "percpu") && strcmp(cfg->map_name, "lru_percpu"))
		return NAN;
	return ((cfg->value_size + 7) & ~7) * (double)libbpf_num_possible_cpus();
}

/* One row: empty and full maps of two sizes, and the full large map emptied. */
static json_t *measure_row(const struct config *base, const struct mem_kind *k,
			   const struct memcg *cg, bool *interrupted)
{
	struct config cfg;
	struct run run = { .cfg = &cfg };
	long sizes[2] = { mem_small_size(base->max_entries), base->max_entries };
	struct point empty[2] = {}, full[2] = {}, warm = {};
	long long deleted = -1;
	double slope, fixed, cslope = NAN, cfixed, pcpu;
	json_t *points = json_array();
	int err = row_config(base, k, &cfg);

	/* A first map pays one-time costs (allocator caches, page tables of the
	 * fill buffers) that would be charged to the first point: discard it. */
	if (!err)
		err = measure_point(&run, cg, sizes[0], sizes[0], &warm, NULL);
	close_points(&warm, 1);
	memcg_settle(cg);
	for (int i = 0; !err && i < 2 && !(*interrupted = stop_requested); i++) {
		err = measure_point(&run, cg, sizes[i], 0, &empty[i], NULL);
		if (!err)
			err = measure_point(&run, cg, sizes[i], sizes[i], &full[i],
					    i == 1 && run.map_flags & BPF_F_NO_PREALLOC ? &deleted : NULL);
		if (!err)
			json_array_append_new(points, json_pack("{s:I, s:I, s:I, s:I, s:I, s:o}",
				"max_entries", (json_int_t)sizes[i],
				"memlock_empty", empty[i].memlock, "memlock_full", full[i].memlock,
				"charged_empty", empty[i].charged, "charged_full", full[i].charged,
				"memlock_after_delete", i == 1 && deleted >= 0 ? json_integer(deleted)
									     : json_null()));
	}
	close_points(empty, 2);
	close_points(full, 2);
	memcg_settle(cg);
	if (err || *interrupted) {
		json_decref(points);
		return json_pack("{s:s, s:s, s:s, s:s}", "label", k->label, "map", k->map,
				 "status", *interrupted ? "interrupted" : "unsupported",
				 "reason", *interrupted ? "interrupted" : mb_last_error());
	}
	two_point_fit(sizes[0], full[0].memlock, sizes[1], full[1].memlock, &slope, &fixed);
	if (full[0].charged >= 0)
		two_point_fit(sizes[0], full[0].charged, sizes[1], full[1].charged, &cslope, &cfixed);
	pcpu = per_cpu_value_bytes(&cfg);
	return json_pack("{s:s, s:s, s:s, s:b, s:i, s:i, s:s, s:f, s:o, s:f, s:o, s:o, s:o}",
		"label", k->label, "map", k->map, "map_type", run.map_type_name,
		"prealloc", cfg.prealloc != 0, "key_size", cfg.key_size, "value_size", cfg.value_size,
		"status", "ok",
		"bytes_per_element", slope,
		"element_bytes", num_or_null(isnan(pcpu) ? slope : slope - pcpu),
		"fixed_bytes", fixed,
		"per_cpu_value_bytes", num_or_null(pcpu),
		"charged_bytes_per_element", num_or_null(cslope),
		"points", points);
}

static void print_row(const json_t *row)
{
	const char *label = json_string_value(json_object_get(row, "label"));
	json_t *pcpu = json_object_get(row, "per_cpu_value_bytes");
	json_t *charged = json_object_get(row, "charged_bytes_per_element");
	json_t *pts = json_object_get(row, "points"), *big = json_array_get(pts, 1);
	json_t *del = json_object_get(big, "memlock_after_delete");
	char pc[32] = "-", ch[32] = "-", dl[32] = "-";

	if (strcmp(json_string_value(json_object_get(row, "status")), "ok")) {
		printf("%-28s | %s: %s\n", label, json_string_value(json_object_get(row, "status")),
		       json_string_value(json_object_get(row, "reason")));
		return;
	}
	if (json_is_number(pcpu))
		snprintf(pc, sizeof(pc), "%.1f B", json_number_value(pcpu));
	if (json_is_number(charged))
		snprintf(ch, sizeof(ch), "%.1f B", json_number_value(charged));
	if (json_is_integer(del))
		snprintf(dl, sizeof(dl), "%.1f MiB", json_integer_value(del) / 1048576.0);
	printf("%-28s | %8.1f B | %8.1f B | %9s | %9s | %9.1f KiB | %8.1f MiB | %8.1f MiB | %9s\n",
	       label, json_number_value(json_object_get(row, "bytes_per_element")),
	       json_number_value(json_object_get(row, "element_bytes")), pc, ch,
	       json_number_value(json_object_get(row, "fixed_bytes")) / 1024,
	       json_integer_value(json_object_get(big, "memlock_empty")) / 1048576.0,
	       json_integer_value(json_object_get(big, "memlock_full")) / 1048576.0, dl);
	fflush(stdout);
}

static int mem_measure(struct run *run, json_t **out)
{
	const struct config *cfg = run->cfg;
	struct mem_kind one = user_kind(cfg);
	const struct mem_kind *kinds = cfg->all ? all_kinds : &one;
	size_t nkinds = cfg->all ? sizeof(all_kinds) / sizeof(*all_kinds) : 1;
	json_t *rows = json_array();
	struct memcg cg;
	char name[32];
	bool interrupted = false;
	int err;

	run->trigger = run->loop = run->timing = "none";	/* no programs run */

	/* Fill buffers must go back to the kernel when freed, or the cgroup
	 * charge of a map would include them: a fixed mmap threshold keeps
	 * glibc from moving large buffers onto the heap. */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	snprintf(name, sizeof(name), "mapbench-%d", getpid());
	err = memcg_enter(&cg, name);
	if (err && !cfg->quiet)
		printf("No memory cgroup to use (%s): charged figures are left out\n", strerror(-err));
	*out = json_pack("{s:s, s:[I, I], s:o}", "cgroup", memcg_describe(&cg),
			 "sizes", (json_int_t)mem_small_size(cfg->max_entries),
			 (json_int_t)cfg->max_entries, "rows", rows);
	if (!cfg->quiet) {
		printf("Memory per element: key %d B, value %d B, maps of %ld and %ld entries, cgroup %s\n",
		       cfg->key_size, cfg->value_size, mem_small_size(cfg->max_entries),
		       cfg->max_entries, memcg_describe(&cg));
		printf("%-28s | %10s | %10s | %9s | %9s | %13s | %12s | %12s | %9s\n",
		       "Map Type & Configuration", "memlock/el", "element", "per-CPU", "charged",
		       "fixed", "empty", "full", "deleted");
	}
	for (size_t i = 0; i < nkinds && !interrupted; i++) {
		json_t *row = measure_row(cfg, &kinds[i], &cg, &interrupted);

		json_array_append_new(rows, row);
		if (!cfg->quiet)
			print_row(row);
	}
	memcg_leave(&cg);
	if (interrupted)
		return 128 + stop_requested;
	/* One configuration the kernel cannot create: unsupported here. */
	if (!cfg->all && strcmp(json_string_value(json_object_get(json_array_get(rows, 0), "status")), "ok"))
		return EXIT_UNSUPPORTED;
	return EXIT_OK;
}

const struct family mem_family = {
	.name = "mem",
	.validate = mem_validate,
	.oneshot = mem_measure,
};
