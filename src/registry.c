// SPDX-License-Identifier: GPL-2.0
/* Every benchmark, in the order `./bench -l` lists them. */
#include <string.h>
#include "bench.h"
#include "free.h"
#include "htab.h"
#include "lpm.h"
#include "mem.h"

const struct bench benches[] = {
	{ "noop", {"htab-noop"}, &htab_family, MB_OP_BASELINE, LAYOUT_SHARED,
	  "the producer loop and key fetch with no map operation: the harness's own cost" },
	{ "htab-lookup", {"bpf-hashmap-lookup"}, &htab_family, MB_OP_LOOKUP, LAYOUT_SHARED,
	  "lookup of prefilled keys, counting hits" },
	{ "htab-update", {}, &htab_family, MB_OP_UPDATE, LAYOUT_SHARED,
	  "update of prefilled keys (BPF_EXIST)" },
	{ "htab-delete", {}, &htab_family, MB_OP_DELETE, LAYOUT_SLICED,
	  "delete of prefilled keys; the refill is not timed" },
	{ "htab-overwrite", {"overwrite"}, &htab_family, MB_OP_OVERWRITE, LAYOUT_CHURN,
	  "BPF_ANY update of each producer's own keys" },
	{ "htab-full-update", {"bpf-hashmap-full-update"}, &htab_family, MB_OP_OVERWRITE, LAYOUT_FULL,
	  "BPF_ANY update of a map filled to max-entries, each producer its own keys" },
	{ "htab-batch_add_batch_del", {"batch_add_batch_del"}, &htab_family, MB_OP_ADD_DEL_BATCH,
	  LAYOUT_CHURN, "add a batch of keys, then delete them; both timed" },
	{ "htab-add_del_on_diff_cpu", {"add_del_on_diff_cpu"}, &htab_family, MB_OP_ADD,
	  LAYOUT_CHURN_PAIRS, "even producers add keys that the next odd producer deletes" },
	{ "htab-mem-overwrite", {}, &htab_family, MB_OP_OVERWRITE, LAYOUT_CHURN,
	  "htab-mem --use-case overwrite: throughput with memory sampled", .track_mem = true },
	{ "htab-mem-batch_add_batch_del", {}, &htab_family, MB_OP_ADD_DEL_BATCH, LAYOUT_CHURN,
	  "htab-mem --use-case batch_add_batch_del", .track_mem = true },
	{ "htab-mem-add_del_on_diff_cpu", {}, &htab_family, MB_OP_ADD, LAYOUT_CHURN_PAIRS,
	  "htab-mem --use-case add_del_on_diff_cpu", .track_mem = true },
	{ "htab-free", {}, &free_family, MB_OP_FREE, LAYOUT_SHARED,
	  "time the kernel takes to free a map holding nr-entries elements",
	  .target = &htab_family, .single_producer = true, .slow = true },
	{ "mem", {}, &mem_family, MB_OP_NOOP, LAYOUT_SHARED,
	  "bytes per element: kernel accounting and cgroup charge (--all: every map type)" },
	{ "lpm-trie-noop", {}, &lpm_family, MB_OP_NOOP, LAYOUT_SHARED,
	  "the LPM producer loop alone" },
	{ "lpm-trie-baseline", {}, &lpm_family, MB_OP_BASELINE, LAYOUT_SHARED,
	  "fetching the precomputed trie keys, no map operation" },
	{ "lpm-trie-lookup", {}, &lpm_family, MB_OP_LOOKUP, LAYOUT_SHARED,
	  "lookup of full-length addresses in a filled trie" },
	{ "lpm-trie-update", {}, &lpm_family, MB_OP_UPDATE, LAYOUT_SHARED,
	  "update of prefixes present in the trie (BPF_EXIST)" },
	{ "lpm-trie-insert", {}, &lpm_family, MB_OP_INSERT, LAYOUT_SLICED,
	  "insert of prefixes deleted beforehand (the delete is not timed)", .single_producer = true },
	{ "lpm-trie-delete", {}, &lpm_family, MB_OP_DELETE, LAYOUT_SLICED,
	  "delete of present prefixes (the refill is not timed)", .single_producer = true },
	{ "lpm-trie-free", {}, &free_family, MB_OP_FREE, LAYOUT_SHARED,
	  "time the kernel takes to free a trie holding nr-entries prefixes",
	  .target = &lpm_family, .single_producer = true, .slow = true },
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
