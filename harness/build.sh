#!/usr/bin/env bash
# Everything a guest run needs: Debian packages, the patched tree, the
# kernel and bpf_testmod.ko, the selftest runner, the demo and apps, and
# the initramfs (with any extra binaries given as arguments), for
# $BPFEXC_ARCH (lib.sh).
source "$(dirname "$0")/lib.sh"

"$HARNESS/deps.sh"
"$HARNESS/tree.sh"
"$HARNESS/kernel.sh"
"$HARNESS/testmod.sh"

# The tests of harness/tests.list, and of tests-$BPFEXC_ARCH.list; where
# the JIT supports exceptions (lib.sh), also the tree's programs converted
# to assertions (convert/) with the tree's own tests of them run on the
# converted ones; and where they run (lib.sh), the demo and apps built
# with Debian's clang and libbpf (elsewhere the benchmark alone).
# A whole test that harness/config/skip-$BPFEXC_ARCH.list names cannot run
# there and is not built either (check.sh reports it as skipped): its
# programs may not even compile against that kernel's BTF.
lists=("$HARNESS/tests.list")
[ -f "$HARNESS/tests-$BPFEXC_ARCH.list" ] && lists+=("$HARNESS/tests-$BPFEXC_ARCH.list")
tests=$(list_entries "${lists[@]}")
conv=$GUEST/convert
tests+=$'\n'$("$HARNESS/convert.sh" "$KSRC" "$conv")
# (the tests chosen, for check.sh, which reports what a skip list names
# of them)
mkdir -p "$GUEST"
echo "$tests" > "$GUEST/tests-chosen.list"
arch_skips=$(arch_skipped_tests)
tests=$(grep -vxF -f <(echo "$arch_skips") <<<"$tests" | xargs)
log "building test runner: $tests"
start=$SECONDS
if ! make -s -j"$(nproc)" -f "$HARNESS/selftests.mk" KSRC="$KSRC" KBUILD="$KBUILD" \
	XARCH="$SRCARCH" XCROSS="$CROSS_COMPILE" XLIBS="$XLIBS" \
	OUT="$GUEST/selftests" TESTS="$tests" CONV="$conv" >"$GUEST/selftests.log" 2>&1; then
	tail -n 30 "$GUEST/selftests.log" >&2
	die "test runner build failed, see $GUEST/selftests.log"
fi
log "test runner built in $((SECONDS - start)) s"
apps=()
if ((APPS)); then
	log "building the demo and the benchmark with Debian's clang and libbpf"
	mapfile -t apps < <("$HARNESS/build-apps.sh")
else
	log "building the benchmark with Debian's clang and libbpf"
	mapfile -t apps < <("$HARNESS/build-apps.sh" --bench)
fi
"$HARNESS/initramfs.sh" "$GUEST/selftests" "${apps[@]}" "$@"
