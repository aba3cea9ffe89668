// SPDX-License-Identifier: GPL-2.0
/*
 * Programs for the stress test (stress/stress.c): a tc program that throws
 * three calls deep, through a subprog traced by fexit (a trampoline between
 * its frames), tracing programs that throw themselves, and tc programs
 * that throw holding a ring buffer record while main holds a test kfunc's
 * object, from a subprog and from a bpf_loop() callback.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_exceptions.h>

char _license[] SEC("license") = "GPL";

__u64 fentry_runs, fexit_runs;

struct prog_test_ref_kfunc *bpf_kfunc_call_test_acquire(unsigned long *sp) __ksym;
void bpf_kfunc_call_test_release(struct prog_test_ref_kfunc *p) __ksym;

#define RB_SIZE (4 << 20)

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, RB_SIZE);
} stress_rb SEC(".maps");

int refcnt;

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

/* Throws from a subprog's frame holding a ring buffer record while main
 * holds a test kfunc's object across the call: the throw releases both,
 * the record by code in the throwing frame, the object by a walk of the
 * callers' frames; 1 if the ring was full (its consumer lags)
 */
static __noinline int stress_hold_l1(int x)
{
	__u64 *rec = bpf_ringbuf_reserve(&stress_rb, 64, 0);

	if (!rec)
		return 1;
	*rec = x;
	if (x > 0)
		bpf_throw(0);
	bpf_ringbuf_submit(rec, 0);
	return 3;
}

SEC("tc")
int stress_hold(struct __sk_buff *ctx)
{
	struct prog_test_ref_kfunc *p;
	unsigned long sl = 0;
	int r;

	p = bpf_kfunc_call_test_acquire(&sl);
	if (!p)
		return 2;
	r = stress_hold_l1(ctx->len);
	bpf_kfunc_call_test_release(p);
	return r;
}

/* The same from a bpf_loop() callback, at its third iteration: the
 * callback's frame releases the record, main the object once the helper
 * returned; 1 if the ring was full
 */
static int stress_loop_cb(__u32 i, void *ctx)
{
	__u64 *rec = bpf_ringbuf_reserve(&stress_rb, 64, 0);

	if (!rec) {
		*(int *)ctx = 1;
		return 1;
	}
	*rec = i;
	if (i == 2)
		bpf_throw(0);
	bpf_ringbuf_discard(rec, 0);
	return 0;
}

SEC("tc")
int stress_loop_hold(struct __sk_buff *ctx)
{
	struct prog_test_ref_kfunc *p;
	unsigned long sl = 0;
	int full = 0;

	p = bpf_kfunc_call_test_acquire(&sl);
	if (!p)
		return 2;
	bpf_loop(4, stress_loop_cb, &full, 0);
	bpf_kfunc_call_test_release(p);
	return full ? 1 : 3;
}

/* The test kfunc's object's refcount, less this program's reference */
SEC("tc")
int stress_refcnt(struct __sk_buff *ctx)
{
	struct prog_test_ref_kfunc *p;
	unsigned long sl = 0;

	p = bpf_kfunc_call_test_acquire(&sl);
	if (!p)
		return 1;
	refcnt = p->cnt.refs.counter - 1;
	bpf_kfunc_call_test_release(p);
	return 0;
}

/* 1 if the whole ring can be reserved: no record holds a part of it */
SEC("tc")
int stress_reserve_all(struct __sk_buff *ctx)
{
	void *rec = bpf_ringbuf_reserve(&stress_rb, RB_SIZE - 16, 0);

	if (!rec)
		return 0;
	bpf_ringbuf_discard(rec, 0);
	return 1;
}
