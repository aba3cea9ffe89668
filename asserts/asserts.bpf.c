// SPDX-License-Identifier: GPL-2.0
/*
 * The assertion macros of bpf_exceptions.h as a program outside the kernel
 * tree uses them, built by `make check` with every clang Debian ships
 * (14, 16, 19) for -mcpu=v1 and v3 (asserts.c runs each build).
 *
 * 1. Every form throws exactly when its condition is false, with its
 *    cookie: the seed's bpf_assert_<op>[_value]() and upstream's
 *    bpf_assert[_with](bpf_cmp_unlikely/likely()), bpf_assert_range[_with]().
 * 2. The bound reaches the verifier: a value the verifier knows nothing
 *    about (the result of a global function) is asserted and then indexes
 *    an array three calls deep, with no barrier_var() in the program: the
 *    object loads only if the verifier saw the bound, for u32, s32, u64
 *    and s64 values and for every form.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_exceptions.h>

char _license[] SEC("license") = "GPL";

/* Inputs from asserts.c */
int which;
__s64 sval;
__u64 uval;
__u64 seen_cookie;

static int cb(__u64 cookie)
{
	seen_cookie = cookie;
	return 2;
}

/* 1. One condition per case: the program returns 1 when it holds, the
 * callback 2 when it throws
 */
SEC("tc")
int forms(struct __sk_buff *ctx)
{
	__s64 s = sval;
	__u64 u = uval;
	__s32 s32 = sval;
	__u32 u32 = uval;

	bpf_set_exception_callback(cb);
	switch (which) {
	case 0: bpf_assert_eq(s, 5); break;
	case 1: bpf_assert_ne(s, 5); break;
	case 2: bpf_assert_lt(s, -5); break;
	case 3: bpf_assert_gt(s, -5); break;
	case 4: bpf_assert_le(u, 5); break;
	case 5: bpf_assert_ge(u, 5); break;
	case 6: bpf_assert_lt_value(u32, 0x80000000u, 6); break;
	case 7: bpf_assert_ge_value(s32, -100, 7); break;
	case 8: bpf_assert(bpf_cmp_unlikely(s, <, 5)); break;
	case 9: bpf_assert_with(bpf_cmp_likely(u, >, 5), 9); break;
	case 10: bpf_assert_with(bpf_cmp_unlikely(u, <, 0x100000000ULL), 10); break;
	case 11: bpf_assert_with(bpf_cmp_likely(s32, >=, 0), 11); break;
	case 12: bpf_assert_range(s, -3, 3); break;
	case 13: bpf_assert_range_with(u32, 10, 20, 13); break;
	case 14: bpf_assert_with(bpf_cmp_unlikely(s, ==, (__s64)uval), 14); break;
	case 15: bpf_assert_with(bpf_cmp_likely(u32, !=, 7), 15); break;
	/* the first forms' cookie is an immediate, sign-extended; a bound
	 * that does not fit one is in a register
	 */
	case 16: bpf_assert_lt_value(u, 5, -7); break;
	case 17: bpf_assert_range_with(s, -3, 3, 0x7fffffff); break;
	case 18: bpf_assert_lt_value(s, 0x100000000LL, 18); break;
	}
	return 1;
}

/* 2. An asserted value indexes an array three calls deep.  The verifier
 * knows nothing of a global variable's value: without the bound from the
 * assertion the load fails ("unbounded memory access").  A program returns
 * 10 + table[i] + 2, or 2 from the callback.
 */
__u64 table[16];

#define BOUND(T, name, ASSERT)						\
static __noinline __u64 name##_3(T i)					\
{									\
	return table[i];						\
}									\
static __noinline __u64 name##_2(T i)					\
{									\
	return name##_3(i) + 1;						\
}									\
static __noinline __u64 name##_1(T i)					\
{									\
	return name##_2(i) + 1;						\
}									\
SEC("tc")								\
int name(struct __sk_buff *ctx)						\
{									\
	T i = uval;							\
									\
	bpf_set_exception_callback(cb);					\
	ASSERT;								\
	return name##_1(i) + 10;					\
}

BOUND(__u32, bound_u32_seed, bpf_assert_lt_value(i, 16, 0x32))
BOUND(__u32, bound_u32_cmp, bpf_assert_with(bpf_cmp_unlikely(i, <, 16), 0x32))
BOUND(__u32, bound_u32_range, bpf_assert_range_with(i, 0, 15, 0x32))
BOUND(__u64, bound_u64_seed, bpf_assert_le_value(i, 15, 0x64))
BOUND(__u64, bound_u64_cmp, bpf_assert_with(bpf_cmp_likely(i, <=, 15), 0x64))
BOUND(__u64, bound_u64_range, bpf_assert_range_with(i, 0, 15, 0x64))
BOUND(__s32, bound_s32_seed, ({ bpf_assert_ge_value(i, 0, 0x132);
				bpf_assert_lt_value(i, 16, 0x132); }))
BOUND(__s32, bound_s32_cmp, ({ bpf_assert_with(bpf_cmp_unlikely(i, >=, 0), 0x132);
			       bpf_assert_with(bpf_cmp_unlikely(i, <, 16), 0x132); }))
BOUND(__s32, bound_s32_range, bpf_assert_range_with(i, 0, 15, 0x132))
BOUND(__s64, bound_s64_seed, ({ bpf_assert_gt_value(i, -1, 0x164);
				bpf_assert_le_value(i, 15, 0x164); }))
BOUND(__s64, bound_s64_cmp, ({ bpf_assert_with(bpf_cmp_likely(i, >, -1), 0x164);
			       bpf_assert_with(bpf_cmp_likely(i, <, 16), 0x164); }))
BOUND(__s64, bound_s64_range, bpf_assert_range_with(i, 0, 15, 0x164))
