#!/usr/bin/env bash
# Debian packages of the patched kernel built with a Debian flavour's
# config (FLAVOUR=debian by default; debian-rt), for $BPFEXC_ARCH, into
# $BPFEXC_CACHE/deb-<arch>-<flavour>/:
#   linux-image-<release>_*.deb, linux-headers-<release>_*.deb,
#   linux-libc-dev_*.deb (and the -dbg image): the kernel's bindeb-pkg
#     from the flavour's build (harness/kernel.sh); linux-libc-dev, whose
#     version sorts above Debian's, is not for installing;
#   bpf-exceptions-dev_<version>_all.deb: bpf_exceptions.h, the header BPF
#     programs include, as /usr/include/bpf/bpf_exceptions.h beside the
#     headers of Debian's libbpf-dev, which it depends on.  A package of
#     its own because a program author needs it where libbpf's headers
#     are, whatever kernel package or flavour the machine runs, and not
#     the kernel's headers, which serve out-of-tree modules.
# Prints the packages built.
export FLAVOUR=${FLAVOUR:-debian}
source "$(dirname "$0")/lib.sh"
[[ $FLAVOUR == debian* ]] || die "FLAVOUR=$FLAVOUR is not a Debian flavour (debian, debian-rt)"

"$HARNESS/deps.sh"
"$HARNESS/tree.sh"
"$HARNESS/kernel.sh"

out=$CACHE/deb-$BPFEXC_ARCH-$FLAVOUR
rm -rf "$out"
mkdir -p "$out"
release=$("${KMAKE[@]}" -s -C "$KSRC" O="$KBUILD" kernelrelease)
version=$release-1
log "packaging $release (bindeb-pkg), log: $out/bindeb-pkg.log"
start=$SECONDS
# dpkg-buildpackage leaves the packages in the build directory's parent,
# which other builds share: only this version's are taken
rm -f "$KBUILD"/../linux-*_"$version"_*.deb "$KBUILD"/../linux-upstream_"$version"_*
if ! "${KMAKE[@]}" -C "$KSRC" O="$KBUILD" -j"${JOBS:-$(nproc)}" \
	KDEB_PKGVERSION="$version" KDEB_COMPRESS=gzip bindeb-pkg >"$out/bindeb-pkg.log" 2>&1; then
	tail -n 20 "$out/bindeb-pkg.log" >&2
	die "bindeb-pkg failed, see $out/bindeb-pkg.log"
fi
mv "$KBUILD"/../linux-*_"$version"_*.deb "$out/"
rm -f "$KBUILD"/../linux-upstream_"$version"_*

header=$KSRC/tools/testing/selftests/bpf/bpf_exceptions.h
pkg=$out/bpf-exceptions-dev
mkdir -p "$pkg/DEBIAN" "$pkg/usr/include/bpf" "$pkg/usr/share/doc/bpf-exceptions-dev"
install -m 644 "$header" "$pkg/usr/include/bpf/"
cat > "$pkg/usr/share/doc/bpf-exceptions-dev/copyright" <<EOT
bpf_exceptions.h is part of Linux $release with the BPF exceptions series.
License: GPL-2.0, see /usr/share/common-licenses/GPL-2.
EOT
cat > "$pkg/DEBIAN/control" <<EOT
Package: bpf-exceptions-dev
Version: $version
Architecture: all
Maintainer: BPF Exceptions Project <bpf-exceptions@localhost>
Depends: libbpf-dev
Section: libdevel
Priority: optional
Description: BPF exceptions: the header for BPF programs
 bpf_exceptions.h declares bpf_throw() and bpf_set_exception_callback(),
 the __exception_cb() tag and the assertion macros, for BPF programs
 that run on Linux $release (BPF exceptions series).  Include it as
 <bpf/bpf_exceptions.h> after vmlinux.h and <bpf/bpf_helpers.h>.
EOT
dpkg-deb --root-owner-group -Zgzip --build "$pkg" "$out/bpf-exceptions-dev_${version}_all.deb" >/dev/null
rm -rf "$pkg"
log "packages built in $((SECONDS - start)) s: $out"
ls "$out"/*.deb
