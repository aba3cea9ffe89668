#!/usr/bin/env bash
# Build the demo (examples/packet-parser) with clang 14 and clang 16, and
# the benchmark (bench/), the stress test (stress/) and on x86-64 the JIT
# check (mitigations/) with clang 14, and the fuzzer (fuzz/), against Debian's libbpf: the header
# for BPF programs is exported from the patched tree, as a program built
# outside the kernel tree would get it.  Prints the binaries built.
#   build-apps.sh [--bench]
# --bench: the benchmark alone, with the BPF objects it loads (the demo's
# parser among them), for a guest where only it runs (APPS, lib.sh).
source "$(dirname "$0")/lib.sh"

bench_only=0
[ "${1:-}" = --bench ] && bench_only=1

header=$KSRC/tools/testing/selftests/bpf/bpf_exceptions.h
[ -f "$header" ] || die "no $header: is the series applied?"

# For another architecture than the host's: the loaders are cross-built
# and linked statically (the guest has no shared libraries of its own),
# against Debian's libbpf for that architecture (multiarch, or unpacked
# into XLIBS by deps.sh).
arch_vars=(BPF_ARCH="$SRCARCH")
static_libs=
if [ -n "$CROSS_COMPILE" ]; then
	static_libs="-lelf -lz"
	ldflags=-static
	if [ -n "$XLIBS" ]; then
		ldflags+=" -L$XLIBS/lib"
		arch_vars+=(LIBBPF_CFLAGS="-I$XLIBS/include")
	fi
	arch_vars+=(CC="${CROSS_COMPILE}gcc" LDFLAGS="$ldflags" LIBBPF_LIBS="-lbpf $static_libs")
fi
# A big-endian guest (s390x) runs BPF objects of its byte order, which
# clang makes for the target bpfeb.  Debian's bpftool (libbpf 1.1) opens
# objects of the host's byte order only: the skeletons are made by the
# bpftool that the selftests build made for the guest (harness/selftests.mk),
# run under QEMU's user-mode emulation.
if [[ $("${CROSS_COMPILE}gcc" -dM -E - </dev/null) == *"__BYTE_ORDER__ __ORDER_BIG_ENDIAN__"* ]]; then
	guest_bpftool=$GUEST/selftests/bpftool/bootstrap/bpftool
	[ -x "$guest_bpftool" ] || die "no $guest_bpftool: build the selftests first (build.sh)"
	qemu_user=qemu-$("${CROSS_COMPILE}gcc" -dumpmachine | cut -d- -f1)-static
	arch_vars+=(BPF_TARGET=bpfeb BPFTOOL="$qemu_user $guest_bpftool")
fi

# build_app SRC BPF_SRC USER_SRC SKEL BIN CLANG [BPF_CPU [MAKE_VARS...]]
build_app() {
	local out=$GUEST/apps/$5
	mkdir -p "$out"
	if ! make -s -f "$HARNESS/bpf-app.mk" SRC="$REPO/$1" BPF_SRC="$2" USER_SRC="$3" \
		SKEL="$4" BIN="$5" CLANG="$6" BPF_CPU="${7:-v3}" "${arch_vars[@]}" "${@:8}" \
		VMLINUX="$KBUILD/vmlinux" HEADER="$header" \
		OUT="$out" >"$out/build.log" 2>&1; then
		cat "$out/build.log" >&2
		die "building $5 with $6 failed"
	fi
	echo "$out/$5"
}

# build_bpf_obj SRC SKEL BPF_SRC OUT [MAKE_VARS...]: the BPF object
# $OUT/$SKEL.bpf.o of $SRC/$BPF_SRC alone, by build_app's rule
build_bpf_obj() {
	mkdir -p "$4"
	if ! make -s -f "$HARNESS/bpf-app.mk" SRC="$REPO/$1" BPF_SRC="$3" SKEL="$2" \
		CLANG=clang-14 VMLINUX="$KBUILD/vmlinux" HEADER="$header" OUT="$4" \
		"${arch_vars[@]}" \
		"${@:5}" "$4/$2.bpf.o" >"$4/$2.log" 2>&1; then
		cat "$4/$2.log" >&2
		die "building $1/$3 as $2 failed"
	fi
}

build_app bench exceptions.bpf.c bench.c bench exceptions-bench clang-14
# make bench also measures the verifier on the demo's parser against the
# same parser written with explicit error propagation: both objects go to
# the guest's /selftests, built by the same rule (harness/bpf-app.mk).
bench_out=$GUEST/apps/exceptions-bench
build_bpf_obj bench parser_explicit parser_explicit.bpf.c "$bench_out" \
	BPF_INCLUDES="-I$REPO/examples/packet-parser"
cp "$bench_out/parser_explicit.bpf.o" "$GUEST/selftests/bench_parser_explicit.bpf.o"
# and the bench's programs that cannot throw, on their own, for a kernel
# without the series (bench -n)
build_bpf_obj bench bench_nothrow exceptions.bpf.c "$bench_out" BPF_DEFINES=-DBENCH_NO_THROW
cp "$bench_out/bench_nothrow.bpf.o" "$GUEST/selftests/"
if ((bench_only)); then
	# the demo's parser without its loader
	build_bpf_obj examples/packet-parser parser parser.bpf.c "$bench_out"
	cp "$bench_out/parser.bpf.o" "$GUEST/selftests/bench_parser_assert.bpf.o"
	exit 0
fi
build_app examples/packet-parser parser.bpf.c parser.c parser packet-parser-clang14 clang-14
cp "$GUEST/apps/packet-parser-clang14/parser.bpf.o" "$GUEST/selftests/bench_parser_assert.bpf.o"
build_app examples/packet-parser parser.bpf.c parser.c parser packet-parser-clang16 clang-16
build_app stress stress.bpf.c stress.c stress exceptions-stress clang-14
# The assertion macros under every compiler and -mcpu (asserts/)
for clang in clang-14 clang-16 clang-19; do
	for cpu in v1 v3; do
		build_app asserts asserts.bpf.c asserts.c asserts "asserts-$clang-$cpu" "$clang" "$cpu"
	done
done
# The x86-64 JIT's images of throwing programs against the running
# kernel's mitigations (mitigations/)
[ "$BPFEXC_ARCH" = x86_64 ] &&
	build_app mitigations jitcheck.bpf.c jitcheck.c jitcheck jitcheck clang-14
# The exception callback named by a decl tag, loaded by Debian's libbpf
# (1.1) and by linux-source-6.12's (1.5)
build_app asserts cbtag.bpf.c cbtag.c cbtag cbtag-old clang-14
libbpf_new=$("$HARNESS/libbpf-new.sh")
build_app asserts cbtag.bpf.c cbtag.c cbtag cbtag-new clang-14 v3 \
	LIBBPF_CFLAGS="-I$libbpf_new/include" LIBBPF_LIBS="$libbpf_new/libbpf.a -lelf -lz"

# The fuzzer writes raw BPF instructions: no BPF object to build.
mkdir -p "$GUEST/apps/exceptions-fuzz"
if ! "${CROSS_COMPILE}gcc" -O2 -g -Wall -Werror ${CROSS_COMPILE:+-static} "$REPO/fuzz/fuzz.c" \
	-lbpf $static_libs -o "$GUEST/apps/exceptions-fuzz/exceptions-fuzz"; then
	die "building exceptions-fuzz failed"
fi
echo "$GUEST/apps/exceptions-fuzz/exceptions-fuzz"
