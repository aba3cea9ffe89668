#!/usr/bin/env bash
# Print the path of a static busybox for the guest's architecture: the
# host's for x86_64; for another, the binary of Debian's busybox-static
# package of that architecture, unpacked into the cache (it cannot be
# installed beside the host's).
source "$(dirname "$0")/lib.sh"

if [ "$BPFEXC_ARCH" = x86_64 ]; then
	echo /bin/busybox
	exit 0
fi
dir=$CACHE/busybox-$BPFEXC_ARCH
if [ ! -x "$dir/bin/busybox" ]; then
	rm -rf "$dir.tmp"
	mkdir -p "$dir.tmp"
	(cd "$dir.tmp" && apt-get download -qq "busybox-static:$BPFEXC_ARCH" >/dev/null 2>&1) ||
		die "cannot download busybox-static:$BPFEXC_ARCH"
	dpkg-deb -x "$dir.tmp"/busybox-static_*.deb "$dir.tmp/root"
	rm -rf "$dir"
	mv "$dir.tmp/root" "$dir"
	rm -rf "$dir.tmp"
fi
echo "$dir/bin/busybox"
