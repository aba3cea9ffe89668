// SPDX-License-Identifier: GPL-2.0
/*
 * Loads each program of cbtag.bpf.c on its own and checks what the kernel
 * (and libbpf) make of the exception callback named by a decl tag:
 *   cbtag-new: built against libbpf 1.5 (linux-source-6.12's), which keeps
 *              the tagged callback in the program: the program throws and
 *              returns the callback's value; bad uses fail with the
 *              verifier's message;
 *   cbtag-old: built against Debian's libbpf 1.1, which leaves the callback
 *              out: the load fails with a message that says so.
 * Exits non-zero on the first mismatch.
 */
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "cbtag.skel.h"

static char log_buf[1 << 16];
static int failures;

/* Load program 'name' alone; 'expect' NULL: it must load, else fail with
 * that text in the verifier's log
 */
static struct cbtag *load_one(const char *name, const char *expect)
{
	struct cbtag *skel = cbtag__open();
	struct bpf_program *p, *prog = NULL;
	int err;

	if (!skel) {
		fprintf(stderr, "cbtag__open failed\n");
		failures++;
		return NULL;
	}
	bpf_object__for_each_program(p, skel->obj) {
		bool me = !strcmp(bpf_program__name(p), name);

		bpf_program__set_autoload(p, me);
		if (me)
			prog = p;
	}
	log_buf[0] = 0;
	bpf_program__set_log_buf(prog, log_buf, sizeof(log_buf));
	err = cbtag__load(skel);
	if (!expect && err) {
		fprintf(stderr, "%s: load failed (%d)\n%s\n", name, err, log_buf);
		failures++;
	} else if (expect && !err) {
		fprintf(stderr, "%s: loaded; expected a failure: %s\n", name, expect);
		failures++;
	} else if (expect && !strstr(log_buf, expect)) {
		fprintf(stderr, "%s: failed without \"%s\" in the log:\n%s\n", name, expect,
			log_buf);
		failures++;
	} else {
		printf("%s: %s\n", name, expect ? expect : "loaded");
		if (!expect)
			return skel;
	}
	cbtag__destroy(skel);
	return NULL;
}

static void run(struct cbtag *skel, int do_throw, int expect)
{
	unsigned char pkt[64] = {};
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = pkt, .data_size_in = sizeof(pkt));

	skel->bss->do_throw = do_throw;
	if (bpf_prog_test_run_opts(bpf_program__fd(skel->progs.tag_throws), &opts) ||
	    opts.retval != expect) {
		fprintf(stderr, "tag_throws (throw %d): returned %d, expected %d\n", do_throw,
			opts.retval, expect);
		failures++;
	}
}

int main(void)
{
	struct cbtag *skel;

	printf("libbpf %u.%u\n", libbpf_major_version(), libbpf_minor_version());
	if (libbpf_major_version() == 1 && libbpf_minor_version() < 3) {
		/* the callback is not in the program */
		load_one("tag_throws", "exception callback 'tag_cb' not found in the program");
		load_one("tag_static", "exception callback 'called_cb' must be a global function");
	} else {
		skel = load_one("tag_throws", NULL);
		if (skel) {
			run(skel, 0, 1);
			run(skel, 1, 107);
			cbtag__destroy(skel);
		}
		load_one("tag_and_setter",
			 "bpf_set_exception_callback cannot be used with an exception_callback decl tag");
		load_one("tag_twice", "multiple exception callback tags for main prog");
		load_one("tag_cb_throws", "bpf_throw cannot be called from exception callback");
	}
	return failures ? 1 : 0;
}
