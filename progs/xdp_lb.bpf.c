// SPDX-License-Identifier: GPL-2.0
/* xdp-lb: the selftests bench's XDP load balancer (linux 7.3), a Katran-like
 * path over hash, LRU and array maps, run by BPF_PROG_TEST_RUN on one packet
 * a scenario builds (src/families/xdp_lb.c). A packet to a known VIP finds its flow
 * in this CPU's connection table (an LRU hash from an array of maps), or
 * else a backend on the VIP's consistent-hash ring (and the flow goes into
 * the table), is counted, then wrapped in an IPIP or IPv6 tunnel to the
 * backend: XDP_TX. Others pass or drop early.
 *
 * A run is one batch: the packet handled batch_iters times under may_goto,
 * the tunnel header taken off after each so the next starts from the same
 * bytes, timed around the whole loop; then once more, untimed, for the
 * run's return value. Scenarios vary the source address between packets
 * (flow_mask) or make each batch's flows new ones (cold_lru). */
#include "common.bpf.h"
#include <bpf/bpf_endian.h>
#include "xdp_lb_shared.h"

char LICENSE[] SEC("license") = "GPL";

/* The headers as they are on the wire, not vmlinux.h's: its types are the
 * kernel's own, relocated at load (CO-RE), and each access to one costs
 * instructions a fixed layout does not. The Ethernet header is packed, as
 * the kernel's uapi one, so its type is read a byte at a time as there. */
struct wire_eth {
	__u8 dst[6];
	__u8 src[6];
	__u16 proto;
} __attribute__((packed));

struct wire_ip {
	__u8 ihl : 4, version : 4;
	__u8 tos;
	__u16 tot_len;
	__u16 id;
	__u16 frag_off;
	__u8 ttl;
	__u8 protocol;
	__u16 check;
	__u32 saddr;
	__u32 daddr;
};

struct wire_ip6 {
	__u8 priority : 4, version : 4;
	__u8 flow_lbl[3];
	__u16 payload_len;
	__u8 nexthdr;
	__u8 hop_limit;
	__u32 saddr[4];
	__u32 daddr[4];
};

struct wire_ports {	/* where TCP and UDP both have them */
	__u16 source;
	__u16 dest;
};

struct wire_tcp {
	__u16 source;
	__u16 dest;
	__u32 seq;
	__u32 ack_seq;
	__u16 res1 : 4, doff : 4, fin : 1, syn : 1, rst : 1, psh : 1, ack : 1, urg : 1, ece : 1,
	      cwr : 1;
	__u16 window;
	__u16 check;
	__u16 urg_ptr;
};

#define ETH_P_IP	0x0800
#define ETH_P_IPV6	0x86DD
#define IPPROTO_FRAGMENT 44
#define IP_FRAG_BITS	0x3FFF		/* more-fragments and the offset */
#define NS_PER_SEC	1000000000ULL
#define FLOOD_RATE	100000000	/* new flows a second; no scenario reaches it */
#define UDP_FLOW_TTL	(30 * NS_PER_SEC)
#define TUNNEL_V4_NET	4268		/* 172.16.0.0/12 as it is in memory */
#define GOLDEN32	2654435761U

/* The packets of a run; user space sets it (--batch, or auto). */
volatile __u32 batch_iters;
/* Source addresses drawn for each packet after the first, masked (0: the
 * scenario's one flow). */
volatile __u32 flow_mask;
/* Each batch's source addresses made new by a per-batch constant. */
volatile __u32 cold_lru;
__u32 batch_gen;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, struct lb_vip);
	__type(value, struct lb_vip_meta);
} vip_map SEC(".maps");

struct flow_table {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, LB_FLOWS);
	__type(key, struct lb_flow);
	__type(value, struct lb_flow_entry);
} lru_inner SEC(".maps");

/* Each CPU's connection table (user space makes one a possible CPU). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, LB_CPUS);
	__type(key, __u32);
	__type(value, __u32);
	__array(values, struct flow_table);
} lru_mapping SEC(".maps");

/* Every VIP's ring of backend numbers, one after the other. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, LB_VIPS * LB_RING);
	__type(key, __u32);
	__type(value, __u32);
} ch_rings SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, LB_BACKENDS);
	__type(key, __u32);
	__type(value, struct lb_backend);
} reals SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, LB_NR_STATS);
	__type(key, __u32);
	__type(value, struct lb_count);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, LB_BACKENDS);
	__type(key, __u32);
	__type(value, struct lb_count);
} reals_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lb_ctl);
} ctl_array SEC(".maps");

/* The VIP whose table misses are counted per backend. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lb_vip);
} vip_miss_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, LB_BACKENDS);
	__type(key, __u32);
	__type(value, __u32);
} lru_miss_stats SEC(".maps");

/* Bob Jenkins' lookup3 hash of 32-bit words (the kernel's jhash2). */
static __always_inline __u32 rotl(__u32 x, int k)
{
	return (x << k) | (x >> (32 - k));
}

#define JENKINS_MIX(a, b, c) do {					\
	a -= c; a ^= rotl(c, 4); c += b;				\
	b -= a; b ^= rotl(a, 6); a += c;				\
	c -= b; c ^= rotl(b, 8); b += a;				\
	a -= c; a ^= rotl(c, 16); c += b;				\
	b -= a; b ^= rotl(a, 19); a += c;				\
	c -= b; c ^= rotl(b, 4); b += a;				\
} while (0)

#define JENKINS_FINAL(a, b, c) do {					\
	c ^= b; c -= rotl(b, 14);					\
	a ^= c; a -= rotl(c, 11);					\
	b ^= a; b -= rotl(a, 25);					\
	c ^= b; c -= rotl(b, 16);					\
	a ^= c; a -= rotl(c, 4);					\
	b ^= a; b -= rotl(a, 14);					\
	c ^= b; c -= rotl(b, 24);					\
} while (0)

#define JENKINS_SEED 0xdeadbeef

/* Two words and a seed (the kernel's jhash_2words). */
static __always_inline __u32 hash_2(__u32 x, __u32 y, __u32 seed)
{
	__u32 a = JENKINS_SEED + 8 + seed, b = a, c = a;

	a += x;
	b += y;
	JENKINS_FINAL(a, b, c);
	return c;
}

/* Four words and a seed (jhash2 of four). */
static __always_inline __u32 hash_4(const __u32 *w, __u32 seed)
{
	__u32 a = JENKINS_SEED + 16 + seed, b = a, c = a;

	a += w[0];
	b += w[1];
	c += w[2];
	JENKINS_MIX(a, b, c);
	a += w[3];
	JENKINS_FINAL(a, b, c);
	return c;
}

/* The tunnel's source: the flow's source port and address folded into a
 * 172.16/12 address (v4), or into the last word of 100::/64 (v6). */
static __always_inline __u32 tunnel_src4(__u16 sport, __u32 src)
{
	__u32 mixed = ((__u32)bpf_htons(sport) << 16) ^ src;

	return (mixed & 0xFFFF0000) | TUNNEL_V4_NET;
}

static __always_inline void tunnel_src6(__u16 sport, __u32 src, __u32 *out)
{
	out[0] = 1;
	out[1] = 0;
	out[2] = 0;
	out[3] = src ^ sport;
}

static __always_inline void ip_checksum(struct wire_ip *ip)
{
	__u16 *w = (__u16 *)ip;
	__u32 sum = 0;

#pragma unroll
	for (int i = 0; i < (int)sizeof(*ip) / 2; i++)
		sum += w[i];
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	ip->check = ~sum;
}

/* Room for an outer header in front of the packet: the new Ethernet header
 * takes its source from the old one's destination and goes to the router.
 * The old header is read from where it now sits, past the new room, so
 * before anything is written over it. */
static __always_inline void *push_outer(struct xdp_md *xdp, int len, __u16 proto,
					const __u8 *router)
{
	struct wire_eth *eth, *old;
	void *data, *end;

	if (bpf_xdp_adjust_head(xdp, -len))
		return NULL;
	data = (void *)(long)xdp->data;
	end = (void *)(long)xdp->data_end;
	eth = data;
	old = data + len;
	if ((void *)(eth + 1) > end || (void *)(old + 1) > end || data + sizeof(*eth) + len > end)
		return NULL;
	__builtin_memcpy(eth->src, old->dst, sizeof(eth->src));
	__builtin_memcpy(eth->dst, router, sizeof(eth->dst));
	eth->proto = bpf_htons(proto);
	return eth + 1;
}

static __always_inline int tunnel_v4(struct xdp_md *xdp, __u32 src, __u32 dst, __u16 len,
				     const __u8 *router)
{
	struct wire_ip *ip = push_outer(xdp, sizeof(*ip), ETH_P_IP, router);

	if (!ip)
		return -1;
	__builtin_memset(ip, 0, sizeof(*ip));
	ip->version = 4;
	ip->ihl = sizeof(*ip) / 4;
	ip->ttl = 64;
	ip->protocol = IPPROTO_IPIP;
	ip->tot_len = bpf_htons(len + sizeof(*ip));
	ip->saddr = src;
	ip->daddr = dst;
	ip_checksum(ip);
	return 0;
}

static __always_inline int tunnel_v6(struct xdp_md *xdp, const __u32 *src, const __u32 *dst,
				     __u8 inner, __u16 len, const __u8 *router)
{
	struct wire_ip6 *ip6 = push_outer(xdp, sizeof(*ip6), ETH_P_IPV6, router);

	if (!ip6)
		return -1;
	__builtin_memset(ip6, 0, sizeof(*ip6));
	ip6->version = 6;
	ip6->nexthdr = inner;
	ip6->payload_len = bpf_htons(len);
	ip6->hop_limit = 64;
	__builtin_memcpy(ip6->saddr, src, sizeof(ip6->saddr));
	__builtin_memcpy(ip6->daddr, dst, sizeof(ip6->daddr));
	return 0;
}

static __always_inline void count(void *map, __u32 slot, __u16 bytes)
{
	struct lb_count *c = bpf_map_lookup_elem(map, &slot);

	if (c) {
		c->a++;
		c->b += bytes;
	}
}

static __always_inline void count_verdict(int verdict)
{
	__u32 slot = verdict == XDP_TX ? LB_ST_TX : verdict == XDP_PASS ? LB_ST_PASS : LB_ST_DROP;
	struct lb_count *c = bpf_map_lookup_elem(&stats, &slot);

	if (c)
		c->a++;
}

/* More new flows this second than FLOOD_RATE: the table takes no more. */
static __always_inline bool flooded(void)
{
	__u32 slot = LB_ST_NEW_FLOWS;
	struct lb_count *c = bpf_map_lookup_elem(&stats, &slot);
	__u64 now;

	if (!c)
		return true;
	now = bpf_ktime_get_ns();
	if (now - c->b > NS_PER_SEC) {
		c->a = 1;
		c->b = now;
		return false;
	}
	return ++c->a > FLOOD_RATE;
}

/* The flow's backend from the table, or NULL (a UDP flow idle too long
 * misses). */
static __always_inline struct lb_backend *table_backend(void *table, struct lb_flow *flow,
							__u32 *backend)
{
	struct lb_flow_entry *e = bpf_map_lookup_elem(table, flow);
	__u32 slot;

	if (!e)
		return NULL;
	if (flow->proto == IPPROTO_UDP) {
		__u64 now = bpf_ktime_get_ns();

		if (now - e->seen_ns > UDP_FLOW_TTL)
			return NULL;
		e->seen_ns = now;
	}
	slot = e->backend;
	*backend = slot;
	return bpf_map_lookup_elem(&reals, &slot);
}

/* The flow's backend from its VIP's ring, hashed on source address and
 * ports; the flow goes into the table unless its VIP bypasses it, the
 * table is flooded, or the packet is a RST. */
static __always_inline struct lb_backend *ring_backend(struct lb_flow *flow,
						       struct lb_vip_meta *vip, bool v6,
						       void *table, bool rst, __u32 *backend)
{
	bool flood = flooded();
	struct lb_backend *b;
	__u32 h, slot, *num;

	if (v6)
		h = hash_2(hash_4(flow->src6, LB_VIPS), flow->ports, LB_RING);
	else
		h = hash_2(flow->src, flow->ports, LB_RING);
	slot = LB_RING * vip->num + h % LB_RING;
	num = bpf_map_lookup_elem(&ch_rings, &slot);
	if (!num)
		return NULL;
	slot = *num;
	b = bpf_map_lookup_elem(&reals, &slot);
	if (!b)
		return NULL;
	if (!(vip->flags & LB_VIP_NO_LRU) && !flood && !rst) {
		struct lb_flow_entry e = { .backend = slot };

		if (flow->proto == IPPROTO_UDP)
			e.seen_ns = bpf_ktime_get_ns();
		bpf_map_update_elem(table, flow, &e, BPF_ANY);
	}
	*backend = slot;
	return b;
}

/* A table miss to the watched VIP, counted for its backend. */
static __always_inline void count_watched_miss(const struct lb_vip *vip, bool v6, __u32 backend)
{
	__u32 zero = 0, *n;
	struct lb_vip *w = bpf_map_lookup_elem(&vip_miss_stats, &zero);

	if (!w)
		return;
	if (v6 ? w->addr6[0] != vip->addr6[0] || w->addr6[1] != vip->addr6[1] ||
		 w->addr6[2] != vip->addr6[2] || w->addr6[3] != vip->addr6[3] :
		 w->addr != vip->addr)
		return;
	if (w->port != vip->port || w->proto != vip->proto)
		return;
	n = bpf_map_lookup_elem(&lru_miss_stats, &backend);
	if (n)
		(*n)++;
}

/* One packet through the balancer: its verdict. A call of its own, as the
 * kernel bench's is. */
static __noinline int balance(struct xdp_md *xdp)
{
	void *data = (void *)(long)xdp->data;
	void *end = (void *)(long)xdp->data_end;
	struct wire_eth *eth = data;
	struct lb_flow flow = {};
	struct lb_vip vip = {};
	struct lb_backend *dst = NULL;
	struct lb_vip_meta *meta;
	struct lb_count *vip_pkts;
	struct lb_ctl *ctl;
	struct wire_ports *l4;
	__u32 backend = 0, tsrc[4], slot;
	bool v6, syn = false, rst = false;
	int verdict = XDP_DROP;
	void *table;
	__u16 len;
	__u8 proto;

	if ((void *)(eth + 1) > end)
		goto out;
	if (eth->proto == bpf_htons(ETH_P_IPV6)) {
		v6 = true;
	} else if (eth->proto == bpf_htons(ETH_P_IP)) {
		v6 = false;
	} else {
		verdict = XDP_PASS;
		goto out;
	}

	if (v6) {
		struct wire_ip6 *ip6 = (void *)(eth + 1);

		if ((void *)(ip6 + 1) > end)
			goto out;
		if (ip6->nexthdr == IPPROTO_FRAGMENT)
			goto out;
		len = sizeof(*ip6) + bpf_ntohs(ip6->payload_len);
		proto = ip6->nexthdr;
		__builtin_memcpy(flow.src6, ip6->saddr, sizeof(flow.src6));
		__builtin_memcpy(flow.dst6, ip6->daddr, sizeof(flow.dst6));
		__builtin_memcpy(vip.addr6, ip6->daddr, sizeof(vip.addr6));
		l4 = (void *)(ip6 + 1);
	} else {
		struct wire_ip *ip = (void *)(eth + 1);

		if ((void *)(ip + 1) > end)
			goto out;
		/* options and fragments are dropped */
		if (ip->ihl != 5)
			goto out;
		if (ip->frag_off & bpf_htons(IP_FRAG_BITS))
			goto out;
		len = bpf_ntohs(ip->tot_len);
		proto = ip->protocol;
		flow.src = ip->saddr;
		flow.dst = ip->daddr;
		vip.addr = ip->daddr;
		l4 = (void *)(ip + 1);
	}

	if (proto != IPPROTO_TCP && proto != IPPROTO_UDP) {
		verdict = XDP_PASS;
		goto out;
	}
	/* the ports are where TCP and UDP both have them */
	if ((void *)(l4 + 1) > end)
		goto out;
	flow.port[0] = l4->source;
	flow.port[1] = l4->dest;
	if (proto == IPPROTO_TCP) {
		struct wire_tcp *tcp = (void *)l4;

		if ((void *)(tcp + 1) > end)
			goto out;
		syn = tcp->syn;
		rst = tcp->rst;
	}
	flow.proto = proto;
	vip.port = flow.port[1];
	vip.proto = proto;

	meta = bpf_map_lookup_elem(&vip_map, &vip);
	if (!meta) {
		verdict = XDP_PASS;
		goto out;
	}
	slot = LB_ST_VIP_PKTS;
	vip_pkts = bpf_map_lookup_elem(&stats, &slot);
	if (!vip_pkts)
		goto out;
	vip_pkts->a++;

	slot = bpf_get_smp_processor_id();
	table = bpf_map_lookup_elem(&lru_mapping, &slot);
	if (!table)
		goto out;
	/* a SYN opens a new flow: the table is not asked */
	if (!(meta->flags & LB_VIP_NO_LRU) && !syn)
		dst = table_backend(table, &flow, &backend);
	if (!dst) {
		if (proto == IPPROTO_TCP) {
			struct lb_count *miss;

			slot = LB_ST_TCP_MISSES;
			miss = bpf_map_lookup_elem(&stats, &slot);
			if (miss)
				miss->a++;
		}
		dst = ring_backend(&flow, meta, v6, table, rst, &backend);
		if (!dst)
			goto out;
		count_watched_miss(&vip, v6, backend);
		vip_pkts->b++;
	}

	slot = 0;
	ctl = bpf_map_lookup_elem(&ctl_array, &slot);
	if (!ctl)
		goto out;
	count(&stats, meta->num, len);
	count(&reals_stats, backend, len);

	if (v6) {
		tunnel_src6(flow.port[0], flow.src6[0], tsrc);
		if (tunnel_v6(xdp, tsrc, dst->addr6, IPPROTO_IPV6, len, ctl->mac))
			goto out;
	} else if (dst->flags & LB_BACKEND_V6) {
		tunnel_src6(flow.port[0], flow.src, tsrc);
		if (tunnel_v6(xdp, tsrc, dst->addr6, IPPROTO_IPIP, len, ctl->mac))
			goto out;
	} else {
		if (tunnel_v4(xdp, tunnel_src4(flow.port[0], flow.src), dst->addr, len, ctl->mac))
			goto out;
	}
	verdict = XDP_TX;
out:
	count_verdict(verdict);
	return verdict;
}

/* Takes the tunnel header off again and puts back the packet's own
 * Ethernet header: the next packet of the batch is the scenario's. */
static __always_inline int untunnel(struct xdp_md *xdp, const struct wire_eth *orig)
{
	struct wire_eth *eth = (void *)(long)xdp->data;
	void *end = (void *)(long)xdp->data_end;
	int outer;

	if ((void *)(eth + 1) > end)
		return -1;
	outer = eth->proto == bpf_htons(ETH_P_IPV6) ? sizeof(struct wire_ip6) :
							 sizeof(struct wire_ip);
	if (bpf_xdp_adjust_head(xdp, outer))
		return -1;
	eth = (void *)(long)xdp->data;
	end = (void *)(long)xdp->data_end;
	if ((void *)(eth + 1) > end)
		return -1;
	__builtin_memcpy(eth, orig, sizeof(*eth));
	return 0;
}

/* The source address at src_at: the next xorshift32 draw, masked. */
static __always_inline void draw_src(struct xdp_md *xdp, int src_at, __u32 *state)
{
	void *end = (void *)(long)xdp->data_end;
	__u32 *src = (void *)(long)xdp->data + src_at;

	*state ^= *state << 13;
	*state ^= *state >> 17;
	*state ^= *state << 5;
	if ((void *)(src + 1) <= end)
		*src = *state & flow_mask;
}

/* cold_lru: the source address at src_at xor this batch's constant (the
 * same call makes it and undoes it). */
static __always_inline void flip_src(struct xdp_md *xdp, int src_at, __u32 key)
{
	void *end = (void *)(long)xdp->data_end;
	__u32 *src = (void *)(long)xdp->data + src_at;

	if ((void *)(src + 1) <= end)
		*src ^= key;
}

/* The producer running this batch, from the 4 bytes of metadata in front
 * of the packet, which are then given back: with no metadata, moving the
 * head moves nothing else, as in the kernel bench's runs. */
static __always_inline __u32 producer_of(struct xdp_md *xdp)
{
	__u32 *meta = (void *)(long)xdp->data_meta;
	__u32 id;

	if ((void *)(meta + 1) > (void *)(long)xdp->data)
		return MAX_PRODUCERS;
	id = *meta;
	if (bpf_xdp_adjust_meta(xdp, sizeof(*meta)))
		return MAX_PRODUCERS;
	return id;
}

SEC("xdp") int xdp_lb(struct xdp_md *xdp)
{
	__u32 id = producer_of(xdp), state = 0, key = 0, i;
	void *data = (void *)(long)xdp->data;
	void *end = (void *)(long)xdp->data_end;
	struct wire_eth *eth = data, orig;
	struct prod_counters *c;
	int src_at, verdict;
	__u64 t0, ns;

	if (id >= MAX_PRODUCERS || (void *)(eth + 1) > end)
		return XDP_DROP;
	c = &cnt[id];
	__builtin_memcpy(&orig, eth, sizeof(orig));
	src_at = sizeof(*eth) + (orig.proto == bpf_htons(ETH_P_IPV6) ?
				 offsetof(struct wire_ip6, saddr) : offsetof(struct wire_ip, saddr));
	if (flow_mask)
		state = bpf_get_prandom_u32() | 1;
	if (cold_lru) {
		batch_gen++;
		key = (batch_gen + bpf_get_smp_processor_id()) * GOLDEN32;
		flip_src(xdp, src_at, key);
	}

	t0 = bpf_ktime_get_ns();
	for (i = 0; i < batch_iters && can_loop; i++) {
		verdict = balance(xdp);
		if (verdict == XDP_TX) {
			if (untunnel(xdp, &orig))
				return XDP_DROP;
			if (state)
				draw_src(xdp, src_at, &state);
		}
		if (cold_lru)
			flip_src(xdp, src_at, key);
	}
	ns = bpf_ktime_get_ns() - t0;
	record_batch(id, c, i, ns);
	account(c, i, ns, 0, 0);
	return balance(xdp);
}
