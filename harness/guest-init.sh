#!/bin/sh
# /init of the test guest.  Mounts what BPF programs and the tests need,
# then runs /run/cmd (put there by harness/vm.sh in a second cpio archive)
# or, with bpfexc.shell on the command line, an interactive shell.
# The command's output is copied to the results port (bpfexc.results= on
# the kernel command line, ttyS1 if not given), followed
# by the line "BPFEXC-EXIT <status>" and the guest's dmesg.  Then the guest
# reboots, which makes QEMU (-no-reboot) exit.
# Anywhere but as the guest's first process it would mount over /tmp and
# reboot the machine: it answers -h with this text and refuses to run.
case ${1:-} in
-h | --help) sed -n '1d; /^#/!q; s/^# \{0,1\}//p' "$0"; exit 0 ;;
esac
if [ $$ != 1 ]; then
	echo "guest-init.sh: the test guest's /init, not a command" >&2
	exit 2
fi
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
mount -t bpf bpf /sys/fs/bpf
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
# The selftests' cgroup_helpers mount cgroup2 on /mnt
mkdir -p /mnt
ip link set lo up
# conntrack and its kfuncs, where the kernel builds them as a module
# (Debian's config): a test throws holding a conntrack entry.  The
# kernel's own requests for modules (libcrc32c's crc32c) go to busybox.
if [ -d "/lib/modules/$(uname -r)" ]; then
	echo /bin/modprobe > /proc/sys/kernel/modprobe
	modprobe nf_conntrack
fi
ulimit -l unlimited
hostname bpfexc-guest
results=/dev/ttyS1
for arg in $(cat /proc/cmdline); do
	case $arg in bpfexc.results=*) results=/dev/${arg#bpfexc.results=} ;; esac
done

cd /selftests
if grep -q bpfexc.shell /proc/cmdline; then
	echo "BPF exceptions guest: tests in /selftests (./test_progs -a 'exceptions*'); exit to power off"
	setsid cttyhack sh -l
else
	# Debug kernels: the leak report after the command lists only objects
	# allocated from here on, not what boot left unreferenced (ACPI caches,
	# some of which lose their last reference only later): kmemleak gives
	# each object's allocation in jiffies, which start 300 s before the
	# 32-bit wrap (INITIAL_JIFFIES).
	if [ -w /sys/kernel/debug/kmemleak ]; then
		hz=$(zcat /proc/config.gz | sed -n 's/^CONFIG_HZ=//p')
		since=0	# without HZ, everything is reported
		[ -n "$hz" ] && since=$(awk -v hz="$hz" \
			'{ printf "%.0f", 4294967296 + (int($1) - 300) * hz }' /proc/uptime)
		echo "kmemleak: the report after the command lists objects allocated from jiffies $since" > /dev/console
	fi
	{ sh /run/cmd; echo $? > /tmp/rc; } 2>&1 | tee "$results"
	# Debug kernels: a leak check.  kmemleak reports objects unreferenced
	# for 5 s and more; its report goes to the console, where vm.sh looks.
	if [ -w /sys/kernel/debug/kmemleak ]; then
		echo scan > /sys/kernel/debug/kmemleak
		sleep 6
		echo scan > /sys/kernel/debug/kmemleak
		awk -v since="$since" '
			function flush() {
				if (obj == "") return
				if (keep) printf "%s", obj; else old++
				obj = ""
			}
			/^unreferenced object/ { flush(); keep = 1 }
			/^  comm .* jiffies / {
				j = $0; sub(/.* jiffies /, "", j); sub(/[^0-9].*/, "", j)
				keep = j + 0 >= since + 0
			}
			{ obj = obj $0 "\n" }
			END {
				flush()
				if (old) printf "kmemleak: %d objects allocated before the command left out\n", old
			}' /sys/kernel/debug/kmemleak > /dev/console
	fi
	echo "BPFEXC-EXIT $(cat /tmp/rc)" > "$results"
	echo "BPFEXC-DMESG" > "$results"
	dmesg > "$results"
fi
sync
reboot -f
