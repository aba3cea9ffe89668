// SPDX-License-Identifier: GPL-2.0
/*
 * Programs for `make bench` (bench/bench.c).
 *
 * 1. The same packet-processing logic, one parser split into four subprogs
 *    (l1 -> l2 -> l3 -> l4), written three ways.  Every subprog takes a
 *    16-bit index from the packet and looks it up in a 64-entry table,
 *    which the verifier only allows with a bound on the index:
 *      a_*: bpf_assert_lt() on the index;
 *      b_*: an explicit check returning -1, propagated through every caller;
 *      c_*: no check: the index is masked (idx & 63);
 *      d_*: the check of (b), falling back to entry 0: no exception, no
 *           error propagation.
 * 2. A chain of 1 to 8 frames that throws at a given depth, or returns from
 *    it normally: the cost of a throw against a return.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "bpf_exceptions.h"

char _license[] SEC("license") = "GPL";

#define TABLE 64
#define WORDS 8		/* indexes read by the last subprog */
#define PKT_BYTES 64

__u32 table[TABLE];

/*
 * The parser of variants a, c and d: four subprogs and the program, which
 * differ only in v##_get(), the lookup of one index: one text, so that the
 * variants measured are the same code but for that.
 */
#define PARSER(v, name)							\
static __noinline __u32 v##_l4(__u16 *p)				\
{									\
	__u32 sum = 0;							\
	int i;								\
									\
	for (i = 0; i < WORDS; i++)					\
		sum += v##_get(p, 4 + i) ^ i;				\
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
static __always_inline __u32 a_get(__u16 *p, int i)
{
	__u32 idx = p[i];

	bpf_assert_lt(idx, TABLE);
	return table[idx];
}

PARSER(a, path_assert)

/* ---- 1b: explicit checks, errors returned through every caller ---- */
static __always_inline int b_get(__u16 *p, int i, __u32 *v)
{
	__u32 idx = p[i];

	if (idx >= TABLE)
		return -1;
	*v = table[idx];
	return 0;
}

static __noinline int b_l4(__u16 *p, __u32 *out)
{
	__u32 sum = 0, v;
	int i;

	for (i = 0; i < WORDS; i++) {
		if (b_get(p, 4 + i, &v))
			return -1;
		sum += v ^ i;
	}
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
