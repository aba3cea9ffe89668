// SPDX-License-Identifier: GPL-2.0
/*
 * The demo's packet parser (examples/packet-parser/parser.bpf.c) written
 * without exceptions: every layer returns an error code that every caller
 * checks and passes on.  make bench compares the verifier's work on the two.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "parser.h"
#include "parser_common.bpf.h"

char _license[] SEC("license") = "GPL";

__u64 class_packets[NR_CLASSES];
__u64 last_error;

static __noinline int parse_l4(struct xdp_md *ctx, __u32 off, __u8 proto)
{
	void *data_end = (void *)(long)ctx->data_end;
	void *data = (void *)(long)ctx->data;
	__u32 port, class;

	if (proto == IPPROTO_UDP) {
		struct udphdr *udp = data + off;

		if ((void *)(udp + 1) > data_end)
			return -E_L4_TRUNCATED;
		port = bpf_ntohs(udp->dest);
	} else if (proto == IPPROTO_TCP) {
		struct tcphdr *tcp = data + off;

		if ((void *)(tcp + 1) > data_end)
			return -E_L4_TRUNCATED;
		port = bpf_ntohs(tcp->dest);
	} else {
		return -E_L4_PROTO;
	}

	class = port_class(port);
	/* check the register that indexes, as the assertion macros do */
	barrier_var(class);
	if (class >= NR_CLASSES)
		return -E_CLASS_RANGE;
	class_packets[class]++;
	return 0;
}

static __noinline int parse_ipv4(struct xdp_md *ctx, __u32 off)
{
	void *data_end = (void *)(long)ctx->data_end;
	void *data = (void *)(long)ctx->data;
	struct iphdr *ip = data + off;
	__u32 ihl;

	if ((void *)(ip + 1) > data_end)
		return -E_IP_TRUNCATED;
	if (ip->version != 4)
		return -E_IP_VERSION;
	ihl = ip->ihl;
	if (ihl < 5)
		return -E_IP_HDR_LEN;
	if (ip->ttl == 0)
		return -E_IP_TTL;
	if (bpf_ntohs(ip->frag_off) & (IP_MF | IP_OFFSET))
		return -E_IP_FRAGMENT;
	return parse_l4(ctx, off + ihl * 4, ip->protocol);
}

static __noinline int parse_eth(struct xdp_md *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	void *data = (void *)(long)ctx->data;
	struct ethhdr *eth = data;

	if ((void *)(eth + 1) > data_end)
		return -E_ETH_TRUNCATED;
	if (bpf_ntohs(eth->h_proto) != ETH_P_IP)
		return -E_NOT_IPV4;
	return parse_ipv4(ctx, sizeof(*eth));
}

SEC("xdp")
int xdp_parser_explicit(struct xdp_md *ctx)
{
	int err = parse_eth(ctx);

	if (!err)
		return XDP_PASS;
	last_error = -err;
	if (err == -E_NOT_IPV4 || err == -E_L4_PROTO)
		return XDP_PASS;
	return XDP_DROP;
}
