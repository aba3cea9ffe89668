// SPDX-License-Identifier: GPL-2.0
/*
 * Programs for the stress test (stress/stress.c): a tc program that throws
 * three calls deep, through a subprog traced by fexit (a trampoline between
 * its frames), and tracing programs that throw themselves.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "bpf_exceptions.h"

char _license[] SEC("license") = "GPL";

__u64 fentry_runs, fexit_runs;

__noinline int stress_l3(int x)
{
	if (x > 0)
		bpf_throw(x);
	return x + 1;
}

__noinline int stress_l2(int x)
{
	return stress_l3(x + 1) + 1;
}

static __noinline int stress_l1(int x)
{
	return stress_l2(x + 1) + 1;
}

SEC("tc")
int stress_throw(struct __sk_buff *ctx)
{
	return stress_l1(ctx->len);
}

/* Attached to stress_l2: it throws, the tc program does not notice */
SEC("?fentry")
int BPF_PROG(stress_fentry, int x)
{
	__sync_fetch_and_add(&fentry_runs, 1);
	bpf_throw(1);
}

/* Attached to stress_l3: never runs, as stress_l3 never returns, but its
 * trampoline sits between the frames that the throw unwinds.
 */
SEC("?fexit")
int BPF_PROG(stress_fexit, int x, int ret)
{
	__sync_fetch_and_add(&fexit_runs, 1);
	return 0;
}
