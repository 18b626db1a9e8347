// SPDX-License-Identifier: GPL-2.0
/* Every benchmark and its whole contract, in the order `./bench -l` lists
 * them. A row that carries a kernel bench's name does that bench's workload
 * and reports its figure (tools/testing/selftests/bpf/benchs/).
 *
 * A family's defaults come first in a row (HTAB, LPM); a field named again
 * after them is that row's own value (hence -Wno-override-init). */
#include <string.h>
#include "bench.h"
#include "free.h"
#include "htab.h"
#include "keys.h"
#include "lpm.h"
#include "map_perf.h"
#include "maps.h"
#include "mem.h"
#include "nop.h"
#include "peer.h"
#include "xdp_lb.h"
#include "xdp_lb_shared.h"

#define PRODUCERS .trigger = TRIGGER_XDP, .loop = LOOP_AUTO, .figure = FIG_WALL, .batch = 1024, \
	.prealloc = 1
#define HTAB .family = &htab_family, .maps = HASH_MAPS, .map = "htab", .key_size = 4, \
	.value_size = 8, .max_entries = 1000, .nr_entries = ENTRIES_MAX, .prefix_len = -1, \
	PRODUCERS
/* The kernel's LPM bench: BPF_PROG_TEST_RUN of an XDP program, 10000
 * operations a run, one per bpf_loop callback, keys from one shared counter. */
#define LPM .family = &lpm_family, .maps = MAP_LPM, .map = "lpm_trie", .key_size = 4, \
	.value_size = 4, .max_entries = ENTRIES_NR, .nr_entries = 10000, \
	.prefix_len = PREFIX_ALL, PRODUCERS, .batch = 10000, .loop = LOOP_BPF_LOOP, \
	.keys = KEYS_COUNTER
/* The kernel's htab-mem: u32 keys, max(8192, 64 x CPUs) entries, no prealloc,
 * 64 keys per producer, one per bpf_loop callback, run from the getpgid
 * tracepoint (deleters: getppid), per-prod-op with the map's memory sampled. */
#define HTAB_MEM HTAB, .group = "htab-mem", .max_entries_of = htab_mem_max_entries, \
	.prealloc = 0, .batch = 64, .figure = FIG_RUNS_PER_PROD, .track_mem = true, \
	.walk = &walk_strided, .keys = KEYS_INDEX, .trigger = TRIGGER_TP, .loop = LOOP_BPF_LOOP, \
	.kernel = &kernel_htab_mem
/* The kernel's bpf-hashmap-* run from fentry on getpgid, with bpf_loop; where
 * fentry is refused, from the getpgid tracepoint, with a warning. */
#define HASHMAP_BENCH .trigger = TRIGGER_FENTRY, .trigger_fallback = TRIGGER_TP, \
	.loop = LOOP_BPF_LOOP, .figure = FIG_EVENTS_PER_PROD, .keys = KEYS_INDEX
/* Races between CPUs on the shared key make some lookups miss at -p > 1;
 * the kernel's loop then skips the rest of that pass (and counts it). */
#define HASHMAP_LOOKUP_WORKLOAD "keys 1..nr (id = position + 1, made in the program), key " \
	"words past the first i x 2654435761, in order from key 1 every run, in one key " \
	"buffer all CPUs write; batch floor(1M / nr) x nr"
/* samples/bpf map_perf_test: a task per CPU, pinned, each making the test's
 * syscall count times (its default 10,000) a round, the LRU tests' maps
 * emptied between rounds as each map_perf_test run starts with new ones;
 * its program (a ksyscall, else the syscall's tracepoint with a warning)
 * does the test's map work. Its figure: events per sec per task, timed in
 * user space around each round. */
#define MAP_PERF .family = &map_perf_family, .group = "map-perf", .key_size = 4, \
	.value_size = 8, .max_entries = 1000, .nr_entries = 0, .prefix_len = -1, .prealloc = 1, \
	.trigger = TRIGGER_KSYSCALL, .trigger_fallback = TRIGGER_TP, .loop = LOOP_NONE, \
	.figure = FIG_EVENTS_PER_TASK, .task_per_cpu = true, .kernel = &kernel_map_perf_test, \
	.op = MB_OP_NOOP, .batch = 1, .count = 10000
#define MAP_PERF_CHURN "per event (a syscall), 10 x {update BPF_ANY, lookup, delete if found} of " \
	"the task's key (its tid); hash_map_alloc also holds keys 0..32, as map_perf_test's " \
	"fill_lpm_trie() leaves it"
/* Lookups on --readers producers while --writers run op on the same keys. */
#define READERS_WRITERS(writes) .op = MB_OP_LOOKUP, .writer_op = (writes), .walk = &walk_readers_writers
#define FREE .family = &free_family, .walk = &walk_whole_maps, .batch = 1, .keys = KEYS_SEQ, \
	.trigger = TRIGGER_CLOSE, .loop = LOOP_NONE, .figure = FIG_KERNEL, .single_producer = true, \
	.op = MB_OP_FREE

/* 7.3's xdp-lb: its load balancer on one scenario's packet (--scenario),
 * BPF_PROG_TEST_RUN, a batch of packets a run under may_goto, sized to
 * 10 ms in the warmup; the map recorded is a connection table. */
#define XDP_LB .family = &xdp_lb_family, .group = "xdp-lb", .kernel = &kernel_bpf_timing, \
	.map = "lru", .maps = MAP_LRU, .key_size = sizeof(struct lb_flow), \
	.value_size = sizeof(struct lb_flow_entry), .max_entries = LB_FLOWS, .nr_entries = 0, \
	.prefix_len = -1, .prealloc = 1, .no_prefill = true, .trigger = TRIGGER_XDP, \
	.loop = LOOP_CAN_LOOP, .op = MB_OP_NOOP, .batch = 10000, .batch_auto = true, \
	.figure = FIG_BATCH_MEDIAN, \
	.workload = "the kernel bench's load balancer (VIP hash, per-CPU LRU connection tables, " \
		    "consistent-hash rings, IPIP/IPv6 tunnels) on the scenario's packet, a " \
		    "batch of it a run, the tunnel taken off between packets"
#define IP4(a, b, c, d) ((__u32)(a) << 24 | (b) << 16 | (c) << 8 | (d))
#define LB(...) .scenario = &(const struct lb_scenario){ __VA_ARGS__ }
/* What a scenario's packets get: a tunnel (v4, v6, or v4 in v6), or not. */
#define TX4 .verdict = XDP_TX
#define TX6 .verdict = XDP_TX, .v6 = true, .tunnel6 = true
#define TX4IN6 .verdict = XDP_TX, .tunnel6 = true
#define FLOWS_4K .flow_mask = 0xFFF
#define FLOWS_16M .flow_mask = 0xFFFFFF

const struct bench benches[] = {
	{ .name = "noop", .aliases = { "htab-noop" }, HTAB, .op = MB_OP_BASELINE,
	  .walk = &walk_shared,
	  .help = "the producer loop and key fetch with no map operation: the harness's own cost",
	  .workload = "fetch each prefilled key id, no map operation" },
	{ .name = "htab-lookup", HTAB, .op = MB_OP_LOOKUP, .walk = &walk_shared,
	  .help = "lookup of prefilled keys, counting hits",
	  .workload = "lookup of prefilled ids [0,nr), producers start spread over them" },
	{ .name = "bpf-hashmap-lookup", HTAB, .op = MB_OP_LOOKUP, .walk = &walk_from_first,
	  .nr_entries = 500, .batch = 1000000, HASHMAP_BENCH, .kernel = &kernel_hashmap_lookup,
	  .help = "the kernel's bpf-hashmap-lookup: lookups of keys 1..nr, M events/s per producer",
	  .workload = HASHMAP_LOOKUP_WORKLOAD },
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
	{ .name = "bpf-hashmap-full-update", .aliases = { "htab-full-update" }, HTAB,
	  .op = MB_OP_OVERWRITE, .walk = &walk_absent, .batch = 10000, HASHMAP_BENCH,
	  .kernel = &kernel_hashmap_full_update,
	  .help = "the kernel's bpf-hashmap-full-update: updates that find the map full (E2BIG)",
	  .workload = "prealloc map filled to max; producer p updates absent key max+p, BPF_ANY: "
		      "E2BIG expected" },
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
	{ .name = "htab-mem-overwrite", .aliases = { "overwrite" }, HTAB_MEM,
	  .use_case = "overwrite", .op = MB_OP_OVERWRITE,
	  .help = "htab-mem --use-case overwrite: per-prod-op with memory sampled",
	  .workload = "htab-mem: producer p's keys BPF_ANY updated each run" },
	{ .name = "htab-mem-batch_add_batch_del", .aliases = { "batch_add_batch_del" }, HTAB_MEM,
	  .use_case = "batch_add_batch_del", .op = MB_OP_ADD_DEL_BATCH,
	  .help = "htab-mem --use-case batch_add_batch_del: per-prod-op with memory sampled",
	  .workload = "htab-mem: producer p's keys added (BPF_ANY) then deleted each run, a run "
		      "counts 2" },
	{ .name = "htab-mem-add_del_on_diff_cpu", .aliases = { "add_del_on_diff_cpu" }, HTAB_MEM,
	  .use_case = "add_del_on_diff_cpu", .op = MB_OP_ADD, .walk = &walk_strided_pairs,
	  .help = "htab-mem --use-case add_del_on_diff_cpu: per-prod-op with memory sampled",
	  .workload = "htab-mem: producer 2k adds pair k's keys (BPF_NOEXIST), then 2k+1 "
		      "deletes them, in turn" },
	/* The kernel's rhtab names: the same workloads on BPF_MAP_TYPE_RHASH,
	 * which is never preallocated (the kernel's rhtab-mem refuses
	 * --preallocated, as mapbench does). */
	{ .name = "bpf-rhashmap-lookup", HTAB, .maps = MAP_RHTAB, .map = "rhtab",
	  .op = MB_OP_LOOKUP, .walk = &walk_from_first, .nr_entries = 500, .batch = 1000000,
	  HASHMAP_BENCH, .kernel = &kernel_hashmap_lookup,
	  .help = "the kernel's bpf-rhashmap-lookup: bpf-hashmap-lookup on an rhtab map",
	  .workload = HASHMAP_LOOKUP_WORKLOAD },
	{ .name = "bpf-rhashmap-full-update", HTAB, .maps = MAP_RHTAB, .map = "rhtab",
	  .op = MB_OP_OVERWRITE, .walk = &walk_absent, .batch = 10000, HASHMAP_BENCH,
	  .kernel = &kernel_hashmap_full_update,
	  .help = "the kernel's bpf-rhashmap-full-update: bpf-hashmap-full-update on an rhtab map",
	  .workload = "map filled to max; producer p updates absent key max+p, BPF_ANY" },
	{ .name = "rhtab-mem-overwrite", HTAB_MEM, .group = "rhtab-mem", .maps = MAP_RHTAB,
	  .map = "rhtab", .use_case = "overwrite", .op = MB_OP_OVERWRITE,
	  .help = "rhtab-mem --use-case overwrite: htab-mem's on an rhtab map",
	  .workload = "htab-mem: producer p's keys BPF_ANY updated each run" },
	{ .name = "rhtab-mem-batch_add_batch_del", HTAB_MEM, .group = "rhtab-mem",
	  .maps = MAP_RHTAB, .map = "rhtab", .use_case = "batch_add_batch_del",
	  .op = MB_OP_ADD_DEL_BATCH,
	  .help = "rhtab-mem --use-case batch_add_batch_del: htab-mem's on an rhtab map",
	  .workload = "htab-mem: producer p's keys added (BPF_ANY) then deleted each run, a run "
		      "counts 2" },
	{ .name = "rhtab-mem-add_del_on_diff_cpu", HTAB_MEM, .group = "rhtab-mem",
	  .maps = MAP_RHTAB, .map = "rhtab", .use_case = "add_del_on_diff_cpu", .op = MB_OP_ADD,
	  .walk = &walk_strided_pairs,
	  .help = "rhtab-mem --use-case add_del_on_diff_cpu: htab-mem's on an rhtab map",
	  .workload = "htab-mem: producer 2k adds pair k's keys (BPF_NOEXIST), then 2k+1 "
		      "deletes them, in turn" },
	{ .name = "map-perf-hash-prealloc", MAP_PERF, .use_case = "HASH_PREALLOC", .flag = 1,
	  .maps = MAP_HTAB, .map = "htab",
	  .help = "map_perf_test 1: update/lookup/delete churn on a preallocated hash, per getuid()",
	  .workload = MAP_PERF_CHURN },
	{ .name = "map-perf-percpu-hash-prealloc", MAP_PERF, .use_case = "PERCPU_HASH_PREALLOC",
	  .flag = 2, .maps = MAP_PERCPU, .map = "percpu",
	  .help = "map_perf_test 2: the churn on a preallocated per-CPU hash, per geteuid()",
	  .workload = MAP_PERF_CHURN },
	{ .name = "map-perf-hash-kmalloc", MAP_PERF, .use_case = "HASH_KMALLOC", .flag = 4,
	  .maps = MAP_HTAB, .map = "htab", .prealloc = 0,
	  .help = "map_perf_test 4: the churn on a BPF_F_NO_PREALLOC hash, per getgid()",
	  .workload = MAP_PERF_CHURN },
	{ .name = "map-perf-percpu-hash-kmalloc", MAP_PERF, .use_case = "PERCPU_HASH_KMALLOC",
	  .flag = 8, .maps = MAP_PERCPU, .map = "percpu", .prealloc = 0,
	  .help = "map_perf_test 8: the churn on a BPF_F_NO_PREALLOC per-CPU hash, per getegid()",
	  .workload = MAP_PERF_CHURN },
	{ .name = "map-perf-lru-hash-prealloc", MAP_PERF, .use_case = "LRU_HASH_PREALLOC",
	  .flag = 16, .maps = MAP_LRU, .map = "lru", .max_entries = 10000,
	  .help = "map_perf_test 16: an update of a random key in an LRU hash, per connect()",
	  .workload = "per event, one BPF_ANY update of a bpf_get_prandom_u32() key: nearly every "
		      "one inserts, evicting once full" },
	{ .name = "map-perf-nocommon-lru-hash-prealloc", MAP_PERF,
	  .use_case = "NOCOMMON_LRU_HASH_PREALLOC", .flag = 32, .maps = MAP_LRU_NOCOMMON,
	  .map = "lru_nocommon", .max_entries = 10000,
	  .help = "map_perf_test 32: the random update on a BPF_F_NO_COMMON_LRU map, per connect()",
	  .workload = "per event, one BPF_ANY update of a bpf_get_prandom_u32() key in an LRU "
		      "map with a list per CPU" },
	{ .name = "map-perf-lpm-kmalloc", MAP_PERF, .use_case = "LPM_KMALLOC", .flag = 64,
	  .maps = MAP_LPM, .map = "lpm_trie", .max_entries = 10000, .prealloc = 0,
	  .prefix_len = PREFIX_ALL,
	  .help = "map_perf_test 64: 32 lookups of 192.168.0.1/32 in an LPM trie, per gettid()",
	  .workload = "per event, 32 lookups of 192.168.0.1/32; the trie is empty, as "
		      "map_perf_test's is (its fill writes into hash_map_alloc)" },
	{ .name = "map-perf-hash-lookup", MAP_PERF, .use_case = "HASH_LOOKUP", .flag = 128,
	  .maps = MAP_HTAB, .map = "htab",
	  .help = "map_perf_test 128: 64 lookups of key 1 in an empty hash, per getpgid()",
	  .workload = "per event, 64 lookups of key 1 (absent: the map is empty, as the "
		      "kernel's); its line counts lookups, 64 an event" },
	{ .name = "map-perf-array-lookup", MAP_PERF, .use_case = "ARRAY_LOOKUP", .flag = 256,
	  .maps = MAP_ARRAY, .map = "array",
	  .help = "map_perf_test 256: 64 lookups of index 1 in an array, per getppid()",
	  .workload = "per event, 64 lookups of index 1; its line counts lookups, 64 an event" },
	{ .name = "map-perf-inner-lru-hash-prealloc", MAP_PERF,
	  .use_case = "INNER_LRU_HASH_PREALLOC", .flag = 512, .maps = MAP_LRU, .map = "lru",
	  .help = "map_perf_test 512: the random update into this CPU's LRU map, from an array "
		  "of maps, per connect()",
	  .workload = "per event, the CPU's own LRU map looked up in an array of maps (CPU 0's "
		      "the object's, the others' made on their CPU's NUMA node), then one BPF_ANY "
		      "update of a bpf_get_prandom_u32() key" },
	{ .name = "map-perf-lru-hash-lookup", MAP_PERF, .use_case = "LRU_HASH_LOOKUP",
	  .flag = 1024, .maps = MAP_LRU, .map = "lru", .nr_entries = ENTRIES_MAX,
	  .help = "map_perf_test 1024: 32 lookups of consecutive keys in a filled LRU hash, "
		  "per connect()",
	  .workload = "keys 0..max(32,max)-1 filled; per event, 32 lookups from the key connect() "
		      "carries, which moves on by 32 an event, wrapping" },
	{ .name = "htab-free", HTAB, FREE, .target = &htab_family,
	  .help = "time the kernel takes to free a map holding nr-entries elements",
	  .workload = "create, fill from user space and close maps; time bpf_map_free_deferred" },
	{ .name = "mem", HTAB, .family = &mem_family, .maps = HASH_MAPS | MAP_LPM,
	  .max_entries = 1000000, .walk = NULL, .batch = 0, .trigger = TRIGGER_NONE,
	  .loop = LOOP_NONE, .figure = FIG_BYTES,
	  .help = "bytes per element: kernel accounting and cgroup charge (--all: every map type)",
	  .workload = "maps of two sizes, empty and filled: memlock and cgroup charge slopes" },
	{ .name = "bpf-nop", .family = &nop_family, .kernel = &kernel_bpf_timing, .map = "array",
	  .maps = MAP_ARRAY, .key_size = 4, .value_size = 4, .max_entries = 1, .nr_entries = 0,
	  .prefix_len = -1, .prealloc = 1, .no_prefill = true, .trigger = TRIGGER_SYSCALL_PROG,
	  .loop = LOOP_CAN_LOOP, .op = MB_OP_NOOP, .batch = 10000, .batch_auto = true,
	  .figure = FIG_BATCH_MEDIAN,
	  .help = "the kernel timing library's loop doing nothing: what an iteration costs",
	  .workload = "a syscall program's empty loop bounded by may_goto, its bound read at each of "
		      "a batch's iterations, timed around; batch sized to 10 ms in the warmup "
		      "(--batch auto); no map (the one recorded is its global data)" },
	{ .name = "xdp-lb-tcp-v4-lru-hit", XDP_LB, .use_case = "tcp-v4-lru-hit",
	  .help = "IPv4 TCP, its flow in the table: IPIP to the backend",
	  LB(TX4, .proto = IPPROTO_TCP, .vip = { IP4(10, 10, 1, 1) }, .dport = 80,
	     .src = { IP4(10, 10, 2, 1) }, .sport = 12345, .known_flow = true) },
	{ .name = "xdp-lb-tcp-v4-ch", XDP_LB, .use_case = "tcp-v4-ch",
	  .help = "IPv4 TCP to a VIP without a table: ring lookup, IPIP",
	  LB(TX4, .proto = IPPROTO_TCP, .vip = { IP4(10, 10, 1, 2) }, .dport = 80,
	     .src = { IP4(10, 10, 2, 2) }, .sport = 54321, .vip_flags = LB_VIP_NO_LRU,
	     .vip_num = 1, .misses = LB_MISS_ALL) },
	{ .name = "xdp-lb-tcp-v6-lru-hit", XDP_LB, .use_case = "tcp-v6-lru-hit",
	  .help = "IPv6 TCP, its flow in the table: IPv6 in IPv6",
	  LB(TX6, .proto = IPPROTO_TCP, .vip = { 0xfd000100, 0, 0, 1 }, .dport = 80,
	     .src = { 0xfd000200, 0, 0, 1 }, .sport = 12345, .vip_num = 10, .known_flow = true) },
	{ .name = "xdp-lb-tcp-v6-ch", XDP_LB, .use_case = "tcp-v6-ch",
	  .help = "IPv6 TCP to a VIP without a table: ring lookup, IPv6 in IPv6",
	  LB(TX6, .proto = IPPROTO_TCP, .vip = { 0xfd000100, 0, 0, 2 }, .dport = 80,
	     .src = { 0xfd000200, 0, 0, 2 }, .sport = 54321, .vip_flags = LB_VIP_NO_LRU,
	     .vip_num = 12, .misses = LB_MISS_ALL) },
	{ .name = "xdp-lb-udp-v4-lru-hit", XDP_LB, .use_case = "udp-v4-lru-hit",
	  .help = "IPv4 UDP, its flow in the table (and its time renewed): IPIP",
	  LB(TX4, .proto = IPPROTO_UDP, .vip = { IP4(10, 10, 1, 1) }, .dport = 443,
	     .src = { IP4(10, 10, 3, 1) }, .sport = 11111, .vip_num = 2, .known_flow = true) },
	{ .name = "xdp-lb-udp-v6-lru-hit", XDP_LB, .use_case = "udp-v6-lru-hit",
	  .help = "IPv6 UDP, its flow in the table (and its time renewed): IPv6 in IPv6",
	  LB(TX6, .proto = IPPROTO_UDP, .vip = { 0xfd000100, 0, 0, 1 }, .dport = 443,
	     .src = { 0xfd000200, 0, 0, 3 }, .sport = 22222, .vip_num = 14, .known_flow = true) },
	{ .name = "xdp-lb-tcp-v4v6-lru-hit", XDP_LB, .use_case = "tcp-v4v6-lru-hit",
	  .help = "IPv4 TCP, its flow in the table on the IPv6 backend: IPv4 in IPv6",
	  LB(TX4IN6, .proto = IPPROTO_TCP, .vip = { IP4(10, 10, 1, 4) }, .dport = 80,
	     .src = { IP4(10, 10, 2, 4) }, .sport = 12347, .vip_num = 13, .known_flow = true) },
	{ .name = "xdp-lb-tcp-v4-lru-diverse", XDP_LB, .use_case = "tcp-v4-lru-diverse",
	  .help = "tcp-v4-lru-hit over 4096 sources: each new one a miss and an insert once",
	  LB(TX4, .proto = IPPROTO_TCP, .vip = { IP4(10, 10, 1, 1) }, .dport = 80,
	     .src = { IP4(10, 10, 2, 1) }, .sport = 12345, .known_flow = true, FLOWS_4K) },
	{ .name = "xdp-lb-tcp-v4-ch-diverse", XDP_LB, .use_case = "tcp-v4-ch-diverse",
	  .help = "tcp-v4-ch over 4096 sources",
	  LB(TX4, .proto = IPPROTO_TCP, .vip = { IP4(10, 10, 1, 2) }, .dport = 80,
	     .src = { IP4(10, 10, 2, 2) }, .sport = 54321, .vip_flags = LB_VIP_NO_LRU,
	     .vip_num = 1, .misses = LB_MISS_ALL, FLOWS_4K) },
	{ .name = "xdp-lb-tcp-v6-lru-diverse", XDP_LB, .use_case = "tcp-v6-lru-diverse",
	  .help = "tcp-v6-lru-hit over 4096 sources",
	  LB(TX6, .proto = IPPROTO_TCP, .vip = { 0xfd000100, 0, 0, 1 }, .dport = 80,
	     .src = { 0xfd000200, 0, 0, 1 }, .sport = 12345, .vip_num = 10, .known_flow = true,
	     FLOWS_4K) },
	{ .name = "xdp-lb-tcp-v6-ch-diverse", XDP_LB, .use_case = "tcp-v6-ch-diverse",
	  .help = "tcp-v6-ch over 4096 sources",
	  LB(TX6, .proto = IPPROTO_TCP, .vip = { 0xfd000100, 0, 0, 2 }, .dport = 80,
	     .src = { 0xfd000200, 0, 0, 2 }, .sport = 54321, .vip_flags = LB_VIP_NO_LRU,
	     .vip_num = 12, .misses = LB_MISS_ALL, FLOWS_4K) },
	{ .name = "xdp-lb-udp-v4-lru-diverse", XDP_LB, .use_case = "udp-v4-lru-diverse",
	  .help = "udp-v4-lru-hit over 4096 sources",
	  LB(TX4, .proto = IPPROTO_UDP, .vip = { IP4(10, 10, 1, 1) }, .dport = 443,
	     .src = { IP4(10, 10, 3, 1) }, .sport = 11111, .vip_num = 2, .known_flow = true,
	     FLOWS_4K) },
	{ .name = "xdp-lb-tcp-v4-lru-miss", XDP_LB, .use_case = "tcp-v4-lru-miss",
	  .help = "IPv4 TCP from 16M sources, new every batch: a miss, a ring lookup and an "
		  "insert (evicting) a packet",
	  LB(TX4, .proto = IPPROTO_TCP, .vip = { IP4(10, 10, 1, 1) }, .dport = 80,
	     .src = { IP4(10, 10, 2, 1) }, .sport = 12345, FLOWS_16M, .cold_lru = true,
	     .misses = LB_MISS_FIRST) },
	{ .name = "xdp-lb-udp-v4-lru-miss", XDP_LB, .use_case = "udp-v4-lru-miss",
	  .help = "tcp-v4-lru-miss for UDP",
	  LB(TX4, .proto = IPPROTO_UDP, .vip = { IP4(10, 10, 1, 1) }, .dport = 443,
	     .src = { IP4(10, 10, 3, 1) }, .sport = 11111, .vip_num = 2, FLOWS_16M,
	     .cold_lru = true, .misses = LB_MISS_FIRST) },
	{ .name = "xdp-lb-tcp-v4-lru-warmup", XDP_LB, .use_case = "tcp-v4-lru-warmup",
	  .help = "IPv4 TCP from 4096 sources new every batch of 6500: about half miss",
	  LB(TX4, .proto = IPPROTO_TCP, .vip = { IP4(10, 10, 1, 1) }, .dport = 80,
	     .src = { IP4(10, 10, 2, 1) }, .sport = 12345, FLOWS_4K, .cold_lru = true,
	     .misses = LB_MISS_FIRST),
	  .batch = 6500, .batch_auto = false },
	{ .name = "xdp-lb-tcp-v4-syn", XDP_LB, .use_case = "tcp-v4-syn",
	  .help = "IPv4 TCP SYN: no table lookup, a ring lookup and an insert",
	  LB(TX4, .proto = IPPROTO_TCP, .vip = { IP4(10, 10, 1, 1) }, .dport = 80,
	     .src = { IP4(10, 10, 8, 2) }, .sport = 60001, .syn = true, .misses = LB_MISS_ALL) },
	{ .name = "xdp-lb-tcp-v4-rst-miss", XDP_LB, .use_case = "tcp-v4-rst-miss",
	  .help = "IPv4 TCP RST from 16M sources: a miss and a ring lookup, no insert",
	  LB(TX4, .proto = IPPROTO_TCP, .vip = { IP4(10, 10, 1, 1) }, .dport = 80,
	     .src = { IP4(10, 10, 8, 1) }, .sport = 60000, FLOWS_16M, .cold_lru = true,
	     .rst = true, .misses = LB_MISS_ALL) },
	{ .name = "xdp-lb-pass-v4-no-vip", XDP_LB, .use_case = "pass-v4-no-vip",
	  .help = "IPv4 TCP to an address that is no VIP: XDP_PASS after the VIP lookup",
	  LB(.verdict = XDP_PASS, .proto = IPPROTO_TCP, .vip = { IP4(10, 10, 9, 9) },
	     .dport = 80, .src = { IP4(10, 10, 4, 1) }, .sport = 33333) },
	{ .name = "xdp-lb-pass-v6-no-vip", XDP_LB, .use_case = "pass-v6-no-vip",
	  .help = "pass-v4-no-vip for IPv6",
	  LB(.verdict = XDP_PASS, .v6 = true, .proto = IPPROTO_TCP,
	     .vip = { 0xfd009900, 0, 0, 1 }, .dport = 80, .src = { 0xfd000400, 0, 0, 1 },
	     .sport = 33333) },
	{ .name = "xdp-lb-pass-v4-icmp", XDP_LB, .use_case = "pass-v4-icmp",
	  .help = "IPv4 ICMP: neither TCP nor UDP, XDP_PASS",
	  LB(.verdict = XDP_PASS, .proto = IPPROTO_ICMP, .vip = { IP4(10, 10, 1, 1) },
	     .src = { IP4(10, 10, 6, 1) }) },
	{ .name = "xdp-lb-pass-non-ip", XDP_LB, .use_case = "pass-non-ip",
	  .help = "an ARP frame: XDP_PASS on the Ethernet type",
	  LB(.verdict = XDP_PASS, .eth_proto = 0x0806) },
	{ .name = "xdp-lb-drop-v4-frag", XDP_LB, .use_case = "drop-v4-frag",
	  .help = "an IPv4 fragment: XDP_DROP",
	  LB(.verdict = XDP_DROP, .proto = IPPROTO_TCP, .vip = { IP4(10, 10, 1, 1) },
	     .dport = 80, .src = { IP4(10, 10, 5, 1) }, .sport = 44444, .frag = true) },
	{ .name = "xdp-lb-drop-v4-options", XDP_LB, .use_case = "drop-v4-options",
	  .help = "IPv4 with options (ihl 6): XDP_DROP",
	  LB(.verdict = XDP_DROP, .proto = IPPROTO_TCP, .vip = { IP4(10, 10, 1, 1) },
	     .dport = 80, .src = { IP4(10, 10, 7, 1) }, .sport = 55555, .ip_options = true) },
	{ .name = "xdp-lb-drop-v6-frag", XDP_LB, .use_case = "drop-v6-frag",
	  .help = "IPv6 with a fragment header: XDP_DROP",
	  LB(.verdict = XDP_DROP, .v6 = true, .proto = IPPROTO_TCP,
	     .vip = { 0xfd000100, 0, 0, 1 }, .dport = 80, .src = { 0xfd000500, 0, 0, 1 },
	     .sport = 44444, .frag = true) },
	{ .name = "lpm-trie-noop", LPM, .op = MB_OP_NOOP, .walk = &walk_shared,
	  .kernel = &kernel_lpm_trie,
	  .no_prefill = true,
	  .help = "the LPM producer loop alone",
	  .workload = "the loop alone, empty trie" },
	{ .name = "lpm-trie-baseline", LPM, .op = MB_OP_BASELINE, .walk = &walk_shared,
	  .kernel = &kernel_lpm_trie,
	  .no_prefill = true,
	  .help = "fetching the precomputed trie keys, no map operation",
	  .workload = "read each key's address word, no map operation, empty trie" },
	{ .name = "lpm-trie-lookup", LPM, .op = MB_OP_LOOKUP, .walk = &walk_shared,
	  .kernel = &kernel_lpm_trie,
	  .help = "lookup of the stored prefixes in a filled trie",
	  .workload = "trie of keys {plen, u32 id} for ids [0,nr); lookup of them in id order" },
	{ .name = "lpm-trie-update", LPM, .op = MB_OP_UPDATE, .walk = &walk_shared,
	  .kernel = &kernel_lpm_trie,
	  .help = "update of prefixes present in the trie (BPF_EXIST)",
	  .workload = "filled trie; BPF_EXIST update in id order" },
	{ .name = "lpm-trie-insert", LPM, .op = MB_OP_FILL_UP, .walk = &walk_sliced,
	  .figure = FIG_KERNEL, .single_producer = true, .no_prefill = true,
	  .kernel = &kernel_lpm_trie_resets,
	  .help = "insert into an empty trie until it holds nr-entries; emptying it is not timed",
	  .workload = "empty trie; BPF_NOEXIST insert ids 0..nr-1 in order, a batch a run; at nr "
		      "the trie is emptied untimed" },
	{ .name = "lpm-trie-delete", LPM, .op = MB_OP_DRAIN, .walk = &walk_sliced,
	  .figure = FIG_KERNEL, .single_producer = true, .kernel = &kernel_lpm_trie_resets,
	  .help = "delete from a full trie until it is empty; the refill is not timed",
	  .workload = "filled trie; delete ids 0..nr-1 in order, a batch a run; when empty it is "
		      "refilled untimed" },
	{ .name = "lpm-trie-free", LPM, FREE, .target = &lpm_family,
	  .kernel = &kernel_lpm_trie_resets,
	  .help = "time the kernel takes to free a trie holding nr-entries prefixes",
	  .workload = "create, fill from user space and close tries; time bpf_map_free_deferred" },
};
const int nr_benches = sizeof(benches) / sizeof(benches[0]);

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
