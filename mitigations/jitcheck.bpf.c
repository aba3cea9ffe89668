// SPDX-License-Identifier: GPL-2.0
/*
 * Programs whose x86-64 JIT images jitcheck.c reads against the kernel's
 * mitigations: every kind of code the JIT emits for a throw.
 *
 * - flat: no subprogs, throws from main (the throw code returns 0 through
 *   main's epilogue);
 * - deep: main -> f1 -> f2 -> f3, each of which may throw (the throw code
 *   of every frame, the trampoline check and its return, main's entry of
 *   the callback), an assertion fused with its throw (in shared(), which
 *   has more callers than the throw code goes on to: its walk entry), and
 *   a tail call (6.1's indirect jump).
 *
 * A throw returns 100 + its cookie through the callback; a return, the
 * input plus what each frame adds.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_exceptions.h>

char _license[] SEC("license") = "GPL";

/* Input from jitcheck.c: the frame to throw from (1 main ... 4 f3; 7 is
 * shared()'s assertion; 9 the tail call, 10 a tail call
 * past the array's end, which falls through; 0 none)
 */
__u64 where;

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} jmp_table SEC(".maps");

static __noinline int cb(__u64 cookie)
{
	return 100 + cookie;
}

SEC("tc")
int flat(struct __sk_buff *ctx)
{
	if (where == 1)
		bpf_throw(1);
	return 1;
}

static __noinline int shared(__u64 x)
{
	bpf_assert_ne_value(x, 7, 7);
	return x & 1;
}

static __noinline int f3(__u64 x)
{
	if (x == 4)
		bpf_throw(4);
	return shared(x) + 1;
}

static __noinline int f2(__u64 x)
{
	if (x == 3)
		bpf_throw(3);
	return f3(x) + shared(x + 1) + 1;
}

static __noinline int f1(__u64 x)
{
	if (x == 2)
		bpf_throw(2);
	return f2(x) + shared(x + 2) + 1;
}

SEC("tc")
int deep(struct __sk_buff *ctx)
{
	__u64 x = where;

	bpf_set_exception_callback(cb);
	if (x == 1)
		bpf_throw(1);
	/* a key the verifier does not know: 6.1's indirect tail call */
	if (x >= 9)
		bpf_tail_call(ctx, &jmp_table, x - 9);
	return f1(x) + shared(x + 3);
}

SEC("tc")
int tail_target(struct __sk_buff *ctx)
{
	return 42;
}
