#!/usr/bin/env bash
# A Debian 12 system that runs the patched kernel from its packages, booted
# under QEMU (TCG) with systemd as init, used as its users would use it
# (harness/debian-vm-run.sh).  FLAVOUR=debian (default) or debian-rt.
#  1. the packages (harness/deb.sh) and the exceptions selftests for the
#     same kernel (harness/build.sh);
#  2. a Debian 12 root file system made by mmdebstrap from Debian's
#     packages only (systemd, initramfs-tools, clang, libbpf-dev, bpftool,
#     make), cached as $BPFEXC_CACHE/debian-vm/base-<arch>.tar;
#  3. the packages installed in a copy of it with dpkg -i, whose
#     postinst makes the initramfs with initramfs-tools, the sources of
#     the demo and of the JIT check and the selftests copied in: an ext4
#     disk image;
#  4. the system booted from that disk with the kernel and initramfs the
#     packages installed in its /boot; a systemd unit runs
#     debian-vm-run.sh and powers off.
# Prints the run's results and "N passed, N failed"; exits non-zero if a
# step failed, the kernel logged a splat, or the system did not finish.
# Needs root (chroot, bind mounts), as the rest of the harness.
export FLAVOUR=${FLAVOUR:-debian}
source "$(dirname "$0")/lib.sh"
[[ $FLAVOUR == debian* ]] || die "FLAVOUR=$FLAVOUR is not a Debian flavour (debian, debian-rt)"
[ "$BPFEXC_ARCH" = x86_64 ] || die "the Debian system is x86-64 only"

"$HARNESS/deps.sh"
"$HARNESS/build.sh"
# the kernel, its headers and the header for BPF programs, as an
# administrator installs them (not the debug image, nor linux-libc-dev)
built=$("$HARNESS/deb.sh")
mapfile -t debs < <(grep -E '/(linux-image|linux-headers|bpf-exceptions-dev)' <<<"$built" |
		    grep -v -- '-dbg_')
((${#debs[@]} == 3)) || die "deb.sh made no image, headers and header packages"
# bpf_testmod.ko again, against the vmlinux that bindeb-pkg linked and
# packaged: 6.1's parallel pahole numbers the BTF types of every link its
# own way, and the module's BTF refers to the kernel's by number
"$HARNESS/testmod.sh"

dir=$CACHE/debian-vm
mkdir -p "$dir"
pkgs=systemd-sysv,udev,kmod,initramfs-tools,zstd,clang,llvm,libbpf-dev,bpftool,make,gcc,libc6-dev,binutils,iproute2,procps,libelf1,zlib1g
base=$dir/base-$BPFEXC_ARCH.tar
if [ ! -f "$base" ] || [ "$(cat "$base.pkgs" 2>/dev/null)" != "$pkgs" ]; then
	log "making a Debian 12 system with mmdebstrap: $pkgs"
	start=$SECONDS
	mmdebstrap --quiet --variant=apt --include="$pkgs" \
		--customize-hook='echo bpfexc-debian > "$1/etc/hostname"' \
		bookworm "$base.new.tar" >"$dir/mmdebstrap.log" 2>&1 ||
		{ tail -n 20 "$dir/mmdebstrap.log" >&2; die "mmdebstrap failed, see $dir/mmdebstrap.log"; }
	mv "$base.new.tar" "$base"
	echo "$pkgs" > "$base.pkgs"
	log "Debian system made in $((SECONDS - start)) s: $base ($(du -h "$base" | cut -f1))"
fi

root=$dir/root
run=$dir/last-run
umount_all() {
	local m
	# (what stays mounted, rm --one-file-system below leaves alone)
	for m in dev/pts dev proc sys; do
		if mountpoint -q "$root/$m"; then
			umount "$root/$m" || log "cannot unmount $root/$m"
		fi
	done
}
trap umount_all EXIT
umount_all
rm -rf --one-file-system "$root" "$run"
mkdir -p "$root" "$run"
tar -xf "$base" -C "$root"
log "installing: ${debs[*]##*/}"
mkdir -p "$root/tmp/debs"
cp "${debs[@]}" "$root/tmp/debs/"
for m in proc sys dev dev/pts; do mount --bind "/$m" "$root/$m"; done
chroot "$root" sh -c 'dpkg -i /tmp/debs/*.deb' >"$run/dpkg.log" 2>&1 ||
	{ tail -n 20 "$run/dpkg.log" >&2; die "dpkg -i failed, see $run/dpkg.log"; }
umount_all
rm -rf "$root/tmp/debs"

# What the system runs: the sources as a user has them, the selftests
dest=$root/root/bpfexc
mkdir -p "$dest"
cp -r "$REPO/examples/packet-parser" "$REPO/mitigations" "$dest/"
cp -r "$GUEST/selftests" "$dest/selftests"
install -m 755 "$HARNESS/debian-vm-run.sh" "$dest/run.sh"
cat > "$root/etc/systemd/system/bpfexc-run.service" <<'EOT'
[Unit]
Description=BPF exceptions: what a user of the packages does
After=multi-user.target

[Service]
Type=oneshot
ExecStart=/root/bpfexc/run.sh

[Install]
WantedBy=multi-user.target
EOT
ln -sf /etc/systemd/system/bpfexc-run.service "$root/etc/systemd/system/multi-user.target.wants/"
echo "/dev/vda / ext4 defaults 0 1" > "$root/etc/fstab"

release=$(printf '%s\n' "${debs[@]}" | sed -n 's|.*/linux-image-\([^_]*\)_.*|\1|p')
cp "$root/boot/vmlinuz-$release" "$root/boot/initrd.img-$release" "$run/"
img=$run/disk.img
mke2fs -q -t ext4 -L root -d "$root" "$img" 4G
rm -rf --one-file-system "$root"

log "booting Debian 12 on $release (systemd), log: $run/console.log"
start=$SECONDS
set +e
timeout --foreground -k 5 "${VM_TIMEOUT:-1800}" qemu-system-x86_64 -accel tcg -cpu "$VM_CPU" \
	-smp 2 -m "${VM_MEM:-2G}" -nodefaults -nographic -display none -no-reboot \
	-kernel "$run/vmlinuz-$release" -initrd "$run/initrd.img-$release" \
	-append "root=/dev/vda rw console=ttyS0 panic=-1" \
	-drive "file=$img,if=virtio,format=raw" \
	-serial "file:$run/console.log" -serial "file:$run/results.log" </dev/null
qrc=$?
set -e
log "the system ran for $((SECONDS - start)) s"
tr -d '\r' < "$run/results.log" > "$run/results.txt"
sed '/^BPFEXC-EXIT /,$d' "$run/results.txt"

if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	tail -n 30 "$run/console.log" >&2
	die "the system did not finish within ${VM_TIMEOUT:-1800}s"
fi
if splats "$run/console.log" >&2; then
	die "kernel splat in the Debian system's log"
fi
rc=$(sed -n 's/^BPFEXC-EXIT \([0-9]*\).*/\1/p' "$run/results.txt" | tail -n 1)
[ -n "$rc" ] || { tail -n 30 "$run/console.log" >&2
		  die "the system stopped before the run finished (qemu status $qrc)"; }
awk "$TEST_PROGS_AWK"'
	/^BPFEXC-EXIT / { exit }
	test_progs_result() { tp_keep() }
	END {
		for (i = 1; i <= tp_n; i++) {
			if (!tp_counts(i)) continue
			r = tp_results[i]
			if (r == "OK") p++; else if (r == "FAIL") f++; else s++
		}
		printf "%d passed, %d failed, %d skipped\n", p, f, s
	}' "$run/results.txt"
exit "$rc"
