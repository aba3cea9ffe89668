// SPDX-License-Identifier: GPL-2.0
/*
 * `make bench`: the cost of BPF exceptions, measured side by side in one
 * boot.  Every figure is a median over interleaved rounds (each round runs
 * every variant once), printed with its [min..max] spread; ratios are
 * taken within a round, then their median.
 *
 *   bench [-i] [ROUNDS [REPEAT]]
 *   bench -n [REPEAT]
 *
 * -i: the guest runs in QEMU's instruction-count mode, where a nanosecond
 * of guest time is one executed instruction: BPF_PROG_TEST_RUN's duration
 * is then instructions per run (the test_run loop's own included, the same
 * for every variant), identical from round to round.  Without it the
 * figures are TCG wall-clock nanoseconds (each the fastest of five slices
 * of the runs, run_pkt()), noisy and without a real CPU's branch costs:
 * read their ratios.
 * -n: one line per program of bench_nothrow.bpf.o (the programs that cannot
 * throw), "NOTHROW name jit-bytes per-run", for a side-by-side run on a
 * kernel without the series.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <netinet/in.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "bench.skel.h"

#define MAX_ROUNDS 64
#define DEPTHS 8

/*
 * What the guest's JIT cannot run, as docs/limits.md says: NULL where it
 * can, else why not.  6.1's s390x and ppc64el JITs (the bench runs on the
 * architecture it is built for) do not mix tail calls with subprogs, as
 * the flow dissector converted to assertions does with its exception
 * callback (section 4).  The s390x ABI returns the catching helpers'
 * struct in memory, so a helper's callback may not throw there (section
 * 2d); and s390x's 6.1 offers no bpf_probe_read_str(), which the profiler
 * calls.
 */
#if defined(__s390x__) || defined(__powerpc64__)
#define NO_SUBPROG_TAIL_CALLS "no tail calls beside subprogs on this JIT"
#else
#define NO_SUBPROG_TAIL_CALLS ((const char *)NULL)
#endif
#ifdef __s390x__
#define NO_CALLBACK_THROW "a helper's callback may not throw on this JIT"
#define NO_PROBE_READ "no bpf_probe_read_str() on s390x"
#else
#define NO_CALLBACK_THROW ((const char *)NULL)
#define NO_PROBE_READ ((const char *)NULL)
#endif

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

/*
 * With TCG's wall clock, each figure is the fastest of 'slices'
 * BPF_PROG_TEST_RUNs of repeat / slices runs each.  The host takes its
 * CPUs from the guest in bursts (steal time up to 14% seen here): a slice
 * that a burst falls into reads slow, the fastest one is the program's
 * cost.  Instruction counts need no such care: one run of 'repeat'.
 */
static int slices = 1;

/* Time (or instructions) per run of prog on the packet data */
static double run_pkt(struct bpf_program *prog, const void *data, size_t size, int *retval)
{
	static unsigned char out[256];
	double best = 0;

	for (int i = 0; i < slices; i++) {
		LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = data, .data_size_in = size,
			    .data_out = out, .data_size_out = sizeof(out),
			    .repeat = repeat / slices);

		if (bpf_prog_test_run_opts(bpf_program__fd(prog), &opts)) {
			perror("test_run");
			exit(1);
		}
		if (retval)
			*retval = opts.retval;
		if (!i || opts.duration < best)
			best = opts.duration;
	}
	return best;
}

/* The same on the bench's own packet */
static double run_ns(struct bpf_program *prog, int *retval)
{
	return run_pkt(prog, pkt, sizeof(pkt), retval);
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

/*
 * The shapes of section 1: the same logic written with assertions (a),
 * explicit checks (b), no checks (c) and, for the parser, the checks
 * without exceptions or error propagation (d).
 */
enum { VA, VB, VC, VD, VARIANTS };
static const char *const variant_name[VARIANTS] = {
	"(a) bpf_assert", "(b) explicit checks", "(c) no checks", "(d) checks, no throw",
};

struct shape {
	const char *title;
	const char *prog[VARIANTS];
	struct bpf_program *p[VARIANTS];
	struct vstats v[VARIANTS];
	char *log[VARIANTS];
	unsigned int bytes[VARIANTS];
	struct stat run[VARIANTS], ab, ac, ad;
};

static struct shape shapes[] = {
	{ "parser: four subprogs, 11 checks, errors returned through every caller",
	  { "path_assert", "path_explicit", "path_nocheck", "path_checkonly" } },
	{ "regs: main keeps four results in R6-R9 across calls, 11 checks",
	  { "regs_assert", "regs_explicit", "regs_nocheck" } },
	{ "flat: one function, 8 checks, a cookie (error code) each",
	  { "flat_assert", "flat_explicit", "flat_nocheck" } },
};

#define NSHAPES (sizeof(shapes) / sizeof(shapes[0]))
#define LOG_SIZE (1 << 16)

static char log_chain[LOG_SIZE];

/* Load the object, with the verifier's statistics for every shape, and
 * fill the table
 */
static struct bench *load(void)
{
	struct bench *skel = bench__open();
	unsigned int s, k;

	if (!skel) {
		fprintf(stderr, "bench__open failed\n");
		exit(1);
	}
	for (s = 0; s < NSHAPES; s++) {
		for (k = 0; k < VARIANTS; k++) {
			struct shape *sh = &shapes[s];

			if (!sh->prog[k])
				continue;
			sh->p[k] = bpf_object__find_program_by_name(skel->obj, sh->prog[k]);
			if (!sh->p[k]) {
				fprintf(stderr, "no program %s\n", sh->prog[k]);
				exit(1);
			}
			if (!sh->log[k])
				sh->log[k] = malloc(LOG_SIZE);
			sh->log[k][0] = 0;
			bpf_program__set_log_buf(sh->p[k], sh->log[k], LOG_SIZE);
			bpf_program__set_log_level(sh->p[k], 4);
		}
	}
	bpf_program__set_log_buf(skel->progs.throw_chain, log_chain, sizeof(log_chain));
	if (NO_CALLBACK_THROW)
		bpf_program__set_autoload(skel->progs.loop_throw, false);
	if (bench__load(skel)) {
		fprintf(stderr, "bench__load failed\n");
		for (s = 0; s < NSHAPES; s++)
			for (k = 0; k < VARIANTS; k++)
				if (shapes[s].log[k] && shapes[s].log[k][0])
					fprintf(stderr, "%s:\n%s\n", shapes[s].prog[k],
						shapes[s].log[k]);
		exit(1);
	}
	for (s = 0; s < NSHAPES; s++)
		for (k = 0; k < VARIANTS; k++)
			if (shapes[s].p[k])
				parse_log(shapes[s].log[k], &shapes[s].v[k]);
	for (int i = 0; i < 64; i++)
		skel->bss->table[i] = i * 2654435761u;
	return skel;
}

static char log_file[LOG_SIZE];

/* The verifier's statistics for the one program of an object file */
static int load_file_stats(const char *path, struct vstats *v)
{
	struct bpf_object *obj = bpf_object__open_file(path, NULL);
	struct bpf_program *prog;
	int err;

	if (!obj)
		return -1;
	prog = bpf_object__next_program(obj, NULL);
	bpf_program__set_log_buf(prog, log_file, sizeof(log_file));
	bpf_program__set_log_level(prog, 4);
	err = bpf_object__load(obj);
	if (!err)
		parse_log(log_file, v);
	else
		fprintf(stderr, "%s: %s\n", path, log_file);
	bpf_object__close(obj);
	return err;
}

/*
 * bench -n: the programs that cannot throw, as the kernel at hand JITs and
 * runs them; harness/bench.sh runs this on the unpatched kernel too.
 */
static int nothrow(void)
{
	struct bpf_object *obj = bpf_object__open_file("bench_nothrow.bpf.o", NULL);
	struct bpf_program *prog;

	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "loading bench_nothrow.bpf.o failed\n");
		return 1;
	}
	bpf_object__for_each_program(prog, obj) {
		double t = run_ns(prog, NULL);

		printf("NOTHROW %-20s %6u %8.1f\n", bpf_program__name(prog),
		       jited_len(prog), t);
	}
	bpf_object__close(obj);
	return 0;
}

/*
 * Section 4: programs of the tree from real projects, as the tree has them
 * and converted to assertions (convert/), both built by the harness's
 * selftests build (clang 14 -O2 -mcpu=v3): the verifier's figures, JIT
 * bytes (all functions) and cost per run of each program of the object.
 */
struct real_prog {
	const char *name;		/* program in both objects */
	const void *pkt;		/* the packet, or a raw tracepoint's args */
	size_t pkt_len;
	const char *what;		/* the input */
	/* what the object is given for this input, undone after (optional) */
	int (*input)(struct bpf_object *obj, bool on);
};

struct real_obj {
	const char *title, *orig, *conv;
	int (*setup)(struct bpf_object *obj);
	struct real_prog progs[2];
	const char *not_here;	/* why this JIT cannot run it, or NULL */
};

/* The packets of the tree's network_helpers.c */
struct pkt_v4_tcp {
	struct ethhdr eth;
	struct iphdr iph;
	struct tcphdr tcp;
} __attribute__((packed));

/* network_helpers.c's pkt_v4, with a TCP header of @doff_words words */
#define PKT_V4_TCP(doff_words) {				\
	.eth.h_proto = __constant_htons(ETH_P_IP),		\
	.iph.ihl = 5,						\
	.iph.protocol = IPPROTO_TCP,				\
	.iph.tot_len = __constant_htons(123),			\
	.tcp.urg_ptr = 123,					\
	.tcp.doff = (doff_words),				\
}

static struct pkt_v4_tcp pkt_v4 = PKT_V4_TCP(5);

static struct __attribute__((packed)) {
	struct ethhdr eth;
	struct ipv6hdr iph;
	struct tcphdr tcp;
} pkt_v6 = {
	.eth.h_proto = __constant_htons(ETH_P_IPV6),
	.iph.nexthdr = IPPROTO_TCP,
	.iph.payload_len = __constant_htons(123),
	.tcp.urg_ptr = 123,
	.tcp.doff = 5,
};

/* The maps as prog_tests/xdp_noinline.c fills them */
static int setup_xdp_noinline(struct bpf_object *obj)
{
	struct { __u32 daddr[4]; __u16 dport, family; __u8 protocol; } vip = { .protocol = 6 };
	struct { __u32 flags, vip_num; } meta = { .vip_num = 5 };
	struct { __u32 dst[4]; __u8 flags; } real = { .dst = { 0x1234 } };
	__u32 ch_key = 11, real_num = 3;

	return bpf_map_update_elem(bpf_object__find_map_fd_by_name(obj, "vip_map"), &vip, &meta, 0) ||
	       bpf_map_update_elem(bpf_object__find_map_fd_by_name(obj, "ch_rings"), &ch_key,
				   &real_num, 0) ||
	       bpf_map_update_elem(bpf_object__find_map_fd_by_name(obj, "reals"), &real_num,
				   &real, 0);
}

/* A GUE packet for cls_redirect (its encapsulation address and port left
 * 0) with one next hop, carrying a fragment of an IPv4 packet: dropped as
 * invalid, deep in the inner packet's processing
 */
static struct __attribute__((packed)) {
	struct ethhdr eth;
	struct iphdr ip;
	struct udphdr udp;
	__u8 gue[4], unigue[4];
	__u32 next_hop;
	struct iphdr inner;
	__u8 payload[32];
} pkt_gue = {
	.eth.h_proto = __constant_htons(ETH_P_IP),
	.ip = { .version = 4, .ihl = 5, .protocol = IPPROTO_UDP, .ttl = 64,
		.tot_len = __constant_htons(sizeof(pkt_gue) - sizeof(struct ethhdr)) },
	.udp.len = __constant_htons(sizeof(pkt_gue) - sizeof(struct ethhdr) -
				    sizeof(struct iphdr)),
	.gue = { 2 /* hlen: unigue and one hop, in words */, IPPROTO_IPIP },
	.unigue = { 0, 0, 0 /* next hop */, 1 /* hops */ },
	.next_hop = 0x04030201,
	.inner = { .version = 4, .ihl = 5, .protocol = IPPROTO_TCP, .ttl = 64,
		   .frag_off = __constant_htons(0x2000) /* MF */,
		   .tot_len = __constant_htons(sizeof(struct iphdr) + 32) },
};

/* pkt_v4 with a TCP header too short (doff 3): the flow dissector drops
 * it as malformed
 */
static struct pkt_v4_tcp pkt_v4_short_tcp = PKT_V4_TCP(3);

static int setup_none(struct bpf_object *obj)
{
	return 0;
}

/* The args prog_tests/test_profiler.c runs the exec program with: the
 * binprm (args[2]) is no pointer, so its reads fail and read zeroes
 */
static __u64 profiler_args[] = { 1, 2, 3 };

/* Set or clear a bool of the profiler's configuration, the global
 * bpf_config in its .bss, at its offset in the object's BTF
 */
static int profiler_config(struct bpf_object *obj, const char *field, bool on)
{
	struct bpf_map *bss = bpf_object__find_map_by_name(obj, ".bss");
	const struct btf *btf = bpf_object__btf(obj);
	int id = btf__find_by_name_kind(btf, "profiler_config_struct", BTF_KIND_STRUCT);
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	const struct btf_member *m = t ? btf_members(t) : NULL;
	__u32 zero = 0;
	char *val;
	int i, err;

	if (!bss || !t)
		return -1;
	for (i = 0; i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(btf, m[i].name_off), field))
			break;
	val = calloc(1, bpf_map__value_size(bss));
	if (i == btf_vlen(t) || !val ||
	    bpf_map_lookup_elem(bpf_map__fd(bss), &zero, val)) {
		free(val);
		return -1;
	}
	/* bpf_config is the only variable of the .bss: at offset 0 */
	val[btf_member_bit_offset(t, i) / 8] = on;
	err = bpf_map_update_elem(bpf_map__fd(bss), &zero, val, 0);
	free(val);
	return err;
}

/* A longer path: the exec program also reads the task's cgroup path and
 * environment
 */
static int profiler_long_path(struct bpf_object *obj, bool on)
{
	return profiler_config(obj, "fetch_cgroups_from_bpf", on) ||
	       profiler_config(obj, "read_environ_from_exec", on);
}

static const struct real_obj real_objs[] = {
	{ "test_xdp_noinline: Facebook's XDP load balancer (katran), noinline",
	  "test_xdp_noinline.bpf.o", "test_xdp_noinline_assert.bpf.o", setup_xdp_noinline,
	  { { "balancer_ingress_v4", &pkt_v4, sizeof(pkt_v4), "IPv4 TCP, encapsulated" },
	    { "balancer_ingress_v6", &pkt_v6, sizeof(pkt_v6), "IPv6 TCP, encapsulated" } } },
	{ "test_cls_redirect: Cloudflare's tc cls_redirect, inlined",
	  "test_cls_redirect.bpf.o", "test_cls_redirect_assert.bpf.o", setup_none,
	  { { "cls_redirect", &pkt_gue, sizeof(pkt_gue), "GUE, inner fragment: dropped" } } },
	{ "test_cls_redirect_subprogs: the same with subprogs",
	  "test_cls_redirect_subprogs.bpf.o", "test_cls_redirect_subprogs_assert.bpf.o", setup_none,
	  { { "cls_redirect", &pkt_gue, sizeof(pkt_gue), "GUE, inner fragment: dropped" } } },
	/* The IPv4 program, which _dissect tail calls, run directly */
	{ "bpf_flow: the tree's flow dissector, its IPv4 program",
	  "bpf_flow.bpf.o", "bpf_flow_assert.bpf.o", setup_none,
	  { { "flow_dissector_0", &pkt_v4, sizeof(pkt_v4), "IPv4 TCP: dissected" },
	    { "flow_dissector_0", &pkt_v4_short_tcp, sizeof(pkt_v4_short_tcp),
	      "IPv4 TCP, header too short: dropped" } }, NO_SUBPROG_TAIL_CALLS },
#define PROFILER(n, what)							\
	{ "profiler" #n ": Facebook's profiler, tracing programs, " what,	\
	  "profiler" #n ".bpf.o", "profiler" #n "_assert.bpf.o", setup_none,	\
	  { { "raw_tracepoint__sched_process_exec", profiler_args,		\
	      sizeof(profiler_args), "test_profiler's args" },			\
	    { "raw_tracepoint__sched_process_exec", profiler_args,		\
	      sizeof(profiler_args), "the same, cgroup path and environment read",	\
	      profiler_long_path } }, NO_PROBE_READ }
	PROFILER(1, "unrolled, inlined"),
	PROFILER(2, "loops, functions as clang inlines them"),
	PROFILER(3, "unrolled, noinline"),
};

#define NREAL (sizeof(real_objs) / sizeof(real_objs[0]))

struct real_side {
	struct bpf_object *obj;
	struct bpf_program *p[2];
	struct vstats v[2];
	unsigned int bytes[2];
	int ret[2];
	unsigned int nprogs, all_insns;	/* every program of the object */
};

/* The verifier's logs of the programs run, and of the object's others */
#define MAX_REAL_PROGS 16
static char *real_logs[2], *other_logs[MAX_REAL_PROGS];

/*
 * A raw tracepoint's BPF_PROG_TEST_RUN runs the program once on args
 * (ctx_in) and measures nothing (6.1 refuses repeat and duration): the
 * cost per run is the kernel's run-time statistics instead
 * (BPF_ENABLE_STATS, on only here: sched_clock() read around each run),
 * which count the program and one read of the clock, not the syscall, over
 * repeat / 10 runs (a syscall each), or the fastest of the slices.
 */
static double run_ctx(struct bpf_program *prog, const void *ctx, size_t size, int *retval)
{
	int fd = bpf_program__fd(prog), stats = bpf_enable_stats(BPF_STATS_RUN_TIME);
	int runs = repeat / 10 / slices;
	double best = 0;

	if (stats < 0) {
		perror("BPF_ENABLE_STATS");
		exit(1);
	}
	for (int i = 0; i < slices; i++) {
		struct bpf_prog_info a = {}, b = {};
		__u32 len = sizeof(a);
		double t;

		if (bpf_obj_get_info_by_fd(fd, &a, &len))
			exit(1);
		for (int j = 0; j < runs; j++) {
			LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = ctx, .ctx_size_in = size);

			if (bpf_prog_test_run_opts(fd, &opts)) {
				perror("test_run");
				exit(1);
			}
			if (retval)
				*retval = opts.retval;
		}
		len = sizeof(b);
		if (bpf_obj_get_info_by_fd(fd, &b, &len) || b.run_cnt == a.run_cnt)
			exit(1);
		t = (double)(b.run_time_ns - a.run_time_ns) / (b.run_cnt - a.run_cnt);
		if (!i || t < best)
			best = t;
	}
	close(stats);
	return best;
}

/* One run of a real program on its input, by the program's type */
static double run_real(struct bpf_program *prog, const struct real_prog *rp, int *retval)
{
	if (bpf_program__type(prog) == BPF_PROG_TYPE_RAW_TRACEPOINT)
		return run_ctx(prog, rp->pkt, rp->pkt_len, retval);
	return run_pkt(prog, rp->pkt, rp->pkt_len, retval);
}

static int real_load(const char *path, const struct real_obj *r, struct real_side *side)
{
	struct bpf_program *prog;
	int k, n = 0, err;

	side->obj = bpf_object__open_file(path, NULL);
	if (!side->obj) {
		fprintf(stderr, "%s: cannot open\n", path);
		return -1;
	}
	for (k = 0; k < 2 && r->progs[k].name; k++) {
		if (k && !strcmp(r->progs[k].name, r->progs[0].name))
			continue;	/* one program, two packets */
		side->p[k] = bpf_object__find_program_by_name(side->obj, r->progs[k].name);
		if (!side->p[k]) {
			fprintf(stderr, "%s: no program %s\n", path, r->progs[k].name);
			return -1;
		}
		if (!real_logs[k])
			real_logs[k] = malloc(LOG_SIZE);
		real_logs[k][0] = 0;
		bpf_program__set_log_buf(side->p[k], real_logs[k], LOG_SIZE);
		bpf_program__set_log_level(side->p[k], 4);
	}
	bpf_object__for_each_program(prog, side->obj) {
		if (prog == side->p[0] || prog == side->p[1])
			continue;
		if (n == MAX_REAL_PROGS) {
			fprintf(stderr, "%s: more than %d programs\n", path, MAX_REAL_PROGS);
			return -1;
		}
		if (!other_logs[n])
			other_logs[n] = malloc(LOG_SIZE);
		other_logs[n][0] = 0;
		bpf_program__set_log_buf(prog, other_logs[n++], LOG_SIZE);
		bpf_program__set_log_level(prog, 4);
	}
	err = bpf_object__load(side->obj);
	if (err || r->setup(side->obj)) {
		fprintf(stderr, "%s: load or setup failed\n%s\n", path, real_logs[0]);
		return -1;
	}
	for (k = 0; k < n; k++) {
		struct vstats v = {};

		parse_log(other_logs[k], &v);
		side->all_insns += v.insns;
	}
	side->nprogs = n;
	for (k = 0; k < 2 && r->progs[k].name; k++) {
		if (!side->p[k]) {
			side->p[k] = side->p[0];
			side->v[k] = side->v[0];
		} else {
			parse_log(real_logs[k], &side->v[k]);
			side->all_insns += side->v[k].insns;
			side->nprogs++;
		}
		side->bytes[k] = jited_len(side->p[k]);
	}
	return 0;
}

static int real_programs(const char *unit)
{
	unsigned int i;
	int k, r;

	printf("4. Programs of the tree from real projects: as the tree has them (orig)\n"
	       "   and converted to assertions (conv; convert/*.patch)\n\n");
	for (i = 0; i < NREAL; i++) {
		const struct real_obj *ro = &real_objs[i];
		struct real_side o = {}, c = {};

		if (ro->not_here) {
			printf("   %s\n   not run: %s\n\n", ro->title, ro->not_here);
			continue;
		}
		if (real_load(ro->orig, ro, &o) || real_load(ro->conv, ro, &c))
			return 1;
		printf("   %s\n", ro->title);
		for (k = 0; k < 2 && ro->progs[k].name; k++) {
			const struct real_prog *rp = &ro->progs[k];
			struct stat so = {}, sc = {}, ratio = {};

			if (rp->input && (rp->input(o.obj, true) || rp->input(c.obj, true))) {
				fprintf(stderr, "%s: setting the input up failed\n", rp->name);
				return 1;
			}
			for (r = 0; r < rounds; r++) {
				double a = run_real(o.p[k], rp, &o.ret[k]);
				double b = run_real(c.p[k], rp, &c.ret[k]);

				if (o.ret[k] != c.ret[k]) {
					fprintf(stderr, "%s: orig returned %d, conv %d\n",
						ro->progs[k].name, o.ret[k], c.ret[k]);
					return 1;
				}
				add(&so, a);
				add(&sc, b);
				add(&ratio, b / a);
			}
			if (rp->input && (rp->input(o.obj, false) || rp->input(c.obj, false)))
				return 1;
			printf("   %s (%s; returns %d)\n", ro->progs[k].name, ro->progs[k].what,
			       o.ret[k]);
			printf("   %-20s %-10s %-10s %s\n", "", "orig", "conv", "conv/orig");
			printf("   %-20s %-10u %-10u %.3f\n", "insns processed", o.v[k].insns,
			       c.v[k].insns, (double)c.v[k].insns / o.v[k].insns);
			printf("   %-20s %-10u %-10u %.3f\n", "peak states", o.v[k].peak_states,
			       c.v[k].peak_states, (double)c.v[k].peak_states / o.v[k].peak_states);
			printf("   %-20s %-10u %-10u %.3f\n", "JIT bytes", o.bytes[k], c.bytes[k],
			       (double)c.bytes[k] / o.bytes[k]);
			printf("   %-20s %-10.1f %-10.1f %s\n\n", unit, median(&so), median(&sc),
			       fmt(&ratio, "%.3f"));
		}
		if (o.nprogs > 1)
			printf("   insns processed, all %u programs: %u -> %u (%.3f)\n\n", o.nprogs,
			       o.all_insns, c.all_insns, (double)c.all_insns / o.all_insns);
		bpf_object__close(o.obj);
		bpf_object__close(c.obj);
	}
	return 0;
}

static void print_shape(struct shape *sh, const char *unit)
{
	unsigned int k;

	printf("   %s\n", sh->title);
	printf("   %-22s %-28s %-9s %-8s %s\n", "variant", unit, "JIT bytes",
	       "insns", "peak states");
	for (k = 0; k < VARIANTS; k++)
		if (sh->p[k])
			printf("   %-22s %-28s %-9u %-8u %u\n", variant_name[k],
			       fmt(&sh->run[k], "%.1f"), sh->bytes[k], sh->v[k].insns,
			       sh->v[k].peak_states);
	printf("   %-22s %-28s target <= 0.95\n", "a/b per run", fmt(&sh->ab, "%.3f"));
	printf("   %-22s %-28s target <= 1.10\n", "a/c per run", fmt(&sh->ac, "%.3f"));
	if (sh->p[VD])
		printf("   %-22s %-28s what exceptions add to the checks\n", "a/d per run",
		       fmt(&sh->ad, "%.3f"));
	printf("   %-22s %-28.3f target <= 0.95\n", "JIT bytes a/b",
	       (double)sh->bytes[VA] / sh->bytes[VB]);
	printf("   %-22s %-28.3f\n", "JIT bytes a/c", (double)sh->bytes[VA] / sh->bytes[VC]);
	printf("   %-22s %-28.3f target <= 1.03\n", "insns processed a/c",
	       (double)sh->v[VA].insns / sh->v[VC].insns);
	printf("   %-22s %-28.3f\n\n", "insns processed a/b",
	       (double)sh->v[VA].insns / sh->v[VB].insns);
}

/* Section 2b: the programs that throw holding holds[h] objects */
#define HOLDS 3
static const int holds[HOLDS] = { 0, 1, 4 };

static struct bpf_program *hold_prog(struct bench *skel, int h)
{
	return h == 0 ? skel->progs.throw_hold0 :
	       h == 1 ? skel->progs.throw_hold1 : skel->progs.throw_hold4;
}

/* Section 2c: main holds an object across calls that throw from frame 2, 4 */
#define CALLER_HOLDS 2
static const int caller_frames[CALLER_HOLDS] = { 2, 4 };

static struct bpf_program *caller_hold_prog(struct bench *skel, int h)
{
	return h == 0 ? skel->progs.throw_caller_hold_f2 : skel->progs.throw_caller_hold_f4;
}

/* Section 2d: a bpf_loop() of 16 iterations ended at iteration k */
#define LOOP_ATS 3
static const int loop_ats[LOOP_ATS] = { 0, 8, 15 };

/* One round of section 2d at loop_ats[h]; false if a program did not
 * return 0 (the throw's default callback, the flag's error)
 */
static bool run_loop_ends(struct bench *skel, int h, struct stat *st)
{
	double tf, tc, tt;
	int rf, rc, rt;

	skel->bss->loop_at = loop_ats[h];
	tf = run_ns(skel->progs.loop_flag, &rf);
	tc = run_ns(skel->progs.loop_flag_call, &rc);
	tt = run_ns(skel->progs.loop_throw, &rt);
	if (rf || rc || rt)
		return false;
	add(&st[0], tf);
	add(&st[1], tc);
	add(&st[2], tt);
	add(&st[3], tt / tf);
	add(&st[4], tt / tc);
	return true;
}

/* Section 2d's table */
static void print_loop_ends(struct stat st[LOOP_ATS][5])
{
	printf("2d. A throw from a bpf_loop() callback at iteration k of 16, against the\n");
	printf("   same loop whose callback sets a flag and stops it, the program then\n");
	printf("   returning its error: the flag's loop inlined (flags 0) and called\n");
	printf("   (flags unknown); a loop whose callback may throw is always called\n");
	printf("   %-3s %-18s %-18s %-18s %-10s %s\n", "k", "flag, inlined", "flag, called",
	       "throw", "/inlined", "/called");
	for (int h = 0; h < LOOP_ATS; h++)
		printf("   %-3d %-18s %-18s %-18s %-10s %s\n", loop_ats[h],
		       fmt(&st[h][0], "%.1f"), fmt(&st[h][1], "%.1f"),
		       fmt(&st[h][2], "%.1f"), fmt(&st[h][3], "%.2f"),
		       fmt(&st[h][4], "%.2f"));
	printf("\n");
}

/* The rows of a table of run_throw_pair() figures, one per labels[i] */
static void print_throw_pairs(const char *label, const char *unit, const int *labels,
			      const struct stat *ret, const struct stat *thr,
			      const struct stat *ratio, int n)
{
	printf("   %-6s %-26s %-26s %s\n", label, unit, "throw", "throw/return");
	for (int i = 0; i < n; i++)
		printf("   %-6d %-26s %-26s %s\n", labels[i], fmt(&ret[i], "%.1f"),
		       fmt(&thr[i], "%.1f"), fmt(&ratio[i], "%.2f"));
	printf("\n");
}

/* One round of a program that throws when do_throw is set: its cost
 * without a throw and with one, and their ratio; false if the throw did
 * not make it return 0
 */
static bool run_throw_pair(struct bench *skel, struct bpf_program *prog,
			   struct stat *ret_st, struct stat *thr_st, struct stat *ratio_st)
{
	double tr, tt;
	int ret;

	skel->bss->do_throw = 0;
	tr = run_ns(prog, &ret);
	skel->bss->do_throw = 1;
	tt = run_ns(prog, &ret);
	if (ret != 0)
		return false;
	add(ret_st, tr);
	add(thr_st, tt);
	add(ratio_st, tt / tr);
	return true;
}

int main(int argc, char **argv)
{
	struct stat ret_ns[DEPTHS] = {}, thr_ns[DEPTHS] = {}, ratio[DEPTHS] = {};
	struct stat hold_ret[HOLDS] = {}, hold_thr[HOLDS] = {}, hold_ratio[HOLDS] = {};
	struct stat chold_ret[CALLER_HOLDS] = {}, chold_thr[CALLER_HOLDS] = {};
	struct stat chold_ratio[CALLER_HOLDS] = {};
	struct stat loop_st[LOOP_ATS][5] = {};
	struct stat vt_a = {}, vt_b = {};
	const char *unit = "ns/run";
	struct bench *skel;
	unsigned int s, k;
	int r, d, h, ret, argi = 1;

	if (argc > 1 && !strcmp(argv[1], "-n")) {
		if (argc > 2)
			repeat = atoi(argv[2]);
		return nothrow();
	}
	if (argc > 1 && !strcmp(argv[1], "-i")) {
		unit = "insns/run";
		argi++;
	}
	if (argc > argi)
		rounds = atoi(argv[argi]);
	if (argc > argi + 1)
		repeat = atoi(argv[argi + 1]);
	if (rounds < 1 || rounds > MAX_ROUNDS)
		rounds = 7;
	if (!strcmp(unit, "ns/run"))
		slices = 5;

	/* The indexes the parser reads, all in range: words 1..12, 16-bit
	 * in the guest's byte order, as the programs read them
	 */
	for (d = 0; d < 32; d++) {
		__u16 idx = (d * 14) % 64;

		memcpy(pkt + 2 * d, &idx, sizeof(idx));
	}

	skel = load();
	for (s = 0; s < NSHAPES; s++)
		for (k = 0; k < VARIANTS; k++)
			if (shapes[s].p[k])
				shapes[s].bytes[k] = jited_len(shapes[s].p[k]);

	for (r = 0; r < rounds; r++) {
		for (s = 0; s < NSHAPES; s++) {
			struct shape *sh = &shapes[s];
			double t[VARIANTS];
			int rv[VARIANTS];

			for (k = 0; k < VARIANTS; k++) {
				if (!sh->p[k])
					continue;
				t[k] = run_ns(sh->p[k], &rv[k]);
				add(&sh->run[k], t[k]);
				if (rv[k] != rv[VA]) {
					fprintf(stderr, "%s: variants disagree: %d against %d\n",
						sh->title, rv[k], rv[VA]);
					return 1;
				}
			}
			add(&sh->ab, t[VA] / t[VB]);
			add(&sh->ac, t[VA] / t[VC]);
			if (sh->p[VD])
				add(&sh->ad, t[VA] / t[VD]);
		}
		for (h = 0; h < HOLDS; h++) {
			if (!run_throw_pair(skel, hold_prog(skel, h), &hold_ret[h],
					    &hold_thr[h], &hold_ratio[h])) {
				fprintf(stderr, "throw holding %d did not return 0\n", holds[h]);
				return 1;
			}
		}
		for (h = 0; h < CALLER_HOLDS; h++) {
			if (!run_throw_pair(skel, caller_hold_prog(skel, h), &chold_ret[h],
					    &chold_thr[h], &chold_ratio[h])) {
				fprintf(stderr, "throw from frame %d did not return 0\n",
					caller_frames[h]);
				return 1;
			}
		}
		for (h = 0; h < LOOP_ATS && !NO_CALLBACK_THROW; h++) {
			if (!run_loop_ends(skel, h, loop_st[h])) {
				fprintf(stderr, "loop ended at %d did not return 0\n",
					loop_ats[h]);
				return 1;
			}
		}
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
			struct bench *old = skel;

			skel = load();
			bench__destroy(old);
		}
		add(&vt_a, shapes[0].v[VA].usec);
		add(&vt_b, shapes[0].v[VB].usec);
	}

	printf("BPF exceptions benchmark: %d interleaved rounds, BPF_PROG_TEST_RUN repeat=%d, %s",
	       rounds, repeat, strcmp(unit, "ns/run") ? "instructions (QEMU icount)" :
	       "TCG wall clock");
	if (slices > 1)
		printf(", the fastest of %d slices", slices);
	printf("\n");
	printf("medians [min..max]; ratios are per round, then their median\n\n");

	printf("1. Non-throwing path, by program shape (insns: verifier's insns processed)\n\n");
	for (s = 0; s < NSHAPES; s++)
		print_shape(&shapes[s], unit);

	printf("2. Cost of a throw: throw at frame N (1 = main) against a return from it\n");
	printf("   %-6s %-26s %-26s %s\n", "frame", unit, "throw", "throw/return");
	for (d = 0; d < DEPTHS; d++)
		printf("   %-6d %-26s %-26s %s\n", d + 1, fmt(&ret_ns[d], "%.1f"),
		       fmt(&thr_ns[d], "%.1f"), fmt(&ratio[d], "%.2f"));
	printf("   per extra frame: throw +%.1f, return +%.1f (medians, frame 1 -> %d)\n",
	       (median(&thr_ns[DEPTHS - 1]) - median(&thr_ns[0])) / (DEPTHS - 1),
	       (median(&ret_ns[DEPTHS - 1]) - median(&ret_ns[0])) / (DEPTHS - 1), DEPTHS);
	printf("   targets: throw/return <= 1.3 at frame 1, <= 1.0 at frame %d\n\n", DEPTHS);

	printf("2b. A throw that releases what it holds: from frame 2 holding N test kfunc\n");
	printf("   objects, against releasing them and returning\n");
	print_throw_pairs("N", unit, holds, hold_ret, hold_thr, hold_ratio, HOLDS);

	printf("2c. A throw that releases what a caller holds: main holds a test kfunc\n");
	printf("   object across calls that throw from frame N, against returning\n");
	print_throw_pairs("frame", unit, caller_frames, chold_ret, chold_thr, chold_ratio,
			  CALLER_HOLDS);

	if (NO_CALLBACK_THROW)
		printf("2d. A throw from a bpf_loop() callback: not run: %s\n\n",
		       NO_CALLBACK_THROW);
	else
		print_loop_ends(loop_st);

	printf("3. Verification: assertions against explicit error propagation\n");
	printf("   %-22s %-12s %-12s %s\n", "", "(a) assert", "(b) explicit", "a/b");
	printf("   %-22s %-12.0f %-12.0f %.3f   (the parser's, median usec)\n",
	       "verification time", median(&vt_a), median(&vt_b),
	       median(&vt_a) / median(&vt_b));
	{
		struct vstats pa = {}, pb = {};

		if (load_file_stats("bench_parser_assert.bpf.o", &pa) ||
		    load_file_stats("bench_parser_explicit.bpf.o", &pb)) {
			fprintf(stderr, "loading the demo parsers failed\n");
			return 1;
		}
		printf("   The demo's XDP parser (Ethernet, IPv4, TCP/UDP; examples/packet-parser)\n");
		printf("   against the same parser with explicit error propagation (bench/):\n");
		printf("   %-22s %-12u %-12u %.3f\n", "insns processed",
		       pa.insns, pb.insns, (double)pa.insns / pb.insns);
		printf("   %-22s %-12u %-12u %.3f\n", "peak states", pa.peak_states,
		       pb.peak_states, (double)pa.peak_states / pb.peak_states);
	}
	bench__destroy(skel);
	printf("\n");
	return real_programs(unit);
}
