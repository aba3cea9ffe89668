#!/usr/bin/env bash
# `make run`: build everything, boot the guest and run the demo.
# Until the demo program lands (examples/), this runs the smoke test
# verbosely: a tc program loaded with libbpf and run with
# BPF_PROG_TEST_RUN, its return value checked.
source "$(dirname "$0")/lib.sh"
"$HARNESS/build.sh"
"$HARNESS/vm.sh" -t 300 ./test_progs -v -a pkt_access
