// SPDX-License-Identifier: GPL-2.0
/*
 * Loader of the packet parser demo: loads parser.bpf.c, feeds it good and
 * malformed packets with BPF_PROG_TEST_RUN and prints what happened to
 * each.  Exits non-zero if a verdict or a cookie is not the expected one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <linux/tcp.h>
#include <linux/in.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "parser.h"
#include "parser.skel.h"

#define XDP_DROP 1
#define XDP_PASS 2

struct packet {
	union {
		unsigned char buf[128];
		struct {
			struct ethhdr eth;
			struct iphdr ip;
			union {
				struct udphdr udp;
				struct tcphdr tcp;
			} l4;
		} __attribute__((packed)) h;
	};
	unsigned int len;
};

static const char *const class_names[NR_CLASSES] = {
	"dns", "web", "other system", "other",
};

static const char *verdict_name(int v)
{
	return v == XDP_PASS ? "XDP_PASS" : v == XDP_DROP ? "XDP_DROP" : "other";
}

static const char *cookie_name(__u64 cookie)
{
	switch (cookie) {
	case E_ETH_TRUNCATED: return "Ethernet header truncated";
	case E_NOT_IPV4: return "ethertype == IPv4";
	case E_IP_TRUNCATED: return "IPv4 header truncated";
	case E_IP_VERSION: return "version == 4";
	case E_IP_HDR_LEN: return "ihl >= 5";
	case E_IP_TTL: return "ttl != 0";
	case E_IP_FRAGMENT: return "not a fragment";
	case E_L4_TRUNCATED: return "L4 header truncated";
	case E_L4_PROTO: return "protocol is TCP or UDP";
	case E_CLASS_RANGE: return "class < NR_CLASSES";
	}
	return "?";
}

/* Ethernet + IPv4 + UDP or TCP to 'port' */
static struct packet make_packet(int proto, int port)
{
	struct packet p = {};

	p.h.eth.h_proto = htons(ETH_P_IP);
	p.h.ip.version = 4;
	p.h.ip.ihl = 5;
	p.h.ip.ttl = 64;
	p.h.ip.protocol = proto;
	p.h.ip.saddr = htonl(0x0a000001);
	p.h.ip.daddr = htonl(0x0a000002);
	p.len = sizeof(p.h.eth) + sizeof(p.h.ip);
	if (proto == IPPROTO_UDP) {
		p.h.l4.udp.dest = htons(port);
		p.len += sizeof(p.h.l4.udp);
	} else {
		p.h.l4.tcp.dest = htons(port);
		p.len += sizeof(p.h.l4.tcp);
	}
	p.h.ip.tot_len = htons(p.len - sizeof(p.h.eth));
	return p;
}

struct scenario {
	const char *what;
	struct packet pkt;
	int verdict;		/* expected */
	__u64 cookie;		/* expected, 0: no exception */
};

int main(void)
{
	struct scenario s[16];
	struct parser *skel;
	char log[64 * 1024] = "";
	unsigned int insns = 0, n = 0, i, bad = 0;
	const char *p;
	int fd, err;

	libbpf_set_strict_mode(LIBBPF_STRICT_ALL);
	skel = parser__open();
	if (!skel) {
		fprintf(stderr, "open failed\n");
		return 1;
	}
	/* Log level 4: verifier statistics only */
	bpf_program__set_log_buf(skel->progs.xdp_parser, log, sizeof(log));
	bpf_program__set_log_level(skel->progs.xdp_parser, 4);
	err = parser__load(skel);
	if (err) {
		fprintf(stderr, "load failed: %d\n%s\n", err, log);
		return 1;
	}
	p = strstr(log, "processed ");
	if (p)
		sscanf(p, "processed %u insns", &insns);
	printf("BPF exceptions demo: an XDP packet parser that asserts header invariants\n");
	printf("verifier: accepted xdp_parser, %u instructions processed\n\n", insns);

	s[n++] = (struct scenario){ "IPv4/UDP to port 53", make_packet(IPPROTO_UDP, 53), XDP_PASS, 0 };
	s[n++] = (struct scenario){ "IPv4/TCP to port 443", make_packet(IPPROTO_TCP, 443), XDP_PASS, 0 };
	s[n++] = (struct scenario){ "IPv4/UDP to port 5000", make_packet(IPPROTO_UDP, 5000), XDP_PASS, 0 };
	s[n] = (struct scenario){ "ARP (ethertype 0x0806)", make_packet(IPPROTO_UDP, 53), XDP_PASS, E_NOT_IPV4 };
	s[n++].pkt.h.eth.h_proto = htons(0x0806);
	s[n] = (struct scenario){ "IPv4 header saying version 6", make_packet(IPPROTO_UDP, 53), XDP_DROP, E_IP_VERSION };
	s[n++].pkt.h.ip.version = 6;
	s[n] = (struct scenario){ "IPv4 header length 12 bytes", make_packet(IPPROTO_UDP, 53), XDP_DROP, E_IP_HDR_LEN };
	s[n++].pkt.h.ip.ihl = 3;
	s[n] = (struct scenario){ "IPv4 TTL 0", make_packet(IPPROTO_TCP, 80), XDP_DROP, E_IP_TTL };
	s[n++].pkt.h.ip.ttl = 0;
	s[n] = (struct scenario){ "IPv4 fragment", make_packet(IPPROTO_UDP, 53), XDP_DROP, E_IP_FRAGMENT };
	s[n++].pkt.h.ip.frag_off = htons(0x2000);
	s[n] = (struct scenario){ "IPv4/ICMP", make_packet(IPPROTO_UDP, 53), XDP_PASS, E_L4_PROTO };
	s[n++].pkt.h.ip.protocol = IPPROTO_ICMP;
	s[n] = (struct scenario){ "UDP header cut short", make_packet(IPPROTO_UDP, 53), XDP_DROP, E_L4_TRUNCATED };
	s[n++].pkt.len -= 4;
	s[n] = (struct scenario){ "IPv4 header cut short", make_packet(IPPROTO_UDP, 53), XDP_DROP, E_IP_TRUNCATED };
	s[n++].pkt.len = sizeof(struct ethhdr) + 10;

	fd = bpf_program__fd(skel->progs.xdp_parser);
	printf(" #  packet                          verdict   exception\n");
	for (i = 0; i < n; i++) {
		LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = s[i].pkt.buf,
			    .data_size_in = s[i].pkt.len, .repeat = 1);
		__u64 before = skel->bss->exceptions;
		__u64 cookie = 0;
		int ok;

		err = bpf_prog_test_run_opts(fd, &opts);
		if (err) {
			printf("%2u  %-30s  test run failed: %d\n", i + 1, s[i].what, err);
			bad++;
			continue;
		}
		if (skel->bss->exceptions != before)
			cookie = skel->bss->last_cookie;
		ok = (int)opts.retval == s[i].verdict && cookie == s[i].cookie;
		bad += !ok;
		printf("%2u  %-30s  %-8s  ", i + 1, s[i].what, verdict_name(opts.retval));
		if (cookie)
			printf("cookie 0x%llx: %s", (unsigned long long)cookie, cookie_name(cookie));
		else
			printf("-");
		printf("%s\n", ok ? "" : "   <-- UNEXPECTED");
	}
	printf("\nper-class packet counters:");
	for (i = 0; i < NR_CLASSES; i++)
		printf(" %s=%llu", class_names[i], (unsigned long long)skel->bss->class_packets[i]);
	printf("\n%s\n", bad ? "demo: UNEXPECTED RESULTS" : "demo: all verdicts and cookies as expected");
	parser__destroy(skel);
	return bad ? 1 : 0;
}
