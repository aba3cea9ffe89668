#!/usr/bin/env bash
# Boot the built kernel under QEMU (TCG) and run one command in the guest.
#
#   vm.sh [-t SECONDS] [-s] [COMMAND...]
#     COMMAND   command and arguments, run in /selftests in the guest
#     -t        give up after SECONDS (default 600): a hung guest fails
#     -s        interactive shell instead of a command
#
# Outputs go to $GUEST/last-run/: console.log (kernel console and the
# command's output), results.txt (the command's output, then its exit
# status and dmesg; also printed).  Exit status: the command's, or 124 when the guest
# hung, or 125 when the guest crashed or the kernel logged a splat
# (splats(), lib.sh).
#
# VM_ICOUNT=1 boots one vCPU with `-icount shift=0,sleep=off`: guest time
# advances one nanosecond per executed instruction, so a duration the guest
# measures is a count of instructions, the same boot after boot (a second
# vCPU does not come up in that mode).
source "$(dirname "$0")/lib.sh"

timeout=600
interactive=0
while getopts "t:sh" o; do
	case $o in
	t) timeout=$OPTARG ;;
	s) interactive=1 ;;
	h) usage; exit 0 ;;
	*) die "usage: vm.sh [-t SECONDS] [-s] [COMMAND...]" ;;
	esac
done
shift $((OPTIND - 1))

kernel=$KBUILD/$KIMAGE
initrd=$GUEST/initramfs.cpio.gz
[ -f "$kernel" ] || die "no kernel at $kernel: run harness/kernel.sh"
[ -f "$initrd" ] || die "no initramfs at $initrd: run harness/initramfs.sh"

run=$GUEST/last-run
rm -rf "$run"
mkdir -p "$run/extra/run"
# The command travels as a second cpio archive appended to the initramfs.
if (($#)); then printf '%q ' "$@"; else printf 'true'; fi > "$run/extra/run/cmd"
(cd "$run/extra" && find . | cpio -o -H newc --quiet -R 0:0) > "$run/cmd.cpio"
# The kernel finds the next archive only at an aligned offset: pad the
# compressed base archive with zeros to a 512-byte boundary.
{ cat "$initrd"; head -c $(( (512 - $(stat -c %s "$initrd") % 512) % 512 )) /dev/zero
  cat "$run/cmd.cpio"; } > "$run/initrd"

if [ "${VM_ICOUNT:-0}" = 1 ]; then
	cpus=(-smp 1 -icount shift=0,sleep=off)
else
	cpus=(-smp 2)
fi
# Two ports: the kernel's console, and the results port that guest-init.sh
# copies the command's output to (bpfexc.results=).
case $BPFEXC_ARCH in
x86_64)
	machine=(qemu-system-x86_64 -cpu "$VM_CPU")
	console=ttyS0 results=ttyS1
	# ports CONSOLE RESULTS: QEMU's options for the two, as -serial takes them
	ports() { port_opts=(-serial "$1" -serial "$2"); } ;;
arm64)
	# virt has one UART; the results port is a virtio console.  QEMU's
	# own pointer authentication algorithm is much faster under TCG.
	machine=(qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on)
	console=ttyAMA0 results=hvc0 virtio_serial=virtio-serial-device ;;
s390x)
	# The first -serial is the SCLP's VT220 terminal; the results port
	# is a virtio console on the channel subsystem, as the SCLP's other
	# terminal is a line-mode one.
	machine=(qemu-system-s390x -M s390-ccw-virtio -cpu max)
	console=ttysclp0 results=hvc0 virtio_serial=virtio-serial-ccw ;;
ppc64el)
	# Each -serial is a virtual console of the hypervisor (spapr-vty).
	# A POWER9, with the radix MMU; the speculation controls as TCG has
	# them (none), which QEMU would otherwise warn of at every boot.
	machine=(qemu-system-ppc64 -cpu power9
		 -M pseries,cap-cfpc=broken,cap-sbbc=broken,cap-ibs=broken,cap-ccf-assist=off)
	console=hvc0 results=hvc1
	ports() { port_opts=(-serial "$1" -serial "$2"); } ;;
esac
# The results port as a virtio console, where the machine has one serial
# port
if [ -n "${virtio_serial:-}" ]; then
	ports() {
		local res=null
		[[ $2 == file:* ]] && res="file,path=${2#file:}"
		port_opts=(-serial "$1" -device "$virtio_serial"
			-chardev "$res,id=results" -device virtconsole,chardev=results)
	}
fi
append="console=$console panic=-1 oops=panic nokaslr bpfexc.results=$results"
qemu=("${machine[@]}" -accel tcg "${cpus[@]}" -m "${VM_MEM:-1G}"
	-kernel "$kernel" -initrd "$run/initrd" -no-reboot -nographic
	-nodefaults -display none)

if ((interactive)); then
	ports mon:stdio null
	exec "${qemu[@]}" "${port_opts[@]}" -append "$append bpfexc.shell"
fi

ports "file:$run/console.log" "file:$run/results.log"
set +e
timeout --foreground -k 5 "$timeout" "${qemu[@]}" "${port_opts[@]}" \
	-append "$append" </dev/null
qrc=$?
set -e
# The command's own output, for the person or script that ran us.
tr -d '\r' < "$run/results.log" > "$run/results.txt"
sed '/^BPFEXC-EXIT /,$d' "$run/results.txt"

if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	echo "vm: guest did not finish within ${timeout}s" >&2
	splats "$run/console.log" >&2 || tail -n 20 "$run/console.log" >&2
	exit 124
fi
if splats "$run/console.log" > "$run/splats.txt"; then
	echo "vm: kernel splat in guest console:" >&2
	cat "$run/splats.txt" >&2
	exit 125
fi
rc=$(sed -n 's/^BPFEXC-EXIT \([0-9]*\).*/\1/p' "$run/results.txt" | tail -n 1)
if [ -z "$rc" ]; then
	echo "vm: guest stopped before the command finished (qemu status $qrc)" >&2
	tail -n 30 "$run/console.log" >&2
	exit 125
fi
exit "$rc"
