/* SPDX-License-Identifier: GPL-2.0 */
/* The load balancer of xdp-lb (progs/xdp_lb.bpf.c): its maps' keys and
 * values and their sizes, shared with user space (src/families/xdp_lb.c). They are
 * those of the selftests bench's xdp-lb (linux 7.3), byte for byte: the
 * sizes are what its hash and LRU maps hash and copy. */
#ifndef MAPBENCH_XDP_LB_SHARED_H
#define MAPBENCH_XDP_LB_SHARED_H

/* vip_meta.flags and backend.flags */
#define LB_VIP_NO_LRU	2	/* a VIP whose flows always take the ring (no table) */
#define LB_BACKEND_V6	1	/* a backend reached through an IPv6 tunnel */

#define LB_VIPS		16
#define LB_RING		65537	/* consistent-hash slots a VIP */
#define LB_BACKENDS	512
#define LB_FLOWS	100000	/* each CPU's connection table (LRU) */
#define LB_CPUS		256	/* the array of per-CPU tables */

/* stats[]: one per VIP, then these */
enum lb_stat {
	LB_ST_VIP_PKTS = LB_VIPS,	/* a: packets to a VIP, b: of them, table misses */
	LB_ST_TX,
	LB_ST_PASS,
	LB_ST_DROP,
	LB_ST_NEW_FLOWS,		/* a: new flows this second, b: when it began (ns) */
	LB_ST_TCP_MISSES,		/* a: TCP packets the table missed */
	LB_NR_STATS,
};

/* The connection table's key: addresses (v4 in the first word), ports as
 * on the wire, protocol. */
struct lb_flow {
	union {
		__u32 src;
		__u32 src6[4];
	};
	union {
		__u32 dst;
		__u32 dst6[4];
	};
	union {
		__u32 ports;
		__u16 port[2];	/* source, destination */
	};
	__u8 proto;
	__u8 pad[3];
};

struct lb_vip {
	union {
		__u32 addr;
		__u32 addr6[4];
	};
	__u16 port;
	__u8 proto;
	__u8 pad;
};

struct lb_vip_meta {
	__u32 flags;
	__u32 num;	/* its stats slot and its ring */
};

/* A flow's entry: its backend, and when a UDP flow was last seen. */
struct lb_flow_entry {
	__u32 backend;
	__u64 seen_ns;
};

struct lb_backend {
	__u32 addr;
	__u32 addr6[4];
	__u8 flags;
};

struct lb_count {
	__u64 a;
	__u64 b;
};

/* The balancer's own MAC (ctl_array). */
struct lb_ctl {
	__u8 mac[6];
	__u8 pad[2];
};

#endif
