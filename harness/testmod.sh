#!/usr/bin/env bash
# Build the selftests' bpf_testmod.ko (test kfuncs) against the kernel
# build, in $GUEST/bpf_testmod, and put it beside the test runner in
# $GUEST/selftests, where test_progs loads it from.
# The module is built from a copy: Kbuild writes its outputs beside the
# sources, and the tree must stay as the series left it.
source "$(dirname "$0")/lib.sh"

src=$KSRC/tools/testing/selftests/bpf/bpf_testmod
dir=$GUEST/bpf_testmod
mkdir -p "$dir"
for f in "$src"/*; do
	cmp -s "$f" "$dir/$(basename "$f")" || cp "$f" "$dir/"
done
# Its BTF is split BTF on top of vmlinux's: link it again whenever the
# kernel was (an external module build does not depend on vmlinux).
rm -f "$dir/bpf_testmod.ko"
if ! "${KMAKE[@]}" -C "$KBUILD" M="$dir" modules >"$dir/build.log" 2>&1; then
	tail -n 20 "$dir/build.log" >&2
	die "bpf_testmod.ko build failed, see $dir/build.log"
fi
sign_modules "$dir/bpf_testmod.ko"
mkdir -p "$GUEST/selftests"
cp "$dir/bpf_testmod.ko" "$GUEST/selftests/"
log "bpf_testmod.ko built"
