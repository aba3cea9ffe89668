#!/usr/bin/env bash
# `make regress`: the tree's own BPF tests on the unpatched baseline and on
# the patched kernel, same lean config, same guest, same test binaries
# (built from the patched tree: the series adds tests but changes none).
# Prints both tallies side by side and fails if a test that passes on the
# baseline fails on the patched kernel.
#   test_verifier: all of it.  test_progs: all of it but the tests in
#   regress-exclude.list (and, on s390x and ppc64el, those of the arch's
#   skip list), with each kernel's own bpf_testmod.ko loaded.
source "$(dirname "$0")/lib.sh"

"$HARNESS/build.sh" >/dev/null		# patched kernel (and the tree)
base_src=$CACHE/linux-baseline
base_build=$("$HARNESS/baseline.sh")

out=$CACHE/guest-${archdir}regress
mkdir -p "$out/selftests"
# Each kernel gets the bpf_testmod.ko of its own tree, built against it
BPFEXC_KSRC=$base_src BPFEXC_KBUILD=$base_build BPFEXC_GUEST=$out/baseline \
	"$HARNESS/testmod.sh"
cp "$out/baseline/bpf_testmod/bpf_testmod.ko" "$out/selftests/bpf_testmod-baseline.ko"
cp "$GUEST/bpf_testmod/bpf_testmod.ko" "$out/selftests/bpf_testmod-patched.ko"
# Left out too: the whole tests that the architecture's skip list names,
# which do not build or run there
excluded=$(list_entries "$HARNESS/regress-exclude.list"; arch_skipped_tests)
tests=$(ls "$KSRC"/tools/testing/selftests/bpf/prog_tests/*.c | xargs -n1 basename |
	sed 's/\.c$//' | grep -vxF -f <(echo "$excluded") | xargs)
log "building test_verifier and test_progs ($(wc -w <<<"$tests") tests)"
make -s -j"$(nproc)" -f "$HARNESS/selftests.mk" KSRC="$KSRC" KBUILD="$KBUILD" \
	XARCH="$SRCARCH" XCROSS="$CROSS_COMPILE" XLIBS="$XLIBS" OUT="$out/selftests" TESTS="$tests" all "$out/selftests/test_verifier" \
	>"$out/selftests.log" 2>&1 || { tail -n 20 "$out/selftests.log"; die "build failed"; }
BPFEXC_GUEST=$out "$HARNESS/initramfs.sh" "$out/selftests" "$out/selftests/test_verifier"

# One boot per kernel: test_verifier, then test_progs (which loads
# ./bpf_testmod.ko itself)
for k in baseline patched; do
	kb=$KBUILD
	[ $k = baseline ] && kb=$base_build
	cmd="cp bpf_testmod-$k.ko bpf_testmod.ko; test_verifier > /tmp/tv.log 2>&1;"
	cmd+=' grep -E "^#[0-9].* (FAIL|SKIP)|^Summary" /tmp/tv.log | sed "s/^/TV /"; ./test_progs; true'
	log "booting the $k kernel"
	rc=0
	BPFEXC_KBUILD=$kb BPFEXC_GUEST=$out "$HARNESS/vm.sh" -t 3600 sh -c "$cmd" > "$out/$k.log" || rc=$?
	log "$k kernel: vm.sh status $rc (125: a splat or crash, 124: hang)"
	echo "VMRC $rc" >> "$out/$k.log"
done

# Per test: test_progs results, test_verifier failures
awk "$TEST_PROGS_AWK"'
	FNR == 1 { k = (FILENAME ~ /baseline/) ? "b" : "p" }
	test_progs_result() {
		# Kernels are compared by name: of two subtests of one name
		# (prog_tests_framework has two), the first counts.
		if ((k, tp_name) in res) next
		res[k, tp_name] = tp_res; names[tp_name] = 1; cnt[k, tp_res]++
	}
	/^TV #.* SKIP/ { tvskip[k, $2] = 1; next }
	/^TV #/ { tvfail[k, $2] = 1; tvn[k]++ }
	/^TV Summary/ { tvsum[k] = $0; sub(/^TV /, "", tvsum[k]) }
	/^VMRC / { vmrc[k] = $2 }
	END {
		printf "%-14s %-40s %s\n", "", "baseline", "patched"
		printf "%-14s %-40s %s\n", "test_verifier", tvsum["b"], tvsum["p"]
		printf "%-14s %-40s %s\n", "test_progs (tests and subtests)",
			sprintf("%d OK, %d FAIL, %d SKIP", cnt["b","OK"], cnt["b","FAIL"], cnt["b","SKIP"]),
			sprintf("%d OK, %d FAIL, %d SKIP", cnt["p","OK"], cnt["p","FAIL"], cnt["p","SKIP"])
		bad = 0
		for (n in names)
			if (res["b", n] == "OK" && res["p", n] != "OK") {
				print "REGRESSION test_progs " n ": " res["p", n]; bad++
			}
		# A test that the baseline skips (a feature its JIT lacks, such
		# as kfunc calls on s390x and ppc64el) did not pass there
		for (key in tvfail) {
			split(key, a, SUBSEP)
			if (a[1] != "p" || ("b", a[2]) in tvfail)
				continue
			if (("b", a[2]) in tvskip)
				print "skipped on the baseline, fails patched: test_verifier " a[2]
			else {
				print "REGRESSION test_verifier " a[2]; bad++
			}
		}
		if (!tvsum["b"] || !tvsum["p"]) { print "a test_verifier run did not finish"; bad++ }
		if (vmrc["p"] != 0 && vmrc["p"] != vmrc["b"]) { print "the patched guest ended with status " vmrc["p"]; bad++ }
		printf "%d regressions\n", bad
		exit bad > 0
	}' "$out/baseline.log" "$out/patched.log"
