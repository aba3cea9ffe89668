#!/usr/bin/env bash
# Build the demo (examples/packet-parser) twice, with clang 14 and clang 16,
# against Debian's libbpf: the header for BPF programs is exported from the
# patched tree, as a program built outside the kernel tree would get it.
# Prints the two binaries.
source "$(dirname "$0")/lib.sh"

header=$KSRC/tools/testing/selftests/bpf/bpf_exceptions.h
[ -f "$header" ] || die "no $header: is the series applied?"
for cc in clang-14 clang-16; do
	out=$GUEST/demo-$cc
	mkdir -p "$out"
	if ! make -s -f "$REPO/examples/packet-parser/Makefile" CLANG="$cc" \
		VMLINUX="$KBUILD/vmlinux" HEADER="$header" OUT="$out" \
		>"$out/build.log" 2>&1; then
		cat "$out/build.log" >&2
		die "demo build with $cc failed"
	fi
	cp "$out/packet-parser" "$GUEST/packet-parser-${cc/-/}"
	echo "$GUEST/packet-parser-${cc/-/}"
done
