// SPDX-License-Identifier: GPL-2.0
/* The tree's flow dissector (bpf_flow) and its conversion to assertions
 * (bpf_flow_assert) on packets that each drops as malformed: the tree's
 * own test has none.  Both must drop them, the conversion by a throw
 * whose callback returns BPF_DROP, and both must dissect the well-formed
 * packet they were made from.
 */
#include <test_progs.h>
#include <network_helpers.h>
#include "bpf_flow.skel.h"
#include "bpf_flow_assert.skel.h"

struct ipv4_tcp_pkt {
	struct ethhdr eth;
	struct iphdr iph;
	struct tcphdr tcp;
} __packed;

struct vlan_pkt {
	struct ethhdr eth;
	__be16 vlan_tci, vlan_proto;
	struct iphdr iph;
} __packed;

static const struct ipv4_tcp_pkt good = {
	.eth.h_proto = __bpf_constant_htons(ETH_P_IP),
	.iph = { .ihl = 5, .version = 4, .protocol = IPPROTO_TCP,
		 .tot_len = __bpf_constant_htons(sizeof(struct iphdr) + sizeof(struct tcphdr)) },
	.tcp = { .doff = 5, .source = 80, .dest = 8080 },
};

struct drop_case {
	const char *name;
	const void *pkt;
	size_t len;
};

/* Runs @prog, whose object's jmp_table gets the object's programs, on
 * each of @cases
 */
static void run_cases(const char *obj_name, struct bpf_object *obj, struct bpf_program *prog,
		      struct bpf_map *jmp_table, const struct drop_case *cases, int n)
{
	char name[32];
	int i, fd;

	for (i = 0; i < bpf_map__max_entries(jmp_table); i++) {
		snprintf(name, sizeof(name), "flow_dissector_%d", i);
		fd = bpf_program__fd(bpf_object__find_program_by_name(obj, name));
		if (!ASSERT_OK(bpf_map_update_elem(bpf_map__fd(jmp_table), &i, &fd, 0), name))
			return;
	}
	for (i = 0; i < n; i++) {
		LIBBPF_OPTS(bpf_test_run_opts, topts, .data_in = cases[i].pkt,
			    .data_size_in = cases[i].len);
		int want = i ? BPF_DROP : BPF_OK;

		if (!ASSERT_OK(bpf_prog_test_run_opts(bpf_program__fd(prog), &topts), "test_run"))
			continue;
		if (!ASSERT_EQ(topts.retval, want, cases[i].name))
			printf("%s: %s returned %u\n", obj_name, cases[i].name, topts.retval);
	}
}

void test_flow_dissector_drops(void)
{
	struct ipv4_tcp_pkt short_ihl = good, short_doff = good, long_doff = good;
	struct vlan_pkt triple_tag = {
		.eth.h_proto = __bpf_constant_htons(ETH_P_8021AD),
		.vlan_proto = __bpf_constant_htons(ETH_P_IP),	/* not 802.1Q */
	};
	const struct drop_case cases[] = {
		{ "well-formed", &good, sizeof(good) },
		{ "IPv4 header length 16", &short_ihl, sizeof(short_ihl) },
		{ "TCP data offset 12 bytes", &short_doff, sizeof(short_doff) },
		{ "TCP data offset past the packet", &long_doff, sizeof(long_doff) },
		{ "TCP header cut short", &good, sizeof(good) - 10 },
		{ "802.1ad tag over no 802.1Q tag", &triple_tag, sizeof(triple_tag) },
	};
	struct bpf_flow_assert *conv = NULL;
	struct bpf_flow *orig;

	short_ihl.iph.ihl = 4;
	short_doff.tcp.doff = 3;
	long_doff.tcp.doff = 15;

	orig = bpf_flow__open_and_load();
	if (!ASSERT_OK_PTR(orig, "bpf_flow"))
		return;
	conv = bpf_flow_assert__open_and_load();
	if (!ASSERT_OK_PTR(conv, "bpf_flow_assert"))
		goto out;
	run_cases("bpf_flow", orig->obj, orig->progs._dissect, orig->maps.jmp_table,
		  cases, ARRAY_SIZE(cases));
	run_cases("bpf_flow_assert", conv->obj, conv->progs._dissect, conv->maps.jmp_table,
		  cases, ARRAY_SIZE(cases));
out:
	bpf_flow_assert__destroy(conv);
	bpf_flow__destroy(orig);
}
