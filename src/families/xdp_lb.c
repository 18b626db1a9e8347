// SPDX-License-Identifier: GPL-2.0
/* The xdp-lb family: the selftests bench's XDP load balancer (linux 7.3,
 * progs/xdp_lb.bpf.c) run by BPF_PROG_TEST_RUN on the packet of the row's
 * scenario, a batch of packets a run, each batch's in-kernel time
 * recorded. Set-up is the kernel bench's: one VIP (for the scenarios that
 * reach a backend), every ring slot on backend 1, backends 1 (IPv4, with
 * an IPv6 address too) and 2 (IPv6), an empty connection table for each
 * possible CPU, and the scenario's flow in every one where it is known.
 * Before the run one batch is checked: every packet's verdict, the packet
 * that leaves, and the counters (table misses included). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "log.h"
#include "maps.h"
#include "probe.h"
#include "timed.h"
#include "xdp_lb.h"
#include "xdp_lb.skel.h"
#include "xdp_lb_shared.h"

#define BACKEND_V4	1
#define BACKEND_V6	2
#define PKT_MAX		256
#define META		4	/* the producer id in front of the packet */
#define FRAG_MORE	0x2000	/* IPv4's more-fragments bit */

static const __u8 lb_mac[ETH_ALEN] = { 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff };
static const __u8 client_mac[ETH_ALEN] = { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66 };
static const __u8 router_mac[ETH_ALEN] = { 0xde, 0xad, 0xbe, 0xef, 0x00, 0x01 };
static const __u32 tunnel_dst4 = 0xc0a80102;		/* 192.168.1.2 */
static const __u32 tunnel_dst6[4] = { 0xfd000000, 0, 0, 2 };	/* fd00::2 */
static const char payload[16] = "bench___payload!";

struct xdp_lb_state {
	struct timed_prog timed;	/* first: timed.h's functions read it */
	struct xdp_lb_bpf *skel;
	int tables[LB_CPUS];		/* the per-CPU connection tables */
	int nr_tables;
	__u8 pkt[PKT_MAX];		/* the scenario's packet */
	__u32 len;
};

static void to_net(__u32 *dst, const __u32 *src, int words)
{
	for (int i = 0; i < words; i++)
		dst[i] = htonl(src[i]);
}

static __u16 ip_sum(const void *hdr, int len)
{
	const __u16 *w = hdr;
	__u32 sum = 0;

	for (int i = 0; i < len / 2; i++)
		sum += w[i];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum;
}

static void put(__u8 *pkt, __u32 *at, const void *what, size_t len)
{
	memcpy(pkt + *at, what, len);
	*at += len;
}

/* TCP (doff 5, window 8192) or UDP (16 bytes of payload) ports, or nothing. */
static void put_l4(const struct lb_scenario *sc, __u8 *pkt, __u32 *at)
{
	if (sc->proto == IPPROTO_TCP) {
		struct tcphdr t = { .source = htons(sc->sport), .dest = htons(sc->dport),
				    .doff = 5, .syn = sc->syn, .rst = sc->rst,
				    .window = htons(8192) };

		put(pkt, at, &t, sizeof(t));
	} else if (sc->proto == IPPROTO_UDP) {
		struct udphdr u = { .source = htons(sc->sport), .dest = htons(sc->dport),
				    .len = htons(sizeof(u) + sizeof(payload)) };

		put(pkt, at, &u, sizeof(u));
	}
}

/* The scenario's packet from the client to the balancer; its length. */
static __u32 build_packet(const struct lb_scenario *sc, __u8 *pkt)
{
	__u16 proto = sc->eth_proto ? sc->eth_proto : sc->v6 ? ETH_P_IPV6 : ETH_P_IP;
	struct ethhdr eth = { .h_proto = htons(proto) };
	__u32 at = 0, ip_at;

	memcpy(eth.h_dest, lb_mac, ETH_ALEN);
	memcpy(eth.h_source, client_mac, ETH_ALEN);
	put(pkt, &at, &eth, sizeof(eth));
	ip_at = at;
	if (proto == ETH_P_IPV6) {
		struct ipv6hdr ip6 = { .version = 6, .hop_limit = 64,
				       .nexthdr = sc->frag ? IPPROTO_FRAGMENT : sc->proto };
		__u8 frag[8] = { sc->proto };	/* a fragment header: next header, zeros */

		to_net((__u32 *)&ip6.saddr, sc->src, 4);
		to_net((__u32 *)&ip6.daddr, sc->vip, 4);
		at += sizeof(ip6);
		if (sc->frag)
			put(pkt, &at, frag, sizeof(frag));
		put_l4(sc, pkt, &at);
		put(pkt, &at, payload, sizeof(payload));
		ip6.payload_len = htons(at - ip_at - sizeof(ip6));
		memcpy(pkt + ip_at, &ip6, sizeof(ip6));
	} else if (proto == ETH_P_IP) {
		struct iphdr ip = { .version = 4, .ihl = sc->ip_options ? 6 : 5, .ttl = 64,
				    .protocol = sc->proto, .saddr = htonl(sc->src[0]),
				    .daddr = htonl(sc->vip[0]),
				    .frag_off = sc->frag ? htons(FRAG_MORE) : 0 };
		__u32 nops = 0x01010101;	/* one word of NOP options */

		at += sizeof(ip);
		if (sc->ip_options)
			put(pkt, &at, &nops, sizeof(nops));
		put_l4(sc, pkt, &at);
		put(pkt, &at, payload, sizeof(payload));
		ip.tot_len = htons(at - ip_at);
		ip.check = ip_sum(&ip, sizeof(ip));
		memcpy(pkt + ip_at, &ip, sizeof(ip));
	} else {
		put(pkt, &at, payload, sizeof(payload));
	}
	return at;
}

/* What leaves for the packet: the packet itself (XDP_PASS), or it in a
 * tunnel to the backend, from the balancer to the router (XDP_TX). */
static __u32 expected_packet(const struct lb_scenario *sc, const __u8 *in, __u32 len, __u8 *out)
{
	struct ethhdr eth = { .h_proto = htons(sc->tunnel6 ? ETH_P_IPV6 : ETH_P_IP) };
	__u32 inner = len - sizeof(eth), sport = htons(sc->sport), at = 0;
	__u32 src = htonl(sc->src[0]);

	if (sc->verdict != XDP_TX) {
		memcpy(out, in, len);
		return len;
	}
	memcpy(eth.h_dest, router_mac, ETH_ALEN);
	memcpy(eth.h_source, lb_mac, ETH_ALEN);
	put(out, &at, &eth, sizeof(eth));
	if (sc->tunnel6) {
		struct ipv6hdr ip6 = { .version = 6, .hop_limit = 64,
				       .nexthdr = sc->v6 ? IPPROTO_IPV6 : IPPROTO_IPIP,
				       .payload_len = htons(inner) };
		__u32 tsrc[4] = { 1, 0, 0, src ^ sport };	/* 100::/64, in memory order */

		memcpy(&ip6.saddr, tsrc, sizeof(tsrc));
		to_net((__u32 *)&ip6.daddr, tunnel_dst6, 4);
		put(out, &at, &ip6, sizeof(ip6));
	} else {
		struct iphdr ip = { .version = 4, .ihl = 5, .ttl = 64, .protocol = IPPROTO_IPIP,
				    .tot_len = htons(inner + sizeof(ip)),
				    .daddr = htonl(tunnel_dst4) };

		/* 172.16/12 (4268 in memory order) with the port and source folded in */
		ip.saddr = (((__u32)htons(sport) << 16 ^ src) & 0xFFFF0000) | 4268;
		ip.check = ip_sum(&ip, sizeof(ip));
		put(out, &at, &ip, sizeof(ip));
	}
	put(out, &at, in + sizeof(eth), inner);
	return at;
}

/* Each possible CPU's connection table, as the kernel bench makes them. */
static int make_tables(struct xdp_lb_state *st, const struct plan *plan)
{
	int outer = bpf_map__fd(st->skel->maps.lru_mapping), n = libbpf_num_possible_cpus();
	LIBBPF_OPTS(bpf_map_create_opts, opts,
		    .map_flags = plan->zero_seed > 0 ? BPF_F_ZERO_SEED : 0);

	if (n > LB_CPUS) {
		mb_err("xdp-lb keeps a connection table for at most %d CPUs, this machine has %d "
		       "possible", LB_CPUS, n);
		return EXIT_UNSUPPORTED;
	}
	for (__u32 cpu = 0; cpu < (__u32)n; cpu++) {
		int fd = bpf_map_create(BPF_MAP_TYPE_LRU_HASH, "lru_inner", sizeof(struct lb_flow),
					sizeof(struct lb_flow_entry), LB_FLOWS, &opts);

		if (fd < 0 || bpf_map_update_elem(outer, &cpu, &fd, BPF_ANY)) {
			mb_err("making CPU %u's connection table failed: %s", cpu, strerror(errno));
			if (fd >= 0)
				close(fd);
			return EXIT_RUNTIME;
		}
		st->tables[st->nr_tables++] = fd;
	}
	return EXIT_OK;
}

static void scenario_vip(const struct lb_scenario *sc, struct lb_vip *v)
{
	memset(v, 0, sizeof(*v));
	to_net(v->addr6, sc->vip, sc->v6 ? 4 : 1);
	v->port = htons(sc->dport);
	v->proto = sc->proto;
}

/* The scenario's flow in every CPU's table, to the backend its tunnel
 * goes to. */
static int know_flow(struct xdp_lb_state *st, const struct lb_scenario *sc)
{
	struct lb_flow_entry e = { .backend = sc->tunnel6 ? BACKEND_V6 : BACKEND_V4 };
	struct lb_flow f = { .proto = sc->proto };
	struct timespec now;

	/* a UDP flow is seen now (bpf_ktime_get_ns()'s clock), or it expires */
	if (sc->proto == IPPROTO_UDP && !clock_gettime(CLOCK_MONOTONIC, &now))
		e.seen_ns = now.tv_sec * 1000000000ULL + now.tv_nsec;
	to_net(f.src6, sc->src, sc->v6 ? 4 : 1);
	to_net(f.dst6, sc->vip, sc->v6 ? 4 : 1);
	f.port[0] = htons(sc->sport);
	f.port[1] = htons(sc->dport);
	for (int i = 0; i < st->nr_tables; i++)
		if (bpf_map_update_elem(st->tables[i], &f, &e, BPF_ANY))
			return -errno;
	return 0;
}

/* Every ring slot of every VIP on backend 1, in one call. */
static int fill_rings(struct xdp_lb_state *st)
{
	__u32 n = LB_VIPS * LB_RING, *keys = malloc(n * sizeof(*keys));
	__u32 *values = malloc(n * sizeof(*values));
	int err = 0;

	if (!keys || !values) {
		err = -ENOMEM;
		goto out;
	}
	for (__u32 i = 0; i < n; i++) {
		keys[i] = i;
		values[i] = BACKEND_V4;
	}
	if (bpf_map_update_batch(bpf_map__fd(st->skel->maps.ch_rings), keys, values, &n, NULL))
		err = -errno;
out:
	free(keys);
	free(values);
	return err;
}

/* The maps as the kernel bench fills them for the scenario. */
static int fill_maps(struct xdp_lb_state *st, const struct lb_scenario *sc)
{
	struct xdp_lb_bpf *m = st->skel;
	struct lb_backend v4 = { .addr = htonl(tunnel_dst4) }, v6 = { .flags = LB_BACKEND_V6 };
	struct lb_vip_meta meta = { .flags = sc->vip_flags, .num = sc->vip_num };
	struct lb_ctl ctl = {};
	struct lb_vip vip;
	__u32 zero = 0, b4 = BACKEND_V4, b6 = BACKEND_V6;

	to_net(v4.addr6, tunnel_dst6, 4);
	to_net(v6.addr6, tunnel_dst6, 4);
	memcpy(ctl.mac, router_mac, ETH_ALEN);
	scenario_vip(sc, &vip);
	/* only the scenarios that reach a backend have their VIP */
	if (sc->verdict == XDP_TX &&
	    (bpf_map_update_elem(bpf_map__fd(m->maps.vip_map), &vip, &meta, BPF_ANY) ||
	     bpf_map_update_elem(bpf_map__fd(m->maps.vip_miss_stats), &zero, &vip, BPF_ANY)))
		return -errno;
	if (bpf_map_update_elem(bpf_map__fd(m->maps.ctl_array), &zero, &ctl, BPF_ANY) ||
	    bpf_map_update_elem(bpf_map__fd(m->maps.reals), &b4, &v4, BPF_ANY) ||
	    bpf_map_update_elem(bpf_map__fd(m->maps.reals), &b6, &v6, BPF_ANY))
		return -errno;
	return fill_rings(st);
}

/* stats[slot] summed over the CPUs. */
static struct lb_count stat_sum(struct xdp_lb_state *st, __u32 slot)
{
	int ncpu = libbpf_num_possible_cpus();
	struct lb_count sum = {}, *per = calloc(ncpu, sizeof(*per));

	if (per && !bpf_map_lookup_elem(bpf_map__fd(st->skel->maps.stats), &slot, per))
		for (int c = 0; c < ncpu; c++) {
			sum.a += per[c].a;
			sum.b += per[c].b;
		}
	free(per);
	return sum;
}

static void stats_clear(struct xdp_lb_state *st)
{
	int ncpu = libbpf_num_possible_cpus();
	struct lb_count *zeros = calloc(ncpu, sizeof(*zeros));

	for (__u32 slot = 0; zeros && slot < LB_NR_STATS; slot++)
		bpf_map_update_elem(bpf_map__fd(st->skel->maps.stats), &slot, zeros, BPF_ANY);
	free(zeros);
}

/* One run of the program as producer prod; what left in out (may be NULL). */
static int run_once(struct xdp_lb_state *st, int prod, __u8 *out, __u32 *out_len, __u32 *verdict)
{
	struct xdp_md md = { .data = META, .data_end = META + st->len };
	__u8 in[META + PKT_MAX];	/* the producer's id, then the packet */
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = in, .data_size_in = META + st->len,
		    .ctx_in = &md, .ctx_size_in = sizeof(md), .data_out = out,
		    .data_size_out = out ? PKT_MAX + sizeof(struct ipv6hdr) : 0, .repeat = 1);

	memcpy(in, &prod, META);
	memcpy(in + META, st->pkt, st->len);
	if (bpf_prog_test_run_opts(bpf_program__fd(st->skel->progs.xdp_lb), &opts))
		return -errno;
	*verdict = opts.retval;
	if (out_len)
		*out_len = opts.data_size_out;
	return 0;
}

static const char *verdict_name(__u32 v)
{
	return v == XDP_TX ? "XDP_TX" : v == XDP_PASS ? "XDP_PASS" : v == XDP_DROP ? "XDP_DROP" :
	       "another action";
}

/* One batch of the scenario checked as the kernel bench checks it before
 * its run: the verdict, the packet that leaves (where it is the same every
 * batch), and the counters of its batch + 1 packets. An exit status. */
static int validate(struct xdp_lb_state *st, const struct plan *plan)
{
	const struct lb_scenario *sc = plan->bench->scenario;
	__u8 out[PKT_MAX + sizeof(struct ipv6hdr)], want[sizeof(out)];
	__u64 n = plan->batch + 1ULL, misses;
	struct lb_count verdicts, vip_pkts;
	__u32 out_len, want_len, verdict;
	const char *bad = NULL;
	int err;

	/* cold_lru: a batch first, so the scenario's own flow is known and
	 * the checked batch misses on its first packet alone */
	st->skel->bss->cold_lru = sc->cold_lru;
	err = sc->cold_lru ? run_once(st, 0, NULL, NULL, &verdict) : 0;
	if (!err) {
		stats_clear(st);
		err = run_once(st, 0, out, &out_len, &verdict);
	}
	if (err) {
		mb_err("running the xdp-lb program failed: %s", strerror(-err));
		return EXIT_RUNTIME;
	}
	verdicts = stat_sum(st, sc->verdict == XDP_TX ? LB_ST_TX :
				sc->verdict == XDP_PASS ? LB_ST_PASS : LB_ST_DROP);
	vip_pkts = stat_sum(st, LB_ST_VIP_PKTS);
	misses = sc->misses == LB_MISS_ALL ? n : sc->misses == LB_MISS_FIRST;
	want_len = expected_packet(sc, st->pkt, st->len, want);
	if (verdict != (__u32)sc->verdict)
		bad = verdict_name(verdict);
	else if (sc->verdict != XDP_DROP && !sc->cold_lru &&
		 (out_len != want_len || memcmp(out, want, want_len)))
		bad = "another packet out";
	else if (verdicts.a != n)
		bad = "another count of its verdict";
	else if (sc->verdict == XDP_TX && (vip_pkts.a != n || vip_pkts.b != misses))
		bad = "another count of packets to the VIP or of table misses";
	else if (sc->verdict == XDP_TX && sc->proto == IPPROTO_TCP &&
		 stat_sum(st, LB_ST_TCP_MISSES).a != misses)
		bad = "another count of TCP table misses";
	stats_clear(st);
	if (bad) {
		mb_err("%s's check batch gave %s than the scenario's (%s, %llu table misses in %llu "
		       "packets): the program is not doing its workload", plan->bench->name, bad,
		       verdict_name(sc->verdict), (unsigned long long)misses,
		       (unsigned long long)n);
		return EXIT_RUNTIME;
	}
	/* the check's batch is not one of the run's */
	memset((void *)&st->skel->bss->cnt[0], 0, sizeof(st->skel->bss->cnt[0]));
	return EXIT_OK;
}

/* The verifier's own reason where it refused a helper the kernel bench's
 * program calls (seen: a 6.18 build whose XDP programs may not call
 * bpf_xdp_adjust_meta), else may_goto's absence, the usual one. */
static int explain_load_error(int err)
{
	const char *refused = log_find("cannot use helper");

	if (refused) {
		mb_err("this kernel (%s) refuses a helper xdp-lb's program calls, as the kernel "
		       "bench's does: \"%s\"; it cannot run here", kernel_release(), refused);
		return EXIT_UNSUPPORTED;
	}
	mb_err("loading the xdp-lb program failed: %s (it needs may_goto, Linux 6.9 or later)",
	       strerror(-err));
	return err == -EINVAL || err == -EOPNOTSUPP ? EXIT_UNSUPPORTED : EXIT_RUNTIME;
}

static int xdp_lb_setup(struct run *run)
{
	const struct plan *plan = run->plan;
	const struct lb_scenario *sc = plan->bench->scenario;
	struct xdp_lb_state *st = calloc(1, sizeof(*st));
	__u32 flags = plan->zero_seed > 0 ? BPF_F_ZERO_SEED : 0;
	int err;

	if (!st)
		return EXIT_RUNTIME;
	run->priv = st;
	run->loop = "can_loop";
	run->trigger_point = "BPF_PROG_TEST_RUN";
	run->timing = "bpf_ktime_get_ns around each batch's loop";
	st->len = build_packet(sc, st->pkt);
	st->skel = xdp_lb_bpf__open();
	if (!st->skel) {
		mb_err("opening the BPF object failed: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	timed_prog_size(plan, st->skel->maps.batch_times, &st->skel->rodata->record_batches);
	/* --zero-seed: the hash maps, and the tables through the array's inner
	 * map, whose flags every table it holds must have */
	bpf_map__set_map_flags(st->skel->maps.vip_map, flags);
	bpf_map__set_map_flags(st->skel->maps.lru_inner, flags);
	bpf_map__set_map_flags(bpf_map__inner_map(st->skel->maps.lru_mapping), flags);
	log_clear();
	err = xdp_lb_bpf__load(st->skel);
	if (err)
		return explain_load_error(err);
	err = make_tables(st, plan);
	if (err)
		return err;
	err = fill_maps(st, sc);
	if (!err && sc->known_flow)
		err = know_flow(st, sc);
	if (err) {
		mb_err("filling the load balancer's maps failed: %s", strerror(-err));
		return EXIT_RUNTIME;
	}
	/* the map under test: CPU 0's connection table, as made */
	err = map_record(st->skel->maps.lru_inner, run);
	if (!err)
		err = timed_prog_init(&st->timed, plan, st->skel->bss->cnt,
				      &st->skel->bss->batch_iters, st->skel->maps.batch_times);
	if (!err)
		err = validate(st, plan);
	if (err)
		return err;
	st->skel->bss->flow_mask = sc->flow_mask;
	return EXIT_OK;
}

/* One batch: a run of the program on the scenario's packet. */
static int xdp_lb_run(struct run *run, int prod)
{
	struct xdp_lb_state *st = run->priv;
	__u32 verdict;
	int err = run_once(st, prod, NULL, NULL, &verdict);

	if (err)
		return err;
	return verdict == (__u32)run->plan->bench->scenario->verdict ? 0 : -EINVAL;
}

static void xdp_lb_teardown(struct run *run)
{
	struct xdp_lb_state *st = run->priv;

	if (!st)
		return;
	timed_prog_free(&st->timed);
	for (int i = 0; i < st->nr_tables; i++)
		close(st->tables[i]);
	xdp_lb_bpf__destroy(st->skel);
	free(st);
	run->priv = NULL;
}

const struct family xdp_lb_family = {
	.name = "xdp-lb",
	TIMED_PROG_FAMILY,
	.setup = xdp_lb_setup,
	.run = xdp_lb_run,
	.teardown = xdp_lb_teardown,
};
