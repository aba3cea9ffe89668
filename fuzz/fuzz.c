// SPDX-License-Identifier: GPL-2.0
/*
 * A generator of tc programs that use bpf_throw() and
 * bpf_set_exception_callback() in valid and invalid places, built from raw
 * BPF instructions.  Each program is a random sequence of steps whose
 * conditions test the packet length (unknown to the verifier, 64 at run
 * time), so the generator knows both whether the verifier must accept the
 * program and what it must return when run.  Every load must end as
 * predicted: accepted and returning the expected value, or rejected by the
 * verifier with a message.  Programs hold test kfunc objects and ring
 * buffer records at their throws: a record a throw did not release would
 * fill the ring, and a later reservation's failure would change a return
 * value.  The harness fails on any kernel splat.
 *
 *   exceptions-fuzz [COUNT [SEED]]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
			if (kind == SUB_LOOP_CB_THROWS)
				invalid(p, "throw in a bpf_loop callback");
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

int main(int argc, char **argv)
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
