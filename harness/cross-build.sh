#!/usr/bin/env bash
# Build the patched kernel for the other architectures that Debian builds
# (s390x and ppc64el, with Debian's cross compilers), quicker than their
# guests (make check ARCH=s390x): a build break in the code the series
# touches (the verifier, the BPF core, kfuncs, the JIT interface that
# every JIT links against) shows there.  The build-only config
# (harness/config/build-only.config), plus <arch>.config: what the series
# touches, without the guests' debug info, IPv4/IPv6, kprobes and perf.
# Prints "PASS build <arch>" or "FAIL build <arch>" for each, then the
# tally; exits non-zero if any failed.
#   cross-build.sh [ARCH...]    (default: s390x ppc64el)
source "$(dirname "$0")/lib.sh"

"$HARNESS/tree.sh"
archs=("$@")
((${#archs[@]})) || archs=(s390x ppc64el)
pass=0 fail=0
for a in "${archs[@]}"; do
	if BPFEXC_ARCH=$a "$HARNESS/deps.sh" &&
	   BPFEXC_ARCH=$a FLAVOUR=build-only "$HARNESS/kernel.sh"; then
		echo "PASS build $a"; pass=$((pass + 1))
	else
		echo "FAIL build $a"; fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
((fail == 0))
