#!/usr/bin/env bash
# Build the demo (examples/packet-parser) with clang 14 and clang 16, and
# the benchmark (bench/) and the stress test (stress/) with clang 14, and
# the fuzzer (fuzz/), against Debian's libbpf: the header
# for BPF programs is exported from the patched tree, as a program built
# outside the kernel tree would get it.  Prints the binaries built.
source "$(dirname "$0")/lib.sh"

header=$KSRC/tools/testing/selftests/bpf/bpf_exceptions.h
[ -f "$header" ] || die "no $header: is the series applied?"

# build_app SRC BPF_SRC USER_SRC SKEL BIN CLANG
build_app() {
	local out=$GUEST/apps/$5
	mkdir -p "$out"
	if ! make -s -f "$HARNESS/bpf-app.mk" SRC="$REPO/$1" BPF_SRC="$2" USER_SRC="$3" \
		SKEL="$4" BIN="$5" CLANG="$6" VMLINUX="$KBUILD/vmlinux" HEADER="$header" \
		OUT="$out" >"$out/build.log" 2>&1; then
		cat "$out/build.log" >&2
		die "building $5 with $6 failed"
	fi
	echo "$out/$5"
}

build_app examples/packet-parser parser.bpf.c parser.c parser packet-parser-clang14 clang-14
build_app examples/packet-parser parser.bpf.c parser.c parser packet-parser-clang16 clang-16
build_app bench exceptions.bpf.c bench.c bench exceptions-bench clang-14
build_app stress stress.bpf.c stress.c stress exceptions-stress clang-14

# make bench also measures the verifier on the demo's parser against the
# same parser written with explicit error propagation: both objects go to
# the guest's /selftests, built with the same flags (harness/bpf-app.mk).
clang-14 -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -Wall -Werror \
	-I"$GUEST/apps/exceptions-bench" -I"$REPO/examples/packet-parser" \
	-c "$REPO/bench/parser_explicit.bpf.c" -o "$GUEST/selftests/bench_parser_explicit.bpf.o" ||
	die "building bench/parser_explicit.bpf.c failed"
cp "$GUEST/apps/packet-parser-clang14/parser.bpf.o" "$GUEST/selftests/bench_parser_assert.bpf.o"

# The fuzzer writes raw BPF instructions: no BPF object to build.
mkdir -p "$GUEST/apps/exceptions-fuzz"
if ! cc -O2 -g -Wall -Werror "$REPO/fuzz/fuzz.c" -lbpf -o "$GUEST/apps/exceptions-fuzz/exceptions-fuzz"; then
	die "building exceptions-fuzz failed"
fi
echo "$GUEST/apps/exceptions-fuzz/exceptions-fuzz"
