// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzzers of tc programs that use bpf_throw() and
 * bpf_set_exception_callback(), built from raw BPF instructions.
 *
 *   exceptions-fuzz [COUNT [SEED]]
 *   exceptions-fuzz embed [COUNT [SEED]]
 *
 * The first (prediction) generates programs that use throws and callbacks
 * in valid and invalid places.  Each program is a random sequence of steps
 * whose conditions test the packet length (unknown to the verifier, 64 at
 * run time), so the generator knows both whether the verifier must accept
 * the program and what it must return when run.  Every load must end as
 * predicted: accepted and returning the expected value, or rejected by the
 * verifier with a message.  Programs hold test kfunc objects and ring
 * buffer records at their throws: a record a throw did not release would
 * fill the ring, and a later reservation's failure would change a return
 * value.
 *
 * The second (embed) predicts nothing: it checks at run time what the
 * verifier claimed about each program it accepted (see "State
 * embedding" below), on programs with tail calls, LD_ABS, static and
 * global functions, extensions, throws, references (conntrack entries
 * too) and bpf_loop().
 * FUZZ_ONLY=N runs program N alone, FUZZ_TRACE=1 names each program
 * before it runs, FUZZ_LOGDUMP=1 prints the verifier's logs and the
 * checks, FUZZ_XLATED=1 adds the rewritten program to each report.
 *
 * The harness fails on any kernel splat.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#define MAX_INSNS 512
#define PKT_LEN 64

#define INSN(c, d, s, o, i) ((struct bpf_insn){ .code = (c), .dst_reg = (d), \
	.src_reg = (s), .off = (o), .imm = (i) })
#define MOV_IMM(d, i)	INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define MOV_REG(d, s)	INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define ADD_IMM(d, i)	INSN(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, i)
#define LDX_W(d, s, o)	INSN(BPF_LDX | BPF_MEM | BPF_W, d, s, o, 0)
#define STX_DW(d, s, o)	INSN(BPF_STX | BPF_MEM | BPF_DW, d, s, o, 0)
#define JGT_IMM(d, i, o) INSN(BPF_JMP | BPF_JGT | BPF_K, d, 0, o, i)
#define JEQ_IMM(d, i, o) INSN(BPF_JMP | BPF_JEQ | BPF_K, d, 0, o, i)
#define JLE_IMM(d, i, o) INSN(BPF_JMP | BPF_JLE | BPF_K, d, 0, o, i)
#define JA(o)		INSN(BPF_JMP | BPF_JA, 0, 0, o, 0)
#define EXIT()		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)
#define CALL_HELPER(f)	INSN(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define CALL_KFUNC(id)	INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, id)
#define CALL_SUB(rel)	INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, rel)

static int id_throw, id_set_cb, id_acquire, id_release;
static int ringbuf_fd;		/* a ring buffer the programs reserve from */
static int prog_btf_fd, func_type[9];
static unsigned int rng;

static unsigned int rnd(unsigned int n)
{
	rng = rng * 1103515245 + 12345;
	return (rng >> 8) % n;
}

/* Whether a reference held is the conntrack entry (embed fuzzer) comes
 * from a stream of its own: a seed gives the same programs but for
 * those places, whether the kernel has the entry's kfuncs or not
 */
static unsigned int ct_rng;

static unsigned int ct_rnd(unsigned int n)
{
	ct_rng = ct_rng * 1103515245 + 12345;
	return (ct_rng >> 8) % n;
}

struct prog {
	struct bpf_insn insns[MAX_INSNS];
	int n;
	/* calls to fix up once subprogs are placed: insn index, target */
	int fix_at[32], fix_to[32], nfix;
	int sub_start[8], nsub;
	bool ended;		/* main already ends with a throw */
	bool valid;		/* the verifier must accept it */
	bool thrown;		/* at run time, a throw happens first */
	int ret;		/* expected return value */
	int cb_ret;		/* the exception callback's value (0: default) */
	const char *why;	/* why invalid, for the report */
};

static void emit(struct prog *p, struct bpf_insn insn)
{
	if (p->n < MAX_INSNS)
		p->insns[p->n++] = insn;
}

/* A call (kind: call or ld_imm64 of a function) to subprog 'to' */
static void emit_sub_ref(struct prog *p, int to, bool ld_func, int reg)
{
	p->fix_at[p->nfix] = p->n;
	p->fix_to[p->nfix++] = to;
	if (ld_func) {
		emit(p, INSN(BPF_LD | BPF_IMM | BPF_DW, reg, BPF_PSEUDO_FUNC, 0, 0));
		emit(p, INSN(0, 0, 0, 0, 0));
	} else {
		emit(p, CALL_SUB(0));
	}
}

static void invalid(struct prog *p, const char *why)
{
	if (p->valid)
		p->why = why;
	p->valid = false;
}

/* A throw with 'cookie' if the packet length (in 'reg') is above k: as
 * an assertion compiles, a jump over the throw (which the arm64 JIT fuses
 * with it; after a "goto +0", which the verifier removes, for the four
 * insns that the generator's jumps count), or a jump to it past a goto
 * over it
 */
static void throw_if_reg(struct prog *p, int reg, int k, int cookie)
{
	if (rnd(2)) {
		emit(p, JA(0));
		emit(p, JLE_IMM(reg, k, 2));
	} else {
		emit(p, JGT_IMM(reg, k, 1));
		emit(p, JA(2));
	}
	emit(p, MOV_IMM(1, cookie));
	emit(p, CALL_KFUNC(id_throw));
	if (!p->thrown && PKT_LEN > k)
		p->thrown = true;
}

/* The same in the main program, on a fresh load of the length: the
 * verifier learns a bound from each such test, which must not make a
 * later one dead code.
 */
static void throw_if(struct prog *p, int k, int cookie)
{
	emit(p, LDX_W(2, 6, 0));
	throw_if_reg(p, 2, k, cookie);
}

enum { SUB_PLAIN, SUB_THROWS, SUB_LAST_THROW, SUB_LOOP_CB_OK, SUB_LOOP_CB_THROWS,
       SUB_EXC_CB, SUB_EXC_CB_THROWS, SUB_SETS_CB };

/* Subprog bodies; r1 is the packet length for plain ones */
static void emit_subprog(struct prog *p, int kind, int k)
{
	switch (kind) {
	case SUB_PLAIN:
		emit(p, MOV_REG(0, 1));
		emit(p, EXIT());
		break;
	case SUB_THROWS:		/* throws if len > k */
		emit(p, MOV_REG(7, 1));
		throw_if_reg(p, 7, k, 0x5000 + k);
		emit(p, MOV_IMM(0, 1));
		emit(p, EXIT());
		break;
	case SUB_LAST_THROW:		/* bpf_throw is its last insn */
		emit(p, MOV_IMM(1, 0x6000));
		emit(p, CALL_KFUNC(id_throw));
		break;
	case SUB_LOOP_CB_OK:
		emit(p, MOV_IMM(0, 0));
		emit(p, EXIT());
		break;
	case SUB_LOOP_CB_THROWS:
		emit(p, MOV_IMM(1, 0x7000));
		emit(p, CALL_KFUNC(id_throw));
		break;
	case SUB_EXC_CB:		/* returns k */
		emit(p, MOV_IMM(0, k));
		emit(p, EXIT());
		break;
	case SUB_EXC_CB_THROWS:
		emit(p, CALL_KFUNC(id_throw));	/* cookie: its own r1 */
		break;
	case SUB_SETS_CB:		/* sets the callback: not from a subprog */
		emit(p, MOV_REG(7, 1));
		emit(p, MOV_IMM(0, 0));
		emit(p, EXIT());
		break;
	}
}

/* A call, on a fresh load of the length (r7 may be bounded already), of a
 * new subprog kinds[*nsub] that throws if the length is above k
 */
static void call_throwing_subprog(struct prog *p, int *nsub, int *kinds, int *ks, int k)
{
	kinds[*nsub] = SUB_THROWS;
	ks[*nsub] = k;
	if (PKT_LEN > k)
		p->thrown = true;
	emit(p, LDX_W(1, 6, 0));
	emit_sub_ref(p, (*nsub)++, false, 0);
}

static void generate(struct prog *p)
{
	int nsub = 0, kinds[8], ks[8], steps, i, exc_cb = -1;
	bool callback_set = false, ends_in_throw = rnd(8) == 0;

	memset(p, 0, sizeof(*p));
	p->valid = true;
	p->ret = 1 + rnd(100);

	emit(p, MOV_REG(6, 1));			/* ctx */
	emit(p, LDX_W(7, 6, 0));		/* r7 = skb->len */

	/* The exception callback, set in the main program (mostly) */
	if (rnd(2)) {
		int kind = rnd(10) ? SUB_EXC_CB : SUB_EXC_CB_THROWS;

		exc_cb = nsub;
		kinds[nsub] = kind;
		ks[nsub++] = p->cb_ret = 10 + rnd(50);
		if (kind == SUB_EXC_CB_THROWS)
			invalid(p, "exception callback throws");
		if (rnd(12) == 0) {
			emit(p, MOV_IMM(1, 0));	/* not a function */
			invalid(p, "callback argument is no function");
		} else {
			emit_sub_ref(p, exc_cb, true, 1);
		}
		emit(p, CALL_KFUNC(id_set_cb));
		callback_set = true;
	}

	steps = 1 + rnd(6);
	for (i = 0; i < steps; i++) {
		switch (rnd(10)) {
		case 0:
		case 1:		/* conditional throw in main */
			throw_if(p, rnd(2) ? 0 : 100 + rnd(50), 0x100 + i);
			break;
		case 2:		/* call a subprog that may throw */
		case 3: {
			int kind = rnd(4) ? (rnd(3) ? SUB_THROWS : SUB_PLAIN) : SUB_LAST_THROW;

			if (nsub == 7)
				break;
			kinds[nsub] = kind;
			ks[nsub] = rnd(2) ? 10 : 200;
			if ((kind == SUB_THROWS && PKT_LEN > ks[nsub]) || kind == SUB_LAST_THROW)
				p->thrown = true;
			emit(p, MOV_REG(1, 7));
			emit_sub_ref(p, nsub++, false, 0);
			/* The verifier knows it never returns: whatever
			 * followed would be dead code, never verified.
			 */
			if (kind == SUB_LAST_THROW)
				i = steps;
			break;
		}
		case 4: {	/* a reference held at a possible throw */
			/* 0: no throw; 1: a throw in main, which releases
			 * it; 2: a call to a subprog that may throw, whose
			 * throw releases its caller's reference
			 */
			int how = rnd(3), k = rnd(2) ? 10 : 200;

			if (how == 2 && nsub == 7)
				how = 0;

			emit(p, MOV_IMM(1, 0));
			emit(p, STX_DW(10, 1, -8));
			emit(p, MOV_REG(1, 10));
			emit(p, ADD_IMM(1, -8));
			emit(p, CALL_KFUNC(id_acquire));
			/* NULL: skip to after release */
			emit(p, JEQ_IMM(0, 0, how == 1 ? 8 : how == 2 ? 5 : 3));
			emit(p, MOV_REG(8, 0));
			if (how == 1) {
				throw_if(p, k, 0x200 + i);
			} else if (how == 2) {
				call_throwing_subprog(p, &nsub, kinds, ks, k);
			}
			emit(p, MOV_REG(1, 8));
			emit(p, CALL_KFUNC(id_release));
			break;
		}
		case 5: {	/* bpf_loop with a callback that may throw */
			int kind = rnd(3) ? SUB_LOOP_CB_OK : SUB_LOOP_CB_THROWS;

			if (nsub == 7)
				break;
			kinds[nsub] = kind;
			ks[nsub] = 0;
			/* its throw ends the program, as one here would */
			if (kind == SUB_LOOP_CB_THROWS)
				p->thrown = true;
			emit(p, MOV_IMM(1, 1));
			emit_sub_ref(p, nsub++, true, 2);
			emit(p, MOV_IMM(3, 0));
			emit(p, MOV_IMM(4, 0));
			emit(p, CALL_HELPER(BPF_FUNC_loop));
			break;
		}
		case 6:		/* set the callback again, elsewhere */
			if (exc_cb < 0 || rnd(3))
				break;
			emit_sub_ref(p, exc_cb, true, 1);
			emit(p, CALL_KFUNC(id_set_cb));
			invalid(p, "callback set twice");
			break;
		case 7:		/* a throw whose cookie is a pointer */
			if (rnd(4))
				break;
			emit(p, MOV_REG(1, 10));
			emit(p, CALL_KFUNC(id_throw));
			invalid(p, "pointer as cookie");
			p->ended = true;
			i = steps;	/* nothing after it */
			continue;
		case 9: {	/* a ring buffer record held at a possible throw */
			int k = rnd(2) ? 10 : 200;
			/* in main, or in a subprog it calls */
			bool sub = nsub < 7 && rnd(2);

			emit(p, INSN(BPF_LD | BPF_IMM | BPF_DW, 1, BPF_PSEUDO_MAP_FD, 0, ringbuf_fd));
			emit(p, INSN(0, 0, 0, 0, 0));
			emit(p, MOV_IMM(2, 64));
			emit(p, MOV_IMM(3, 0));
			emit(p, CALL_HELPER(BPF_FUNC_ringbuf_reserve));
			/* NULL: skip to after discard */
			emit(p, JEQ_IMM(0, 0, sub ? 6 : 9));
			emit(p, MOV_REG(9, 0));
			if (sub) {
				call_throwing_subprog(p, &nsub, kinds, ks, k);
			} else {
				throw_if(p, k, 0x300 + i);	/* releases the record */
			}
			emit(p, MOV_REG(1, 9));
			emit(p, MOV_IMM(2, 0));
			emit(p, CALL_HELPER(BPF_FUNC_ringbuf_discard));
			break;
		}
		case 8: {	/* a subprog that tries to set the callback */
			if (nsub == 7 || exc_cb < 0 || rnd(2))
				break;
			kinds[nsub] = SUB_SETS_CB;
			ks[nsub] = 0;
			emit(p, MOV_REG(1, 7));
			emit_sub_ref(p, nsub++, false, 0);
			invalid(p, "callback set in a subprog");
			break;
		}
		}
	}
	if (p->ended) {
		/* already ends with a throw (pointer cookie) */
	} else if (ends_in_throw) {
		emit(p, MOV_IMM(1, 0x999));
		emit(p, CALL_KFUNC(id_throw));
		p->thrown = true;
	} else {
		emit(p, MOV_IMM(0, p->ret));
		emit(p, EXIT());
	}
	if (p->thrown)
		p->ret = callback_set ? p->cb_ret : 0;

	/* Subprogs follow the main program */
	p->nsub = nsub;
	for (i = 0; i < nsub; i++) {
		p->sub_start[i] = p->n;
		if (kinds[i] == SUB_SETS_CB) {
			emit(p, MOV_REG(7, 1));
			emit_sub_ref(p, exc_cb, true, 1);
			emit(p, CALL_KFUNC(id_set_cb));
			emit(p, MOV_IMM(0, 0));
			emit(p, EXIT());
			continue;
		}
		emit_subprog(p, kinds[i], ks[i]);
	}
	for (i = 0; i < p->nfix; i++)
		p->insns[p->fix_at[i]].imm = p->sub_start[p->fix_to[i]] - p->fix_at[i] - 1;
}

/* BTF naming the main function and up to 8 static subprogs: callbacks
 * (bpf_loop, the exception callback) need func_info.
 */
static void make_prog_btf(void)
{
	struct btf *b = btf__new_empty();
	char name[8];
	int i, proto;

	proto = btf__add_func_proto(b, btf__add_int(b, "int", 4, BTF_INT_SIGNED));
	for (i = 0; i < 9; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		func_type[i] = btf__add_func(b, name, i ? BTF_FUNC_STATIC : BTF_FUNC_GLOBAL, proto);
	}
	if (btf__load_into_kernel(b)) {
		fprintf(stderr, "loading program BTF failed\n");
		exit(1);
	}
	prog_btf_fd = btf__fd(b);
}

static int records;

static int count_record(void *ctx, void *data, size_t size)
{
	records++;
	return 0;
}

static int btf_id(struct btf *btf, const char *name)
{
	int id = btf__find_by_name_kind(btf, name, BTF_KIND_FUNC);

	if (id <= 0) {
		fprintf(stderr, "no BTF for %s\n", name);
		exit(1);
	}
	return id;
}

static int predict_main(int argc, char **argv)
{
	int count = argc > 1 ? atoi(argv[1]) : 5000, i, accepted = 0, rejected = 0, bad = 0;
	unsigned char pkt[PKT_LEN] = { [12] = 0x08 };
	static char log[1 << 16];
	struct ring_buffer *rb;
	struct btf *btf;
	struct prog p;

	rng = argc > 2 ? atoi(argv[2]) : 1;
	btf = btf__load_vmlinux_btf();
	if (!btf) {
		fprintf(stderr, "no vmlinux BTF\n");
		return 1;
	}
	id_throw = btf_id(btf, "bpf_throw");
	id_set_cb = btf_id(btf, "bpf_set_exception_callback");
	id_acquire = btf_id(btf, "bpf_kfunc_call_test_acquire");
	id_release = btf_id(btf, "bpf_kfunc_call_test_release");
	make_prog_btf();
	/* Each run discards what it reserved, and the consumer passes over
	 * it: a small ring fills soon if a throw leaves records reserved
	 */
	ringbuf_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "fuzz_rb", 0, 0, 4096, NULL);
	rb = ring_buffer__new(ringbuf_fd, count_record, NULL, NULL);
	if (ringbuf_fd < 0 || !rb) {
		fprintf(stderr, "ring buffer setup failed\n");
		return 1;
	}

	for (i = 0; i < count; i++) {
		struct bpf_func_info finfo[9];
		LIBBPF_OPTS(bpf_prog_load_opts, lopts, .log_buf = log,
			    .log_size = sizeof(log), .log_level = 1,
			    .prog_btf_fd = prog_btf_fd, .func_info = finfo,
			    .func_info_rec_size = sizeof(finfo[0]));
		LIBBPF_OPTS(bpf_test_run_opts, topts, .data_in = pkt,
			    .data_size_in = sizeof(pkt), .repeat = 1);
		int fd;

		generate(&p);
		if (getenv("FUZZ_DUMP")) {
			fprintf(stderr, "program %d:", i);
			for (int j = 0; j < p.n; j++)
				fprintf(stderr, " %02x:%x:%x:%d:%d", p.insns[j].code, p.insns[j].dst_reg,
					p.insns[j].src_reg, p.insns[j].off, p.insns[j].imm);
			fprintf(stderr, "\n");
		}
		finfo[0] = (struct bpf_func_info){ 0, func_type[0] };
		for (int j = 0; j < p.nsub; j++)
			finfo[j + 1] = (struct bpf_func_info){ p.sub_start[j], func_type[j + 1] };
		lopts.func_info_cnt = p.nsub + 1;
		log[0] = 0;
		fd = bpf_prog_load(BPF_PROG_TYPE_SCHED_CLS, NULL, "GPL", p.insns, p.n, &lopts);
		if (fd < 0) {
			rejected++;
			if (p.valid || !log[0] || (errno != EACCES && errno != EINVAL)) {
				bad++;
				fprintf(stderr, "program %d: rejected (errno %d), expected %s\n%s\n",
					i, errno, p.valid ? "acceptance" : "a verifier message", log);
			}
			continue;
		}
		accepted++;
		if (!p.valid) {
			bad++;
			fprintf(stderr, "program %d: accepted, expected rejection: %s\n", i, p.why);
			/* the verifier's whole walk, to see where it went */
			close(fd);
			lopts.log_level = 2;
			fd = bpf_prog_load(BPF_PROG_TYPE_SCHED_CLS, NULL, "GPL", p.insns, p.n, &lopts);
			fprintf(stderr, "%s\n", log);
		} else if (bpf_prog_test_run_opts(fd, &topts) || (int)topts.retval != p.ret ||
			   ring_buffer__consume(rb) < 0) {
			bad++;
			fprintf(stderr, "program %d: returned %d, expected %d\n", i,
				topts.retval, p.ret);
		}
		close(fd);
	}
	/* every record reserved was discarded, by the program or its throw */
	if (records) {
		fprintf(stderr, "%d ring buffer records submitted\n", records);
		bad++;
	}
	printf("fuzz: %d programs (seed %s), %d accepted, %d rejected, %d unexpected\n",
	       count, argc > 2 ? argv[2] : "1", accepted, rejected, bad);
	return bad ? 1 : 0;
}

/*
 * State embedding (exceptions-fuzz embed [COUNT [SEED]])
 *
 * The prediction mode above knows what each program must do; it cannot
 * find a program that the verifier accepts for a wrong reason, as when a
 * static subprog whose every path throws counts as never returning while
 * a successful tail call from it returns to its caller.  This mode checks
 * instead, at run time, what the verifier claimed, as "Validating the eBPF
 * Verifier via State Embedding" (OSDI 2024) does:
 *
 *  1. O, a generated program, is loaded with log level 2.  Its log gives
 *     the insns the verifier walked, and the kinds of the registers it had
 *     before each (rebuilt from the full states it prints at branches,
 *     calls and returns, and from what each insn touched).  The check
 *     points: after each call (and LD_ABS) R0 and R6-R9, the same at each
 *     jump target, what each conditional jump compares, R0 at each exit,
 *     the arguments at each function's entry; a register is checked where
 *     every state had a scalar or a packet pointer in it.
 *  2. T1 is O with a "marker" before each check point, "if rX > -1 goto
 *     +0" for each register.  It does nothing, but for a scalar the
 *     verifier decides the branch from rX's bounds and so marks rX
 *     precise: a path is then pruned there only if its rX lies within a
 *     state that was walked.  The union of the states the log prints right
 *     after the marker thus holds every value rX can have there at run
 *     time, which O's log does not promise (a pruned path's imprecise
 *     registers may be anything).  A packet pointer's offset and range
 *     count in pruning as they are.  T1 must walk the insns O walks.
 *  3. T2 is O with checks at the same points: each scalar is compared with
 *     T1's bounds, loaded from a map so that the verifier cannot decide
 *     the checks and remove them; each packet pointer with the context's
 *     data (and data_end).  A value outside is recorded in the map.
 *     Before each call whose return the verifier never walked, an opaque
 *     branch (a map word that is always 0) skips the call to a block
 *     right after it, which keeps the block, and the return address, in
 *     the program (the verifier would remove it as dead code, and a return
 *     would run whatever follows): a return there is recorded, and the
 *     block throws.  The checks use registers no state had initialised
 *     there, or spill one to a stack slot the programs leave free.
 *  4. T2 and O are loaded for a prog array whose slots hold small
 *     programs (returning a small, a large and a negative value,
 *     throwing, tail calling again, moving the packet's head) and for an
 *     empty one, and run on a packet: T2 first, O only where T2 recorded
 *     nothing (O might run code the verifier never saw, and crash).  They
 *     must return the same, T2 record nothing, and neither leave a ring
 *     buffer record reserved or a reference on the test kfunc object or
 *     the conntrack entry.  An extension, when the program has one,
 *     replaces the same function in each.
 *
 * Anything else is reported with the program, the verifier's log and
 * (FUZZ_XLATED=1) the program as the verifier rewrote it.
 */
#define E_MAX_FUNCS	10
#define E_FUNC_INSNS	320
#define E_MAX_INSNS	2048	/* an original program */
#define T_MAX_INSNS	8192	/* a twin */
#define E_LOG_SIZE	(16 << 20)
#define E_MAX_CHECKS	96	/* (point, register) pairs checked in T2 */
#define E_MAX_DEAD	32	/* calls whose return was never walked */
#define E_SLOTS		8	/* prog array slots; 0-5 hold targets */
#define E_SPILL_OFF	(-24)	/* twin's spill slot; programs use fp-8, fp-16
				 * and fp-56 to fp-25 (E_CT_OPTS, E_CT_TUPLE) */

/* The data map's value: an always-zero word, the flags of the returns
 * never walked, T2's bounds (9 words a check) and its records (the value
 * outside the bounds, and a flag)
 */
#define DM_OPAQUE	0
#define DM_DEAD		64
#define DM_BOUNDS	1024
#define DM_RECS		(DM_BOUNDS + E_MAX_CHECKS * 72)
#define DM_SIZE		(DM_RECS + E_MAX_CHECKS * 24)

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define LD_IMM64(d, s, i)	INSN(BPF_LD | BPF_IMM | BPF_DW, d, s, 0, i)
#define STX_W(d, s, o)	INSN(BPF_STX | BPF_MEM | BPF_W, d, s, o, 0)
#define LDX_DW(d, s, o)	INSN(BPF_LDX | BPF_MEM | BPF_DW, d, s, o, 0)
#define ST_DW(d, o, i)	INSN(BPF_ST | BPF_MEM | BPF_DW, d, 0, o, i)
#define MARKER(r)	INSN(BPF_JMP | BPF_JGT | BPF_K, r, 0, 0, -1)

enum { FK_MAIN, FK_STATIC, FK_GLOBAL, FK_LOOP_CB, FK_EXC_CB };
static const char *const fk_name[] = { "main", "static", "global", "loop callback",
				       "exception callback" };

struct efunc {
	int kind;
	int depth;		/* call depth it was generated for */
	struct bpf_insn insns[E_FUNC_INSNS];
	int n;
	/* calls and ld_imm64 of functions: insn index, function */
	int nref, ref_at[64], ref_to[64];
};

/* What an extension program that replaces a function does */
enum { EXT_RET_CONST, EXT_RET_ARG, EXT_THROW, EXT_TAIL_CALL };

struct eprog {
	struct efunc f[E_MAX_FUNCS];
	int nf;
	int exc_cb;			/* function set as exception callback */
	struct bpf_insn insns[E_MAX_INSNS];
	int n;
	int start[E_MAX_FUNCS + 1];
	int ext_func, ext_kind, ext_val;	/* ext_func < 0: no extension */
	bool overflow;
	int ct_holds;			/* places that hold the conntrack entry */
};

/* Generation context of one function */
struct gctx {
	struct eprog *p;
	struct efunc *f;
	int fid;
	int depth;
	unsigned int anc;	/* the functions on the call chain, itself too */
	bool holding;		/* a reference in R9 */
	bool no_ref_ops;	/* called holding one: no tail call, no LD_ABS */
	int nest;
};

static int e_btf_fd, t_main, t_ext, t_func[5][E_MAX_FUNCS];
/* Two prog arrays: e_pa[1] with the targets, e_pa[0] empty.  Programs
 * are generated with e_prog_array (e_pa[1]) and loaded once for each:
 * an update of a prog array pokes the text of every program that tail
 * calls through it, which under TCG costs more than loading them.
 */
static int e_pa[2];
#define e_prog_array e_pa[1]
static int e_ringbuf, e_data;
static int e_probe_fd, e_target_fd[E_SLOTS];
/* The test kfunc object's reference count, read by a program, and its
 * value while nothing holds the object
 */
static int e_cnt_fd, e_cnt_off;
static __u32 e_cnt;
/* The conntrack entry that programs look up and hold (kfuncs of
 * nf_conntrack built in; e_ct_fd < 0 without them): its tuple and the
 * lookup's options, as the stack holds them; a program that returns its
 * reference count, less its own reference; that count while nothing
 * holds the entry
 */
static int id_ct_alloc, id_ct_timeout, id_ct_insert, id_ct_lookup, id_ct_release;
static int id_ct_change_timeout;
static __u64 e_ct_tuple[2], e_ct_opts[2];
static int e_ct_fd = -1, e_ct_insert_fd = -1;
static int e_ct_holds;		/* places that hold it, in accepted programs */
static __u32 e_ct;
#define E_CT_TUPLE	(-40)	/* 12 bytes of a struct bpf_sock_tuple (IPv4) */
#define E_CT_OPTS	(-56)	/* the 12 bytes of struct bpf_ct_opts */
static struct ring_buffer *e_rb;
static char *e_log;
static unsigned char e_pkt[128];
static int e_pkt_len;

static void f_emit(struct efunc *f, struct bpf_insn insn)
{
	if (f->n < E_FUNC_INSNS)
		f->insns[f->n++] = insn;
}

/* A call of (ld_func false) or ld_imm64 into reg of (true) function 'to' */
static void f_ref(struct efunc *f, int to, bool ld_func, int reg)
{
	if (f->nref < 64) {
		f->ref_at[f->nref] = f->n;
		f->ref_to[f->nref++] = to;
	}
	if (ld_func) {
		f_emit(f, LD_IMM64(reg, BPF_PSEUDO_FUNC, 0));
		f_emit(f, INSN(0, 0, 0, 0, 0));
	} else {
		f_emit(f, CALL_SUB(0));
	}
}

static bool is_ld_imm64_fd(const struct bpf_insn *in)
{
	return in->code == (BPF_LD | BPF_IMM | BPF_DW) && in->src_reg == BPF_PSEUDO_MAP_FD;
}

static void f_map(struct efunc *f, int reg, int fd)
{
	f_emit(f, LD_IMM64(reg, BPF_PSEUDO_MAP_FD, fd));
	f_emit(f, INSN(0, 0, 0, 0, 0));
}

/*
 * BTF: main is int (struct __sk_buff *); subprogs, static or global, and
 * extensions int (struct __sk_buff *, u64); bpf_loop callbacks int (u64,
 * void *); exception callbacks int (u64).  Each function index has its
 * own type for each kind, as an extension names the function it replaces
 * by its type.
 */
static void e_make_btf(void)
{
	struct btf *b = btf__new_empty();
	int i_int, i_u64, skb, skbp, voidp, p_main, p_sub, p_loop, p_exc, k, i;
	char name[16];

	i_int = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	i_u64 = btf__add_int(b, "unsigned long long", 8, 0);
	skb = btf__add_struct(b, "__sk_buff", 0);
	skbp = btf__add_ptr(b, skb);
	voidp = btf__add_ptr(b, 0);
	p_main = btf__add_func_proto(b, i_int);
	btf__add_func_param(b, "skb", skbp);
	p_sub = btf__add_func_proto(b, i_int);
	btf__add_func_param(b, "skb", skbp);
	btf__add_func_param(b, "x", i_u64);
	p_loop = btf__add_func_proto(b, i_int);
	btf__add_func_param(b, "idx", i_u64);
	btf__add_func_param(b, "data", voidp);
	p_exc = btf__add_func_proto(b, i_int);
	btf__add_func_param(b, "cookie", i_u64);
	t_main = btf__add_func(b, "main", BTF_FUNC_GLOBAL, p_main);
	t_ext = btf__add_func(b, "ext", BTF_FUNC_GLOBAL, p_sub);
	for (k = FK_STATIC; k <= FK_EXC_CB; k++) {
		for (i = 1; i < E_MAX_FUNCS; i++) {
			snprintf(name, sizeof(name), "%c%d", "msglx"[k], i);
			t_func[k][i] = btf__add_func(b, name,
				k == FK_GLOBAL ? BTF_FUNC_GLOBAL : BTF_FUNC_STATIC,
				k == FK_LOOP_CB ? p_loop : k == FK_EXC_CB ? p_exc : p_sub);
		}
	}
	if (btf__load_into_kernel(b)) {
		fprintf(stderr, "loading program BTF failed\n");
		exit(1);
	}
	e_btf_fd = btf__fd(b);
}

static int e_load_raw(enum bpf_prog_type type, const struct bpf_insn *insns, int n,
		      char *log, int log_size, int level)
{
	LIBBPF_OPTS(bpf_prog_load_opts, o, .log_buf = log, .log_size = log_size,
		    .log_level = level);

	if (log)
		log[0] = 0;
	return bpf_prog_load(type, NULL, "GPL", insns, n, &o);
}

/*
 * The tail call targets, one a slot: return a small value, a large one, a
 * negative one (all 64 bits set above it), throw, tail call again, and
 * move the packet's head (the caller's packet pointers go stale).
 */
static void e_make_targets(void)
{
	static const int vals[] = { 0x41, 0x7ffff000, -22 };
	struct bpf_insn t[16];
	int i, n;

	for (i = 0; i < 6; i++) {
		n = 0;
		switch (i) {
		case 0: case 1: case 2:
			t[n++] = MOV_IMM(0, vals[i]);
			break;
		case 3:
			t[n++] = MOV_IMM(1, 0x7a);
			t[n++] = CALL_KFUNC(id_throw);
			break;
		case 4:
			t[n++] = LD_IMM64(2, BPF_PSEUDO_MAP_FD, e_prog_array);
			t[n++] = INSN(0, 0, 0, 0, 0);
			t[n++] = MOV_IMM(3, 0);
			t[n++] = CALL_HELPER(BPF_FUNC_tail_call);
			t[n++] = MOV_IMM(0, 4);
			break;
		case 5:
			t[n++] = MOV_IMM(2, 16);
			t[n++] = MOV_IMM(3, 0);
			t[n++] = CALL_HELPER(BPF_FUNC_skb_change_head);
			t[n++] = MOV_IMM(0, 5);
			break;
		}
		if (i != 3)
			t[n++] = EXIT();
		e_target_fd[i] = e_load_raw(BPF_PROG_TYPE_SCHED_CLS, t, n, e_log, 1 << 16, 1);
		if (e_target_fd[i] < 0) {
			fprintf(stderr, "tail call target %d: %s\n%s\n", i, strerror(errno), e_log);
			exit(1);
		}
	}
}

/* A record of the whole ring can be reserved only while no record is
 * left reserved: the probe returns 1 if it can.
 */
static void e_make_probe(void)
{
	struct bpf_insn t[16];
	int n = 0;

	t[n++] = LD_IMM64(1, BPF_PSEUDO_MAP_FD, e_ringbuf);
	t[n++] = INSN(0, 0, 0, 0, 0);
	t[n++] = MOV_IMM(2, 4096 - 16);
	t[n++] = MOV_IMM(3, 0);
	t[n++] = CALL_HELPER(BPF_FUNC_ringbuf_reserve);
	t[n++] = JEQ_IMM(0, 0, 4);
	t[n++] = MOV_REG(1, 0);
	t[n++] = MOV_IMM(2, 0);
	t[n++] = CALL_HELPER(BPF_FUNC_ringbuf_discard);
	t[n++] = MOV_IMM(0, 1);
	t[n++] = EXIT();
	e_probe_fd = e_load_raw(BPF_PROG_TYPE_SCHED_CLS, t, n, e_log, 1 << 16, 1);
	if (e_probe_fd < 0) {
		fprintf(stderr, "ring buffer probe: %s\n%s\n", strerror(errno), e_log);
		exit(1);
	}
}

/* A program that returns the test kfunc object's reference count, less
 * its own reference
 */
static void e_make_cnt_probe(struct btf *vmlinux)
{
	int id = btf__find_by_name_kind(vmlinux, "prog_test_ref_kfunc", BTF_KIND_STRUCT);
	const struct btf_type *t = id > 0 ? btf__type_by_id(vmlinux, id) : NULL;
	const struct btf_member *m;
	struct bpf_insn in[16];
	int i, n = 0;

	e_cnt_fd = -1;
	if (!t)
		return;
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t) && strcmp(btf__name_by_offset(vmlinux, m[i].name_off), "cnt"); i++)
		;
	if (i == btf_vlen(t))
		return;
	e_cnt_off = m[i].offset / 8;
	in[n++] = ST_DW(10, -8, 0);
	in[n++] = MOV_REG(1, 10);
	in[n++] = ADD_IMM(1, -8);
	in[n++] = CALL_KFUNC(id_acquire);
	in[n++] = JEQ_IMM(0, 0, 5);
	in[n++] = LDX_W(6, 0, e_cnt_off);
	in[n++] = MOV_REG(1, 0);
	in[n++] = CALL_KFUNC(id_release);
	in[n++] = MOV_REG(0, 6);
	in[n++] = ADD_IMM(0, -1);
	in[n++] = EXIT();
	e_cnt_fd = e_load_raw(BPF_PROG_TYPE_SCHED_CLS, in, n, e_log, 1 << 16, 1);
	if (e_cnt_fd < 0)
		fprintf(stderr, "no reference count probe: %s\n%.500s\n", strerror(errno), e_log);
}

static void f_ct_args(struct efunc *f);
static int e_run(int fd, __u32 *ret);

/* The conntrack entry (see e_ct_fd): inserted, for ten minutes, by a
 * program (e_ct_insert_fd), unless a run before this one did; then the
 * program that reads its reference count, and gives it ten minutes more
 * each time.  Without nf_conntrack's kfuncs, or if either program fails,
 * no program holds an entry.
 */
static void e_make_ct(struct btf *vmlinux)
{
	struct { __be32 saddr, daddr; __be16 sport, dport; } tuple = {
		htonl(0x0a000001), htonl(0x0a000002), htons(40000), htons(5000)
	};
	/* netns_id -1 (the skb's), error, l4proto TCP, dir, reserved */
	struct { __s32 netns_id, error; __u8 l4proto, dir, reserved[2]; } opts = {
		-1, 0, 6, 0, { 0, 0 }
	};
	int id = btf__find_by_name_kind(vmlinux, "nf_conn", BTF_KIND_STRUCT);
	const struct btf_member *m;
	const struct btf_type *t;
	static struct efunc f;	/* one program, then the other */
	int i, gen = -1, fd;
	__u32 ret;

	id_ct_alloc = btf_id(vmlinux, "bpf_skb_ct_alloc");
	id_ct_timeout = btf_id(vmlinux, "bpf_ct_set_timeout");
	id_ct_insert = btf_id(vmlinux, "bpf_ct_insert_entry");
	id_ct_lookup = btf_id(vmlinux, "bpf_skb_ct_lookup");
	id_ct_release = btf_id(vmlinux, "bpf_ct_release");
	id_ct_change_timeout = btf_id(vmlinux, "bpf_ct_change_timeout");
	if (id <= 0 || id_ct_alloc <= 0 || id_ct_timeout <= 0 || id_ct_insert <= 0 ||
	    id_ct_lookup <= 0 || id_ct_release <= 0 || id_ct_change_timeout <= 0) {
		fprintf(stderr, "embed: no conntrack kfuncs: programs hold no entry\n");
		return;
	}
	/* nf_conn.ct_general.use, the reference count, the first member of
	 * both
	 */
	t = btf__type_by_id(vmlinux, id);
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(vmlinux, m[i].name_off), "ct_general"))
			gen = m[i].offset / 8;
	memset(e_ct_tuple, 0, sizeof(e_ct_tuple));
	memset(e_ct_opts, 0, sizeof(e_ct_opts));
	memcpy(e_ct_tuple, &tuple, sizeof(tuple));
	memcpy(e_ct_opts, &opts, sizeof(opts));
	if (gen != 0) {
		fprintf(stderr, "embed: nf_conn.ct_general at %d: programs hold no entry\n", gen);
		return;
	}
	/* alloc, set the timeout, insert, release */
	f.n = 0;
	f_emit(&f, MOV_REG(6, 1));
	f_ct_args(&f);
	f_emit(&f, CALL_KFUNC(id_ct_alloc));
	f_emit(&f, JEQ_IMM(0, 0, 9));
	f_emit(&f, MOV_REG(1, 0));
	f_emit(&f, MOV_REG(7, 0));
	f_emit(&f, MOV_IMM(2, 600000));
	f_emit(&f, CALL_KFUNC(id_ct_timeout));
	f_emit(&f, MOV_REG(1, 7));
	f_emit(&f, CALL_KFUNC(id_ct_insert));
	f_emit(&f, JEQ_IMM(0, 0, 2));
	f_emit(&f, MOV_REG(1, 0));
	f_emit(&f, CALL_KFUNC(id_ct_release));
	f_emit(&f, MOV_IMM(0, 0));
	f_emit(&f, EXIT());
	fd = e_load_raw(BPF_PROG_TYPE_SCHED_CLS, f.insns, f.n, e_log, 1 << 16, 1);
	if (fd < 0) {
		fprintf(stderr, "embed: conntrack insert refused: %s: programs hold no entry\n"
			"%.800s\n", strerror(errno), e_log);
		return;
	}
	i = e_run(fd, &ret);
	if (i) {
		fprintf(stderr, "embed: conntrack insert: %s: programs hold no entry\n",
			strerror(-i));
		close(fd);
		return;
	}
	e_ct_insert_fd = fd;
	/* lookup, read the count, ten minutes more, release; -1 if not
	 * found
	 */
	f.n = 0;
	f_emit(&f, MOV_REG(6, 1));
	f_ct_args(&f);
	f_emit(&f, CALL_KFUNC(id_ct_lookup));
	f_emit(&f, INSN(BPF_JMP | BPF_JNE | BPF_K, 0, 0, 2, 0));
	f_emit(&f, MOV_IMM(0, -1));
	f_emit(&f, EXIT());
	f_emit(&f, LDX_W(7, 0, gen));
	f_emit(&f, MOV_REG(8, 0));
	f_emit(&f, MOV_REG(1, 0));
	f_emit(&f, MOV_IMM(2, 600000));
	f_emit(&f, CALL_KFUNC(id_ct_change_timeout));
	f_emit(&f, MOV_REG(1, 8));
	f_emit(&f, CALL_KFUNC(id_ct_release));
	f_emit(&f, MOV_REG(0, 7));
	f_emit(&f, ADD_IMM(0, -1));
	f_emit(&f, EXIT());
	e_ct_fd = e_load_raw(BPF_PROG_TYPE_SCHED_CLS, f.insns, f.n, e_log, 1 << 16, 1);
	if (e_ct_fd < 0) {
		fprintf(stderr, "embed: conntrack reader: %s: programs hold no entry\n%.800s\n",
			strerror(errno), e_log);
		return;
	}
	if (e_run(e_ct_fd, &e_ct) || e_ct == 0xffffffff) {
		fprintf(stderr, "embed: the conntrack entry is not there: programs hold none\n");
		close(e_ct_fd);
		e_ct_fd = -1;
	}
}

static void e_fill_array(void)
{
	__u32 i;

	for (i = 0; i < 6; i++)
		bpf_map_update_elem(e_prog_array, &i, &e_target_fd[i], BPF_ANY);
}

/* The insns, for the filled prog array (cfg 1) or the empty one (0) */
static const struct bpf_insn *for_cfg(const struct bpf_insn *insns, int n, int cfg)
{
	static struct bpf_insn buf[T_MAX_INSNS];
	int i;

	if (cfg)
		return insns;
	memcpy(buf, insns, n * sizeof(*insns));
	for (i = 0; i < n; i++)
		if (is_ld_imm64_fd(&buf[i]) && buf[i].imm == e_pa[1])
			buf[i].imm = e_pa[0];
	return buf;
}

/* ---- generator ---- */

static const int e_imms[] = { 0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 63, 64, 100, 255, 256,
			      0xfff, 0xffff, 0x10000, 0x7fffffff, -1, -2, -8, -64, -256,
			      INT32_MIN };

static int e_imm(void)
{
	return rnd(4) ? e_imms[rnd(ARRAY_SIZE(e_imms))] : (int)rnd(200) - 20;
}

static int e_sreg(void)
{
	return rnd(2) ? 7 : 8;
}

static void gen_steps(struct gctx *g, int steps);
static int gen_func(struct eprog *p, int kind, int depth, unsigned int anc, bool no_ref_ops);

static void g_alu(struct gctx *g)
{
	static const int ops[] = { BPF_ADD, BPF_SUB, BPF_MUL, BPF_OR, BPF_AND, BPF_XOR,
				   BPF_LSH, BPF_RSH, BPF_ARSH, BPF_MOV, BPF_DIV, BPF_MOD,
				   BPF_NEG };
	int op = ops[rnd(ARRAY_SIZE(ops))], d = e_sreg();
	int cls = rnd(3) ? BPF_ALU64 : BPF_ALU, imm = e_imm();

	if (rnd(12) == 0) {	/* byte swap */
		static const int w[] = { 16, 32, 64 };

		f_emit(g->f, INSN(BPF_ALU | BPF_END | (rnd(2) ? BPF_TO_BE : BPF_TO_LE), d, 0, 0,
				  w[rnd(3)]));
		return;
	}
	if (op == BPF_NEG) {
		f_emit(g->f, INSN(cls | BPF_NEG, d, 0, 0, 0));
		return;
	}
	if (rnd(4) == 0) {	/* register source */
		f_emit(g->f, INSN(cls | op | BPF_X, d, 15 - d, 0, 0));
		return;
	}
	if (op == BPF_LSH || op == BPF_RSH || op == BPF_ARSH)
		imm = rnd(cls == BPF_ALU64 ? 64 : 32);
	if ((op == BPF_DIV || op == BPF_MOD) && !imm)
		imm = 3;
	f_emit(g->f, INSN(cls | op | BPF_K, d, 0, 0, imm));
}

/* A field of the context that test_run gives a known value */
static void g_ctx_load(struct gctx *g)
{
	static const int offs[] = { 0, 8, 16, 32, 48 };	/* len, mark, protocol, priority, cb[0] */

	f_emit(g->f, LDX_W(e_sreg(), 6, offs[rnd(5)]));
}

/* LD_ABS/LD_IND: they exit the function with 0 when out of the packet */
static void g_ld_abs(struct gctx *g)
{
	static const int sz[] = { BPF_B, BPF_H, BPF_W };
	int s = sz[rnd(3)], k = rnd(8) ? (int)rnd(64) : (int)rnd(100);

	if (rnd(2)) {
		f_emit(g->f, INSN(BPF_LD | BPF_ABS | s, 0, 0, 0, k));
	} else {
		int r = e_sreg();

		if (rnd(3))
			f_emit(g->f, INSN(BPF_ALU64 | BPF_AND | BPF_K, r, 0, 0, 31));
		f_emit(g->f, INSN(BPF_LD | BPF_IND | s, 0, r, 0, rnd(8) ? (int)rnd(32) : -4));
	}
	f_emit(g->f, MOV_REG(e_sreg(), 0));
}

/* A direct packet read, behind a bounds check */
static void g_pkt(struct gctx *g)
{
	static const int sz[] = { BPF_B, BPF_H, BPF_W, BPF_DW };
	int k = 1 + rnd(72), s = rnd(4), bytes = 1 << s, off;

	if (k < bytes)
		k = bytes;
	off = rnd(k - bytes + 1);
	f_emit(g->f, LDX_W(2, 6, 76));			/* data */
	f_emit(g->f, LDX_W(3, 6, 80));			/* data_end */
	f_emit(g->f, MOV_REG(4, 2));
	f_emit(g->f, ADD_IMM(4, k));
	f_emit(g->f, INSN(BPF_JMP | BPF_JGT | BPF_X, 4, 3, 1, 0));
	f_emit(g->f, INSN(BPF_LDX | BPF_MEM | sz[s], e_sreg(), 2, off, 0));
}

static const int jops[] = { BPF_JEQ, BPF_JNE, BPF_JGT, BPF_JGE, BPF_JLT, BPF_JLE,
			    BPF_JSGT, BPF_JSGE, BPF_JSLT, BPF_JSLE, BPF_JSET };

/* A conditional jump on a scalar register, 64 or 32 bits, forward by off */
static struct bpf_insn g_cond(int reg, int off)
{
	int cls = rnd(4) ? BPF_JMP : BPF_JMP32, op = jops[rnd(11)];

	if (rnd(4) == 0)
		return INSN(cls | op | BPF_X, reg, reg == 7 ? 8 : 7, off, 0);
	return INSN(cls | op | BPF_K, reg, 0, off, e_imm());
}

/*
 * An assertion, in one of the shapes it compiles to, on a scalar; or on R9
 * (0, a packet pointer or a reference) a null check only: a pointer's
 * value differs from run to run, and O and T2 must take the same paths
 */
static void g_assert(struct gctx *g, int reg)
{
	int cookie = 0x100 + rnd(0x100);
	struct bpf_insn cond;

	cond = reg == 9 ? INSN(BPF_JMP | (rnd(2) ? BPF_JEQ : BPF_JNE) | BPF_K, 9, 0, 0, 0) :
			  g_cond(reg, 0);
	switch (rnd(3)) {
	case 0:		/* jump over the throw */
		cond.off = 2;
		f_emit(g->f, cond);
		break;
	case 1:		/* jump to the throw, past a goto over it */
		cond.off = 1;
		f_emit(g->f, cond);
		f_emit(g->f, JA(2));
		break;
	case 2:		/* after a "goto +0" */
		f_emit(g->f, JA(0));
		cond.off = 2;
		f_emit(g->f, cond);
		break;
	}
	f_emit(g->f, MOV_IMM(1, cookie));
	f_emit(g->f, CALL_KFUNC(id_throw));
}

static void g_throw(struct gctx *g)
{
	f_emit(g->f, MOV_IMM(1, 0x900 + rnd(0x100)));
	f_emit(g->f, CALL_KFUNC(id_throw));
}

static void g_tail_call(struct gctx *g)
{
	f_emit(g->f, MOV_REG(1, 6));
	f_map(g->f, 2, e_prog_array);
	if (rnd(3)) {
		f_emit(g->f, MOV_IMM(3, rnd(E_SLOTS)));
	} else {
		f_emit(g->f, MOV_REG(3, e_sreg()));
		f_emit(g->f, INSN(BPF_ALU64 | BPF_AND | BPF_K, 3, 0, 0, 7));
	}
	f_emit(g->f, CALL_HELPER(BPF_FUNC_tail_call));
	f_emit(g->f, MOV_IMM(0, 0));	/* a failed tail call leaves no R0 */
}

/* Call a new function or one whose calls fit under this depth */
static void g_call(struct gctx *g)
{
	struct eprog *p = g->p;
	int to = -1, i, tries;

	if (g->depth < 3 && p->nf < E_MAX_FUNCS && rnd(3)) {
		to = gen_func(p, rnd(3) ? FK_STATIC : FK_GLOBAL, g->depth + 1, g->anc,
			      g->holding || g->no_ref_ops);
	} else {
		for (tries = 0; tries < 8 && to < 0; tries++) {
			i = 1 + rnd(p->nf > 1 ? p->nf - 1 : 1);
			if (i < p->nf && (p->f[i].kind == FK_STATIC || p->f[i].kind == FK_GLOBAL) &&
			    !(g->anc & (1u << i)) && p->f[i].depth > g->depth)
				to = i;
		}
	}
	if (to < 0)
		return;
	f_emit(g->f, MOV_REG(1, 6));
	if (rnd(4))
		f_emit(g->f, MOV_REG(2, e_sreg()));
	else
		f_emit(g->f, MOV_IMM(2, e_imm()));
	f_ref(g->f, to, false, 0);
	switch (rnd(4)) {
	case 0:
		g_assert(g, 0);
		/* fall through */
	case 1:
	case 2:
		f_emit(g->f, MOV_REG(e_sreg(), 0));
		break;
	}
}

static void g_loop(struct gctx *g)
{
	int cb;

	if (g->p->nf >= E_MAX_FUNCS)
		return;
	cb = gen_func(g->p, FK_LOOP_CB, g->depth + 1, g->anc, true);
	if (rnd(2)) {
		f_emit(g->f, MOV_IMM(1, 1 + rnd(4)));
	} else {
		f_emit(g->f, MOV_REG(1, e_sreg()));
		f_emit(g->f, INSN(BPF_ALU64 | BPF_AND | BPF_K, 1, 0, 0, 3));
	}
	f_ref(g->f, cb, true, 2);
	f_emit(g->f, MOV_IMM(3, 0));
	f_emit(g->f, MOV_IMM(4, 0));
	f_emit(g->f, CALL_HELPER(BPF_FUNC_loop));
	f_emit(g->f, MOV_REG(e_sreg(), 0));
}

/* The stack that bpf_skb_ct_lookup() reads the tuple and options from,
 * and R1-R5 of its call
 */
static void f_ct_args(struct efunc *f)
{
	int i;

	for (i = 0; i < 2; i++) {
		f_emit(f, LD_IMM64(2, 0, (__u32)e_ct_tuple[i]));
		f_emit(f, INSN(0, 0, 0, 0, e_ct_tuple[i] >> 32));
		f_emit(f, STX_DW(10, 2, E_CT_TUPLE + 8 * i));
		f_emit(f, LD_IMM64(2, 0, (__u32)e_ct_opts[i]));
		f_emit(f, INSN(0, 0, 0, 0, e_ct_opts[i] >> 32));
		f_emit(f, STX_DW(10, 2, E_CT_OPTS + 8 * i));
	}
	f_emit(f, MOV_REG(1, 6));
	f_emit(f, MOV_REG(2, 10));
	f_emit(f, ADD_IMM(2, E_CT_TUPLE));
	f_emit(f, MOV_IMM(3, 12));
	f_emit(f, MOV_REG(4, 10));
	f_emit(f, ADD_IMM(4, E_CT_OPTS));
	f_emit(f, MOV_IMM(5, 12));
}

/* A reference in R9 (a test kfunc object, a ring buffer record or, in
 * the functions whose R6 is the context, the conntrack entry) held
 * across a few steps, which may throw or call functions that do.  The
 * entry takes the place of either of the others: rnd() is drawn as for
 * them.
 */
static void g_ref(struct gctx *g)
{
	bool kf = rnd(2);
	bool ct = e_ct_fd >= 0 && g->f->kind <= FK_GLOBAL && ct_rnd(3) == 0;
	int kind = ct ? 2 : kf ? 0 : 1, size = kf ? 0 : 8 << rnd(4);
	int skip;

	if (kind == 2) {
		g->p->ct_holds++;
		f_ct_args(g->f);
		f_emit(g->f, CALL_KFUNC(id_ct_lookup));
	} else if (kf) {
		f_emit(g->f, MOV_IMM(1, 0));
		f_emit(g->f, STX_DW(10, 1, -8));
		f_emit(g->f, MOV_REG(1, 10));
		f_emit(g->f, ADD_IMM(1, -8));
		f_emit(g->f, CALL_KFUNC(id_acquire));
	} else {
		f_map(g->f, 1, e_ringbuf);
		f_emit(g->f, MOV_IMM(2, size));
		f_emit(g->f, MOV_IMM(3, 0));
		f_emit(g->f, CALL_HELPER(BPF_FUNC_ringbuf_reserve));
	}
	skip = g->f->n;
	f_emit(g->f, JEQ_IMM(0, 0, 0));
	f_emit(g->f, MOV_REG(9, 0));
	f_emit(g->f, MOV_IMM(0, 0));	/* steps may test R0: no pointer */
	if (kind == 1)
		f_emit(g->f, STX_DW(9, 7, 0));
	g->holding = true;
	g->nest++;
	gen_steps(g, 1 + rnd(3));
	g->nest--;
	g->holding = false;
	f_emit(g->f, MOV_REG(1, 9));
	if (kind == 1) {
		f_emit(g->f, MOV_IMM(2, 0));
		f_emit(g->f, CALL_HELPER(rnd(2) ? BPF_FUNC_ringbuf_submit : BPF_FUNC_ringbuf_discard));
	} else {
		if (!kf)
			rnd(2);
		f_emit(g->f, CALL_KFUNC(kind == 2 ? id_ct_release : id_release));
	}
	f_emit(g->f, MOV_IMM(9, 0));
	g->f->insns[skip].off = g->f->n - skip - 1;
	f_emit(g->f, MOV_IMM(0, 0));	/* the release leaves no R0 */
}

/* A branch over a few steps, maybe with an else part: joins, and code
 * that the verifier may find dead
 */
static void g_branch(struct gctx *g)
{
	int at = g->f->n, ja;

	f_emit(g->f, g_cond(rnd(5) ? e_sreg() : 0, 0));
	g->nest++;
	gen_steps(g, 1 + rnd(2));
	if (rnd(3) == 0) {
		ja = g->f->n;
		f_emit(g->f, JA(0));
		g->f->insns[at].off = g->f->n - at - 1;
		gen_steps(g, 1 + rnd(2));
		g->f->insns[ja].off = g->f->n - ja - 1;
	} else {
		g->f->insns[at].off = g->f->n - at - 1;
	}
	g->nest--;
}

static void g_spill(struct gctx *g)
{
	int r = e_sreg();

	if (rnd(2))
		f_emit(g->f, STX_DW(10, r, -16));
	else
		f_emit(g->f, STX_W(10, r, -16 + 4 * rnd(2)));
	f_emit(g->f, INSN(BPF_LDX | BPF_MEM | (rnd(2) ? BPF_DW : BPF_W), 15 - r, 10, -16, 0));
}

static void g_load_bytes(struct gctx *g)
{
	f_emit(g->f, MOV_REG(1, 6));
	f_emit(g->f, MOV_IMM(2, rnd(70)));
	f_emit(g->f, MOV_REG(3, 10));
	f_emit(g->f, ADD_IMM(3, -16));
	f_emit(g->f, MOV_IMM(4, 8));
	f_emit(g->f, CALL_HELPER(BPF_FUNC_skb_load_bytes));
	f_emit(g->f, MOV_REG(e_sreg(), 0));
	if (rnd(2))
		f_emit(g->f, LDX_DW(e_sreg(), 10, -16));
}

/* A packet pointer kept in R9 across later steps (calls among them) */
static void g_pkt_keep(struct gctx *g)
{
	f_emit(g->f, LDX_W(2, 6, 76));
	f_emit(g->f, LDX_W(3, 6, 80));
	f_emit(g->f, MOV_REG(4, 2));
	f_emit(g->f, ADD_IMM(4, 1 + rnd(40)));
	f_emit(g->f, INSN(BPF_JMP | BPF_JGT | BPF_X, 4, 3, 1, 0));
	f_emit(g->f, MOV_REG(9, 2));
	if (rnd(2))
		f_emit(g->f, ADD_IMM(9, rnd(2) ? 1 : 0));
}

/* A read through R9 where it is no null (a packet pointer, or stale) */
static void g_pkt_use(struct gctx *g)
{
	f_emit(g->f, JEQ_IMM(9, 0, 1));
	f_emit(g->f, INSN(BPF_LDX | BPF_MEM | BPF_B, e_sreg(), 9, 0, 0));
}

/* Move the packet's head: every packet pointer goes stale */
static void g_change_pkt(struct gctx *g)
{
	f_emit(g->f, MOV_REG(1, 6));
	f_emit(g->f, MOV_IMM(2, 16));
	f_emit(g->f, MOV_IMM(3, 0));
	f_emit(g->f, CALL_HELPER(BPF_FUNC_skb_change_head));
	f_emit(g->f, MOV_REG(e_sreg(), 0));
}

static void gen_step(struct gctx *g)
{
	/* steps that a reference held refuses, which stay rare there */
	bool risky = !(g->holding || g->no_ref_ops) || rnd(20) == 0;

	switch (rnd(30)) {
	case 0: case 1: case 2: case 3: case 4:
		g_alu(g);
		break;
	case 5: case 6:
		g_ctx_load(g);
		break;
	case 7: case 8:
		if (risky)
			g_ld_abs(g);
		break;
	case 9:
		g_pkt(g);
		break;
	case 10: case 11: case 12:
		g_assert(g, rnd(6) ? e_sreg() : 9);
		break;
	case 13: case 14:
		if (g->nest < 2)
			g_branch(g);
		break;
	case 15: case 16: case 17:
		g_call(g);
		break;
	case 18: case 19:
		if (risky)
			g_tail_call(g);
		break;
	case 20:
		if (!g->holding && g->nest < 2)
			g_ref(g);
		break;
	case 21:
		g_loop(g);
		break;
	case 22:
		g_spill(g);
		break;
	case 23:
		g_load_bytes(g);
		break;
	case 24: case 25: case 26:
		if (!g->holding)
			g_pkt_keep(g);
		break;
	case 27: case 28:
		if (!g->holding)
			g_pkt_use(g);
		break;
	case 29:
		if (rnd(2))
			g_change_pkt(g);
		break;
	}
}

static void gen_steps(struct gctx *g, int steps)
{
	while (steps--)
		gen_step(g);
}

/* Generate function p->nf of this kind; returns its index */
static int gen_func(struct eprog *p, int kind, int depth, unsigned int anc, bool no_ref_ops)
{
	int id = p->nf++;
	struct efunc *f = &p->f[id];
	struct gctx g = { .p = p, .f = f, .fid = id, .depth = depth,
			  .anc = anc | (1u << id), .no_ref_ops = no_ref_ops };

	f->kind = kind;
	f->depth = depth;
	f->n = f->nref = 0;
	switch (kind) {
	case FK_LOOP_CB:
		/* a throw ends the program, as one at the bpf_loop() would */
		f_emit(f, MOV_REG(7, 1));
		f_emit(f, MOV_IMM(6, 0));
		f_emit(f, MOV_IMM(8, 0));
		if (rnd(3))
			g_alu(&g);
		if (rnd(8) == 0)
			g_throw(&g);
		f_emit(f, MOV_REG(0, e_sreg()));
		f_emit(f, INSN(BPF_ALU64 | BPF_AND | BPF_K, 0, 0, 0, 1));
		f_emit(f, EXIT());
		return id;
	case FK_EXC_CB:
		f_emit(f, MOV_REG(7, 1));
		if (rnd(40) == 0)
			g_throw(&g);	/* refused */
		if (rnd(2)) {
			f_emit(f, MOV_IMM(0, 10 + rnd(50)));
		} else {
			f_emit(f, MOV_REG(0, 7));
			f_emit(f, INSN(BPF_ALU64 | BPF_AND | BPF_K, 0, 0, 0, 0xfff));
		}
		f_emit(f, EXIT());
		return id;
	}
	/* R0 and R6-R9 always hold something: R6 the context, R7 and R8
	 * scalars, R9 0 or a reference (checks and markers read them)
	 */
	f_emit(f, MOV_REG(6, 1));
	if (kind == FK_MAIN)
		f_emit(f, LDX_W(7, 6, 0));
	else
		f_emit(f, MOV_REG(7, 2));
	f_emit(f, MOV_IMM(8, 0));
	f_emit(f, MOV_IMM(9, 0));
	f_emit(f, MOV_IMM(0, 0));
	/* the stack the steps use: an uninitialised read (allowed with
	 * CAP_PERFMON) would return what the twin left there
	 */
	f_emit(f, ST_DW(10, -8, 0));
	f_emit(f, ST_DW(10, -16, 0));
	if (kind == FK_MAIN && rnd(2) && p->nf < E_MAX_FUNCS) {
		p->exc_cb = gen_func(p, FK_EXC_CB, 1, 0, true);
		f_ref(f, p->exc_cb, true, 1);
		f_emit(f, CALL_KFUNC(id_set_cb));
		f_emit(f, MOV_IMM(0, 0));
	}
	gen_steps(&g, 1 + rnd(kind == FK_MAIN ? 7 : 5));
	switch (rnd(10)) {
	case 0: case 1:		/* every path that gets here throws */
		g_throw(&g);
		return id;
	case 2:
		if (g.no_ref_ops)
			break;
		g_tail_call(&g);
		if (rnd(2)) {
			g_throw(&g);
			return id;
		}
		break;
	}
	if (rnd(2))
		f_emit(f, MOV_REG(0, e_sreg()));
	else
		f_emit(f, MOV_IMM(0, e_imm()));
	f_emit(f, EXIT());
	return id;
}

/* Lay the functions out, main first, and resolve their calls */
static void e_generate(struct eprog *p)
{
	int i, j, at;

	p->nf = 0;
	p->exc_cb = -1;
	p->n = 0;
	p->overflow = false;
	p->ct_holds = 0;
	gen_func(p, FK_MAIN, 0, 0, false);
	for (i = 0; i < p->nf; i++) {
		p->start[i] = p->n;
		if (p->f[i].n >= E_FUNC_INSNS || p->n + p->f[i].n > E_MAX_INSNS) {
			p->overflow = true;
			return;
		}
		memcpy(p->insns + p->n, p->f[i].insns, p->f[i].n * sizeof(struct bpf_insn));
		p->n += p->f[i].n;
	}
	p->start[p->nf] = p->n;
	for (i = 0; i < p->nf; i++) {
		for (j = 0; j < p->f[i].nref; j++) {
			at = p->start[i] + p->f[i].ref_at[j];
			p->insns[at].imm = p->start[p->f[i].ref_to[j]] - at - 1;
		}
	}
	/* an extension for one of the global functions, now and then (6.1
	 * replaces no static one: one of those once in a while, for the
	 * refusal)
	 */
	p->ext_func = -1;
	if (rnd(3) == 0) {
		int cand[E_MAX_FUNCS], n = 0;

		for (i = 1; i < p->nf; i++)
			if (p->f[i].kind == FK_GLOBAL ||
			    (p->f[i].kind == FK_STATIC && rnd(10) == 0))
				cand[n++] = i;
		if (n) {
			p->ext_func = cand[rnd(n)];
			p->ext_kind = rnd(4);
			p->ext_val = e_imm();
		}
	}
}

/* ---- the verifier's log (6.1, log level 2) ---- */

/* A scalar's bounds, as one state shows them or as the union of several */
struct bnd {
	bool any;		/* seen at least once */
	bool bad;		/* seen as something else, or not parsed */
	/* a packet pointer: data + pkt_off, pkt_range bytes before data_end */
	bool pkt;
	int pkt_off, pkt_range;
	__u64 umin, umax, tv, tm;
	__s64 smin, smax;
	__u32 u32min, u32max;
	__s32 s32min, s32max;
};

static void bnd_const(struct bnd *b, __u64 v)
{
	b->umin = b->umax = v;
	b->smin = b->smax = (__s64)v;
	b->tv = v;
	b->tm = 0;
	b->u32min = b->u32max = (__u32)v;
	b->s32min = b->s32max = (__s32)v;
}

/*
 * Parse the value of a register (after "R7_w=") into b.  6.1 leaves out
 * a bound that equals its default or, for smin/smax and the 32-bit ones,
 * the bound it derives from (which one is not said): whatever is left out
 * is taken as unbounded, which is weaker, never wrong.  Returns false for
 * anything but a scalar.
 */
static bool parse_scalar(const char *v, struct bnd *b)
{
	char *end;

	if (*v == 'P')
		v++;
	if (*v == '-' || (*v >= '0' && *v <= '9')) {
		bnd_const(b, (__u64)strtoll(v, &end, 10));
		return true;
	}
	if (strncmp(v, "scalar(", 7))
		return false;
	b->umin = 0;
	b->umax = ~0ULL;
	b->smin = INT64_MIN;
	b->smax = INT64_MAX;
	b->tv = 0;
	b->tm = ~0ULL;
	b->u32min = 0;
	b->u32max = ~0U;
	b->s32min = INT32_MIN;
	b->s32max = INT32_MAX;
	v += 7;
	while (*v && *v != ')') {
		if (!strncmp(v, "smin=", 5))
			b->smin = strtoll(v + 5, &end, 10);
		else if (!strncmp(v, "smax=", 5))
			b->smax = strtoll(v + 5, &end, 10);
		else if (!strncmp(v, "umin=", 5))
			b->umin = strtoull(v + 5, &end, 10);
		else if (!strncmp(v, "umax=", 5))
			b->umax = strtoull(v + 5, &end, 10);
		else if (!strncmp(v, "s32_min=", 8))
			b->s32min = strtol(v + 8, &end, 10);
		else if (!strncmp(v, "s32_max=", 8))
			b->s32max = strtol(v + 8, &end, 10);
		else if (!strncmp(v, "u32_min=", 8))	/* printed with %d */
			b->u32min = (__u32)strtoll(v + 8, &end, 10);
		else if (!strncmp(v, "u32_max=", 8))
			b->u32max = (__u32)strtoll(v + 8, &end, 10);
		else if (!strncmp(v, "var_off=(", 9)) {
			b->tv = strtoull(v + 9, &end, 16);
			if (*end != ';')
				return false;
			b->tm = strtoull(end + 1, &end, 16);
			if (*end != ')')
				return false;
			end++;
		} else if (!strncmp(v, "id=", 3)) {
			strtol(v + 3, &end, 10);
		} else {
			return false;
		}
		if (end == v)
			return false;
		v = end;
		if (*v == ',')
			v++;
	}
	return *v == ')';
}

static void bnd_union(struct bnd *u, const struct bnd *b)
{
	__u64 mu;

	if (!u->any) {
		*u = *b;
		u->any = true;
		return;
	}
#define LO(f) (u->f = b->f < u->f ? b->f : u->f)
#define HI(f) (u->f = b->f > u->f ? b->f : u->f)
	LO(umin);
	HI(umax);
	LO(smin);
	HI(smax);
	LO(u32min);
	HI(u32max);
	LO(s32min);
	HI(s32max);
#undef LO
#undef HI
	mu = u->tm | b->tm | (u->tv ^ b->tv);
	u->tm = mu;
	u->tv = u->tv & ~mu;
}

/* Register kinds in the reconstructed states */
enum { K_NONE, K_SCALAR, K_PTR, K_CTX, K_PKT };

/* What a log says about each insn of its program */
struct lview {
	int n;
	unsigned char visited[T_MAX_INSNS];
	/* over the states the verifier had before the insn (as far as the
	 * log shows them): registers that were scalars, that were something
	 * else (a pointer), that were not initialised; and how many states
	 */
	unsigned short scalar[T_MAX_INSNS], other[T_MAX_INSNS], none[T_MAX_INSNS];
	unsigned short ctx[T_MAX_INSNS], pkt[T_MAX_INSNS];	/* some of other */
	unsigned short nstates[T_MAX_INSNS];
	/* markers (T1): the register each insn marks (-1: none) and the
	 * union of that register's states right after it
	 */
	signed char mark_reg[T_MAX_INSNS];
	struct bnd mark[T_MAX_INSNS];
};

struct recon {
	int frame;
	unsigned char kind[8][11];
};

/*
 * Apply a state print to the current frame.  'full' prints list every
 * register that is initialised; the others (after an insn) only those it
 * touched.  Returns the register value of 'want' in *wv (NULL if not
 * printed).
 */
static void apply_state(struct recon *rc, const char *s, bool full, int want, const char **wv)
{
	int frame = 0, depth, r, i;
	const char *t;

	while (*s == ' ')
		s++;
	if (!strncmp(s, "frame", 5)) {
		frame = atoi(s + 5);
		s = strchr(s, ':');
		s = s ? s + 1 : "";
	}
	if (frame < 0 || frame > 7)
		frame = 0;
	if (full || frame != rc->frame) {
		rc->frame = frame;
		if (full)
			for (i = 0; i < 11; i++)
				rc->kind[frame][i] = K_NONE;
	}
	if (wv)
		*wv = NULL;
	for (;;) {
		while (*s == ' ')
			s++;
		if (!*s || *s == '\n')
			break;
		t = s;
		/* a token ends at a space outside parentheses */
		for (depth = 0; *s && *s != '\n' && (*s != ' ' || depth); s++) {
			if (*s == '(')
				depth++;
			else if (*s == ')')
				depth--;
		}
		if (t[0] != 'R' || t[1] < '0' || t[1] > '9')
			continue;
		r = atoi(t + 1);
		if (r < 0 || r > 10)
			continue;
		t = strchr(t, '=');
		if (!t || t > s)
			continue;
		t++;
		if (*t == 'P')
			t++;
		if (*t == '-' || (*t >= '0' && *t <= '9') || !strncmp(t, "scalar", 6))
			rc->kind[frame][r] = K_SCALAR;
		else if (!strncmp(t, "ctx(off=0,", 10))
			rc->kind[frame][r] = K_CTX;
		else if (!strncmp(t, "pkt(", 4))
			rc->kind[frame][r] = K_PKT;
		else
			rc->kind[frame][r] = K_PTR;
		if (r == want && wv)
			*wv = t;
	}
}

static void record_state(struct lview *lv, const struct recon *rc, int at)
{
	int r;

	if (at < 0 || at >= lv->n)
		return;
	lv->visited[at] = 1;
	if (lv->nstates[at] < 0xffff)
		lv->nstates[at]++;
	for (r = 0; r < 11; r++) {
		unsigned short bit = 1 << r;

		switch (rc->kind[rc->frame][r]) {
		case K_SCALAR:
			lv->scalar[at] |= bit;
			break;
		case K_CTX:
			lv->ctx[at] |= bit;
			lv->other[at] |= bit;
			break;
		case K_PKT:
			lv->pkt[at] |= bit;
			lv->other[at] |= bit;
			break;
		case K_PTR:
			lv->other[at] |= bit;
			break;
		default:
			lv->none[at] |= bit;
			break;
		}
	}
}

static bool is_call_clobber(const struct bpf_insn *in)
{
	/* helper and kfunc calls, and LD_ABS/LD_IND, which are calls too */
	return (in->code == (BPF_JMP | BPF_CALL) && in->src_reg != BPF_PSEUDO_CALL) ||
	       (BPF_CLASS(in->code) == BPF_LD &&
		(BPF_MODE(in->code) == BPF_ABS || BPF_MODE(in->code) == BPF_IND));
}

/* "pkt(off=N,r=R,imm=0)": a packet pointer at a known offset */
static bool parse_pkt(const char *v, int *off, int *range)
{
	return sscanf(v, "pkt(off=%d,r=%d,imm=0)", off, range) == 2;
}

/* The union of a marker's register after it, from a state print: all
 * scalars, or all packet pointers at one offset
 */
static void marker_value(struct lview *lv, int m, const char *v)
{
	struct bnd b = { 0 }, *u = &lv->mark[m];
	int off, range;

	if (!v)
		return;		/* not printed: the state of another path */
	if (parse_pkt(v, &off, &range)) {
		if (!u->any) {
			u->any = u->pkt = true;
			u->pkt_off = off;
			u->pkt_range = range;
		} else if (!u->pkt || u->pkt_off != off) {
			u->bad = true;
		} else if (range < u->pkt_range) {
			u->pkt_range = range;
		}
		return;
	}
	if (!parse_scalar(v, &b) || u->pkt) {
		u->bad = true;
		return;
	}
	bnd_union(u, &b);
}

/*
 * Read the log of a program of n insns into lv: which insns the verifier
 * walked, the kinds of registers before each, and (where lv->mark_reg is
 * set) the markers' registers after them.  The states are rebuilt from
 * the log: full prints (branches popped, calls, returns, the start of a
 * function's walk) and what each insn touched; helper and kfunc calls
 * and LD_ABS clear R1-R5, which their prints cannot show.
 */
static void parse_log(const char *log, const struct bpf_insn *insns, int n, struct lview *lv)
{
	enum { S_NONE, S_CALLER, S_CALLEE, S_RET_CALLEE, S_RET_CALLER } sect = S_NONE;
	/* the lines that head a full print, and the state each one heads */
	static const struct {
		const char *head;
		int sect;
	} sect_heads[] = {
		{ "caller:", S_CALLER },
		{ "callee:", S_CALLEE },
		{ "returning from callee:", S_RET_CALLEE },
		{ "to caller at ", S_RET_CALLER },
	};
	unsigned int h;
	struct recon rc = { 0 };
	const char *l, *nl, *semi, *v;
	int pending = -1, idx, i;
	bool fresh = true;
	char *end;

	lv->n = n;
	for (l = log; *l; l = nl) {
		nl = strchr(l, '\n');
		nl = nl ? nl + 1 : l + strlen(l);

		if (!strncmp(l, "from ", 5)) {
			/* "from X to Y: <state>", "...: safe", "...: throws" */
			pending = -1;
			sect = S_NONE;
			l = strstr(l, " to ");
			if (!l || l > nl)
				continue;
			idx = strtol(l + 4, &end, 10);
			semi = strchr(end, ':');
			if (!semi || semi > nl)
				continue;
			if (!strncmp(semi, ": safe", 6)) {
				if (idx >= 0 && idx < n)
					lv->visited[idx] = 1;
				continue;
			}
			if (!strncmp(semi, ": throws", 8))
				continue;
			apply_state(&rc, semi + 1, true, -1, NULL);
			fresh = false;
			continue;
		}
		for (h = 0; h < ARRAY_SIZE(sect_heads); h++)
			if (!strncmp(l, sect_heads[h].head, strlen(sect_heads[h].head)))
				break;
		if (h < ARRAY_SIZE(sect_heads)) {
			sect = sect_heads[h].sect;
			continue;
		}
		if (l[0] == ' ' && sect != S_NONE) {
			if (sect == S_CALLEE || sect == S_RET_CALLER)
				apply_state(&rc, l, true, -1, NULL);
			sect = S_NONE;
			continue;
		}
		sect = S_NONE;
		if (!strncmp(l, "Validating ", 11) || !strncmp(l, "Func#", 5)) {
			if (strstr(l, "is global and valid")) {
				/* a global function's call: R0 unknown */
				for (i = 1; i <= 5; i++)
					rc.kind[rc.frame][i] = K_NONE;
				rc.kind[rc.frame][0] = K_SCALAR;
			} else {
				fresh = true;	/* another function's walk starts */
			}
			continue;
		}
		if (l[0] < '0' || l[0] > '9')
			continue;
		idx = strtol(l, &end, 10);
		if (*end != ':' || idx < 0 || idx >= n)
			continue;
		end++;
		if (!strncmp(end, " safe", 5)) {
			record_state(lv, &rc, idx);
			pending = -1;
			continue;
		}
		if (!strncmp(end, " (", 2)) {
			/* an insn: the state so far is the one before it */
			if (fresh) {
				memset(&rc, 0, sizeof(rc));
				fresh = false;
			}
			record_state(lv, &rc, idx);
			if (is_call_clobber(&insns[idx])) {
				for (i = 0; i <= 5; i++)
					rc.kind[rc.frame][i] = K_NONE;
				/* LD_ABS sets R0; a helper's print shows it;
				 * a kfunc's does not: whatever it is, it is
				 * no register to take
				 */
				if (insns[idx].code != (BPF_JMP | BPF_CALL))
					rc.kind[rc.frame][0] = K_SCALAR;
				else if (insns[idx].src_reg == BPF_PSEUDO_KFUNC_CALL)
					rc.kind[rc.frame][0] = K_PTR;
			}
			pending = lv->mark_reg[idx] >= 0 ? idx : -1;
			semi = strchr(end, ';');
			if (semi && semi < nl) {
				apply_state(&rc, semi + 1, false, pending >= 0 ? lv->mark_reg[idx] : -1, &v);
				if (pending >= 0)
					marker_value(lv, pending, v);
				pending = -1;
			}
			continue;
		}
		/* "N: <state>": what the last insn touched, or a walk's start */
		if (fresh) {
			memset(&rc, 0, sizeof(rc));
			apply_state(&rc, end, true, -1, NULL);
			fresh = false;
			pending = -1;
			continue;
		}
		apply_state(&rc, end, false, pending >= 0 ? lv->mark_reg[pending] : -1, &v);
		/* a jump decided prints its state with its own index */
		if (pending >= 0 && (idx == pending || idx == pending + 1))
			marker_value(lv, pending, v);
		pending = -1;
	}
}

/* ---- the twins ---- */

/* A register checked at an insn of the original */
struct check {
	int at, reg;
	int mark;		/* its marker in T1 */
	struct bnd b;		/* its bounds, from T1's log */
};

struct twin {
	struct bpf_insn insns[T_MAX_INSNS];
	int n;
	bool overflow;
	int blk[E_MAX_INSNS + 1];	/* where the insn's block starts */
	int pos[E_MAX_INSNS + 1];	/* where the insn itself is */
	int nchk;			/* T2: checks emitted */
	int npkt;			/* of which of packet pointers */
	int ndead, dead_at[E_MAX_DEAD];	/* T2: calls whose return was never walked */
};

/* The state of one program's embedding */
struct embed {
	struct eprog *p;
	struct lview lo, l1;		/* O's and T1's logs */
	struct check chk[E_MAX_CHECKS];
	int nchk;
	int cfirst[E_MAX_INSNS + 1], ccnt[E_MAX_INSNS + 1];
	bool start_of[E_MAX_INSNS + 1];	/* an insn, not an ld_imm64's second half */
	bool protect[E_MAX_INSNS + 1];	/* part of a throw block: nothing before it */
	bool dead_call[E_MAX_INSNS + 1];
	struct twin t1, t2;
};

static void t_emit(struct twin *t, struct bpf_insn insn)
{
	if (t->n < T_MAX_INSNS)
		t->insns[t->n++] = insn;
	else
		t->overflow = true;
}

static void t_mapval(struct twin *t, int reg, int off)
{
	t_emit(t, LD_IMM64(reg, BPF_PSEUDO_MAP_VALUE, e_data));
	t_emit(t, INSN(0, 0, 0, 0, off));
}

static bool is_throw_call(const struct bpf_insn *in)
{
	return in->code == (BPF_JMP | BPF_CALL) && in->src_reg == BPF_PSEUDO_KFUNC_CALL &&
	       in->imm == id_throw;
}

static bool is_ld_imm64(const struct bpf_insn *in)
{
	return in->code == (BPF_LD | BPF_IMM | BPF_DW);
}

static bool is_jump(const struct bpf_insn *in)
{
	int cls = BPF_CLASS(in->code), op = BPF_OP(in->code);

	return (cls == BPF_JMP || cls == BPF_JMP32) && op != BPF_CALL && op != BPF_EXIT;
}

/* The verifier's own test of a throw block ("r1 = imm; call bpf_throw",
 * maybe behind up to two plain gotos): its insns keep their shape and
 * place in the twins
 */
static void mark_throw_blocks(struct embed *e)
{
	const struct bpf_insn *in = e->p->insns;
	int n = e->p->n, i, t, gotos;

	for (i = 0; i + 1 < n; i++) {
		if (in[i].code == (BPF_ALU64 | BPF_MOV | BPF_K) && in[i].dst_reg == 1 &&
		    is_throw_call(&in[i + 1]))
			e->protect[i] = e->protect[i + 1] = true;
	}
	for (i = 0; i < n; i++) {
		if (in[i].code != (BPF_JMP | BPF_JA))
			continue;
		for (t = i, gotos = 0; t >= 0 && t < n && in[t].code == (BPF_JMP | BPF_JA) &&
		     gotos <= 2; gotos++)
			t += in[t].off + 1;
		if (t >= 0 && t < n && e->protect[t])
			e->protect[i] = true;
	}
}

static int func_of(const struct eprog *p, int i)
{
	int k;

	for (k = p->nf - 1; k > 0 && p->start[k] > i; k--)
		;
	return k;
}

static void add_check(struct embed *e, int at, int reg)
{
	const struct lview *lo = &e->lo;
	unsigned short bit = 1 << reg;

	/* a scalar, or a packet pointer, in every state shown (T1 tells
	 * which, exactly)
	 */
	if (e->nchk == E_MAX_CHECKS || !lo->nstates[at] || !((lo->scalar[at] | lo->pkt[at]) & bit) ||
	    (((lo->other[at] & ~lo->pkt[at]) | lo->none[at]) & bit))
		return;
	if (e->ccnt[at] && e->chk[e->nchk - 1].at == at && e->chk[e->nchk - 1].reg == reg)
		return;
	if (!e->ccnt[at])
		e->cfirst[at] = e->nchk;
	e->ccnt[at]++;
	e->chk[e->nchk].at = at;
	e->chk[e->nchk].reg = reg;
	e->chk[e->nchk].mark = -1;
	memset(&e->chk[e->nchk].b, 0, sizeof(e->chk[e->nchk].b));
	e->nchk++;
}

/*
 * Choose from O's log the registers to check, by insn: R0 and R6-R9 after
 * each call (what it returned, what it kept) and at joins; what a
 * conditional jump compares; R0 at exits; the arguments at function
 * entries.  A register qualifies where every state shown had a scalar in
 * it.  And the calls the verifier walked whose return it never walked.
 */
static void choose_checks(struct embed *e)
{
	const struct eprog *p = e->p;
	const struct bpf_insn *in = p->insns;
	bool target[E_MAX_INSNS + 1] = { 0 };
	int i, k, r, prev = -1, f;

	memset(e->ccnt, 0, sizeof(e->ccnt));
	memset(e->protect, 0, sizeof(e->protect));
	memset(e->dead_call, 0, sizeof(e->dead_call));
	memset(e->start_of, 0, sizeof(e->start_of));
	e->nchk = 0;
	for (i = 0; i < p->n; i++) {
		e->start_of[i] = true;
		if (is_jump(&in[i]) && i + in[i].off + 1 >= 0 && i + in[i].off + 1 < p->n)
			target[i + in[i].off + 1] = true;
		if (is_ld_imm64(&in[i]))
			i++;
	}
	mark_throw_blocks(e);
	for (i = 0; i < p->n; prev = i, i += is_ld_imm64(&in[i]) ? 2 : 1) {
		/* calls of all kinds, LD_ABS and LD_IND */
		bool after_call = prev >= 0 && !is_throw_call(&in[prev]) &&
				  (in[prev].code == (BPF_JMP | BPF_CALL) ||
				   is_call_clobber(&in[prev]));

		f = func_of(p, i);
		if (in[i].code == (BPF_JMP | BPF_CALL) && !is_throw_call(&in[i]) &&
		    e->lo.visited[i] && i + 1 < p->start[f + 1] && !e->lo.visited[i + 1])
			e->dead_call[i] = true;
		if (!e->lo.visited[i] || e->protect[i])
			continue;
		if (i == p->start[f] && f) {
			k = p->f[f].kind;
			add_check(e, i, k == FK_STATIC || k == FK_GLOBAL ? 2 : 1);
		}
		if (after_call || target[i]) {
			add_check(e, i, 0);
			for (r = 6; r <= 9; r++)
				add_check(e, i, r);
		}
		if (is_jump(&in[i]) && BPF_OP(in[i].code) != BPF_JA) {
			add_check(e, i, in[i].dst_reg);
			if (BPF_SRC(in[i].code) == BPF_X)
				add_check(e, i, in[i].src_reg);
		}
		if (in[i].code == (BPF_JMP | BPF_EXIT))
			add_check(e, i, 0);
	}
}

/* Fix the jumps, calls and function loads of the copied insns */
static void fix_refs(struct twin *t, const struct eprog *p)
{
	const struct bpf_insn *in = p->insns;
	int i, to;

	for (i = 0; i < p->n; i++) {
		struct bpf_insn *o = &t->insns[t->pos[i]];

		if (is_jump(&in[i])) {
			to = i + in[i].off + 1;
			o->off = t->blk[to] - t->pos[i] - 1;
		} else if ((in[i].code == (BPF_JMP | BPF_CALL) && in[i].src_reg == BPF_PSEUDO_CALL) ||
			   (is_ld_imm64(&in[i]) && in[i].src_reg == BPF_PSEUDO_FUNC)) {
			to = i + in[i].imm + 1;
			o->imm = t->blk[to] - t->pos[i] - 1;
		}
		if (is_ld_imm64(&in[i]))
			i++;
	}
}

/* T1: O with a marker for each check */
static void build_t1(struct embed *e)
{
	const struct eprog *p = e->p;
	struct twin *t = &e->t1;
	int i, k;

	t->n = 0;
	t->overflow = false;
	for (i = 0; i < p->n; i++) {
		t->blk[i] = t->n;
		if (e->start_of[i])
			for (k = e->cfirst[i]; k < e->cfirst[i] + e->ccnt[i]; k++) {
				e->chk[k].mark = t->n;
				t_emit(t, MARKER(e->chk[k].reg));
			}
		t->pos[i] = t->n;
		t_emit(t, p->insns[i]);
	}
	t->blk[p->n] = t->pos[p->n] = t->n;
	fix_refs(t, p);
}

/* A register where the twin may keep a bound: one of R1-R5 that no
 * state at the insn had initialised, or R0 at a function's entry (-1:
 * none)
 */
static int free_reg(const struct lview *lo, int at, unsigned int not, bool entry)
{
	int r;

	for (r = entry ? 0 : 1; r <= 5; r++)
		if (!(not & (1 << r)) && lo->nstates[at] && (lo->none[at] & (1 << r)) &&
		    !((lo->scalar[at] | lo->other[at]) & (1 << r)))
			return r;
	return -1;
}

/* One that every state had initialised, to spill for the check */
static int spill_reg(const struct lview *lo, int at, int not)
{
	static const int order[] = { 6, 7, 8, 9, 0 };
	int i, r;

	for (i = 0; i < 5; i++) {
		r = order[i];
		if (r != not && ((lo->scalar[at] | lo->other[at]) & (1 << r)) &&
		    !(lo->none[at] & (1 << r)))
			return r;
	}
	return -1;
}

/* Table slots of a check's bounds */
enum { B_UMIN, B_UMAX, B_SMIN, B_SMAX, B_NOTMASK, B_U32MIN, B_U32MAX, B_S32MIN, B_S32MAX };

/* Which bounds of b say more than the others do */
static unsigned int useful_bounds(const struct bnd *b)
{
	unsigned int m = 0;
	bool nonneg = b->umax <= INT64_MAX;

	if (b->umin)
		m |= 1 << B_UMIN;
	if (b->umax != ~0ULL)
		m |= 1 << B_UMAX;
	if (b->smin != INT64_MIN && !(nonneg && b->smin <= (__s64)b->umin))
		m |= 1 << B_SMIN;
	if (b->smax != INT64_MAX && !(nonneg && b->smax >= (__s64)b->umax))
		m |= 1 << B_SMAX;
	if (b->u32min && !(b->umax <= 0xffffffffULL && b->u32min <= b->umin))
		m |= 1 << B_U32MIN;
	if (b->u32max != ~0U && !(b->umax <= 0xffffffffULL && b->u32max >= b->umax))
		m |= 1 << B_U32MAX;
	if (b->s32min != INT32_MIN && !(b->umax <= INT32_MAX && b->s32min <= (__s64)b->umin))
		m |= 1 << B_S32MIN;
	if (b->s32max != INT32_MAX && !(b->umax <= INT32_MAX && b->s32max >= (__s64)b->umax))
		m |= 1 << B_S32MAX;
	/* var_off, where its value fits an immediate and it says more than
	 * a range from 0 to its mask
	 */
	if (b->tm != ~0ULL && (__s64)b->tv == (__s32)b->tv && b->umin != b->umax &&
	    !(b->tv == 0 && !(b->tm & (b->tm + 1)) && b->umax <= b->tm))
		m |= 1 << B_NOTMASK;
	return m;
}

static __u64 bound_value(const struct bnd *b, int slot)
{
	switch (slot) {
	case B_UMIN: return b->umin;
	case B_UMAX: return b->umax;
	case B_SMIN: return b->smin;
	case B_SMAX: return b->smax;
	case B_NOTMASK: return ~b->tm;
	case B_U32MIN: return b->u32min;
	case B_U32MAX: return b->u32max;
	case B_S32MIN: return (__u32)b->s32min;
	default: return (__u32)b->s32max;
	}
}

/*
 * T2's check of reg against check k's bounds, loaded from the data map
 * (so that the verifier cannot decide the jumps and drop them): a value
 * outside is stored in k's record, with a flag.  s is a free register, or
 * one spilled around the check.
 */
static void emit_check(struct twin *t, const struct check *c, int k, int s, bool spill)
{
	static const int ops[] = {
		[B_UMIN] = BPF_JMP | BPF_JLT, [B_UMAX] = BPF_JMP | BPF_JGT,
		[B_SMIN] = BPF_JMP | BPF_JSLT, [B_SMAX] = BPF_JMP | BPF_JSGT,
		[B_U32MIN] = BPF_JMP32 | BPF_JLT, [B_U32MAX] = BPF_JMP32 | BPF_JGT,
		[B_S32MIN] = BPF_JMP32 | BPF_JSLT, [B_S32MAX] = BPF_JMP32 | BPF_JSGT,
	};
	unsigned int m = useful_bounds(&c->b);
	int jumps[16], nj = 0, slot, i, ja;

	if (spill)
		t_emit(t, STX_DW(10, s, E_SPILL_OFF));
	for (slot = 0; slot <= B_S32MAX; slot++) {
		if (!(m & (1 << slot)))
			continue;
		t_mapval(t, s, DM_BOUNDS + 72 * k + 8 * slot);
		t_emit(t, LDX_DW(s, s, 0));
		if (slot == B_NOTMASK) {
			t_emit(t, INSN(BPF_ALU64 | BPF_AND | BPF_X, s, c->reg, 0, 0));
			jumps[nj++] = t->n;
			t_emit(t, INSN(BPF_JMP | BPF_JNE | BPF_K, s, 0, 0, (__s32)c->b.tv));
		} else {
			jumps[nj++] = t->n;
			t_emit(t, INSN(ops[slot] | BPF_X, c->reg, s, 0, 0));
		}
	}
	ja = t->n;
	t_emit(t, JA(0));
	for (i = 0; i < nj; i++)
		t->insns[jumps[i]].off = t->n - jumps[i] - 1;
	t_mapval(t, s, DM_RECS + 24 * k);
	t_emit(t, STX_DW(s, c->reg, 0));
	t_emit(t, ST_DW(s, 8, 1));
	t->insns[ja].off = t->n - ja - 1;
	if (spill)
		t_emit(t, LDX_DW(s, 10, E_SPILL_OFF));
}

/* The register holding the context in every state at an insn (-1: none) */
static int ctx_reg(const struct lview *lo, int at)
{
	static const int order[] = { 6, 7, 8, 9, 0, 1, 2, 3, 4, 5 };
	int i, bit;

	for (i = 0; i < 10; i++) {
		bit = 1 << order[i];
		if ((lo->ctx[at] & bit) && !((lo->scalar[at] | lo->none[at] |
					      (lo->other[at] & ~lo->ctx[at])) & bit))
			return order[i];
	}
	return -1;
}

/*
 * T2's check of a packet pointer: the verifier holds that reg is data +
 * pkt_off, and (with a second free register s2) that pkt_range bytes
 * from it lie before data_end.  A stale pointer, after a helper moved the
 * packet behind the verifier's back, fails the first.
 */
static void emit_pkt_check(struct twin *t, const struct check *c, int k, int ctx, int s, int s2)
{
	int jumps[2], nj = 0, ja, i;

	t_emit(t, LDX_W(s, ctx, 76));				/* data */
	if (c->b.pkt_off)
		t_emit(t, ADD_IMM(s, c->b.pkt_off));
	jumps[nj++] = t->n;
	t_emit(t, INSN(BPF_JMP | BPF_JNE | BPF_X, s, c->reg, 0, 0));
	if (s2 >= 0 && c->b.pkt_range > 0) {
		t_emit(t, LDX_W(s2, ctx, 80));			/* data_end */
		t_emit(t, MOV_REG(s, c->reg));
		t_emit(t, ADD_IMM(s, c->b.pkt_range));
		jumps[nj++] = t->n;
		t_emit(t, INSN(BPF_JMP | BPF_JGT | BPF_X, s, s2, 0, 0));
	}
	ja = t->n;
	t_emit(t, JA(0));
	for (i = 0; i < nj; i++)
		t->insns[jumps[i]].off = t->n - jumps[i] - 1;
	t_mapval(t, s, DM_RECS + 24 * k);
	t_emit(t, STX_DW(s, c->reg, 0));
	t_emit(t, ST_DW(s, 8, 1));
	if (s2 >= 0) {
		t_emit(t, LDX_W(s2, ctx, 76));
		t_emit(t, STX_DW(s, s2, 16));
	}
	t->insns[ja].off = t->n - ja - 1;
}

/* T2: O with the checks, and the blocks after calls whose return the
 * verifier never walked
 */
static void build_t2(struct embed *e)
{
	const struct eprog *p = e->p;
	struct twin *t = &e->t2;
	int i, k, s;
	bool spill;

	t->n = 0;
	t->nchk = t->npkt = 0;
	t->ndead = 0;
	t->overflow = false;
	for (i = 0; i < p->n; i++) {
		t->blk[i] = t->n;
		if (!e->start_of[i]) {
			t->pos[i] = t->n;
			t_emit(t, p->insns[i]);
			continue;
		}
		for (k = e->cfirst[i]; k < e->cfirst[i] + e->ccnt[i]; k++) {
			const struct check *c = &e->chk[k];

			if (!c->b.any || c->b.bad)
				continue;
			if (c->b.pkt) {
				int ctx = ctx_reg(&e->lo, i), s2;

				s = free_reg(&e->lo, i, 1 << c->reg, false);
				if (ctx < 0 || s < 0)
					continue;
				s2 = free_reg(&e->lo, i, 1 << c->reg | 1 << s, false);
				emit_pkt_check(t, c, k, ctx, s, s2);
				t->nchk++;
				t->npkt++;
				continue;
			}
			if (!useful_bounds(&c->b))
				continue;
			s = free_reg(&e->lo, i, 1 << c->reg, i == p->start[func_of(p, i)]);
			spill = s < 0;
			if (spill)
				s = spill_reg(&e->lo, i, c->reg);
			if (s < 0)
				continue;
			emit_check(t, c, k, s, spill);
			t->nchk++;
		}
		if (e->dead_call[i] && t->ndead < E_MAX_DEAD) {
			/* R0 is free before a call: an opaque branch over
			 * the call keeps the block after it
			 */
			t_mapval(t, 0, DM_OPAQUE);
			t_emit(t, LDX_DW(0, 0, 0));
			t_emit(t, INSN(BPF_JMP | BPF_JNE | BPF_K, 0, 0, 1, 0));
			t->pos[i] = t->n;
			t_emit(t, p->insns[i]);
			t_mapval(t, 0, DM_DEAD + 8 * t->ndead);
			t_emit(t, ST_DW(0, 0, 1));
			/* and ends the program: what follows, never walked in
			 * O, must not run.  The throw sits behind a jump to
			 * what follows, which the verifier knows is never
			 * taken: what follows stays reachable for the CFG
			 * check and is not walked, as in O.
			 */
			t_emit(t, MOV_IMM(0, 0));
			t_emit(t, INSN(BPF_JMP | BPF_JNE | BPF_K, 0, 0, 2, 0));
			t_emit(t, MOV_IMM(1, 0xdead));
			t_emit(t, CALL_KFUNC(id_throw));
			t->dead_at[t->ndead++] = i;
			continue;
		}
		t->pos[i] = t->n;
		t_emit(t, p->insns[i]);
	}
	t->blk[p->n] = t->pos[p->n] = t->n;
	fix_refs(t, p);
}

/* ---- dumps ---- */

static const char *helper_name(int id)
{
	switch (id) {
	case BPF_FUNC_tail_call: return "bpf_tail_call";
	case BPF_FUNC_loop: return "bpf_loop";
	case BPF_FUNC_ringbuf_reserve: return "bpf_ringbuf_reserve";
	case BPF_FUNC_ringbuf_submit: return "bpf_ringbuf_submit";
	case BPF_FUNC_ringbuf_discard: return "bpf_ringbuf_discard";
	case BPF_FUNC_skb_load_bytes: return "bpf_skb_load_bytes";
	case BPF_FUNC_skb_change_head: return "bpf_skb_change_head";
	default: return "helper";
	}
}

/* One insn as the verifier's log writes it, more or less */
static void disasm(const struct bpf_insn *in, char *buf, size_t len)
{
	static const char *const alu[16] = { "+=", "-=", "*=", "/=", "|=", "&=", "<<=", ">>=",
					     "neg", "%=", "^=", "=", "s>>=", "end" };
	static const char *const jmp[16] = { "goto", "==", ">", ">=", "&", "!=", "s>", "s>=",
					     "call", "exit", "<", "<=", "s<", "s<=" };
	static const char *const sz[4] = { "u32", "u16", "u8", "u64" };
	int cls = BPF_CLASS(in->code), op = BPF_OP(in->code);
	char r = 'r';

	switch (cls) {
	case BPF_ALU:
		r = 'w';
		/* fall through */
	case BPF_ALU64:
		if (op == BPF_NEG)
			snprintf(buf, len, "%c%d = -%c%d", r, in->dst_reg, r, in->dst_reg);
		else if (op == BPF_END)
			snprintf(buf, len, "r%d = %s%d r%d", in->dst_reg,
				 BPF_SRC(in->code) == BPF_TO_BE ? "be" : "le", in->imm, in->dst_reg);
		else if (BPF_SRC(in->code) == BPF_X)
			snprintf(buf, len, "%c%d %s %c%d", r, in->dst_reg, alu[op >> 4], r, in->src_reg);
		else
			snprintf(buf, len, "%c%d %s %d", r, in->dst_reg, alu[op >> 4], in->imm);
		break;
	case BPF_LDX:
		snprintf(buf, len, "r%d = *(%s *)(r%d %+d)", in->dst_reg, sz[BPF_SIZE(in->code) >> 3],
			 in->src_reg, in->off);
		break;
	case BPF_STX:
		snprintf(buf, len, "*(%s *)(r%d %+d) = r%d", sz[BPF_SIZE(in->code) >> 3],
			 in->dst_reg, in->off, in->src_reg);
		break;
	case BPF_ST:
		snprintf(buf, len, "*(%s *)(r%d %+d) = %d", sz[BPF_SIZE(in->code) >> 3],
			 in->dst_reg, in->off, in->imm);
		break;
	case BPF_LD:
		if (BPF_MODE(in->code) == BPF_ABS)
			snprintf(buf, len, "r0 = *(%s *)skb[%d]", sz[BPF_SIZE(in->code) >> 3], in->imm);
		else if (BPF_MODE(in->code) == BPF_IND)
			snprintf(buf, len, "r0 = *(%s *)skb[r%d %+d]", sz[BPF_SIZE(in->code) >> 3],
				 in->src_reg, in->imm);
		else if (in->src_reg == BPF_PSEUDO_MAP_FD)
			snprintf(buf, len, "r%d = map[%s]", in->dst_reg,
				 in->imm == e_prog_array ? "prog_array" :
				 in->imm == e_ringbuf ? "ringbuf" : "data");
		else if (in->src_reg == BPF_PSEUDO_MAP_VALUE)
			snprintf(buf, len, "r%d = map_value[data] + %d", in->dst_reg, in[1].imm);
		else if (in->src_reg == BPF_PSEUDO_FUNC)
			snprintf(buf, len, "r%d = func pc%+d", in->dst_reg, in->imm);
		else
			snprintf(buf, len, "r%d = %#llx", in->dst_reg,
				 (unsigned long long)(__u32)in->imm | (unsigned long long)in[1].imm << 32);
		break;
	case BPF_JMP:
	case BPF_JMP32:
		r = cls == BPF_JMP ? 'r' : 'w';
		if (op == BPF_EXIT)
			snprintf(buf, len, "exit");
		else if (op == BPF_JA)
			snprintf(buf, len, "goto pc%+d", in->off);
		else if (op == BPF_CALL && in->src_reg == BPF_PSEUDO_CALL)
			snprintf(buf, len, "call pc%+d", in->imm);
		else if (op == BPF_CALL && in->src_reg == BPF_PSEUDO_KFUNC_CALL)
			snprintf(buf, len, "call %s", in->imm == id_throw ? "bpf_throw" :
				 in->imm == id_set_cb ? "bpf_set_exception_callback" :
				 in->imm == id_acquire ? "bpf_kfunc_call_test_acquire" :
				 in->imm == id_release ? "bpf_kfunc_call_test_release" : "kfunc");
		else if (op == BPF_CALL)
			snprintf(buf, len, "call %s#%d", helper_name(in->imm), in->imm);
		else if (BPF_SRC(in->code) == BPF_X)
			snprintf(buf, len, "if %c%d %s %c%d goto pc%+d", r, in->dst_reg, jmp[op >> 4],
				 r, in->src_reg, in->off);
		else
			snprintf(buf, len, "if %c%d %s %#x goto pc%+d", r, in->dst_reg, jmp[op >> 4],
				 in->imm, in->off);
		break;
	default:
		snprintf(buf, len, "?");
	}
}

static void dump_prog(const struct eprog *p, const struct lview *lo)
{
	char buf[96];
	int i, k = 0;

	for (i = 0; i < p->n; i++) {
		if (k < p->nf && i == p->start[k]) {
			fprintf(stderr, "  func#%d (%s%s)%s:\n", k, fk_name[p->f[k].kind],
				k == p->exc_cb ? ", set as exception callback" : "",
				k == p->ext_func ? ", replaced by an extension" : "");
			k++;
		}
		disasm(&p->insns[i], buf, sizeof(buf));
		fprintf(stderr, "  %c%4d: %02x %x %x %5d %11d  %s\n",
			lo && !lo->visited[i] ? '*' : ' ', i, p->insns[i].code,
			p->insns[i].dst_reg, p->insns[i].src_reg, p->insns[i].off,
			p->insns[i].imm, buf);
		if (is_ld_imm64(&p->insns[i])) {
			i++;
			fprintf(stderr, "   %4d: %02x %x %x %5d %11d\n", i, p->insns[i].code,
				p->insns[i].dst_reg, p->insns[i].src_reg, p->insns[i].off,
				p->insns[i].imm);
		}
	}
	if (p->ext_func >= 0) {
		static const char *const what[] = { "returns %d", "returns its x argument",
						    "throws", "tail calls slot 0, then returns 7" };

		fprintf(stderr, "  extension of func#%d: ", p->ext_func);
		fprintf(stderr, what[p->ext_kind], p->ext_val);
		fprintf(stderr, "\n");
	}
	fprintf(stderr, "  (* = never walked by the verifier; insn: code dst src off imm)\n");
}

/* ---- loading and running ---- */

static int func_type_of(const struct eprog *p, int k)
{
	return k ? t_func[p->f[k].kind][k] : t_main;
}

/* Load O (blk NULL) or a twin, whose functions start at blk[start] */
static int e_load(const struct eprog *p, const struct bpf_insn *insns, int n, const int *blk,
		  int level, int flags, char *log, int log_size)
{
	struct bpf_func_info fi[E_MAX_FUNCS];
	LIBBPF_OPTS(bpf_prog_load_opts, o, .log_buf = log, .log_size = log_size,
		    .log_level = level, .prog_flags = flags, .prog_btf_fd = e_btf_fd,
		    .func_info = fi, .func_info_rec_size = sizeof(fi[0]), .func_info_cnt = p->nf);
	int k;

	for (k = 0; k < p->nf; k++) {
		fi[k].insn_off = blk ? blk[p->start[k]] : p->start[k];
		fi[k].type_id = func_type_of(p, k);
	}
	if (log)
		log[0] = 0;
	return bpf_prog_load(BPF_PROG_TYPE_SCHED_CLS, NULL, "GPL", insns, n, &o);
}

/* The extension of p->ext_func in the program target_fd, attached: its
 * link's fd, or -1 (*prog_fd the extension's)
 */
static int e_attach_ext(const struct eprog *p, int target_fd, int cfg, int *prog_fd, char *log,
			int log_size)
{
	struct bpf_func_info fi = { 0, t_ext };
	LIBBPF_OPTS(bpf_prog_load_opts, o, .log_buf = log, .log_size = log_size, .log_level = 1,
		    .prog_btf_fd = e_btf_fd, .func_info = &fi, .func_info_rec_size = sizeof(fi),
		    .func_info_cnt = 1, .attach_prog_fd = target_fd,
		    .attach_btf_id = func_type_of(p, p->ext_func));
	struct bpf_insn in[8];
	int n = 0, link;

	switch (p->ext_kind) {
	case EXT_RET_CONST:
		in[n++] = MOV_IMM(0, p->ext_val);
		break;
	case EXT_RET_ARG:
		in[n++] = MOV_REG(0, 2);
		break;
	case EXT_THROW:
		in[n++] = MOV_IMM(1, 0x808);
		in[n++] = CALL_KFUNC(id_throw);
		break;
	case EXT_TAIL_CALL:	/* r1 is the context */
		in[n++] = LD_IMM64(2, BPF_PSEUDO_MAP_FD, e_pa[cfg]);
		in[n++] = INSN(0, 0, 0, 0, 0);
		in[n++] = MOV_IMM(3, 0);
		in[n++] = CALL_HELPER(BPF_FUNC_tail_call);
		in[n++] = MOV_IMM(0, 7);
		break;
	}
	if (p->ext_kind != EXT_THROW)
		in[n++] = EXIT();
	log[0] = 0;
	*prog_fd = bpf_prog_load(BPF_PROG_TYPE_EXT, NULL, "GPL", in, n, &o);
	if (*prog_fd < 0)
		return -1;
	link = bpf_raw_tracepoint_open(NULL, *prog_fd);
	if (link < 0) {
		snprintf(log, log_size, "attach: %s", strerror(errno));
		close(*prog_fd);
		*prog_fd = -1;
	}
	return link;
}

static int e_run(int fd, __u32 *ret)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = e_pkt, .data_size_in = e_pkt_len,
		    .repeat = 1);
	int err = bpf_prog_test_run_opts(fd, &o);

	*ret = o.retval;
	return err ? -errno : 0;
}

/* No ring buffer record is left reserved: a record of the whole ring fits */
static bool e_ring_clean(void)
{
	__u32 ret = 0;

	ring_buffer__consume(e_rb);
	if (e_run(e_probe_fd, &ret))
		return false;
	ring_buffer__consume(e_rb);
	return ret == 1;
}

/* The test kfunc object's reference count is back where it was (or,
 * once, what it is now)
 */
static bool e_cnt_clean(void)
{
	__u32 c = 0;

	if (e_cnt_fd < 0 || e_run(e_cnt_fd, &c))
		return true;
	if (c == e_cnt)
		return true;
	e_cnt = c;
	return false;
}

/* The conntrack entry's reference count is back where it was (or, once,
 * what it is now).  An entry that is gone (conntrack's tables flushed) is
 * inserted again: that is no reference left.
 */
static bool e_ct_clean(void)
{
	__u32 c = 0;

	if (e_ct_fd < 0 || e_run(e_ct_fd, &c))
		return true;
	if (c == 0xffffffff && !e_run(e_ct_insert_fd, &c) && !e_run(e_ct_fd, &c)) {
		e_ct = c;
		return true;
	}
	if (c == e_ct)
		return true;
	e_ct = c;
	return false;
}

/* A new ring for the programs that follow one that left a record */
static void e_ring_reset(void)
{
	ring_buffer__free(e_rb);
	close(e_probe_fd);
	close(e_ringbuf);
	e_ringbuf = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "fuzz_rb", 0, 0, 4096, NULL);
	e_rb = ring_buffer__new(e_ringbuf, count_record, NULL, NULL);
	if (e_ringbuf < 0 || !e_rb) {
		fprintf(stderr, "ring buffer setup failed\n");
		exit(1);
	}
	e_make_probe();
}

static unsigned char e_dm[DM_SIZE];

static void e_write_bounds(const struct embed *e)
{
	__u32 key = 0;
	int k, slot;

	memset(e_dm, 0, sizeof(e_dm));
	for (k = 0; k < e->nchk; k++)
		for (slot = 0; slot <= B_S32MAX; slot++) {
			__u64 v = bound_value(&e->chk[k].b, slot);

			memcpy(e_dm + DM_BOUNDS + 72 * k + 8 * slot, &v, 8);
		}
	bpf_map_update_elem(e_data, &key, e_dm, BPF_ANY);
}

/* What went wrong with the current program, by kind (bits) */
enum { U_DEAD, U_BOUNDS, U_PKT, U_RET, U_RING, U_REF, U_WALK, U_RUN, U_LOAD, U_KINDS };
static const char *const u_name[U_KINDS] = {
	"returns never walked", "scalars outside their bounds", "stale packet pointers",
	"returns that differ", "ring buffer records left", "references left",
	"walks that differ", "failed runs", "loads that failed",
};
static unsigned int e_kinds;

static void e_report_head(int i, unsigned int seed, const char *what)
{
	fprintf(stderr, "\nprogram %d (embed, seed %u): %s\n", i, seed, what);
}

/* The program as the verifier rewrote it (FUZZ_XLATED=1) */
static void dump_xlated(int fd)
{
	static struct bpf_insn x[T_MAX_INSNS * 2];
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);
	char buf[96];
	__u32 k;

	info.xlated_prog_len = sizeof(x);
	info.xlated_prog_insns = (unsigned long)x;
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return;
	fprintf(stderr, "  xlated:\n");
	for (k = 0; k < info.xlated_prog_len / sizeof(x[0]); k++) {
		disasm(&x[k], buf, sizeof(buf));
		fprintf(stderr, "   %4u: %02x %x %x %5d %11d  %s\n", k, x[k].code, x[k].dst_reg,
			x[k].src_reg, x[k].off, x[k].imm, buf);
	}
}

static void e_report_prog(const struct embed *e)
{
	const struct eprog *p = e->p;
	int fd, lines = 0;
	char *l;

	dump_prog(p, &e->lo);
	/* the verifier's walk, without its precision backtracking */
	fd = e_load(p, p->insns, p->n, NULL, 2, 0, e_log, E_LOG_SIZE);
	if (fd >= 0) {
		if (getenv("FUZZ_XLATED"))
			dump_xlated(fd);
		close(fd);
	}
	fprintf(stderr, "  verifier log (level 2, precision tracking left out):\n");
	for (l = e_log; *l && lines < 400; ) {
		char *nl = strchr(l, '\n');
		int len = nl ? nl - l : (int)strlen(l);

		if (len && strncmp(l, "last_idx ", 9) && strncmp(l, "regs=", 5) &&
		    strncmp(l, "parent ", 7)) {
			fprintf(stderr, "    %.*s\n", len, l);
			lines++;
		}
		l += len + (nl ? 1 : 0);
	}
	if (*l)
		fprintf(stderr, "    ...\n");
}

/* What T2 recorded in the data map: 0 if nothing */
static int e_violations(const struct embed *e, int i, unsigned int seed, bool filled, __u32 ret)
{
	__u32 key = 0;
	int k, found = 0;
	__u64 v, flag;
	char what[256];

	if (bpf_map_lookup_elem(e_data, &key, e_dm))
		return 0;
	for (k = 0; k < e->t2.ndead; k++) {
		memcpy(&flag, e_dm + DM_DEAD + 8 * k, 8);
		if (!flag)
			continue;
		snprintf(what, sizeof(what),
			 "the call at insn %d returned, though the verifier never walked its return "
			 "(prog array %s, twin returned %u)", e->t2.dead_at[k],
			 filled ? "filled" : "empty", ret);
		e_report_head(i, seed, what);
		e_kinds |= 1 << U_DEAD;
		found++;
	}
	for (k = 0; k < e->nchk; k++) {
		const struct bnd *b = &e->chk[k].b;
		__u64 data;

		memcpy(&flag, e_dm + DM_RECS + 24 * k + 8, 8);
		if (!flag)
			continue;
		memcpy(&v, e_dm + DM_RECS + 24 * k, 8);
		memcpy(&data, e_dm + DM_RECS + 24 * k + 16, 8);
		if (b->pkt) {
			snprintf(what, sizeof(what),
				 "R%d = %#llx before insn %d, which the verifier holds is the packet's "
				 "data + %d with %d bytes left; data is %#llx (prog array %s)",
				 e->chk[k].reg, (unsigned long long)v, e->chk[k].at, b->pkt_off,
				 b->pkt_range, (unsigned long long)data, filled ? "filled" : "empty");
			e_report_head(i, seed, what);
			e_kinds |= 1 << U_PKT;
			found++;
			continue;
		}
		snprintf(what, sizeof(what),
			 "R%d = %#llx before insn %d, outside the verifier's bounds: umin %#llx "
			 "umax %#llx smin %lld smax %lld var_off (%#llx; %#llx) u32 [%#x, %#x] "
			 "s32 [%d, %d] (prog array %s)",
			 e->chk[k].reg, (unsigned long long)v, e->chk[k].at,
			 (unsigned long long)b->umin, (unsigned long long)b->umax,
			 (long long)b->smin, (long long)b->smax, (unsigned long long)b->tv,
			 (unsigned long long)b->tm, b->u32min, b->u32max, b->s32min, b->s32max,
			 filled ? "filled" : "empty");
		e_report_head(i, seed, what);
		e_kinds |= 1 << U_BOUNDS;
		found++;
	}
	return found;
}

/* What the run just made (of who, "T2" or "the original") left behind:
 * a ring buffer record reserved (the ring is made anew), the test kfunc
 * object or the conntrack entry referenced.  Whether it left anything.
 */
static bool e_left_behind(int i, unsigned int seed, const char *who, const char *pa)
{
	bool bad = false;

	if (!e_ring_clean()) {
		e_report_head(i, seed, "");
		fprintf(stderr, "  %s left a ring buffer record reserved (prog array %s)\n", who, pa);
		e_kinds |= 1 << U_RING;
		bad = true;
		e_ring_reset();
	}
	if (!e_cnt_clean()) {
		e_report_head(i, seed, "");
		fprintf(stderr, "  %s left the test kfunc object's reference count at %u "
			"(prog array %s)\n", who, e_cnt, pa);
		e_kinds |= 1 << U_REF;
		bad = true;
	}
	if (!e_ct_clean()) {
		e_report_head(i, seed, "");
		fprintf(stderr, "  %s left the conntrack entry's reference count at %u "
			"(prog array %s)\n", who, e_ct, pa);
		e_kinds |= 1 << U_REF;
		bad = true;
	}
	return bad;
}

/* Run T2, and then O where T2 recorded nothing, on the packet with the
 * filled (cfg 1) or the empty prog array: whether anything was unexpected
 */
static bool e_run_cfg(const struct embed *e, int i, unsigned int seed, int cfg, int fo, int f2)
{
	const char *pa = cfg ? "filled" : "empty";
	__u32 r2 = 0, ro = 0;
	bool bad;
	int err;

	e_write_bounds(e);
	err = e_run(f2, &r2);
	if (err) {
		e_report_head(i, seed, "");
		fprintf(stderr, "  T2's test run failed: %s (prog array %s)\n", strerror(-err), pa);
		e_kinds |= 1 << U_RUN;
		return true;
	}
	bad = e_left_behind(i, seed, "T2", pa);
	if (e_violations(e, i, seed, cfg, r2))
		return true;	/* O would run what the verifier never saw */
	err = e_run(fo, &ro);
	if (err || ro != r2) {
		e_report_head(i, seed, "");
		fprintf(stderr, "  original returned %u (%s), T2 %u (prog array %s)\n", ro,
			err ? strerror(-err) : "ok", r2, pa);
		e_kinds |= 1 << (err ? U_RUN : U_RET);
		bad = true;
	}
	if (e_left_behind(i, seed, "the original", pa))
		bad = true;
	return bad;
}

static void e_close(const int *fo, const int *f2, const int *ext)
{
	int k;

	/* the extensions' links and programs first, then their targets */
	for (k = 0; ext && k < 8; k++)
		if (ext[k] >= 0)
			close(ext[k]);
	for (k = 0; k < 2; k++) {
		if (fo[k] >= 0)
			close(fo[k]);
		if (f2[k] >= 0)
			close(f2[k]);
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct eprog e_prog;
static struct embed e_state;

static int embed_main(int count, unsigned int seed)
{
	int accepted = 0, refused = 0, bad = 0, twin_refused = 0, ext_refused = 0, exts = 0;
	int skipped = 0, checks = 0, pkts = 0, deads = 0, i, j, only = -1, kinds[U_KINDS] = { 0 };
	double t_o = 0, t_1 = 0, t_2 = 0, t_run = 0, t0_;
	bool trace = getenv("FUZZ_TRACE");
	struct eprog *p = &e_prog;
	struct embed *e = &e_state;
	struct btf *btf;
	double t0 = now();

	if (getenv("FUZZ_ONLY"))
		only = atoi(getenv("FUZZ_ONLY"));
	/* progress lines as they come, should the guest stop */
	setvbuf(stdout, NULL, _IOLBF, 0);
	rng = seed;
	ct_rng = seed ^ 0x5bd1e995;
	e_log = malloc(E_LOG_SIZE);
	btf = btf__load_vmlinux_btf();
	if (!btf || !e_log) {
		fprintf(stderr, "no vmlinux BTF\n");
		return 1;
	}
	id_throw = btf_id(btf, "bpf_throw");
	id_set_cb = btf_id(btf, "bpf_set_exception_callback");
	id_acquire = btf_id(btf, "bpf_kfunc_call_test_acquire");
	id_release = btf_id(btf, "bpf_kfunc_call_test_release");
	e_make_btf();
	e_pa[0] = bpf_map_create(BPF_MAP_TYPE_PROG_ARRAY, "fuzz_pa_empty", 4, 4, E_SLOTS, NULL);
	e_pa[1] = bpf_map_create(BPF_MAP_TYPE_PROG_ARRAY, "fuzz_pa", 4, 4, E_SLOTS, NULL);
	e_ringbuf = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "fuzz_rb", 0, 0, 4096, NULL);
	e_data = bpf_map_create(BPF_MAP_TYPE_ARRAY, "fuzz_embed", 4, DM_SIZE, 1, NULL);
	e_rb = e_ringbuf >= 0 ? ring_buffer__new(e_ringbuf, count_record, NULL, NULL) : NULL;
	if (e_pa[0] < 0 || e_pa[1] < 0 || e_data < 0 || !e_rb) {
		fprintf(stderr, "map setup failed: %s\n", strerror(errno));
		return 1;
	}
	e_make_targets();
	e_fill_array();
	e_make_probe();
	e_make_cnt_probe(btf);
	/* Ethernet, IPv4 and bytes the loads read */
	e_pkt_len = 64;
	for (j = 0; j < e_pkt_len; j++)
		e_pkt[j] = j * 37 + 11;
	e_pkt[12] = 0x08;
	e_pkt[13] = 0x00;
	e_cnt_clean();	/* the count to keep */
	e_make_ct(btf);	/* which runs a program on the packet */

	for (i = 0; i < count; i++) {
		int fo[2] = { -1, -1 }, f1, f2[2] = { -1, -1 }, ext[8], cfg;
		bool unexpected = false;

		e_generate(p);
		if (only >= 0 && i != only)
			continue;
		e_kinds = 0;
		if (trace)
			fprintf(stderr, "program %d\n", i);
		if (i && i % 1000 == 0)
			printf("embed: %d programs, %d accepted, %d unexpected (%.1f/s)\n", i,
			       accepted, bad, i / (now() - t0));
		if (p->overflow) {
			skipped++;
			continue;
		}
		t0_ = now();
		fo[1] = e_load(p, p->insns, p->n, NULL, 2, 0, e_log, E_LOG_SIZE);
		t_o += now() - t0_;
		if (fo[1] < 0) {
			refused++;
			if (errno == ENOSPC) {
				skipped++;
			} else if (!e_log[0] || (errno != EACCES && errno != EINVAL &&
						 errno != E2BIG && errno != 524 /* ENOTSUPP */)) {
				e_report_head(i, seed, "refused without a verifier message");
				fprintf(stderr, "  errno %d\n", errno);
				dump_prog(p, NULL);
				kinds[U_LOAD]++;
				bad++;
			}
			continue;
		}
		accepted++;
		e_ct_holds += p->ct_holds;
		if (getenv("FUZZ_LOGDUMP")) {
			dump_prog(p, NULL);
			fprintf(stderr, "=== O log\n%s\n=== end\n", e_log);
		}
		memset(&e->lo, 0, sizeof(e->lo));
		memset(e->lo.mark_reg, -1, sizeof(e->lo.mark_reg));
		e->p = p;
		parse_log(e_log, p->insns, p->n, &e->lo);

		/* T1: the markers, and T1's walk */
		choose_checks(e);
		build_t1(e);
		t0_ = now();
		f1 = e->t1.overflow ? -1 :
		     e_load(p, e->t1.insns, e->t1.n, e->t1.blk, 2, 0, e_log, E_LOG_SIZE);
		t_1 += now() - t0_;
		if (f1 < 0) {
			if (twin_refused++ < 3) {
				fprintf(stderr, "program %d: T1 refused (errno %d):\n", i, errno);
				fprintf(stderr, "%.3000s\n", e_log + (strlen(e_log) > 3000 ? strlen(e_log) - 3000 : 0));
			}
			close(fo[1]);
			continue;
		}
		memset(&e->l1, 0, sizeof(e->l1));
		memset(e->l1.mark_reg, -1, sizeof(e->l1.mark_reg));
		for (j = 0; j < e->nchk; j++)
			e->l1.mark_reg[e->chk[j].mark] = e->chk[j].reg;
		parse_log(e_log, e->t1.insns, e->t1.n, &e->l1);
		if (getenv("FUZZ_LOGDUMP")) {
			fprintf(stderr, "=== T1 log\n%s\n=== end\n", e_log);
			for (j = 0; j < e->nchk; j++)
				fprintf(stderr, "check %d: insn %d R%d marker %d any %d bad %d [%llu, %llu]\n",
					j, e->chk[j].at, e->chk[j].reg, e->chk[j].mark,
					e->l1.mark[e->chk[j].mark].any, e->l1.mark[e->chk[j].mark].bad,
					(unsigned long long)e->l1.mark[e->chk[j].mark].umin,
					(unsigned long long)e->l1.mark[e->chk[j].mark].umax);
		}
		close(f1);
		for (j = 0; j < e->nchk; j++)
			e->chk[j].b = e->l1.mark[e->chk[j].mark];
		/* the markers change nothing the verifier walks */
		for (j = 0; j < p->n; j++) {
			/* a throw block is walked only on a path that
			 * decides its jump, and accepted unwalked on the
			 * others: pruning may pick either
			 */
			if (!e->start_of[j] || e->protect[j] ||
			    e->lo.visited[j] == e->l1.visited[e->t1.pos[j]])
				continue;
			e_report_head(i, seed, "");
			fprintf(stderr, "  insn %d %s walked in O, %s in T1 (O with precision markers)\n",
				j, e->lo.visited[j] ? "was" : "was not", e->l1.visited[e->t1.pos[j]] ?
				"but was" : "but not");
			e_kinds |= 1 << U_WALK;
			unexpected = true;
			break;
		}

		/* T2: the checks, for each prog array; and O for the empty one */
		build_t2(e);
		t0_ = now();
		for (cfg = 0; cfg < 2; cfg++)
			f2[cfg] = e->t2.overflow ? -1 :
				  e_load(p, for_cfg(e->t2.insns, e->t2.n, cfg), e->t2.n, e->t2.blk, 0,
					 BPF_F_TEST_STATE_FREQ, NULL, 0);
		t_2 += now() - t0_;
		if (f2[0] < 0 || f2[1] < 0) {
			if (twin_refused++ < 3) {
				fprintf(stderr, "program %d: T2 refused (errno %d):\n", i, errno);
				e_load(p, e->t2.insns, e->t2.n, e->t2.blk, 1, BPF_F_TEST_STATE_FREQ,
				       e_log, E_LOG_SIZE);
				fprintf(stderr, "%.3000s\n", e_log + (strlen(e_log) > 3000 ? strlen(e_log) - 3000 : 0));
			}
			if (unexpected) {
				e_report_prog(e);
				bad++;
				kinds[U_WALK]++;
			}
			e_close(fo, f2, NULL);
			continue;
		}
		fo[0] = e_load(p, for_cfg(p->insns, p->n, 0), p->n, NULL, 0, 0, NULL, 0);
		if (fo[0] < 0) {
			e_report_head(i, seed, "refused with the empty prog array, accepted with the other");
			e_report_prog(e);
			kinds[U_LOAD]++;
			bad++;
			e_close(fo, f2, NULL);
			continue;
		}
		checks += e->t2.nchk;
		pkts += e->t2.npkt;
		deads += e->t2.ndead;

		/* the extension, in each of the four */
		if (p->ext_func >= 0) {
			int k, ok = 1;

			for (k = 0; k < 8; k++)
				ext[k] = -1;
			for (cfg = 0; cfg < 2 && ok; cfg++) {
				ext[4 * cfg] = e_attach_ext(p, fo[cfg], cfg, &ext[4 * cfg + 1], e_log, E_LOG_SIZE);
				ext[4 * cfg + 2] = e_attach_ext(p, f2[cfg], cfg, &ext[4 * cfg + 3], e_log, E_LOG_SIZE);
				ok = ext[4 * cfg] >= 0 && ext[4 * cfg + 2] >= 0;
			}
			if (!ok) {
				if (ext_refused++ < 3)
					fprintf(stderr, "program %d: extension of func#%d refused: %.300s\n",
						i, p->ext_func, e_log);
				for (k = 0; k < 8; k++) {
					if (ext[k] >= 0)
						close(ext[k]);
					ext[k] = -1;
				}
			} else {
				exts++;
			}
		}

		t0_ = now();
		for (cfg = 1; cfg >= 0; cfg--)
			if (e_run_cfg(e, i, seed, cfg, fo[cfg], f2[cfg]))
				unexpected = true;
		t_run += now() - t0_;
		if (unexpected) {
			e_report_prog(e);
			bad++;
			for (j = 0; j < U_KINDS; j++)
				kinds[j] += e_kinds >> j & 1;
		}
		e_close(fo, f2, p->ext_func >= 0 ? ext : NULL);
	}
	printf("embed: %.1f programs/s (loading O %.0f s, T1 %.0f s, T2 %.0f s; runs %.0f s); "
	       "%d checks (%d of packet pointers), %d unwalked returns embedded; "
	       "%d twins refused, %d extensions attached, %d refused; %d skipped\n",
	       count / (now() - t0), t_o, t_1, t_2, t_run, checks, pkts, deads, twin_refused,
	       exts, ext_refused, skipped);
	if (bad) {
		printf("embed: unexpected, by kind:");
		for (j = 0; j < U_KINDS; j++)
			if (kinds[j])
				printf(" %d %s,", kinds[j], u_name[j]);
		printf("\n");
	}
	if (e_ct_fd >= 0)
		printf("embed: %d places that hold the conntrack entry (refcount %u)\n",
		       e_ct_holds, e_ct);
	printf("embed: %d programs (seed %u), %d accepted, %d refused, %d unexpected\n",
	       count, seed, accepted, refused, bad);
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "embed"))
		return embed_main(argc > 2 ? atoi(argv[2]) : 2000,
				  argc > 3 ? strtoul(argv[3], NULL, 0) : 1);
	return predict_main(argc, argv);
}
