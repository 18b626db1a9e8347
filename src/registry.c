// SPDX-License-Identifier: GPL-2.0
/* Every benchmark and its contract, in the order `./bench -l` lists them.
 * A row that carries a kernel bench's name does that bench's workload and
 * reports its figure (tools/testing/selftests/bpf/benchs/). */
#include <string.h>
#include "bench.h"
#include "free.h"
#include "htab.h"
#include "lpm.h"
#include "mem.h"

#define HTAB_MEM_WORKLOAD(what) \
	"htab-mem: producer p's 64 keys p, p+P, p+2P.. (P producers) " what "; " \
	"u32 keys, max(8192, 64 x CPUs) entries, no prealloc (--preallocated)"

const struct bench benches[] = {
	{ "noop", {"htab-noop"}, &htab_family, MB_OP_BASELINE, LAYOUT_SHARED,
	  "the producer loop and key fetch with no map operation: the harness's own cost",
	  "fetch each prefilled key id, no map operation", FIG_WALL },
	{ "htab-lookup", {}, &htab_family, MB_OP_LOOKUP, LAYOUT_SHARED,
	  "lookup of prefilled keys, counting hits",
	  "lookup of prefilled ids [0,nr), producers start spread over them; batch 1024",
	  FIG_WALL },
	{ "bpf-hashmap-lookup", {}, &htab_family, MB_OP_LOOKUP, LAYOUT_FROM_FIRST,
	  "the kernel's bpf-hashmap-lookup: lookups of keys 1..nr, M events/s per producer",
	  "keys 1..nr (500 of 1000), key words past the first i x 2654435761, in order from "
	  "key 1 every run; prealloc; batch floor(1M / nr) x nr",
	  FIG_EVENTS_PER_PROD, .batch = 1000000 },
	{ "htab-update", {}, &htab_family, MB_OP_UPDATE, LAYOUT_SHARED,
	  "update of prefilled keys (BPF_EXIST)",
	  "BPF_EXIST update of prefilled ids, producers start spread over them; batch 1024",
	  FIG_WALL },
	{ "htab-delete", {}, &htab_family, MB_OP_DELETE, LAYOUT_SLICED,
	  "delete of prefilled keys; the refill is not timed",
	  "delete a batch of the producer's slice of prefilled ids, refill it untimed", FIG_WALL },
	{ "htab-overwrite", {}, &htab_family, MB_OP_OVERWRITE, LAYOUT_CHURN,
	  "BPF_ANY update of each producer's own keys",
	  "BPF_ANY update of the producer's slice of ids [nr,max); batch 1024", FIG_WALL },
	{ "htab-overwrite-full", {}, &htab_family, MB_OP_OVERWRITE, LAYOUT_FULL,
	  "BPF_ANY update of present keys in a map filled to max-entries",
	  "map filled to max; BPF_ANY update of the producer's slice of present ids", FIG_WALL },
	{ "bpf-hashmap-full-update", {"htab-full-update"}, &htab_family, MB_OP_OVERWRITE,
	  LAYOUT_ABSENT,
	  "the kernel's bpf-hashmap-full-update: updates that find the map full (E2BIG)",
	  "prealloc map filled to max (1000); producer p updates absent key max+p, BPF_ANY: "
	  "E2BIG expected; batch 10000", FIG_EVENTS_PER_PROD, .batch = 10000 },
	{ "htab-batch_add_batch_del", {}, &htab_family, MB_OP_ADD_DEL_BATCH, LAYOUT_CHURN,
	  "add a batch of keys, then delete them; both timed",
	  "BPF_ANY add then delete a batch of the producer's slice of [nr,max)", FIG_WALL },
	{ "htab-add_del_on_diff_cpu", {}, &htab_family, MB_OP_ADD, LAYOUT_CHURN_PAIRS,
	  "even producers add keys that the next odd producer deletes, taking turns",
	  "pair's slice of [nr,max): producer 2k adds a batch (BPF_NOEXIST), then 2k+1 "
	  "deletes it, in turn", FIG_WALL },
	{ "htab-mem-overwrite", {"overwrite"}, &htab_family, MB_OP_OVERWRITE, LAYOUT_STRIDED,
	  "htab-mem --use-case overwrite: per-prod-op with memory sampled",
	  HTAB_MEM_WORKLOAD("BPF_ANY updated each run"),
	  FIG_RUNS_PER_PROD, .batch = 64, .track_mem = true },
	{ "htab-mem-batch_add_batch_del", {"batch_add_batch_del"}, &htab_family,
	  MB_OP_ADD_DEL_BATCH, LAYOUT_STRIDED,
	  "htab-mem --use-case batch_add_batch_del: per-prod-op with memory sampled",
	  HTAB_MEM_WORKLOAD("added (BPF_ANY) then deleted each run, a run counts 2"),
	  FIG_RUNS_PER_PROD, .batch = 64, .runs_weight = 2, .track_mem = true },
	{ "htab-mem-add_del_on_diff_cpu", {"add_del_on_diff_cpu"}, &htab_family, MB_OP_ADD,
	  LAYOUT_STRIDED_PAIRS,
	  "htab-mem --use-case add_del_on_diff_cpu: per-prod-op with memory sampled",
	  "htab-mem: pair k's 64 keys k, k+P/2..: producer 2k adds (BPF_NOEXIST), then 2k+1 "
	  "deletes, in turn; u32 keys, max(8192, 64 x CPUs) entries, no prealloc",
	  FIG_RUNS_PER_PROD, .batch = 64, .track_mem = true },
	{ "htab-free", {}, &free_family, MB_OP_FREE, LAYOUT_SHARED,
	  "time the kernel takes to free a map holding nr-entries elements",
	  "create, fill from user space and close maps; time bpf_map_free_deferred",
	  FIG_KERNEL, .target = &htab_family, .single_producer = true, .slow = true },
	{ "mem", {}, &mem_family, MB_OP_NOOP, LAYOUT_SHARED,
	  "bytes per element: kernel accounting and cgroup charge (--all: every map type)",
	  "maps of two sizes, empty and filled: memlock and cgroup charge slopes", FIG_BYTES },
	{ "lpm-trie-noop", {}, &lpm_family, MB_OP_NOOP, LAYOUT_SHARED,
	  "the LPM producer loop alone",
	  "the loop alone, empty trie; batch 10000", FIG_WALL, .batch = 10000,
	  .no_prefill = true },
	{ "lpm-trie-baseline", {}, &lpm_family, MB_OP_BASELINE, LAYOUT_SHARED,
	  "fetching the precomputed trie keys, no map operation",
	  "read each key's address word, no map operation, empty trie; batch 10000",
	  FIG_WALL, .batch = 10000, .no_prefill = true },
	{ "lpm-trie-lookup", {}, &lpm_family, MB_OP_LOOKUP, LAYOUT_SHARED,
	  "lookup of the stored prefixes in a filled trie",
	  "trie of keys {plen, u32 id} for ids [0,nr); lookup of them in id order; "
	  "batch 10000", FIG_WALL, .batch = 10000 },
	{ "lpm-trie-update", {}, &lpm_family, MB_OP_UPDATE, LAYOUT_SHARED,
	  "update of prefixes present in the trie (BPF_EXIST)",
	  "filled trie; BPF_EXIST update in id order; batch 10000", FIG_WALL, .batch = 10000 },
	{ "lpm-trie-insert", {}, &lpm_family, MB_OP_FILL_UP, LAYOUT_SLICED,
	  "insert into an empty trie until it holds nr-entries; emptying it is not timed",
	  "empty trie; BPF_NOEXIST insert ids 0..nr-1 in order, 10000 a run; at nr the "
	  "trie is emptied untimed", FIG_KERNEL, .batch = 10000, .single_producer = true,
	  .no_prefill = true },
	{ "lpm-trie-delete", {}, &lpm_family, MB_OP_DRAIN, LAYOUT_SLICED,
	  "delete from a full trie until it is empty; the refill is not timed",
	  "filled trie; delete ids 0..nr-1 in order, 10000 a run; when empty it is refilled "
	  "untimed", FIG_KERNEL, .batch = 10000, .single_producer = true },
	{ "lpm-trie-free", {}, &free_family, MB_OP_FREE, LAYOUT_SHARED,
	  "time the kernel takes to free a trie holding nr-entries prefixes",
	  "create, fill from user space and close tries; time bpf_map_free_deferred",
	  FIG_KERNEL, .target = &lpm_family, .single_producer = true, .slow = true },
};
const int nr_benches = sizeof(benches) / sizeof(benches[0]);

const struct bench *bench_find(const char *name)
{
	for (int i = 0; i < nr_benches; i++) {
		if (!strcmp(benches[i].name, name))
			return &benches[i];
		for (int a = 0; a < 3 && benches[i].aliases[a]; a++)
			if (!strcmp(benches[i].aliases[a], name))
				return &benches[i];
	}
	return NULL;
}

struct figure_desc figure_of(const struct bench *b)
{
	/* Operation rates of slow benchmarks (map frees) are in K ops/s. */
	const char *ops = b->slow ? "K ops/s" : "M ops/s";
	double scale = b->slow ? 1e3 : 1;

	switch (b->figure) {
	case FIG_RUNS_PER_PROD:
		return (struct figure_desc){ "per-prod-op", "k/s", "wall", 1e3 };
	case FIG_EVENTS_PER_PROD:
		return (struct figure_desc){ "events per producer", "M events/s", "in-kernel", 1 };
	case FIG_BYTES:
		return (struct figure_desc){ "bytes per element", "B", "none", 1 };
	case FIG_KERNEL:
		return (struct figure_desc){ "in-kernel throughput", ops, "in-kernel", scale };
	default:
		return (struct figure_desc){ "throughput", ops, "wall", scale };
	}
}
