// SPDX-License-Identifier: GPL-2.0
/*
 * The exception callback named by a decl tag, __exception_cb(), as
 * upstream's programs name it (cbtag.c loads each program on its own).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_exceptions.h>

char _license[] SEC("license") = "GPL";

int do_throw;

__noinline int tag_cb(__u64 cookie)
{
	return cookie + 100;
}

__noinline int tag_cb2(__u64 cookie)
{
	return cookie + 200;
}

/* Returns 1, or 107 after a throw from a subprog */
static __noinline int thrower(int x)
{
	if (do_throw)
		bpf_throw(7);
	return x;
}

SEC("tc") __exception_cb(tag_cb)
int tag_throws(struct __sk_buff *ctx)
{
	return thrower(1);
}

static int static_cb(__u64 cookie)
{
	return 0;
}

/* Both ways at once: rejected */
SEC("tc") __exception_cb(tag_cb)
int tag_and_setter(struct __sk_buff *ctx)
{
	bpf_set_exception_callback(static_cb);
	return thrower(1);
}

/* Two tags: rejected */
SEC("tc") __exception_cb(tag_cb) __exception_cb(tag_cb2)
int tag_twice(struct __sk_buff *ctx)
{
	return thrower(1);
}

__noinline int throwing_cb(__u64 cookie)
{
	if (cookie == 7)
		bpf_throw(8);
	return 0;
}

/* A callback that throws: rejected */
SEC("tc") __exception_cb(throwing_cb)
int tag_cb_throws(struct __sk_buff *ctx)
{
	return thrower(1);
}

static __noinline int called_cb(__u64 cookie)
{
	return cookie;
}

/* A static function as callback (called, so that any libbpf keeps it):
 * rejected
 */
SEC("tc") __exception_cb(called_cb)
int tag_static(struct __sk_buff *ctx)
{
	return thrower(called_cb(ctx->len));
}
