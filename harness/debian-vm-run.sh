#!/bin/sh
# Runs in the Debian system that harness/debian-vm.sh boots, as root, from
# the bpfexc-run unit once the system is up: what a user of that system
# does with the installed packages, reported in test_progs' format on the
# results port, then "BPFEXC-EXIT <status>" and the kernel log; then the
# system powers off.
#   - the demo (examples/packet-parser) and the x86-64 JIT check
#     (mitigations/) built with the installed clang, bpftool and
#     libbpf-dev against the installed <bpf/bpf_exceptions.h> and the
#     running kernel's BTF, and run;
#   - the exceptions selftests, built for this kernel on the host.
# Anywhere else it would power the machine off: it answers -h with this
# text and runs only as the unit's /root/bpfexc/run.sh.
case ${1:-} in
-h | --help) sed -n '1d; /^#/!q; s/^# \{0,1\}//p' "$0"; exit 0 ;;
esac
if [ "$0" != /root/bpfexc/run.sh ]; then
	echo "debian-vm-run.sh: runs in the Debian guest only" >&2
	exit 2
fi
exec > /dev/ttyS1 2>&1
cd /root/bpfexc
echo "running $(uname -r) ($(. /etc/os-release && echo "$PRETTY_NAME"), systemd $(systemctl --version | sed -n 's/^systemd \([0-9]*\).*/\1/p'))"
n=900 rc=0	# numbered after test_progs' own
result() {	# NAME STATUS
	n=$((n + 1))
	if [ "$2" = 0 ]; then echo "#$n $1:OK"; else echo "#$n $1:FAIL"; rc=1; fi
}
# build_and_run DIR BPF_SRC USER_SRC SKEL: as a program author would
build_and_run() {
	(
		set -e
		cd "$1"
		bpftool btf dump file /sys/kernel/btf/vmlinux format c > vmlinux.h
		clang -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -I. -c "$2" -o "$4.bpf.o"
		bpftool gen skeleton "$4.bpf.o" name "$4" > "$4.skel.h"
		cc -g -O2 -I. "$3" -lbpf -o "$4"
		"./$4"
	)
}
build_and_run packet-parser parser.bpf.c parser.c parser
result debian/packet-parser $?
[ -f /usr/include/bpf/bpf_exceptions.h ] && dpkg -S /usr/include/bpf/bpf_exceptions.h
result debian/header-package $?
build_and_run mitigations jitcheck.bpf.c jitcheck.c jitcheck
result debian/jit-mitigations $?
# conntrack's kfuncs are in its module, which a firewall's rules would
# have loaded: a test throws holding a conntrack entry
modprobe nf_conntrack
(cd selftests && ./test_progs -t exceptions) || rc=1
echo "BPFEXC-EXIT $rc"
echo "BPFEXC-DMESG"
dmesg
# (without D-Bus, which the system does not need, systemctl says so and
# asks systemd directly)
systemctl poweroff 2>/dev/null
