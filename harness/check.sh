#!/usr/bin/env bash
# Build everything, boot the guest and run the selftests.
#   check.sh [PATTERN]   run only tests matching test_progs -a PATTERN
# Prints one line per test (subtests count on their own) and last
# "N passed, N failed, N skipped".  Exits non-zero if any test failed, the
# guest crashed, hung or logged a kernel splat, or no test ran.
source "$(dirname "$0")/lib.sh"

"$HARNESS/build.sh"

# In the guest: test_progs, then (unless a selection was given, and where
# the apps run, lib.sh) the demo built with each compiler and the
# assertion macros' test (asserts/) built with each compiler and -mcpu,
# and on x86-64 the JIT check (mitigations/), reported in test_progs'
# format.
# Tests that 6.1 cannot run on a flavour's kernel or on an architecture,
# each with the reason in harness/config/skip-$FLAVOUR.list or
# skip-$BPFEXC_ARCH.list: not run, and those of the tests chosen
# reported as skipped, with where it says why.  (The tests chosen: the
# runner's, by the names test_progs knows them by, and the whole tests
# that build.sh left out.)
chosen=$(cat "$GUEST/tests-chosen.list"
	 sed -n 's/^DEFINE_TEST(\(.*\))$/\1/p' "$GUEST/selftests/prog_tests/tests.h")
skips= skip_notes=
for list in "skip-$FLAVOUR.list" "skip-$BPFEXC_ARCH.list"; do
	[ -f "$HARNESS/config/$list" ] || continue
	while read -r t; do
		grep -qxF "${t%%/*}" <<<"$chosen" || continue
		skips+="${skips:+ }$t" skip_notes+="$t (not on this kernel: $list)"$'\n'
	done < <(list_entries "$HARNESS/config/$list")
done
guest_cmd='./test_progs'
[ -z "$skips" ] || guest_cmd+=" -d $(printf '%q' "${skips// /,}")"
if [ -n "${1:-}" ]; then
	guest_cmd+=" -a $(printf '%q' "$1")"
elif ((APPS)); then
	guest_cmd+='; rc=$?; n=900
for demo in packet-parser-clang14 packet-parser-clang16; do
	n=$((n + 1))
	if $demo > /tmp/demo.log 2>&1; then echo "#$n demo/$demo:OK"
	else cat /tmp/demo.log; echo "#$n demo/$demo:FAIL"; rc=1; fi
done
for t in asserts-clang-14-v1 asserts-clang-14-v3 asserts-clang-16-v1 asserts-clang-16-v3 \
	 asserts-clang-19-v1 asserts-clang-19-v3 cbtag-old cbtag-new; do
	n=$((n + 1))
	if $t > /tmp/asserts.log 2>&1; then echo "#$n asserts/${t#asserts-}:OK"
	else cat /tmp/asserts.log; echo "#$n asserts/${t#asserts-}:FAIL"; rc=1; fi
done'
	[ "$BPFEXC_ARCH" = x86_64 ] && guest_cmd+='
n=$((n + 1))
if jitcheck > /tmp/jitcheck.log 2>&1; then echo "#$n jit/mitigations:OK"
else echo "#$n jit/mitigations:FAIL"; rc=1; fi
cat /tmp/jitcheck.log'
	guest_cmd+='
exit $rc'
fi
log "booting guest, running: ${guest_cmd%%;*}${1:+ (selection)}"
set +e
"$HARNESS/vm.sh" -t "${VM_TIMEOUT:-900}" sh -c "$guest_cmd" > "$GUEST/check.log"
vmrc=$?
set -e

set +e
# (a selection reports none of them)
[ -z "${1:-}" ] || skip_notes=
tally=$(SKIP_NOTES=$skip_notes awk -v vmrc="$vmrc" "$TEST_PROGS_AWK"'
	test_progs_result() { tp_keep() }
	END {
		for (i = 1; i <= tp_n; i++) {
			if (!tp_counts(i)) continue
			r = tp_results[i]
			if (r == "OK") { p++; printf "PASS %s\n", tp_names[i] }
			else if (r == "SKIP") { s++; printf "SKIP %s\n", tp_names[i] }
			else { f++; printf "FAIL %s\n", tp_names[i] }
		}
		ns = split(ENVIRON["SKIP_NOTES"], sk, "\n")
		for (i = 1; i < ns; i++) {
			s++
			printf "SKIP %s\n", sk[i]
		}
		if (vmrc == 124) { f++; print "FAIL guest: hung (timeout)" }
		else if (vmrc == 125) { f++; print "FAIL guest: crashed or kernel splat" }
		else if (vmrc != 0 && f == 0) { f++; print "FAIL test_progs: exit status " vmrc }
		if (p + f == 0) { f++; print "FAIL no test ran" }
		printf "%d passed, %d failed, %d skipped\n", p, f, s
		exit f > 0
	}' "$GUEST/check.log")
failed=$?
set -e
if ((failed)); then
	# The failed tests' logs, then the tally last
	# (the first 300 lines: awk reads on, where head would end a pipe
	# that pipefail makes fatal, losing the tally)
	awk '/^All error logs:/ { on = 1 } on && n++ < 300 { print }
	     /^Summary:/ { on = 0 }' "$GUEST/check.log" >&2
	echo "logs: $GUEST/check.log, $GUEST/last-run/console.log" >&2
fi
echo "$tally"
exit "$failed"
