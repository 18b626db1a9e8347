// SPDX-License-Identifier: GPL-2.0
/* The benchmark table: mapbench's own rows, each with its whole contract,
 * then every kernel bench's rows, which its peer file declares (src/peers/,
 * as the kernel's benchs/bench_*.c), joined before main() runs in the
 * order `./bench -l` lists them; and finding a row. */
#include <stdlib.h>
#include <string.h>
#include "mem.h"
#include "rows.h"

/* Lookups on --readers producers while --writers run op on the same keys. */
#define READERS_WRITERS(writes) .op = MB_OP_LOOKUP, .writer_op = (writes), .walk = &walk_readers_writers

static const struct bench own_rows[] = {
	{ .name = "noop", .aliases = { "htab-noop" }, HTAB, .op = MB_OP_BASELINE,
	  .walk = &walk_shared,
	  .help = "the producer loop and key fetch with no map operation: the harness's own cost",
	  .workload = "fetch each prefilled key id, no map operation" },
	{ .name = "htab-lookup", HTAB, .op = MB_OP_LOOKUP, .walk = &walk_shared,
	  .help = "lookup of prefilled keys, counting hits",
	  .workload = "lookup of prefilled ids [0,nr), producers start spread over them" },
	{ .name = "htab-update", HTAB, .op = MB_OP_UPDATE, .walk = &walk_shared,
	  .help = "update of prefilled keys (BPF_EXIST)",
	  .workload = "BPF_EXIST update of prefilled ids, producers start spread over them" },
	{ .name = "htab-delete", HTAB, .op = MB_OP_DELETE, .walk = &walk_sliced,
	  .help = "delete of prefilled keys; the refill is not timed",
	  .workload = "delete a batch of the producer's slice of prefilled ids, refill it untimed" },
	{ .name = "htab-overwrite", HTAB, .op = MB_OP_OVERWRITE, .walk = &walk_churn,
	  .nr_entries = 0,
	  .help = "BPF_ANY update of each producer's own keys",
	  .workload = "BPF_ANY update of the producer's slice of ids [nr,max)" },
	{ .name = "htab-overwrite-full", HTAB, .op = MB_OP_OVERWRITE, .walk = &walk_full,
	  .help = "BPF_ANY update of present keys in a map filled to max-entries",
	  .workload = "map filled to max; BPF_ANY update of the producer's slice of present ids" },
	{ .name = "htab-batch_add_batch_del", HTAB, .op = MB_OP_ADD_DEL_BATCH,
	  .walk = &walk_churn, .nr_entries = 0,
	  .help = "add a batch of keys, then delete them; both timed",
	  .workload = "BPF_ANY add then delete a batch of the producer's slice of [nr,max)" },
	{ .name = "htab-add_del_on_diff_cpu", HTAB, .op = MB_OP_ADD, .walk = &walk_churn_pairs,
	  .nr_entries = 0,
	  .help = "even producers add keys that the next odd producer deletes, taking turns",
	  .workload = "pair's slice of [nr,max): producer 2k adds a batch (BPF_NOEXIST), then "
		      "2k+1 deletes it, in turn" },
	{ .name = "htab-lru-evict", HTAB, .maps = LRU_MAPS, .map = "lru",
	  .op = MB_OP_LOOKUP_INSERT, .walk = &walk_drawn, .nr_entries = ENTRIES_TWICE_MAX,
	  .no_prefill = true, .counts_evictions = true,
	  .help = "lookup, inserting each miss, over more keys than the LRU map holds: hit rate "
		  "and evictions",
	  .workload = "keys drawn from [0,nr), nr twice max by default, uniformly or --zipf; "
		      "lookup, and on a miss BPF_ANY insert (timed): the map starts empty and "
		      "evicts once full" },
	{ .name = "htab-lookup-update", HTAB, READERS_WRITERS(MB_OP_UPDATE),
	  .help = "lookups on --readers producers while --writers update the same keys: a figure "
		  "each",
	  .workload = "readers look up prefilled ids [0,nr), spread; writer w BPF_EXIST-updates "
		      "its slice w of them" },
	{ .name = "htab-lookup-delete", HTAB, READERS_WRITERS(MB_OP_DELETE),
	  .help = "lookups on --readers producers while --writers delete (and re-add, untimed) "
		  "the same keys",
	  .workload = "readers look up prefilled ids [0,nr), spread; writer w deletes a batch of "
		      "its slice w, then re-adds it untimed" },
	{ .name = "htab-free", HTAB, FREE, .target = &htab_family,
	  .help = "time the kernel takes to free a map holding nr-entries elements",
	  .workload = "create, fill from user space and close maps; time bpf_map_free_deferred" },
	{ .name = "mem", HTAB, .family = &mem_family, .maps = HASH_MAPS | MAP_LPM,
	  .max_entries = 1000000, .walk = NULL, .batch = 0, .trigger = TRIGGER_NONE,
	  .loop = LOOP_NONE, .figure = FIG_BYTES,
	  .help = "bytes per element: kernel accounting and cgroup charge (--all: every map type)",
	  .workload = "maps of two sizes, empty and filled: memlock and cgroup charge slopes" },
};
BENCH_ROWS(own_rows, 0);

#define MAX_PARTS 16

/* The tables joined so far, in place order, and every row of them. */
static struct part {
	const struct bench *rows;
	int n, place;
} parts[MAX_PARTS];
static int nr_parts;
static struct bench *all;
const struct bench *benches;
int nr_benches;

void bench_rows_add(const struct bench *rows, int n, int place)
{
	int at = nr_parts;

	if (nr_parts == MAX_PARTS || !(all = realloc(all, (nr_benches + n) * sizeof(*all))))
		abort();	/* before main(): a build with too many tables */
	for (; at > 0 && parts[at - 1].place > place; at--)
		parts[at] = parts[at - 1];
	parts[at] = (struct part){ rows, n, place };
	nr_parts++;
	nr_benches = 0;
	for (int i = 0; i < nr_parts; i++)
		for (int j = 0; j < parts[i].n; j++)
			all[nr_benches++] = parts[i].rows[j];
	benches = all;
}

static bool named(const struct bench *b, const char *name)
{
	if (!strcmp(b->name, name))
		return true;
	for (int a = 0; a < 3 && b->aliases[a]; a++)
		if (!strcmp(b->aliases[a], name))
			return true;
	return false;
}

const struct bench *bench_find(const char *name, const char *use_case)
{
	for (int i = 0; i < nr_benches; i++) {
		const struct bench *b = &benches[i];

		if (b->group && !strcmp(b->group, name) &&
		    (!use_case || !strcmp(b->use_case, use_case)))
			return b;
		if (named(b, name))
			return b;
	}
	return NULL;
}

const struct bench *bench_find_flag(const char *name, unsigned int flag)
{
	for (int i = 0; i < nr_benches; i++)
		if (benches[i].group && !strcmp(benches[i].group, name) && benches[i].flag &&
		    benches[i].flag == flag)
			return &benches[i];
	return NULL;
}

const char *bench_flags_list(const char *name, char *buf, int len)
{
	int at = 0;

	buf[0] = 0;
	for (int i = 0; i < nr_benches; i++)
		if (benches[i].group && !strcmp(benches[i].group, name) && benches[i].flag)
			at += snprintf(buf + at, len > at ? len - at : 0, "%s%u %s", at ? ", " : "",
				       benches[i].flag, benches[i].use_case);
	return buf;
}

const char *bench_op_name(enum bench_op op)
{
	static const char *const names[] = {
		[MB_OP_NOOP] = "noop", [MB_OP_BASELINE] = "key fetch", [MB_OP_LOOKUP] = "lookup",
		[MB_OP_UPDATE] = "update", [MB_OP_OVERWRITE] = "overwrite",
		[MB_OP_DELETE] = "delete", [MB_OP_ADD_DEL_BATCH] = "add+delete",
		[MB_OP_ADD] = "add", [MB_OP_REMOVE] = "remove", [MB_OP_FILL] = "fill",
		[MB_OP_FREE] = "free", [MB_OP_DRAIN] = "drain", [MB_OP_FILL_UP] = "fill up",
		[MB_OP_LOOKUP_INSERT] = "lookup+insert",
	};

	return op < sizeof(names) / sizeof(names[0]) && names[op] ? names[op] : "?";
}

struct figure_desc figure_of(const struct bench *b)
{
	/* Operation rates of slow families (map frees) are in K ops/s. */
	const char *ops = b->family->slow ? "K ops/s" : "M ops/s";
	double scale = b->family->slow ? 1e3 : 1;

	switch (b->figure) {
	case FIG_RUNS_PER_PROD:
		return (struct figure_desc){ "per-prod-op", "k/s", "wall", 1e3 };
	case FIG_EVENTS_PER_PROD:
		return (struct figure_desc){ "events per producer", "M events/s", "in-kernel", 1 };
	case FIG_EVENTS_PER_TASK:
		return (struct figure_desc){ "events per task", "events/s", "wall", 1e6 };
	case FIG_BYTES:
		return (struct figure_desc){ "bytes per element", "B", "none", 1 };
	case FIG_BATCH_MEDIAN:
		return (struct figure_desc){ "median per batch", "ns/op", "in-kernel", 1 };
	case FIG_KERNEL:
		return (struct figure_desc){ "in-kernel throughput", ops, "in-kernel", scale };
	default:
		return (struct figure_desc){ "throughput", ops, "wall", scale };
	}
}
