#!/usr/bin/env bash
# `make bench`: build, boot the guest and run bench/ (exceptions-bench)
# there; the tables are printed and kept in $CACHE/bench-<date>.txt.
#   1. one boot in QEMU's instruction-count mode (VM_ICOUNT=1): the figures
#      are instructions per run, the same from round to round; its ratios
#      are the ones the targets are read against;
#   2. one boot with two vCPUs and TCG's wall clock (ns per run, noisy);
#   3. the programs that cannot throw, in instruction-count mode, on the
#      unpatched baseline kernel and on the patched one: JIT bytes and
#      instructions per run must be the same (or the bench fails).
#   BENCH_ROUNDS (default 7) interleaved rounds in instruction-count mode
#   and BENCH_TCG_ROUNDS (default 15) with the wall clock, whose rounds
#   differ where each round's reload places the images (with 7 a boot's
#   median could come out on either side of 1, with 15 three boots agreed
#   to 0.03); BENCH_REPEAT (default 50000) runs per BPF_PROG_TEST_RUN;
#   BENCH_BASELINE=0 skips part 3 (it builds the baseline kernel the
#   first time: about 13 min).
#   ARCH=arm64, s390x or ppc64el: on that guest; on s390x and ppc64el the
#   bench leaves out, and says so, what their 6.1 JITs refuse
#   (bench/bench.c).
source "$(dirname "$0")/lib.sh"
"$HARNESS/build.sh"
rounds=${BENCH_ROUNDS:-7}
tcg_rounds=${BENCH_TCG_ROUNDS:-15}
repeat=${BENCH_REPEAT:-50000}
out=$CACHE/bench-${archdir}$(date +%Y%m%d-%H%M%S).txt
{
	echo "== 1. instruction counts (QEMU -icount shift=0,sleep=off, one vCPU)"
	VM_ICOUNT=1 "$HARNESS/vm.sh" -t 3000 exceptions-bench -i "$rounds" "$repeat"
	echo
	echo "== 2. TCG wall clock (two vCPUs)"
	"$HARNESS/vm.sh" -t 3000 exceptions-bench "$tcg_rounds" "$repeat"
} | tee "$out"
if [ "${BENCH_BASELINE:-1}" != 0 ]; then
	base_build=$("$HARNESS/baseline.sh")
	nothrow=$CACHE/bench-${archdir}nothrow
	mkdir -p "$nothrow"
	VM_ICOUNT=1 "$HARNESS/vm.sh" -t 600 exceptions-bench -n 10000 |
		grep '^NOTHROW' > "$nothrow/patched.txt"
	VM_ICOUNT=1 BPFEXC_KBUILD=$base_build "$HARNESS/vm.sh" -t 600 exceptions-bench -n 10000 |
		grep '^NOTHROW' > "$nothrow/baseline.txt"
	{
		echo
		echo "== 3. programs that cannot throw: unpatched baseline against patched kernel"
		printf '   %-20s %-22s %s\n' program "JIT bytes (base/ours)" "insns/run (base/ours)"
		join <(cut -c9- "$nothrow/baseline.txt" | sort) <(cut -c9- "$nothrow/patched.txt" | sort) |
			awk '{ printf "   %-20s %-22s %s\n", $1, $2 " / " $4, $3 " / " $5
			       if ($4 > $2 || $5 > $3) bad++ }
			     END { if (!NR) { print "   no programs ran"; exit 1 }
				   if (bad) printf "   %d programs cost more on the patched kernel\n", bad
				   else print "   the same or less on the patched kernel: nothing paid"
				   exit bad > 0 }'
	} | tee -a "$out"
fi
log "kept in $out"
