// SPDX-License-Identifier: GPL-2.0
/*
 * Stress test: both CPUs throw at once, through a traced subprog and with
 * throwing tracing programs attached, and (between those runs) holding a
 * ring buffer record in a subprog's frame, or in a bpf_loop() callback's,
 * and a test kfunc's object in main's, which the throw releases, while a
 * third thread loads, attaches and unloads programs that throw and a
 * fourth consumes the ring.  Then checks that every run returned the
 * exception value, that the ring delivered no record and can be reserved
 * whole, that the object's refcount is back, and that the number of BPF
 * programs and the slab usage are back to where they were.  The harness
 * fails on any kernel warning, and on debug kernels scans for leaks.
 *
 *   exceptions-stress [THROWS]     (default 1000000, over both CPUs)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "stress.skel.h"

#define REPEAT 10000
/* runs of the program that holds a record: a ring of 4 MB takes about
 * 58000 records, which its consumer may let pile up meanwhile
 */
#define HOLD_REPEAT REPEAT
#define MIN_CHURN 20	/* load/unload rounds during the throws, at least */

static long throws_per_cpu;
static volatile int stop_churn;
static long churn_rounds;
static int failed;
static long ring_full, records;
static unsigned char pkt[64];

/* Load the tc program, then the tracing programs attached to its subprogs */
static int setup(struct stress **tcp, struct stress **trp, struct bpf_link **links)
{
	struct stress *tc = stress__open_and_load(), *tr;
	int fd;

	if (!tc)
		return -1;
	tr = stress__open();
	if (!tr)
		goto err_tc;
	fd = bpf_program__fd(tc->progs.stress_throw);
	bpf_program__set_autoload(tr->progs.stress_throw, false);
	bpf_program__set_autoload(tr->progs.stress_fentry, true);
	bpf_program__set_autoload(tr->progs.stress_fexit, true);
	if (bpf_program__set_attach_target(tr->progs.stress_fentry, fd, "stress_l2") ||
	    bpf_program__set_attach_target(tr->progs.stress_fexit, fd, "stress_l3") ||
	    stress__load(tr))
		goto err_tr;
	links[0] = bpf_program__attach_trace(tr->progs.stress_fentry);
	links[1] = bpf_program__attach_trace(tr->progs.stress_fexit);
	if (!links[0] || !links[1])
		goto err_links;
	*tcp = tc;
	*trp = tr;
	return 0;
err_links:
	bpf_link__destroy(links[0]);
	bpf_link__destroy(links[1]);
err_tr:
	stress__destroy(tr);
err_tc:
	stress__destroy(tc);
	return -1;
}

static void teardown(struct stress *tc, struct stress *tr, struct bpf_link **links)
{
	bpf_link__destroy(links[0]);
	bpf_link__destroy(links[1]);
	stress__destroy(tr);
	stress__destroy(tc);
}

struct worker {
	int cpu, prog_fd, hold_fd, loop_fd;
	long throws, hold_throws, loop_throws;
};

/* HOLD_REPEAT runs of a program that holds a record and an object: each
 * throws (0), or finds the ring full (1) and releases the object itself;
 * false if the run failed
 */
static bool run_holding(const struct worker *w, int fd, const char *what, long *throws)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = pkt,
		    .data_size_in = sizeof(pkt), .repeat = HOLD_REPEAT);

	if (bpf_prog_test_run_opts(fd, &opts) || opts.retval > 1) {
		fprintf(stderr, "cpu %d: %s run failed or retval %u\n", w->cpu, what,
			opts.retval);
		__sync_fetch_and_add(&failed, 1);
		return false;
	}
	if (opts.retval)
		__sync_fetch_and_add(&ring_full, 1);
	*throws += HOLD_REPEAT;
	return true;
}

static void *thrower(void *arg)
{
	struct worker *w = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	while (w->throws < throws_per_cpu || churn_rounds < MIN_CHURN) {
		LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = pkt,
			    .data_size_in = sizeof(pkt), .repeat = REPEAT);

		if (bpf_prog_test_run_opts(w->prog_fd, &opts) || opts.retval != 0) {
			fprintf(stderr, "cpu %d: run failed or retval %u\n", w->cpu, opts.retval);
			__sync_fetch_and_add(&failed, 1);
			break;
		}
		w->throws += REPEAT;
		if (!run_holding(w, w->hold_fd, "holding", &w->hold_throws))
			break;
		/* The same from a bpf_loop() callback (not with kCFI, which
		 * traps on 6.1's call of a BPF callback from C)
		 */
		if (w->loop_fd >= 0 &&
		    !run_holding(w, w->loop_fd, "callback", &w->loop_throws))
			break;
	}
	return NULL;
}

static int count_record(void *ctx, void *data, size_t size)
{
	__sync_fetch_and_add(&records, 1);
	return 0;
}

/* The ring's consumer: discarded records only make it move on */
static void *consume(void *arg)
{
	struct ring_buffer *rb = arg;

	while (!stop_churn)
		ring_buffer__poll(rb, 10);
	ring_buffer__consume(rb);
	return NULL;
}

/* A tc program's run with one packet, its return value or -1 */
static int run_once(int fd)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = pkt,
		    .data_size_in = sizeof(pkt), .repeat = 1);

	return bpf_prog_test_run_opts(fd, &opts) ? -1 : (int)opts.retval;
}

/* Load, attach, run once and unload throwing programs, over and over */
static void *churn(void *arg)
{
	while (!stop_churn) {
		struct bpf_link *links[2] = {};
		struct stress *tc, *tr;
		LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = pkt,
			    .data_size_in = sizeof(pkt), .repeat = 1);

		if (setup(&tc, &tr, links)) {
			fprintf(stderr, "churn: setup failed\n");
			__sync_fetch_and_add(&failed, 1);
			return NULL;
		}
		if (bpf_prog_test_run_opts(bpf_program__fd(tc->progs.stress_throw), &opts) ||
		    opts.retval != 0)
			__sync_fetch_and_add(&failed, 1);
		teardown(tc, tr, links);
		churn_rounds++;
	}
	return NULL;
}

static long count_progs(void)
{
	__u32 id = 0;
	long n = 0;

	while (!bpf_prog_get_next_id(id, &id))
		n++;
	return n;
}

static long slab_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Slab: %ld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

int main(int argc, char **argv)
{
	long total = argc > 1 ? atol(argv[1]) : 1000000;
	struct worker w[2] = { { .cpu = 0 }, { .cpu = 1 } };
	struct bpf_link *links[2] = {};
	long progs_before, progs_after, slab_before, slab_after;
	int i, refcnt_before, refcnt_after, whole_ring, kcfi;
	pthread_t t[2], c, r;
	struct stress *tc, *tr;
	struct ring_buffer *rb;

	/* 6.1 with kCFI traps on a call of a BPF callback from C */
	kcfi = system("zcat /proc/config.gz | grep -q '^CONFIG_CFI_CLANG=y'") == 0;

	/* A throw needs a non-empty packet: stress_l3 throws for x > 0 */
	pkt[12] = 0x08;
	throws_per_cpu = (total / 2 + REPEAT - 1) / REPEAT * REPEAT;
	progs_before = count_progs();
	slab_before = slab_kb();

	if (setup(&tc, &tr, links)) {
		fprintf(stderr, "setup failed\n");
		return 1;
	}
	rb = ring_buffer__new(bpf_map__fd(tc->maps.stress_rb), count_record, NULL, NULL);
	if (!rb || run_once(bpf_program__fd(tc->progs.stress_refcnt))) {
		fprintf(stderr, "ring buffer or refcount setup failed\n");
		return 1;
	}
	refcnt_before = tc->bss->refcnt;
	for (i = 0; i < 2; i++) {
		w[i].prog_fd = bpf_program__fd(tc->progs.stress_throw);
		w[i].hold_fd = bpf_program__fd(tc->progs.stress_hold);
		w[i].loop_fd = kcfi ? -1 : bpf_program__fd(tc->progs.stress_loop_hold);
		pthread_create(&t[i], NULL, thrower, &w[i]);
	}
	pthread_create(&c, NULL, churn, NULL);
	pthread_create(&r, NULL, consume, rb);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	stop_churn = 1;
	pthread_join(c, NULL);
	pthread_join(r, NULL);

	printf("throws: cpu0 %ld, cpu1 %ld, total %ld\n", w[0].throws, w[1].throws,
	       w[0].throws + w[1].throws);
	printf("throws holding a ring buffer record and a kfunc object: cpu0 %ld, cpu1 %ld "
	       "(%ld runs of %d found the ring full)\n", w[0].hold_throws, w[1].hold_throws,
	       ring_full, HOLD_REPEAT);
	printf("the same from a bpf_loop() callback: cpu0 %ld, cpu1 %ld%s\n", w[0].loop_throws,
	       w[1].loop_throws, kcfi ? " (not run: kCFI)" : "");
	run_once(bpf_program__fd(tc->progs.stress_refcnt));
	refcnt_after = tc->bss->refcnt;
	whole_ring = run_once(bpf_program__fd(tc->progs.stress_reserve_all)) == 1;
	printf("kfunc object refcount: %d before, %d after; ring: %ld records delivered, "
	       "whole ring reservable: %s\n", refcnt_before, refcnt_after, records,
	       whole_ring ? "yes" : "no");
	if (refcnt_after != refcnt_before || records || !whole_ring)
		failed++;
	ring_buffer__free(rb);
	printf("tracing programs: fentry (throws) ran %llu times, fexit ran %llu times\n",
	       (unsigned long long)tr->bss->fentry_runs,
	       (unsigned long long)tr->bss->fexit_runs);
	printf("load/attach/run/unload rounds meanwhile: %ld\n", churn_rounds);
	if (tr->bss->fentry_runs < (unsigned long long)(w[0].throws + w[1].throws) ||
	    tr->bss->fexit_runs != 0)
		failed++;
	teardown(tc, tr, links);

	/* Programs and trampolines are freed after RCU grace periods */
	for (i = 0; i < 50 && count_progs() != progs_before; i++)
		usleep(100000);
	sleep(1);
	progs_after = count_progs();
	slab_after = slab_kb();
	printf("BPF programs: %ld before, %ld after\n", progs_before, progs_after);
	printf("slab: %ld kB before, %ld kB after\n", slab_before, slab_after);
	if (progs_after != progs_before)
		failed++;
	/* Allow for caches that grew; a leak per throw or per round would
	 * show as megabytes.  KASAN holds freed objects in a quarantine that
	 * counts as slab: there, kmemleak (run by the harness) checks leaks.
	 */
	if (system("zcat /proc/config.gz | grep -q '^CONFIG_KASAN=y'") == 0)
		printf("slab: not compared, KASAN quarantine; leaks: see kmemleak\n");
	else if (slab_after > slab_before + 1024)
		failed++;
	printf("stress: %s\n", failed ? "FAILED" : "ok");
	return failed ? 1 : 0;
}
