#!/usr/bin/env bash
# `make bench`: build, boot the guest once and run bench/ (exceptions-bench)
# there; the table is printed and kept in $CACHE/bench-<date>.txt.
#   BENCH_ROUNDS (default 7) interleaved rounds, BENCH_REPEAT (default
#   50000) runs per BPF_PROG_TEST_RUN.
source "$(dirname "$0")/lib.sh"
"$HARNESS/build.sh"
out=$CACHE/bench-$(date +%Y%m%d-%H%M%S).txt
"$HARNESS/vm.sh" -t 3000 exceptions-bench "${BENCH_ROUNDS:-7}" "${BENCH_REPEAT:-50000}" | tee "$out"
log "kept in $out"
