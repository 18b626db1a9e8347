// SPDX-License-Identifier: GPL-2.0
/* 7.3's xdp-lb (benchs/bench_xdp_lb.c): its load balancer on one scenario's
 * packet, a row per scenario (--scenario picks it, --list-scenarios lists
 * them); its line is the timing library's (bpf_timing.c). */
#include "peer.h"
#include "rows.h"
#include "xdp_lb.h"
#include "xdp_lb_shared.h"

/* 7.3's xdp-lb: its load balancer on one scenario's packet (--scenario),
 * BPF_PROG_TEST_RUN, a batch of packets a run under may_goto, sized to
 * 10 ms in the warmup; the map recorded is a connection table. */
#define XDP_LB .family = &xdp_lb_family, .group = "xdp-lb", .kernel = &kernel_bpf_timing, \
	.kernel_source = SELFTESTS_BENCH("bench_xdp_lb.c"), \
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

static const struct bench xdp_lb_rows[] = {
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
};
BENCH_ROWS(xdp_lb_rows, 5);
