#!/usr/bin/env bash
# Build libbpf from Debian's linux-source-6.12 (libbpf 1.5), for the test of
# what needs libbpf 1.3 or later (an exception callback named by a decl
# tag).  Only libbpf's part of the source is unpacked.  Built for the
# target architecture (lib.sh).  Prints the directory with libbpf.a and
# include/.
source "$(dirname "$0")/lib.sh"

tarball=/usr/src/linux-source-6.12.tar.xz
[ -f "$tarball" ] || die "no $tarball: run harness/deps.sh"
src=$CACHE/linux-source-6.12-libbpf
out=$CACHE/libbpf-6.12${archdir:+-${archdir%-}}
if [ ! -f "$out/libbpf.a" ] || [ "$tarball" -nt "$out/libbpf.a" ]; then
	log "building libbpf from $tarball"
	rm -rf "$src" "$out"
	mkdir -p "$src" "$out"
	tar xJf "$tarball" -C "$src" --strip-components=1 \
		linux-source-6.12/tools/lib/bpf linux-source-6.12/tools/include \
		linux-source-6.12/tools/scripts linux-source-6.12/tools/build \
		linux-source-6.12/tools/arch linux-source-6.12/arch/"$SRCARCH"/include/uapi \
		linux-source-6.12/include/uapi/linux/bpf.h \
		linux-source-6.12/include/uapi/linux/bpf_common.h \
		linux-source-6.12/include/uapi/linux/btf.h \
		linux-source-6.12/scripts/bpf_doc.py
	make -s -C "$src/tools/lib/bpf" OUTPUT="$out/" DESTDIR="$out" prefix= \
		${CROSS_COMPILE:+ARCH="$SRCARCH" CROSS_COMPILE="$CROSS_COMPILE"} \
		EXTRA_CFLAGS='-g -O2' "$out/libbpf.a" install_headers >&2
fi
echo "$out"
