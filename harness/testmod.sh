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
# A kernel that checks module signatures (Debian's config) gets it signed
# with the key its build made, as its own modules are
if grep -qx CONFIG_MODULE_SIG=y "$KBUILD/.config"; then
	hash=$(sed -n 's/^CONFIG_MODULE_SIG_HASH="\(.*\)"/\1/p' "$KBUILD/.config")
	key=$(sed -n 's/^CONFIG_MODULE_SIG_KEY="\(.*\)"/\1/p' "$KBUILD/.config")
	[[ $key == /* ]] || key=$KBUILD/$key
	"$KBUILD/scripts/sign-file" "$hash" "$key" "$KBUILD/certs/signing_key.x509" \
		"$dir/bpf_testmod.ko"
fi
mkdir -p "$GUEST/selftests"
cp "$dir/bpf_testmod.ko" "$GUEST/selftests/"
log "bpf_testmod.ko built"
