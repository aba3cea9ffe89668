#!/usr/bin/env bash
# Everything a guest run needs: Debian packages, the patched tree, the
# kernel and bpf_testmod.ko, the selftest runner with the tests in
# harness/tests.list, the demo, and the initramfs (with any extra binaries
# given as arguments).
source "$(dirname "$0")/lib.sh"

"$HARNESS/deps.sh"
"$HARNESS/tree.sh"
"$HARNESS/kernel.sh"
"$HARNESS/testmod.sh"

# The tree's programs converted to assertions (convert/), and the tree's
# own tests of them run on the converted ones
conv=$GUEST/convert
converted=$("$HARNESS/convert.sh" "$KSRC" "$conv" | xargs)
tests="$(sed -e 's/#.*//' "$HARNESS/tests.list" | xargs) $converted"
log "building test runner: $tests"
mkdir -p "$GUEST/selftests"
start=$SECONDS
if ! make -s -j"$(nproc)" -f "$HARNESS/selftests.mk" KSRC="$KSRC" KBUILD="$KBUILD" \
	OUT="$GUEST/selftests" TESTS="$tests" CONV="$conv" >"$GUEST/selftests.log" 2>&1; then
	tail -n 30 "$GUEST/selftests.log" >&2
	die "test runner build failed, see $GUEST/selftests.log"
fi
log "test runner built in $((SECONDS - start)) s"
log "building the demo and the benchmark with Debian's clang and libbpf"
mapfile -t demos < <("$HARNESS/build-apps.sh")
"$HARNESS/initramfs.sh" "$GUEST/selftests" "${demos[@]}" "$@"
