#!/usr/bin/env bash
# Build the guest's base initramfs: busybox, harness/guest-init.sh as /init,
# the test runner and BPF objects under /selftests, and the given extra
# binaries (with the shared libraries they need, found with ldd).
#   initramfs.sh DIR_TO_INSTALL_AS_/selftests [extra binaries...]
source "$(dirname "$0")/lib.sh"

selftests=$1; shift
root=$GUEST/rootfs
out=$GUEST/initramfs.cpio.gz
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,etc,proc,sys,dev,tmp,run,root,selftests,usr/bin,usr/sbin}

cp "$("$HARNESS/busybox.sh")" "$root/bin/busybox"
# The applets, as the host's busybox (same Debian package) lists them: the
# guest's may be of another architecture
for applet in $(/bin/busybox --list); do
	[ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done
install -m 755 "$HARNESS/guest-init.sh" "$root/init"

# Copy a binary and every shared library it links against.
add_binary() {
	local bin=$1 dest=$2 lib
	install -D -m 755 "$bin" "$root$dest"
	for lib in $(ldd "$bin" 2>/dev/null | grep -oE '/[^ ]+'); do
		[ -e "$root$lib" ] || install -D -m 755 "$lib" "$root$lib"
	done
}

# Runner and BPF objects: tests load objects by relative path.
add_binary "$selftests/test_progs" /selftests/test_progs
# Test kfuncs: test_progs loads bpf_testmod.ko from its directory.
cp "$selftests"/*.bpf.o "$selftests"/*.ko "$root/selftests/" 2>/dev/null || true
for bin in "$@"; do
	add_binary "$bin" "/usr/bin/$(basename "$bin")"
done
# The modules a Debian flavour builds (harness/config/debian-modules.list),
# which guest-init.sh loads; modules_install signs them (MODULE_SIG_ALL)
case $FLAVOUR in debian*)
	"${KMAKE[@]}" -s -C "$KSRC" O="$KBUILD" INSTALL_MOD_PATH="$root" \
		INSTALL_MOD_STRIP=1 modules_install >/dev/null ||
		die "modules_install failed"
esac
if [ "$BPFEXC_ARCH" = x86_64 ]; then
	# glibc loads libgcc_s when a thread exits (pthread_exit,
	# cancellation); ldd does not list it.  (Cross-built binaries are
	# static.)
	lib=$(readlink -f /lib/x86_64-linux-gnu/libgcc_s.so.1)
	install -D -m 755 "$lib" "$root/lib/x86_64-linux-gnu/libgcc_s.so.1"
	# Full bpftool for people using the interactive shell.
	[ -x /usr/sbin/bpftool ] && add_binary /usr/sbin/bpftool /usr/sbin/bpftool
	# The disassembler of the JIT check (mitigations/jitcheck.c)
	add_binary /usr/bin/objdump /usr/bin/objdump
fi

(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) |
	gzip -1 > "$out.tmp"
mv "$out.tmp" "$out"
log "initramfs: $out ($(du -h "$out" | cut -f1))"
