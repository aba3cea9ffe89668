// SPDX-License-Identifier: GPL-2.0
/*
 * `make bench`: the cost of BPF exceptions, measured side by side in one
 * boot.  Every figure is a median over interleaved rounds (each round runs
 * every variant once), printed with its [min..max] spread; ratios are
 * taken within a round, then their median.  Absolute times under QEMU TCG
 * mean little: read the ratios.
 *
 *   bench [ROUNDS [REPEAT]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "bench.skel.h"

#define MAX_ROUNDS 64
#define DEPTHS 8

static int rounds = 7, repeat = 50000;
static unsigned char pkt[128];

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct stat {
	double v[MAX_ROUNDS];
	int n;
};

static void add(struct stat *s, double v)
{
	s->v[s->n++] = v;
}

static double median(const struct stat *s)
{
	double t[MAX_ROUNDS];

	memcpy(t, s->v, sizeof(double) * s->n);
	qsort(t, s->n, sizeof(double), cmp_double);
	return s->n % 2 ? t[s->n / 2] : (t[s->n / 2 - 1] + t[s->n / 2]) / 2;
}

static double smin(const struct stat *s)
{
	double m = s->v[0];

	for (int i = 1; i < s->n; i++)
		m = s->v[i] < m ? s->v[i] : m;
	return m;
}

static double smax(const struct stat *s)
{
	double m = s->v[0];

	for (int i = 1; i < s->n; i++)
		m = s->v[i] > m ? s->v[i] : m;
	return m;
}

static const char *fmt(const struct stat *s, const char *f)
{
	static char buf[8][64];
	static int k;
	char a[16], b[16], c[16];

	k = (k + 1) % 8;
	snprintf(a, sizeof(a), f, median(s));
	snprintf(b, sizeof(b), f, smin(s));
	snprintf(c, sizeof(c), f, smax(s));
	snprintf(buf[k], sizeof(buf[k]), "%s [%s..%s]", a, b, c);
	return buf[k];
}

/* ns per run of one BPF_PROG_TEST_RUN with 'repeat' runs */
static double run_ns(struct bpf_program *prog, int *retval)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = pkt,
		    .data_size_in = sizeof(pkt), .repeat = repeat);

	if (bpf_prog_test_run_opts(bpf_program__fd(prog), &opts)) {
		perror("test_run");
		exit(1);
	}
	if (retval)
		*retval = opts.retval;
	return opts.duration;
}

static unsigned int jited_len(struct bpf_program *prog)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
		return 0;
	return info.jited_prog_len;
}

struct vstats {
	unsigned int insns, peak_states, total_states;
	double usec;
};

static void parse_log(const char *log, struct vstats *v)
{
	const char *p = strstr(log, "processed ");
	unsigned int limit, max_states;
	long long usec;

	if (p)
		sscanf(p, "processed %u insns (limit %u) max_states_per_insn %u total_states %u peak_states %u",
		       &v->insns, &limit, &max_states, &v->total_states, &v->peak_states);
	p = strstr(log, "verification time ");
	if (p && sscanf(p, "verification time %lld usec", &usec) == 1)
		v->usec = usec;
}

static char log_a[1 << 16], log_b[1 << 16];

/* Load the object, with the verifier's statistics for both paths, and
 * fill the parser's table
 */
static struct bench *load(struct vstats *a, struct vstats *b)
{
	struct bench *skel = bench__open();

	if (!skel) {
		fprintf(stderr, "bench__open failed\n");
		exit(1);
	}
	bpf_program__set_log_buf(skel->progs.path_assert, log_a, sizeof(log_a));
	bpf_program__set_log_level(skel->progs.path_assert, 4);
	bpf_program__set_log_buf(skel->progs.path_explicit, log_b, sizeof(log_b));
	bpf_program__set_log_level(skel->progs.path_explicit, 4);
	if (bench__load(skel)) {
		fprintf(stderr, "bench__load failed\n%s\n%s\n", log_a, log_b);
		exit(1);
	}
	parse_log(log_a, a);
	parse_log(log_b, b);
	for (int i = 0; i < 64; i++)
		skel->bss->table[i] = i * 2654435761u;
	return skel;
}

/* The verifier's statistics for the one program of an object file */
static int load_file_stats(const char *path, struct vstats *v)
{
	struct bpf_object *obj = bpf_object__open_file(path, NULL);
	struct bpf_program *prog;
	int err;

	if (!obj)
		return -1;
	prog = bpf_object__next_program(obj, NULL);
	bpf_program__set_log_buf(prog, log_a, sizeof(log_a));
	bpf_program__set_log_level(prog, 4);
	err = bpf_object__load(obj);
	if (!err)
		parse_log(log_a, v);
	else
		fprintf(stderr, "%s: %s\n", path, log_a);
	bpf_object__close(obj);
	return err;
}

int main(int argc, char **argv)
{
	struct stat ns_a = {}, ns_b = {}, ns_c = {}, ns_d = {};
	struct stat r_ab = {}, r_ac = {}, r_ad = {}, r_dc = {};
	struct stat ret_ns[DEPTHS] = {}, thr_ns[DEPTHS] = {}, ratio[DEPTHS] = {};
	struct stat vt_a = {}, vt_b = {};
	struct vstats va = {}, vb = {};
	struct bench *skel;
	unsigned int len_a, len_b, len_c, len_d;
	int r, d, ret_a, ret_b, ret_c, ret_d, ret;

	if (argc > 1)
		rounds = atoi(argv[1]);
	if (argc > 2)
		repeat = atoi(argv[2]);
	if (rounds < 1 || rounds > MAX_ROUNDS)
		rounds = 7;

	/* The indexes the parser reads, all in range: words 1..11 */
	for (d = 0; d < 64; d += 2)
		pkt[d] = (d * 7) % 64;

	skel = load(&va, &vb);
	len_a = jited_len(skel->progs.path_assert);
	len_b = jited_len(skel->progs.path_explicit);
	len_c = jited_len(skel->progs.path_nocheck);
	len_d = jited_len(skel->progs.path_checkonly);

	for (r = 0; r < rounds; r++) {
		double a = run_ns(skel->progs.path_assert, &ret_a);
		double b = run_ns(skel->progs.path_explicit, &ret_b);
		double c = run_ns(skel->progs.path_nocheck, &ret_c);
		double dd = run_ns(skel->progs.path_checkonly, &ret_d);

		if (ret_a != ret_b || ret_a != ret_c || ret_a != ret_d) {
			fprintf(stderr, "variants disagree: %d %d %d %d\n", ret_a, ret_b,
				ret_c, ret_d);
			return 1;
		}
		add(&ns_a, a);
		add(&ns_b, b);
		add(&ns_c, c);
		add(&ns_d, dd);
		add(&r_ab, a / b);
		add(&r_ac, a / c);
		add(&r_ad, a / dd);
		add(&r_dc, dd / c);
		for (d = 1; d <= DEPTHS; d++) {
			double tr, tt;

			skel->data->depth = d;
			skel->bss->do_throw = 0;
			tr = run_ns(skel->progs.throw_chain, &ret);
			skel->bss->do_throw = 1;
			tt = run_ns(skel->progs.throw_chain, &ret);
			if (ret != 0) {
				fprintf(stderr, "throw at depth %d returned %d\n", d, ret);
				return 1;
			}
			add(&ret_ns[d - 1], tr);
			add(&thr_ns[d - 1], tt);
			add(&ratio[d - 1], tt / tr);
		}
		/* Verification time: load the object again, before unloading
		 * the old one, so that no load pays for allocating JIT memory
		 * the unload just gave back
		 */
		if (r) {
			struct vstats a2 = {}, b2 = {};
			struct bench *old = skel;

			skel = load(&a2, &b2);
			bench__destroy(old);
			add(&vt_a, a2.usec);
			add(&vt_b, b2.usec);
		} else {
			add(&vt_a, va.usec);
			add(&vt_b, vb.usec);
		}
	}

	printf("BPF exceptions benchmark: %d interleaved rounds, BPF_PROG_TEST_RUN repeat=%d\n",
	       rounds, repeat);
	printf("medians [min..max]; ratios are per round, then their median\n\n");

	printf("1. Non-throwing path: one parser, four subprogs, 11 checked table lookups\n");
	printf("   %-22s %-28s %s\n", "variant", "ns/run", "JIT bytes");
	printf("   %-22s %-28s %u\n", "(a) bpf_assert", fmt(&ns_a, "%.1f"), len_a);
	printf("   %-22s %-28s %u\n", "(b) explicit checks", fmt(&ns_b, "%.1f"), len_b);
	printf("   %-22s %-28s %u\n", "(c) no checks", fmt(&ns_c, "%.1f"), len_c);
	printf("   %-22s %-28s %u\n", "(d) checks, no throw", fmt(&ns_d, "%.1f"), len_d);
	printf("   %-22s %-28s target <= 1.00\n", "a/b", fmt(&r_ab, "%.3f"));
	printf("   %-22s %-28s target <= 1.05\n", "a/c", fmt(&r_ac, "%.3f"));
	printf("   %-22s %-28s what exceptions add to the checks\n", "a/d", fmt(&r_ad, "%.3f"));
	printf("   %-22s %-28s what the checks cost by themselves\n", "d/c", fmt(&r_dc, "%.3f"));
	printf("   %-22s %-28.3f target <= 1.00 (assert <= explicit)\n\n", "JIT bytes a/b",
	       (double)len_a / len_b);

	printf("2. Cost of a throw: throw at frame N (1 = main) against a return from it\n");
	printf("   %-6s %-26s %-26s %s\n", "frame", "return ns/run", "throw ns/run", "throw/return");
	for (d = 0; d < DEPTHS; d++)
		printf("   %-6d %-26s %-26s %s\n", d + 1, fmt(&ret_ns[d], "%.1f"),
		       fmt(&thr_ns[d], "%.1f"), fmt(&ratio[d], "%.2f"));
	printf("   per extra frame: throw +%.1f ns, return +%.1f ns (medians, frame 1 -> %d)\n",
	       (median(&thr_ns[DEPTHS - 1]) - median(&thr_ns[0])) / (DEPTHS - 1),
	       (median(&ret_ns[DEPTHS - 1]) - median(&ret_ns[0])) / (DEPTHS - 1), DEPTHS);
	printf("   target: throw/return <= 3 at frame %d, and a frame adds to a throw at most\n"
	       "   what it adds to a return\n\n", DEPTHS);

	printf("3. Verification of the parser: assertions against explicit error propagation\n");
	printf("   %-22s %-12s %-12s %s\n", "", "(a) assert", "(b) explicit", "a/b");
	printf("   %-22s %-12u %-12u %.3f   target <= 0.70\n", "insns processed",
	       va.insns, vb.insns, (double)va.insns / vb.insns);
	printf("   %-22s %-12u %-12u %.3f\n", "peak states", va.peak_states, vb.peak_states,
	       (double)va.peak_states / vb.peak_states);
	printf("   %-22s %-12u %-12u %.3f\n", "total states", va.total_states, vb.total_states,
	       (double)va.total_states / vb.total_states);
	printf("   %-22s %-12.0f %-12.0f %.3f   (median usec)\n", "verification time",
	       median(&vt_a), median(&vt_b), median(&vt_a) / median(&vt_b));
	{
		struct vstats pa = {}, pb = {};

		if (load_file_stats("bench_parser_assert.bpf.o", &pa) ||
		    load_file_stats("bench_parser_explicit.bpf.o", &pb)) {
			fprintf(stderr, "loading the demo parsers failed\n");
			return 1;
		}
		printf("\n   The demo's XDP parser (Ethernet, IPv4, TCP/UDP; examples/packet-parser)\n");
		printf("   against the same parser with explicit error propagation (bench/):\n");
		printf("   %-22s %-12u %-12u %.3f   target <= 0.70\n", "insns processed",
		       pa.insns, pb.insns, (double)pa.insns / pb.insns);
		printf("   %-22s %-12u %-12u %.3f\n", "peak states", pa.peak_states,
		       pb.peak_states, (double)pa.peak_states / pb.peak_states);
	}
	bench__destroy(skel);
	return 0;
}
