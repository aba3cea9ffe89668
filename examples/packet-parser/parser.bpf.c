// SPDX-License-Identifier: GPL-2.0
/*
 * An XDP packet parser written with BPF exceptions.
 *
 * Each layer is a subprog that asserts the invariants of its header and
 * throws, with a cookie naming the broken invariant, when one does not
 * hold.  No layer returns an error code: a parse either completes or the
 * whole program ends, and the exception callback turns the cookie into a
 * verdict.  The assertions are also what convince the verifier: the
 * service class comes from a global function, whose result the verifier
 * knows nothing about, and bpf_assert_lt_value() bounds it before it
 * indexes the per-class counters.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_exceptions.h>
#include "parser.h"
#include "parser_common.bpf.h"

char _license[] SEC("license") = "GPL";

/* Read by the loader */
__u64 class_packets[NR_CLASSES];
__u64 last_cookie;
__u64 exceptions;

static __noinline int parse_l4(struct xdp_md *ctx, __u32 off, __u8 proto)
{
	void *data_end = (void *)(long)ctx->data_end;
	void *data = (void *)(long)ctx->data;
	__u32 port;
	int class;

	if (proto == IPPROTO_UDP) {
		struct udphdr *udp = data + off;

		if ((void *)(udp + 1) > data_end)
			bpf_throw(E_L4_TRUNCATED);
		port = bpf_ntohs(udp->dest);
	} else if (proto == IPPROTO_TCP) {
		struct tcphdr *tcp = data + off;

		if ((void *)(tcp + 1) > data_end)
			bpf_throw(E_L4_TRUNCATED);
		port = bpf_ntohs(tcp->dest);
	} else {
		bpf_throw(E_L4_PROTO);
	}

	class = port_class(port);
	bpf_assert_lt_value(class, NR_CLASSES, E_CLASS_RANGE);
	bpf_assert_ge_value(class, 0, E_CLASS_RANGE);
	class_packets[class]++;
	return XDP_PASS;
}

static __noinline int parse_ipv4(struct xdp_md *ctx, __u32 off)
{
	void *data_end = (void *)(long)ctx->data_end;
	void *data = (void *)(long)ctx->data;
	struct iphdr *ip = data + off;
	__u32 version, ihl, ttl, frag;

	if ((void *)(ip + 1) > data_end)
		bpf_throw(E_IP_TRUNCATED);
	version = ip->version;
	ihl = ip->ihl;
	ttl = ip->ttl;
	frag = bpf_ntohs(ip->frag_off) & (IP_MF | IP_OFFSET);
	bpf_assert_eq_value(version, 4, E_IP_VERSION);
	bpf_assert_ge_value(ihl, 5, E_IP_HDR_LEN);
	bpf_assert_ne_value(ttl, 0, E_IP_TTL);
	bpf_assert_eq_value(frag, 0, E_IP_FRAGMENT);
	return parse_l4(ctx, off + ihl * 4, ip->protocol);
}

static __noinline int parse_eth(struct xdp_md *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	void *data = (void *)(long)ctx->data;
	struct ethhdr *eth = data;
	__u32 proto;

	if ((void *)(eth + 1) > data_end)
		bpf_throw(E_ETH_TRUNCATED);
	proto = bpf_ntohs(eth->h_proto);
	bpf_assert_eq_value(proto, ETH_P_IP, E_NOT_IPV4);
	return parse_ipv4(ctx, sizeof(*eth));
}

/* Runs once the stack is unwound; its value is the program's */
static int on_exception(__u64 cookie)
{
	last_cookie = cookie;
	exceptions++;
	/* Not IPv4 or not TCP/UDP: not ours, let the stack have it */
	if (cookie == E_NOT_IPV4 || cookie == E_L4_PROTO)
		return XDP_PASS;
	return XDP_DROP;
}

SEC("xdp")
int xdp_parser(struct xdp_md *ctx)
{
	bpf_set_exception_callback(on_exception);
	return parse_eth(ctx);
}
