// SPDX-License-Identifier: GPL-2.0
/*
 * Runs asserts.bpf.c (see there) as built by one compiler: every form
 * throws exactly when its condition is false, with its cookie, and every
 * asserted value indexes its array.  That the object loaded at all shows
 * the verifier saw every bound.  Exits non-zero on the first mismatch.
 */
#include <stdio.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "asserts.skel.h"

static struct asserts *skel;
static int failures;

static int run(struct bpf_program *prog)
{
	unsigned char pkt[64] = {};
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = pkt, .data_size_in = sizeof(pkt));

	if (bpf_prog_test_run_opts(bpf_program__fd(prog), &opts)) {
		perror("test_run");
		return -1;
	}
	return opts.retval;
}

/* cookie -1: the condition holds, the program returns ok */
static void expect(const char *what, struct bpf_program *prog, int ok, long long cookie)
{
	int ret;

	skel->bss->seen_cookie = -1;
	ret = run(prog);
	if (cookie == -1 ? ret == ok : ret == 2 && skel->bss->seen_cookie == (__u64)cookie)
		return;
	fprintf(stderr, "%s: returned %d, cookie %#llx; expected %s %#llx\n", what, ret,
		(unsigned long long)skel->bss->seen_cookie,
		cookie == -1 ? "no throw, return" : "a throw with cookie",
		cookie == -1 ? (unsigned long long)ok : (unsigned long long)cookie);
	failures++;
}

static const struct {
	int which;
	long long s;
	unsigned long long u;
	long long cookie;	/* -1: holds */
} cases[] = {
	{ 0, 5, 0, -1 }, { 0, 4, 0, 0 },
	{ 1, 4, 0, -1 }, { 1, 5, 0, 0 },
	{ 2, -6, 0, -1 }, { 2, -5, 0, 0 },
	{ 3, -4, 0, -1 }, { 3, -5, 0, 0 },
	{ 4, 0, 5, -1 }, { 4, 0, 6, 0 }, { 4, 0, -1ULL, 0 },
	{ 5, 0, 5, -1 }, { 5, 0, 4, 0 },
	{ 6, 0, 0x7fffffff, -1 }, { 6, 0, 0x80000000, 6 },
	{ 7, -100, 0, -1 }, { 7, -101, 0, 7 },
	{ 8, 4, 0, -1 }, { 8, 5, 0, 0 }, { 8, -1LL << 40, 0, -1 },
	{ 9, 0, 6, -1 }, { 9, 0, 5, 9 },
	{ 10, 0, 0xffffffff, -1 }, { 10, 0, 0x100000000ULL, 10 },
	{ 11, 0, 0, -1 }, { 11, -1, 0, 11 },
	{ 12, -3, 0, -1 }, { 12, 3, 0, -1 }, { 12, 4, 0, 0 }, { 12, -4, 0, 0 },
	{ 13, 0, 10, -1 }, { 13, 0, 20, -1 }, { 13, 0, 21, 13 }, { 13, 0, 9, 13 },
	{ 14, 7, 7, -1 }, { 14, 7, 8, 14 },
	{ 15, 0, 8, -1 }, { 15, 0, 7, 15 },
	{ 16, 0, 4, -1 }, { 16, 0, 5, -7 },
	{ 17, 3, 0, -1 }, { 17, -4, 0, 0x7fffffff },
	{ 18, 0xffffffffLL, 0, -1 }, { 18, 0x100000000LL, 0, 18 },
};

int main(void)
{
	struct { struct bpf_program *prog; const char *name; long long cookie; } bounds[12];
	char what[64];
	unsigned int i;

	skel = asserts__open_and_load();
	if (!skel) {
		fprintf(stderr, "asserts: loading failed: a bound did not reach the verifier?\n");
		return 1;
	}
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		skel->bss->which = cases[i].which;
		skel->bss->sval = cases[i].s;
		skel->bss->uval = cases[i].u;
		snprintf(what, sizeof(what), "case %d (s %lld, u %#llx)", cases[i].which,
			 cases[i].s, cases[i].u);
		expect(what, skel->progs.forms, 1, cases[i].cookie);
	}

#define B(i, p, c) bounds[i].prog = skel->progs.p, bounds[i].name = #p, bounds[i].cookie = c
	B(0, bound_u32_seed, 0x32); B(1, bound_u32_cmp, 0x32); B(2, bound_u32_range, 0x32);
	B(3, bound_u64_seed, 0x64); B(4, bound_u64_cmp, 0x64); B(5, bound_u64_range, 0x64);
	B(6, bound_s32_seed, 0x132); B(7, bound_s32_cmp, 0x132); B(8, bound_s32_range, 0x132);
	B(9, bound_s64_seed, 0x164); B(10, bound_s64_cmp, 0x164); B(11, bound_s64_range, 0x164);
	for (i = 0; i < 16; i++)
		skel->bss->table[i] = 100 * i;
	for (i = 0; i < 12; i++) {
		skel->bss->uval = 15;
		expect(bounds[i].name, bounds[i].prog, 10 + 1500 + 2, -1);
		skel->bss->uval = 16;
		expect(bounds[i].name, bounds[i].prog, 0, bounds[i].cookie);
		/* -1: above the bound unsigned, below it signed */
		skel->bss->uval = -1ULL;
		expect(bounds[i].name, bounds[i].prog, 0, bounds[i].cookie);
	}
	asserts__destroy(skel);
	if (failures)
		return 1;
	printf("asserts: %zu cases and 12 bounds as expected\n", sizeof(cases) / sizeof(cases[0]));
	return 0;
}
