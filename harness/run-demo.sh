#!/usr/bin/env bash
# `make run`: build everything, boot the guest and run the demo, an XDP
# packet parser written with assertions (examples/packet-parser), built
# with Debian's clang 14 and libbpf.
source "$(dirname "$0")/lib.sh"
"$HARNESS/build.sh"
"$HARNESS/vm.sh" -t 300 packet-parser-clang14
