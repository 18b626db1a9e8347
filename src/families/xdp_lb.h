/* SPDX-License-Identifier: GPL-2.0 */
/* The xdp-lb family: the selftests bench's XDP load balancer (linux 7.3)
 * on one scenario's packet. A scenario is a row's data (src/peers/xdp_lb.c). */
#ifndef MAPBENCH_XDP_LB_H
#define MAPBENCH_XDP_LB_H
#include <stdbool.h>
#include <netinet/in.h>
#include <linux/bpf.h>
#include <linux/types.h>
#include "bench.h"

/* The table misses a scenario's validation batch must count. */
enum lb_misses { LB_MISS_NONE, LB_MISS_ALL, LB_MISS_FIRST };

/* One packet and the state it meets. Addresses and ports in host order,
 * an IPv4 address in word 0. */
struct lb_scenario {
	int verdict;		/* XDP_TX, XDP_PASS or XDP_DROP: every packet's */
	__u16 eth_proto;	/* 0: IPv4, or IPv6 for v6 */
	bool v6;
	bool tunnel6;		/* leaves in an IPv6 tunnel (v6, or a v4 flow whose
				 * table entry names the IPv6 backend) */
	__u32 src[4], vip[4];
	__u16 sport, dport;
	__u8 proto;
	__u32 vip_flags;	/* LB_VIP_NO_LRU: the ring for every packet */
	__u32 vip_num;
	bool known_flow;	/* in every CPU's table before the run */
	__u32 flow_mask;	/* packets after a batch's first: random sources, masked */
	bool cold_lru;		/* each batch's sources new (xor a per-batch constant) */
	bool syn, rst, frag, ip_options;
	enum lb_misses misses;
};

extern const struct family xdp_lb_family;

#endif
