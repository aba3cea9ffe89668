// SPDX-License-Identifier: GPL-2.0
/*
 * Checks the x86-64 JIT's images of jitcheck.bpf.c's throwing programs
 * against the mitigations the running kernel uses, as 6.1's JIT emits
 * them for any program (emit_return(), emit_indirect_jump()):
 *
 * - where the kernel returns through a return thunk (CONFIG_RETHUNK, and
 *   a retbleed, SRSO or ITS mitigation that uses one), no `ret`: every
 *   return is a jump to the thunk;
 * - otherwise every return is a `ret`, followed by an `int3` with
 *   CONFIG_SLS;
 * - where the kernel uses retpolines for Spectre v2, no indirect jump or
 *   call: they go through the retpoline thunks; an `lfence` before each
 *   with the LFENCE variant; otherwise an `int3` after each with
 *   CONFIG_RETPOLINE or CONFIG_SLS.
 *
 * The programs run first (each throw returns what it should).  The images
 * are disassembled with objdump at their kernel addresses, the targets of
 * jumps out of them named from /proc/kallsyms, and every return and
 * indirect branch printed: the test's output is the dump it judged.
 * Exits non-zero on the first mismatch.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "jitcheck.skel.h"

#define MAX_FUNCS 16

struct ksym { unsigned long long addr; char name[128]; };
static struct ksym *ksyms;
static size_t nksyms;

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int load_kallsyms(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[256], type;
	size_t cap = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (nksyms == cap) {
			cap = cap ? 2 * cap : 65536;
			ksyms = realloc(ksyms, cap * sizeof(*ksyms));
			if (!ksyms)
				return -1;
		}
		if (sscanf(line, "%llx %c %127s", &ksyms[nksyms].addr, &type,
			   ksyms[nksyms].name) == 3)
			nksyms++;
	}
	fclose(f);
	qsort(ksyms, nksyms, sizeof(*ksyms), cmp_ksym);
	return nksyms && ksyms[nksyms - 1].addr ? 0 : -1;
}

/* The symbol at exactly addr, or NULL */
static const char *ksym_at(unsigned long long addr)
{
	size_t lo = 0, hi = nksyms;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ksyms[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < nksyms && ksyms[lo].addr == addr ? ksyms[lo].name : NULL;
}

/* Whether the running kernel's config has CONFIG_<name>=y: from
 * /proc/config.gz, or where Debian installs it
 */
static int config_y(const char *name)
{
	char cmd[192];

	snprintf(cmd, sizeof(cmd),
		 "{ zcat /proc/config.gz || cat /boot/config-$(uname -r); } 2>/dev/null |"
		 " grep -qx 'CONFIG_%s=y'", name);
	return system(cmd) == 0;
}

/* Whether a file of /sys/devices/system/cpu/vulnerabilities says what */
static int vuln_says(const char *file, const char *what)
{
	char path[128], line[256] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/vulnerabilities/%s", file);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(line, sizeof(line), f))
		line[0] = 0;
	fclose(f);
	return strcasestr(line, what) != NULL;
}

/* rethunk: 1 the kernel returns through a thunk, 0 not, -1 its reports
 * do not tell (then every return must only be of one kind)
 */
static int rethunk, retpoline, lfence, sls, config_retpoline;

/*
 * 6.1.192 returns through a thunk (X86_FEATURE_RETHUNK, with
 * CONFIG_RETHUNK) after the retbleed mitigation "unret" unless the SRSO
 * one is IBPB (not only on VM exit), which clears it, and after SRSO's safe RET and ITS's
 * aligned thunks.  On a CPU not of AMD's, retbleed reports "unret" and
 * IBPB alike.
 */
static int wants_rethunk(void)
{
	if (!config_y("RETHUNK"))
		return 0;
	if (vuln_says("spec_rstack_overflow", "safe ret") ||
	    vuln_says("indirect_target_selection", "return thunks"))
		return 1;
	if (vuln_says("retbleed", "non-AMD"))
		return -1;
	return vuln_says("retbleed", "untrained return thunk") &&
	       !(vuln_says("spec_rstack_overflow", "IBPB") &&
		 !vuln_says("spec_rstack_overflow", "VMEXIT"));
}

struct tally { int rets, thunk_rets, indirect, thunk_indirect, errors; };

/*
 * Disassembles one function's image at its address; prints and judges
 * every return and indirect branch.
 */
static void check_func(const char *prog, int idx, const unsigned char *img, unsigned int len,
		       unsigned long long addr, struct tally *t)
{
	char path[] = "/tmp/jitcheck.XXXXXX", cmd[256], line[512], prev[512] = "";
	int fd = mkstemp(path), want_int3 = 0;
	FILE *p;

	if (fd < 0 || write(fd, img, len) != (ssize_t)len) {
		perror("jitcheck: image");
		t->errors++;
		return;
	}
	close(fd);
	snprintf(cmd, sizeof(cmd),
		 "objdump -D -b binary -m i386:x86-64 --adjust-vma=0x%llx %s", addr, path);
	p = popen(cmd, "r");
	if (!p) {
		perror("jitcheck: objdump");
		t->errors++;
		return;
	}
	while (fgets(line, sizeof(line), p)) {
		char *tab1, *ins, mn[32] = "", op[128] = "";
		unsigned long long target;
		const char *sym = NULL;

		/* "  addr:\tbytes\tmnemonic operands" */
		tab1 = strchr(line, '\t');
		if (!tab1 || !strchr(line, ':') || !(ins = strchr(tab1 + 1, '\t')))
			continue;
		line[strcspn(line, "\n")] = 0;
		sscanf(ins + 1, "%31s %127s", mn, op);
		if (want_int3 && strcmp(mn, "int3")) {
			printf("%s/%d: no int3 after\n  %s\n", prog, idx, prev);
			t->errors++;
		}
		want_int3 = 0;
		if (!strncmp(mn, "ret", 3)) {
			t->rets++;
			printf("%s/%d: %s\n", prog, idx, line);
			if (rethunk == 1) {
				printf("  a ret where the kernel returns through a thunk\n");
				t->errors++;
			}
			want_int3 = sls;
		} else if ((!strncmp(mn, "jmp", 3) || !strncmp(mn, "call", 4)) && op[0] == '*') {
			t->indirect++;
			printf("%s/%d: %s\n", prog, idx, line);
			if (retpoline && !lfence) {
				printf("  an indirect branch where the kernel uses retpolines\n");
				t->errors++;
			}
			if (lfence && !strstr(prev, "lfence")) {
				printf("  no lfence before it\n");
				t->errors++;
			}
			want_int3 = !retpoline && !lfence && (config_retpoline || sls) &&
				    mn[0] == 'j';
		} else if (!strncmp(mn, "jmp", 3) && sscanf(op, "0x%llx", &target) == 1 &&
			   (target < addr || target >= addr + len)) {
			sym = ksym_at(target);
			if (sym && strstr(sym, "return_thunk")) {
				t->thunk_rets++;
				printf("%s/%d: %s <%s>\n", prog, idx, line, sym);
				if (rethunk == 0) {
					printf("  a return thunk where the kernel wants none\n");
					t->errors++;
				}
			} else if (sym && (strstr(sym, "indirect_thunk") ||
					   strstr(sym, "indirect_its_thunk"))) {
				t->thunk_indirect++;
				printf("%s/%d: %s <%s>\n", prog, idx, line, sym);
			}
		}
		snprintf(prev, sizeof(prev), "%s", line);
	}
	if (want_int3) {
		printf("%s/%d: no int3 after the last insn\n", prog, idx);
		t->errors++;
	}
	if (pclose(p)) {
		printf("jitcheck: objdump failed\n");
		t->errors++;
	}
	unlink(path);
}

/* Checks every function of prog; returns how many it has, -1 on error */
static int check_prog(struct bpf_program *prog, struct tally *t)
{
	unsigned long long ksyms_[MAX_FUNCS];
	__u32 lens[MAX_FUNCS], len = 0, i, off = 0;
	struct bpf_prog_info info = {};
	__u32 info_len = sizeof(info);
	unsigned char *img;
	int fd = bpf_program__fd(prog);

	if (bpf_obj_get_info_by_fd(fd, &info, &info_len) || !info.jited_prog_len ||
	    info.nr_jited_ksyms > MAX_FUNCS || info.nr_jited_func_lens > MAX_FUNCS)
		return -1;
	len = info.jited_prog_len;
	img = malloc(len);
	memset(&info, 0, sizeof(info));
	info.jited_prog_len = len;
	info.jited_prog_insns = (unsigned long)img;
	info.nr_jited_ksyms = MAX_FUNCS;
	info.jited_ksyms = (unsigned long)ksyms_;
	info.nr_jited_func_lens = MAX_FUNCS;
	info.jited_func_lens = (unsigned long)lens;
	if (!img || bpf_obj_get_info_by_fd(fd, &info, &info_len) || !ksyms_[0]) {
		fprintf(stderr, "jitcheck: cannot read the image of %s (root?)\n",
			bpf_program__name(prog));
		return -1;
	}
	for (i = 0; i < info.nr_jited_ksyms; i++) {
		check_func(bpf_program__name(prog), i, img + off, lens[i], ksyms_[i], t);
		off += lens[i];
	}
	free(img);
	return info.nr_jited_ksyms;
}

static int run(struct jitcheck *skel, struct bpf_program *prog, __u64 where, int expect)
{
	unsigned char pkt[64] = {};
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = pkt, .data_size_in = sizeof(pkt));

	skel->bss->where = where;
	if (bpf_prog_test_run_opts(bpf_program__fd(prog), &opts)) {
		perror("jitcheck: test_run");
		return 1;
	}
	if ((int)opts.retval == expect)
		return 0;
	fprintf(stderr, "jitcheck: %s with where %llu returned %d, expected %d\n",
		bpf_program__name(prog), (unsigned long long)where, opts.retval, expect);
	return 1;
}

int main(void)
{
	static const struct { __u64 where; int ret; } deep_cases[] = {
		{ 0, 5 }, { 1, 101 }, { 2, 102 }, { 3, 103 }, { 4, 104 }, { 7, 107 }, { 9, 42 },
		{ 10, 5 },
	};
	struct tally t = {};
	struct jitcheck *skel;
	int i, funcs = 0, n, failed = 0, zero = 0, tail_fd;

	/* every kernel config has it: without, the config was not read */
	if (!config_y("BPF_JIT")) {
		fprintf(stderr, "jitcheck: cannot read the kernel's config\n");
		return 1;
	}
	rethunk = wants_rethunk();
	retpoline = vuln_says("spectre_v2", "retpolines");
	lfence = vuln_says("spectre_v2", "lfence") && !retpoline;
	sls = config_y("SLS");
	config_retpoline = config_y("RETPOLINE");
	printf("jitcheck: return thunk %s, retpolines %s, lfence %s, SLS %s\n",
	       rethunk < 0 ? "either" : rethunk ? "yes" : "no", retpoline ? "yes" : "no", lfence ? "yes" : "no",
	       sls ? "yes" : "no");

	if (load_kallsyms()) {
		fprintf(stderr, "jitcheck: no addresses in /proc/kallsyms (root?)\n");
		return 1;
	}
	skel = jitcheck__open_and_load();
	if (!skel) {
		fprintf(stderr, "jitcheck: loading failed\n");
		return 1;
	}
	tail_fd = bpf_program__fd(skel->progs.tail_target);
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.jmp_table), &zero, &tail_fd, 0)) {
		perror("jitcheck: jmp_table");
		return 1;
	}
	failed |= run(skel, skel->progs.flat, 0, 1);
	failed |= run(skel, skel->progs.flat, 1, 0);
	for (i = 0; i < (int)(sizeof(deep_cases) / sizeof(deep_cases[0])); i++)
		failed |= run(skel, skel->progs.deep, deep_cases[i].where, deep_cases[i].ret);

	n = check_prog(skel->progs.flat, &t);
	funcs += n;
	failed |= n < 1;
	n = check_prog(skel->progs.deep, &t);
	funcs += n;
	failed |= n < 6;
	jitcheck__destroy(skel);

	/*
	 * Every function returns through its epilogue, and deep's
	 * trampoline check through one more (flat's throw code jumps to
	 * main's epilogue): each a
	 * ret or a jump to the thunk, none of one kind where the other is
	 * wanted (above).  deep's tail call is its one indirect jump.
	 */
	printf("jitcheck: %d functions: %d ret, %d jumps to a return thunk, "
	       "%d indirect branches, %d through a retpoline\n",
	       funcs, t.rets, t.thunk_rets, t.indirect, t.thunk_indirect);
	if (t.rets + t.thunk_rets != funcs + 1) {
		printf("jitcheck: expected %d returns\n", funcs + 1);
		failed = 1;
	}
	if (t.rets && t.thunk_rets) {
		printf("jitcheck: returns of both kinds\n");
		failed = 1;
	}
	if (t.indirect + t.thunk_indirect != 1) {
		printf("jitcheck: expected one indirect jump (the tail call)\n");
		failed = 1;
	}
	if (failed || t.errors) {
		printf("jitcheck: FAIL (%d mismatches)\n", t.errors);
		return 1;
	}
	printf("jitcheck: every return and indirect branch as the kernel's mitigations want\n");
	return 0;
}
