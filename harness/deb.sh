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
#     Multi-Arch: foreign, with Debian's copyright format, a changelog and
#     md5sums, the same bytes for the same series, checked by lintian.
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
# Who packages it: Debian's DEBFULLNAME and DEBEMAIL, as dch takes them
maint="${DEBFULLNAME:-BPF Exceptions Project} <${DEBEMAIL:-bpf-exceptions@localhost}>"
# The date of the series' last patch, so that the package is the same
# for the same series
date=$(git -C "$KSRC" log -1 --format=%aD)
pkg=$out/bpf-exceptions-dev
doc=$pkg/usr/share/doc/bpf-exceptions-dev
mkdir -p "$pkg/DEBIAN" "$pkg/usr/include/bpf" "$doc"
install -m 644 "$header" "$pkg/usr/include/bpf/"
# The tree's own licence line of the header, in Debian's machine-readable
# copyright format
spdx=$(sed -n '1s|^/\* SPDX-License-Identifier: \(.*\) \*/$|\1|p' "$header")
[ "$spdx" = "GPL-2.0" ] || die "bpf_exceptions.h: licence '$spdx', the copyright file says GPL-2.0"
cat > "$doc/copyright" <<EOT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: bpf-exceptions
Source: Linux $release with the BPF exceptions series

Files: *
Copyright: $(date -d "$date" +%Y) BPF Exceptions Project <bpf-exceptions@localhost>
License: GPL-2
 This program is free software; you can redistribute it and/or modify it
 under the terms of the GNU General Public License version 2 as published
 by the Free Software Foundation.
 .
 On Debian systems, the complete text of the GNU General Public License
 version 2 can be found in /usr/share/common-licenses/GPL-2.
EOT
cat > "$doc/changelog.Debian" <<EOT
bpf-exceptions-dev ($version) unstable; urgency=medium

  * bpf_exceptions.h of Linux $release with the BPF exceptions series.

 -- $maint  $date
EOT
gzip -9 -n "$doc/changelog.Debian"
(cd "$pkg" && find usr -type f | LC_ALL=C sort | xargs md5sum) > "$pkg/DEBIAN/md5sums"
cat > "$pkg/DEBIAN/control" <<EOT
Package: bpf-exceptions-dev
Version: $version
Architecture: all
Multi-Arch: foreign
Maintainer: $maint
Installed-Size: $(du -k -s --exclude=DEBIAN "$pkg" | cut -f1)
Depends: libbpf-dev (>= 1:1.0)
Section: libdevel
Priority: optional
Description: BPF exceptions: the header for BPF programs
 bpf_exceptions.h declares bpf_throw() and bpf_set_exception_callback(),
 the __exception_cb() tag and the assertion macros, for BPF programs
 that run on Linux $release (BPF exceptions series).  Include it as
 <bpf/bpf_exceptions.h> after vmlinux.h and <bpf/bpf_helpers.h>.
EOT
deb=$out/bpf-exceptions-dev_${version}_all.deb
find "$pkg" -type d -exec chmod 755 {} +
# the same bytes for the same series: every date is the series' own
find "$pkg" -exec touch -h -d "$date" {} +
SOURCE_DATE_EPOCH=$(date -d "$date" +%s) \
	dpkg-deb --root-owner-group -Zgzip --build "$pkg" "$deb" >/dev/null
rm -rf "$pkg"
# Debian's own checks of a package: no error, no warning, but that the
# package, which is not in Debian's archive, closes no ITP bug, and that
# the project's own address is on localhost (where DEBEMAIL is not set)
suppress=initial-upload-closes-no-bugs
[ -n "${DEBEMAIL:-}" ] || suppress+=,bogus-mail-host,bogus-mail-host-in-debian-changelog
if ! lintian --fail-on error,warning --suppress-tags "$suppress" "$deb" \
	>"$out/lintian.log" 2>&1; then
	cat "$out/lintian.log" >&2
	die "lintian: bpf-exceptions-dev, see $out/lintian.log"
fi
log "packages built in $((SECONDS - start)) s: $out"
ls "$out"/*.deb
