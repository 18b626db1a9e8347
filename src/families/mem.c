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
#include "maps.h"
#include "mem.h"
#include "memory.h"
#include "stop.h"

/* One map size of a row: the kernel's accounting (memlock) and the cgroup
 * charge, of an empty map and of a full one; -1 where unknown. */
struct mem_point {
	long max_entries;
	long long memlock_empty, memlock_full, charged_empty, charged_full;
	long long memlock_after_delete;	/* the full map emptied; -1: not measured */
};

/* One map configuration: the slopes between its two sizes. NAN where a
 * figure does not apply (per-CPU bytes of a map that is not per-CPU) or was
 * not measured (no memory cgroup). */
struct mem_row {
	const char *label, *map, *map_type;
	const char *status;		/* "ok", "unsupported" or "interrupted" */
	char reason[256];
	bool prealloc;
	int key_size, value_size;
	double bytes_per_element, element_bytes, fixed_bytes;
	double per_cpu_value_bytes, charged_bytes_per_element;
	struct mem_point points[2];
	int nr_points;
	/* The large map holding --nr-entries (below --max-entries: a map of
	 * its own; else the large point's full map); nr_entries 0 if not
	 * measured. What a map that grows with its contents (rhtab's bucket
	 * array) costs part full. */
	struct mem_fill {
		long nr_entries;
		long long memlock, charged;
	} fill;
};

#define MEM_MAX_ROWS 8

/* What mem measured: the output and the result are made from it. */
struct mem_report {
	const char *cgroup;		/* memcg_describe() */
	long sizes[2];
	struct mem_row rows[MEM_MAX_ROWS];
	int nr_rows;
};

struct mem_kind {
	const char *label;
	const char *map;
	int prealloc;		/* 1, 0, or -1: the map kind's own */
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

/* The family that makes and fills maps of kind: mem measures theirs. */
static const struct family *filler_of(const struct map_kind *kind)
{
	static const struct family *const fillers[] = { &htab_family, &lpm_family };

	for (size_t i = 0; i < sizeof(fillers) / sizeof(*fillers); i++)
		if (fillers[i]->fills & kind->bit)
			return fillers[i];
	return NULL;
}

/* The plan of one row: the run's plan on the row's map, checked by the
 * map's own family. */
static int row_plan(const struct plan *base, const struct mem_kind *k, struct plan *out)
{
	*out = *base;
	out->map_name = k->map;
	out->map = map_kind_find(k->map);
	out->prealloc = k->prealloc >= 0 ? k->prealloc : out->map->prealloc != PREALLOC_NEVER;
	out->prefix_len = out->map->bit == MAP_LPM ? out->key_size * 8 : 0;
	return filler_of(out->map)->check(out);
}

/* The one row of a run without --all: the map the options describe. */
static struct mem_kind user_kind(const struct plan *plan)
{
	static char label[64];

	snprintf(label, sizeof(label), "%s%s", plan->map_name,
		 plan->prealloc == 0 ? " (non-prealloc)" : "");
	return (struct mem_kind){ label, plan->map_name, plan->prealloc };
}

static int mem_check(const struct plan *plan)
{
	struct plan row;
	struct mem_kind k;
	int err = EXIT_OK;

	if (plan->nr_entries > plan->max_entries || plan->nr_entries < 1) {
		mb_err("mem --nr-entries %ld: give 1 to --max-entries (%ld), the entries of the "
		       "part-full map it adds", plan->nr_entries, plan->max_entries);
		return EXIT_USAGE;
	}
	if (plan->max_entries - mem_small_size(plan->max_entries) < plan->max_entries / 10) {
		mb_err("--max-entries %ld is too close above a power of two for a slope: use 1M or a power of two",
		       plan->max_entries);
		return EXIT_USAGE;
	}
	if (!plan->all) {
		k = user_kind(plan);
		return row_plan(plan, &k, &row);
	}
	for (size_t i = 0; !err && i < sizeof(all_kinds) / sizeof(*all_kinds); i++)
		err = row_plan(plan, &all_kinds[i], &row);
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

/* A map of size entries holding n, created in the row's run (row plan with
 * that size), with its memlock and charge; fd held open until the row is
 * done, so no free is pending while the next map is charged. */
static int new_map(const struct plan *row, struct run *run, const struct memcg *cg, long size,
		   long n, long long *memlock, long long *charged, int *fd)
{
	struct plan at = *row;
	long long before = memcg_usage(cg);
	char name[16];
	int err;

	at.max_entries = size;
	at.nr_entries = n;
	snprintf(name, sizeof(name), "mbm%d", getpid());
	err = filler_of(row->map)->new_filled_map(&at, run, name, fd);
	if (err)
		return err;
	*memlock = map_memlock(*fd);
	*charged = before < 0 ? -1 : memcg_usage(cg) - before;
	return EXIT_OK;
}

/* Both maps of one size, empty and full; the full large one also emptied
 * where elements are freed (no prealloc). */
static int measure_point(const struct plan *row, struct run *run, const struct memcg *cg,
			 bool emptied, struct mem_point *pt, int fds[2])
{
	long size = pt->max_entries;
	int err = new_map(row, run, cg, size, 0, &pt->memlock_empty, &pt->charged_empty, &fds[0]);

	if (!err)
		err = new_map(row, run, cg, size, size, &pt->memlock_full, &pt->charged_full,
			      &fds[1]);
	pt->memlock_after_delete = -1;
	if (!err && emptied && run->map_flags & BPF_F_NO_PREALLOC) {
		map_empty(fds[1], key_size_of(fds[1]));
		pt->memlock_after_delete = map_memlock(fds[1]);
	}
	return err;
}

/* The large map holding plan->nr_entries: its memlock and charge. */
static void measure_fill(const struct plan *row, struct run *run, const struct memcg *cg,
			 long size, struct mem_fill *f)
{
	int fd = -1;

	if (new_map(row, run, cg, size, row->nr_entries, &f->memlock, &f->charged, &fd))
		return;
	f->nr_entries = row->nr_entries;
	close(fd);
	memcg_settle(cg);
}

static void close_fds(int *fds, int n)
{
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

static double per_cpu_value_bytes(const struct plan *plan)
{
	if (!plan->map->percpu)
		return NAN;
	return ((plan->value_size + 7) & ~7) * (double)libbpf_num_possible_cpus();
}

/* One row: empty and full maps of two sizes, and the full large map emptied. */
static void measure_row(const struct plan *base, const struct mem_kind *k,
			const struct memcg *cg, const long sizes[2], struct mem_row *r)
{
	struct plan plan;
	struct run run = { .plan = &plan };
	int fds[5] = { -1, -1, -1, -1, -1 };
	long long ignored;
	double charged_fixed;
	int err = row_plan(base, k, &plan);

	*r = (struct mem_row){ .label = k->label, .map = k->map, .status = "ok",
			       .prealloc = plan.prealloc != 0, .key_size = plan.key_size,
			       .value_size = plan.value_size, .charged_bytes_per_element = NAN };
	/* A first map pays one-time costs (allocator caches, page tables of the
	 * fill buffers) that would be charged to the first point: discard it. */
	if (!err)
		err = new_map(&plan, &run, cg, sizes[0], sizes[0], &ignored, &ignored, &fds[4]);
	close_fds(&fds[4], 1);
	memcg_settle(cg);
	for (int i = 0; !err && i < 2 && !stop_requested; i++) {
		r->points[i].max_entries = sizes[i];
		err = measure_point(&plan, &run, cg, i == 1, &r->points[i], &fds[2 * i]);
		r->nr_points += !err;
	}
	close_fds(fds, 4);
	memcg_settle(cg);
	r->map_type = run.map_type_name;
	if (err || stop_requested) {
		r->status = stop_requested ? "interrupted" : "unsupported";
		snprintf(r->reason, sizeof(r->reason), "%s",
			 stop_requested ? "interrupted" : mb_last_error());
		return;
	}
	two_point_fit(sizes[0], r->points[0].memlock_full, sizes[1], r->points[1].memlock_full,
		      &r->bytes_per_element, &r->fixed_bytes);
	if (r->points[0].charged_full >= 0)
		two_point_fit(sizes[0], r->points[0].charged_full, sizes[1],
			      r->points[1].charged_full, &r->charged_bytes_per_element, &charged_fixed);
	if (plan.nr_entries < sizes[1])
		measure_fill(&plan, &run, cg, sizes[1], &r->fill);
	else		/* full: the large point is that map */
		r->fill = (struct mem_fill){ sizes[1], r->points[1].memlock_full,
					     r->points[1].charged_full };
	r->per_cpu_value_bytes = per_cpu_value_bytes(&plan);
	r->element_bytes = isnan(r->per_cpu_value_bytes) ? r->bytes_per_element :
			   r->bytes_per_element - r->per_cpu_value_bytes;
}

/* The table's heading, then a row as each is measured. */
static void print_header(const struct run *run, const struct mem_report *rep)
{
	const struct plan *c = run->plan;

	if (c->quiet)
		return;
	printf("Memory per element: key %d B, value %d B, maps of %ld and %ld entries, cgroup %s\n",
	       c->key_size, c->value_size, rep->sizes[0], rep->sizes[1], rep->cgroup);
	printf("%-28s | %10s | %10s | %9s | %9s | %13s | %12s | %12s | %9s\n",
	       "Map Type & Configuration", "memlock/el", "element", "per-CPU", "charged",
	       "fixed", "empty", "full", "deleted");
	fflush(stdout);
}

/* The part-full map of mem --nr-entries, under its row. */
static void print_fill(const struct mem_fill *f, long max_entries)
{
	char ch[32] = "-";

	if (f->charged >= 0)
		snprintf(ch, sizeof(ch), "%.2f MiB", f->charged / 1048576.0);
	printf("%-28s   holding %ld of %ld entries: memlock %.2f MiB, charged %s\n", "",
	       f->nr_entries, max_entries, f->memlock / 1048576.0, ch);
}

static void print_row(const struct run *run, const struct mem_row *r)
{
	const struct mem_point *big = &r->points[1];
	char pc[32] = "-", ch[32] = "-", dl[32] = "-";

	if (run->plan->quiet)
		return;
	if (strcmp(r->status, "ok")) {
		printf("%-28s | %s: %s\n", r->label, r->status, r->reason);
		return;
	}
	if (!isnan(r->per_cpu_value_bytes))
		snprintf(pc, sizeof(pc), "%.1f B", r->per_cpu_value_bytes);
	if (!isnan(r->charged_bytes_per_element))
		snprintf(ch, sizeof(ch), "%.1f B", r->charged_bytes_per_element);
	if (big->memlock_after_delete >= 0)
		snprintf(dl, sizeof(dl), "%.1f MiB", big->memlock_after_delete / 1048576.0);
	printf("%-28s | %8.1f B | %8.1f B | %9s | %9s | %9.1f KiB | %8.1f MiB | %8.1f MiB | %9s\n",
	       r->label, r->bytes_per_element, r->element_bytes, pc, ch, r->fixed_bytes / 1024,
	       big->memlock_empty / 1048576.0, big->memlock_full / 1048576.0, dl);
	if (r->fill.nr_entries && r->fill.nr_entries < big->max_entries)
		print_fill(&r->fill, big->max_entries);
	fflush(stdout);
}

static json_t *mem_point_json(const struct mem_point *p, bool last)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:o}",
		"max_entries", (json_int_t)p->max_entries,
		"memlock_empty", p->memlock_empty, "memlock_full", p->memlock_full,
		"charged_empty", p->charged_empty, "charged_full", p->charged_full,
		"memlock_after_delete", last && p->memlock_after_delete >= 0 ?
					json_integer(p->memlock_after_delete) : json_null());
}

static json_t *mem_fill_json(const struct mem_fill *f)
{
	if (!f->nr_entries)
		return json_null();
	return json_pack("{s:I, s:I, s:o}", "nr_entries", (json_int_t)f->nr_entries,
			 "memlock", f->memlock,
			 "charged", f->charged >= 0 ? json_integer(f->charged) : json_null());
}

static json_t *mem_row_json(const struct mem_row *r)
{
	json_t *points = json_array();

	if (strcmp(r->status, "ok"))
		return json_pack("{s:s, s:s, s:s, s:s}", "label", r->label, "map", r->map,
				 "status", r->status, "reason", r->reason);
	for (int i = 0; i < r->nr_points; i++)
		json_array_append_new(points, mem_point_json(&r->points[i], i == 1));
	return json_pack("{s:s, s:s, s:s, s:b, s:i, s:i, s:s, s:f, s:o, s:f, s:o, s:o, s:o, s:o}",
		"label", r->label, "map", r->map, "map_type", r->map_type,
		"prealloc", r->prealloc, "key_size", r->key_size, "value_size", r->value_size,
		"status", r->status,
		"bytes_per_element", r->bytes_per_element,
		"element_bytes", json_num(r->element_bytes),
		"fixed_bytes", r->fixed_bytes,
		"per_cpu_value_bytes", json_num(r->per_cpu_value_bytes),
		"charged_bytes_per_element", json_num(r->charged_bytes_per_element),
		"points", points, "fill", mem_fill_json(&r->fill));
}

static json_t *mem_json(const struct mem_report *rep, const struct run *run)
{
	json_t *rows = json_array();

	for (int i = 0; i < rep->nr_rows; i++)
		json_array_append_new(rows, mem_row_json(&rep->rows[i]));
	return json_pack("{s:s, s:[I, I], s:o, s:I}", "cgroup", rep->cgroup,
			 "sizes", (json_int_t)rep->sizes[0], (json_int_t)rep->sizes[1], "rows", rows,
			 "fill_retries", (json_int_t)run->fill_retries);
}

static int mem_measure(struct run *run, struct mem_report *rep)
{
	const struct plan *plan = run->plan;
	struct mem_kind one = user_kind(plan);
	const struct mem_kind *kinds = plan->all ? all_kinds : &one;
	size_t nkinds = plan->all ? sizeof(all_kinds) / sizeof(*all_kinds) : 1;
	struct memcg cg;
	int err;

	/* Fill buffers must go back to the kernel when freed, or the cgroup
	 * charge of a map would include them: a fixed mmap threshold keeps
	 * glibc from moving large buffers onto the heap. */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	err = memcg_enter(&cg);
	if (err && !plan->quiet)
		printf("No memory cgroup to use (%s): charged figures are left out\n", strerror(-err));
	rep->cgroup = memcg_describe(&cg);
	rep->sizes[0] = mem_small_size(plan->max_entries);
	rep->sizes[1] = plan->max_entries;
	print_header(run, rep);
	for (size_t i = 0; i < nkinds && !stop_requested; i++) {
		measure_row(plan, &kinds[i], &cg, rep->sizes, &rep->rows[rep->nr_rows]);
		print_row(run, &rep->rows[rep->nr_rows++]);
	}
	memcg_leave(&cg);
	if (stop_requested)
		return 128 + stop_requested;
	/* One configuration the kernel cannot create: unsupported here. */
	if (!plan->all && strcmp(rep->rows[0].status, "ok"))
		return EXIT_UNSUPPORTED;
	return EXIT_OK;
}

/* The table measured, and the result's "memory" made from it whatever the
 * status (an interrupted table keeps its rows). */
static int mem_oneshot(struct run *run, json_t **part)
{
	/* static: eight rows of a few hundred bytes each */
	static struct mem_report rep;
	int status = mem_measure(run, &rep);

	*part = json_pack("{s:o}", "memory", mem_json(&rep, run));
	return status;
}

const struct family mem_family = {
	.name = "mem",
	.check = mem_check,
	.oneshot = mem_oneshot,
	.takes_all = true,
};
