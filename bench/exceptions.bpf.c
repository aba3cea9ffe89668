// SPDX-License-Identifier: GPL-2.0
/*
 * Programs for `make bench` (bench/bench.c).
 *
 * 1. Program shapes, each written with assertions (a), with explicit
 *    checks (b) and without checks, indexes masked (c).  Every check bounds
 *    a 16-bit index from the packet that looks up a 64-entry table, which
 *    the verifier only allows with a bound on the index:
 *    - parser: one parser split into four subprogs (l1 -> l2 -> l3 -> l4),
 *      eleven checks (the last subprog's eight written out: clang 14 does
 *      not unroll a loop whose body has an asm goto, as the assertion
 *      macros' comparison is); (b) returns -1 through every caller; (d)
 *      is the check of (b) falling back to entry 0: no exception, no
 *      error propagation;
 *    - regs: a main function that keeps four results in R6-R9 across its
 *      calls to two subprogs (eleven checks); (b) checks every call;
 *    - flat: one function, no subprogs, eight checks, each with its own
 *      cookie (a) or error code (b).
 * 2. A chain of 1 to 8 frames that throws at a given depth, or returns from
 *    it normally: the cost of a throw against a return.  And a subprog
 *    that holds 0, 1 or 4 test kfunc objects when it throws (which
 *    releases them) or releases them and returns; and a main function
 *    that holds one across a call that throws from frame 2 or 4 (whose
 *    throw releases it) or returns.  And a bpf_loop() of 16 iterations
 *    whose callback throws at iteration loop_at, against the same loop
 *    whose callback sets a flag and stops there, the program returning
 *    its error: inlined by the verifier (flags 0) and called (flags that
 *    the verifier does not know), as a loop whose callback throws is.
 *
 * Built twice: as is, and with -DBENCH_NO_THROW, which leaves only the
 * programs that cannot throw, for a kernel without the series: what such
 * a program costs there against the patched kernel.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#ifndef BENCH_NO_THROW
#include <bpf/bpf_exceptions.h>
#endif

char _license[] SEC("license") = "GPL";

#define TABLE 64
#define PKT_BYTES 64

__u32 table[TABLE];
/* 2d: the iteration that ends the loop; 0, which the verifier does not know */
__u32 loop_at;
__u64 loop_flags;

/*
 * The parser of variants a, c and d: four subprogs and the program, which
 * differ only in v##_get(), the lookup of one index: one text, so that the
 * variants measured are the same code but for that.
 */
#define PARSER(v, name)							\
static __noinline __u32 v##_l4(__u16 *p)				\
{									\
	__u32 sum = 0;							\
									\
	sum += v##_get(p, 4) ^ 0;					\
	sum += v##_get(p, 5) ^ 1;					\
	sum += v##_get(p, 6) ^ 2;					\
	sum += v##_get(p, 7) ^ 3;					\
	sum += v##_get(p, 8) ^ 4;					\
	sum += v##_get(p, 9) ^ 5;					\
	sum += v##_get(p, 10) ^ 6;					\
	sum += v##_get(p, 11) ^ 7;					\
	return sum;							\
}									\
									\
static __noinline __u32 v##_l3(__u16 *p)				\
{									\
	return v##_get(p, 3) + v##_l4(p);				\
}									\
									\
static __noinline __u32 v##_l2(__u16 *p)				\
{									\
	return v##_get(p, 2) + v##_l3(p);				\
}									\
									\
static __noinline __u32 v##_l1(__u16 *p)				\
{									\
	return v##_get(p, 1) + v##_l2(p);				\
}									\
									\
SEC("tc")								\
int name(struct __sk_buff *ctx)						\
{									\
	void *data_end = (void *)(long)ctx->data_end;			\
	void *data = (void *)(long)ctx->data;				\
									\
	if (data + PKT_BYTES > data_end)				\
		return 0;						\
	return v##_l1(data) & 0xff;					\
}

/* ---- 1a: assertions ---- */
#ifndef BENCH_NO_THROW
static __always_inline __u32 a_get(__u16 *p, int i)
{
	__u32 idx = p[i];

	bpf_assert_lt(idx, TABLE);
	return table[idx];
}

PARSER(a, path_assert)
#endif

/* ---- 1b: explicit checks, errors returned through every caller ---- */
static __always_inline int b_get(__u16 *p, int i, __u32 *v)
{
	__u32 idx = p[i];

	if (idx >= TABLE)
		return -1;
	*v = table[idx];
	return 0;
}

#define B_L4_GET(i)							\
	({								\
		if (b_get(p, 4 + (i), &v))				\
			return -1;					\
		sum += v ^ (i);						\
	})

static __noinline int b_l4(__u16 *p, __u32 *out)
{
	__u32 sum = 0, v;

	B_L4_GET(0);
	B_L4_GET(1);
	B_L4_GET(2);
	B_L4_GET(3);
	B_L4_GET(4);
	B_L4_GET(5);
	B_L4_GET(6);
	B_L4_GET(7);
	*out = sum;
	return 0;
}

static __noinline int b_l3(__u16 *p, __u32 *out)
{
	__u32 v, rest;

	if (b_get(p, 3, &v))
		return -1;
	if (b_l4(p, &rest))
		return -1;
	*out = v + rest;
	return 0;
}

static __noinline int b_l2(__u16 *p, __u32 *out)
{
	__u32 v, rest;

	if (b_get(p, 2, &v))
		return -1;
	if (b_l3(p, &rest))
		return -1;
	*out = v + rest;
	return 0;
}

static __noinline int b_l1(__u16 *p, __u32 *out)
{
	__u32 v, rest;

	if (b_get(p, 1, &v))
		return -1;
	if (b_l2(p, &rest))
		return -1;
	*out = v + rest;
	return 0;
}

SEC("tc")
int path_explicit(struct __sk_buff *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	void *data = (void *)(long)ctx->data;
	__u32 out;

	if (data + PKT_BYTES > data_end)
		return 0;
	if (b_l1(data, &out))
		return 0;
	return out & 0xff;
}

/* ---- 1c: no checks (masked indexes) ---- */
static __always_inline __u32 c_get(__u16 *p, int i)
{
	return table[p[i] & (TABLE - 1)];
}

PARSER(c, path_nocheck)

/* ---- 1d: the same checks without exceptions or error propagation: an
 * index out of range reads entry 0.  What the eleven compare-and-branch
 * pairs cost by themselves, against which (a) shows what exceptions add.
 */
static __always_inline __u32 d_get(__u16 *p, int i)
{
	__u32 idx = p[i];

	barrier_var(idx);
	if (idx >= TABLE)
		idx = 0;
	return table[idx];
}

PARSER(d, path_checkonly)

/* ---- regs: main keeps four results in R6-R9 across its calls ---- */
#define REGS(v, name)							\
static __noinline __u32 v##_r1(__u16 *p, int i)			\
{									\
	return v##_get(p, i) ^ v##_get(p, i + 1);			\
}									\
									\
static __noinline __u32 v##_r2(__u16 *p, int i)			\
{									\
	return v##_get(p, i) + v##_r1(p, i + 1);			\
}									\
									\
SEC("tc")								\
int name(struct __sk_buff *ctx)						\
{									\
	void *data_end = (void *)(long)ctx->data_end;			\
	void *data = (void *)(long)ctx->data;				\
	__u32 a, b, c, d;						\
									\
	if (data + PKT_BYTES > data_end)				\
		return 0;						\
	a = v##_r1(data, 1);						\
	b = v##_r2(data, 3);						\
	c = v##_r1(data, 6);						\
	d = v##_r2(data, 8);						\
	return (a * 3 + b * 5 + c * 7 + d * 11) & 0xff;			\
}

#ifndef BENCH_NO_THROW
REGS(a, regs_assert)
#endif
REGS(c, regs_nocheck)

static __noinline int b_r1(__u16 *p, int i, __u32 *out)
{
	__u32 x, y;

	if (b_get(p, i, &x) || b_get(p, i + 1, &y))
		return -1;
	*out = x ^ y;
	return 0;
}

static __noinline int b_r2(__u16 *p, int i, __u32 *out)
{
	__u32 x, y;

	if (b_get(p, i, &x) || b_r1(p, i + 1, &y))
		return -1;
	*out = x + y;
	return 0;
}

SEC("tc")
int regs_explicit(struct __sk_buff *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	void *data = (void *)(long)ctx->data;
	__u32 a, b, c, d;

	if (data + PKT_BYTES > data_end)
		return 0;
	if (b_r1(data, 1, &a) || b_r2(data, 3, &b) || b_r1(data, 6, &c) ||
	    b_r2(data, 8, &d))
		return 0;
	return (a * 3 + b * 5 + c * 7 + d * 11) & 0xff;
}

/* ---- flat: one function, eight checks with their own cookies ---- */
#define FLAT(v, name)							\
SEC("tc")								\
int name(struct __sk_buff *ctx)						\
{									\
	void *data_end = (void *)(long)ctx->data_end;			\
	void *data = (void *)(long)ctx->data;				\
	__u16 *p = data;						\
	__u32 sum = 0;							\
									\
	if (data + PKT_BYTES > data_end)				\
		return 0;						\
	sum += v##_flat_get(p, 1, 1);					\
	sum ^= v##_flat_get(p, 2, 2);					\
	sum += v##_flat_get(p, 3, 3);					\
	sum ^= v##_flat_get(p, 4, 4);					\
	sum += v##_flat_get(p, 5, 5);					\
	sum ^= v##_flat_get(p, 6, 6);					\
	sum += v##_flat_get(p, 7, 7);					\
	sum ^= v##_flat_get(p, 8, 8);					\
	return sum & 0xff;						\
}

#ifndef BENCH_NO_THROW
#define a_flat_get(p, i, k)						\
	({ __u32 __idx = (p)[i]; bpf_assert_lt_value(__idx, TABLE, k); table[__idx]; })
FLAT(a, flat_assert)
#endif
#define b_flat_get(p, i, k)						\
	({ __u32 __idx = (p)[i]; if (__idx >= TABLE) return k; table[__idx]; })
FLAT(b, flat_explicit)
#define c_flat_get(p, i, k) table[(p)[i] & (TABLE - 1)]
FLAT(c, flat_nocheck)

#ifndef BENCH_NO_THROW
/* ---- 2: throw against return, from frame 'depth' (1 = main) ---- */
int depth = 1;
int do_throw;

#define LEVEL(n, next)							\
static __noinline int chain_##n(int x)					\
{									\
	if (depth == n) {						\
		if (do_throw)						\
			bpf_throw(n);					\
		return x;						\
	}								\
	return next + 1;						\
}

LEVEL(8, x)
LEVEL(7, chain_8(x + 1))
LEVEL(6, chain_7(x + 1))
LEVEL(5, chain_6(x + 1))
LEVEL(4, chain_5(x + 1))
LEVEL(3, chain_4(x + 1))
LEVEL(2, chain_3(x + 1))

SEC("tc")
int throw_chain(struct __sk_buff *ctx)
{
	if (depth == 1) {
		if (do_throw)
			bpf_throw(1);
		return 1;
	}
	return chain_2(ctx->len) + 1;
}

struct prog_test_ref_kfunc *bpf_kfunc_call_test_acquire(unsigned long *sp) __ksym;
void bpf_kfunc_call_test_release(struct prog_test_ref_kfunc *p) __ksym;

static __noinline int hold0(int x)
{
	if (do_throw)
		bpf_throw(2);
	return x;
}

static __noinline int hold1(int x)
{
	struct prog_test_ref_kfunc *a;
	unsigned long sl = 0;

	a = bpf_kfunc_call_test_acquire(&sl);
	if (!a)
		return 0;
	if (do_throw)
		bpf_throw(2);
	bpf_kfunc_call_test_release(a);
	return x;
}

static __noinline int hold4(int x)
{
	struct prog_test_ref_kfunc *a, *b, *c, *d;
	unsigned long sl = 0;

	a = bpf_kfunc_call_test_acquire(&sl);
	if (!a)
		return 0;
	b = bpf_kfunc_call_test_acquire(&sl);
	if (!b)
		goto out_a;
	c = bpf_kfunc_call_test_acquire(&sl);
	if (!c)
		goto out_b;
	d = bpf_kfunc_call_test_acquire(&sl);
	if (!d)
		goto out_c;
	if (do_throw)
		bpf_throw(2);
	bpf_kfunc_call_test_release(d);
out_c:
	bpf_kfunc_call_test_release(c);
out_b:
	bpf_kfunc_call_test_release(b);
out_a:
	bpf_kfunc_call_test_release(a);
	return x;
}

SEC("tc")
int throw_hold0(struct __sk_buff *ctx)
{
	return hold0(ctx->len) + 1;
}

SEC("tc")
int throw_hold1(struct __sk_buff *ctx)
{
	return hold1(ctx->len) + 1;
}

SEC("tc")
int throw_hold4(struct __sk_buff *ctx)
{
	return hold4(ctx->len) + 1;
}

/* 2c: main holds the object across the calls */
static __noinline int held_leaf(int x)
{
	if (do_throw)
		bpf_throw(3);
	return x;
}

static __noinline int held_3(int x)
{
	return held_leaf(x) + 1;
}

static __noinline int held_2(int x)
{
	return held_3(x) + 1;
}

static __always_inline int caller_holds(struct __sk_buff *ctx, int deep)
{
	struct prog_test_ref_kfunc *a;
	unsigned long sl = 0;
	int r;

	a = bpf_kfunc_call_test_acquire(&sl);
	if (!a)
		return 0;
	r = deep ? held_2(ctx->len) : held_leaf(ctx->len);
	bpf_kfunc_call_test_release(a);
	return r + 1;
}

SEC("tc")
int throw_caller_hold_f2(struct __sk_buff *ctx)
{
	return caller_holds(ctx, 0);
}

SEC("tc")
int throw_caller_hold_f4(struct __sk_buff *ctx)
{
	return caller_holds(ctx, 1);
}

/* 2d: a throw from a bpf_loop() callback at iteration loop_at */
static int loop_cb_throw(__u32 i, void *ctx)
{
	if (i == loop_at)
		bpf_throw(0);
	return 0;
}

SEC("tc")
int loop_throw(struct __sk_buff *ctx)
{
	bpf_loop(16, loop_cb_throw, NULL, 0);
	return 1;
}
#endif /* BENCH_NO_THROW */

/* 2d: the same loop, stopped with a flag that the program checks */
struct loop_ctx {
	int err;
};

static int loop_cb_flag(__u32 i, void *ctx)
{
	struct loop_ctx *c = ctx;

	if (i == loop_at) {
		c->err = 1;
		return 1;
	}
	return 0;
}

SEC("tc")
int loop_flag(struct __sk_buff *ctx)
{
	struct loop_ctx c = {};

	bpf_loop(16, loop_cb_flag, &c, 0);
	return c.err ? 0 : 1;
}

SEC("tc")
int loop_flag_call(struct __sk_buff *ctx)
{
	struct loop_ctx c = {};

	bpf_loop(16, loop_cb_flag, &c, loop_flags);
	return c.err ? 0 : 1;
}
