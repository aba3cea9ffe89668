#!/usr/bin/env bash
# Install every Debian package the build, the guest and the tests need,
# for the target architecture (lib.sh).  Idempotent: does nothing (and
# needs no network) when all are present.
source "$(dirname "$0")/lib.sh"

PKGS=(
	linux-source-6.1	# the kernel we patch
	build-essential bc bison flex libelf-dev libssl-dev kmod cpio
	dwarves			# pahole, for CONFIG_DEBUG_INFO_BTF
	ccache
	clang llvm		# BPF programs (clang 14), llvm-strip for skeletons
	clang-16 libbpf-dev	# the demo is also built with clang 16, Debian's libbpf
	clang-19		# the assertion macros are tested with clang 14, 16 and 19
	linux-source-6.12	# libbpf 1.5, for the exception callback named by a decl tag
	zlib1g-dev libcap-dev	# in-tree libbpf and bpftool
	qemu-system-x86 busybox-static
	bpftool			# full bpftool inside the guest, for people
	rsync xz-utils git patch
	python3-ply python3-git	# checkpatch.pl's spdxcheck.py
)

case $BPFEXC_ARCH in
arm64)
	# The guest's user space is cross-built and linked statically against
	# Debian's arm64 libraries (multiarch); its busybox is unpacked from
	# Debian's busybox-static for arm64 (harness/busybox.sh).
	PKGS+=(gcc-aarch64-linux-gnu qemu-system-arm
	       libelf-dev:arm64 zlib1g-dev:arm64 libc6-dev:arm64 libbpf-dev:arm64) ;;
s390x) PKGS+=(gcc-s390x-linux-gnu) ;;
ppc64el) PKGS+=(gcc-powerpc64le-linux-gnu) ;;
esac
# The kernel built with clang and lld 16 (FLAVOUR=clang-cfi)
[ "$FLAVOUR" = clang-cfi ] && PKGS+=(lld-16 llvm-16)
# Debian's configs (FLAVOUR=debian, debian-rt; the host's package has the
# host architecture's), what bindeb-pkg packages with, lintian for the
# header's package, and what makes the Debian system of debian-vm.sh
case $FLAVOUR in debian*) PKGS+=(linux-config-6.1 dpkg-dev fakeroot lintian mmdebstrap e2fsprogs) ;; esac

missing=()
for p in "${PKGS[@]}"; do
	[[ $p == \#* ]] && continue
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
if ((${#missing[@]})); then
	log "installing: ${missing[*]}"
	[ "$(id -u)" = 0 ] || die "need root to install: ${missing[*]}"
	if [[ "${missing[*]}" == *:arm64* ]] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
		dpkg --add-architecture arm64
	fi
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		"${missing[@]}" >/dev/null
fi
# arm64's Debian configs, unpacked from their package (it cannot be
# installed beside the host's)
if [[ $FLAVOUR == debian* && $BPFEXC_ARCH == arm64 && ! -d $CACHE/linux-config-6.1-arm64 ]]; then
	tmp=$(mktemp -d)
	chmod 755 "$tmp"	# apt downloads as _apt
	(cd "$tmp" && apt-get download -qq linux-config-6.1:arm64 >/dev/null) ||
		die "cannot download linux-config-6.1:arm64"
	dpkg-deb -x "$tmp"/linux-config-6.1_*_arm64.deb "$tmp/root"
	mkdir -p "$CACHE"
	mv "$tmp/root/usr/src/linux-config-6.1" "$CACHE/linux-config-6.1-arm64"
	rm -rf "$tmp"
fi
