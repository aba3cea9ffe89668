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
s390x)
	PKGS+=(gcc-s390x-linux-gnu)
	# The same for the s390x guest (not for the build-only flavour),
	# but Debian's s390x libraries cannot be installed beside the
	# host's (XLIBS, below): the cross compiler's own glibc, and libelf
	# and zlib (and libbpf, for the bench) unpacked.  bpftool runs under
	# QEMU's user-mode emulation on the big-endian guest's BPF objects
	# (harness/selftests.mk, build-apps.sh).
	[ "$FLAVOUR" = build-only ] ||
		PKGS+=(libc6-dev-s390x-cross qemu-system-misc qemu-user-static) ;;
ppc64el)
	PKGS+=(gcc-powerpc64le-linux-gnu)
	# The same for the ppc64el guest, as for arm64
	[ "$FLAVOUR" = build-only ] ||
		PKGS+=(qemu-system-ppc
		       libelf-dev:ppc64el zlib1g-dev:ppc64el libc6-dev:ppc64el
		       libbpf-dev:ppc64el) ;;
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
	for p in "${missing[@]}"; do
		[[ $p == *:* ]] || continue
		dpkg --print-foreign-architectures | grep -qx "${p#*:}" ||
			dpkg --add-architecture "${p#*:}"
	done
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		"${missing[@]}" >/dev/null
fi
# XLIBS (lib.sh): the static libelf and zlib of an architecture that
# Debian's security archive does not serve (s390x): the host's zlib1g,
# linux-libc-dev and libssl3, updated there, and the architecture's, not,
# which its libelf-dev, zlib1g-dev and libc6-dev need, cannot be installed
# side by side (a multiarch package's versions must match), so its -dev
# packages of libelf and zlib are unpacked into the cache, headers and
# static libraries, and libbpf's, which the bench links (build-apps.sh)
xlibs_pkgs=("libelf-dev:$BPFEXC_ARCH" "zlib1g-dev:$BPFEXC_ARCH" "libbpf-dev:$BPFEXC_ARCH")
if [ -n "$XLIBS" ] && [ "$FLAVOUR" != build-only ] && [ ! -f "$XLIBS/lib/libbpf.a" ]; then
	tmp=$(mktemp -d)
	chmod 755 "$tmp"	# apt downloads as _apt
	(cd "$tmp" && apt-get download -qq "${xlibs_pkgs[@]}" >/dev/null 2>&1) ||
		die "cannot download ${xlibs_pkgs[*]}"
	for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" "$tmp/root"; done
	mkdir -p "$tmp/libs/lib" "$CACHE"
	mv "$tmp/root/usr/include" "$tmp/libs/include"
	mv "$tmp/root/usr/lib/${CROSS_COMPILE%-}"/*.a "$tmp/libs/lib/"
	rm -rf "$XLIBS"
	mv "$tmp/libs" "$XLIBS"
	rm -rf "$tmp"
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
# FLAVOUR=debian-rt: Debian's RT patch set (lib.sh), from the source
# package's debian tarball alone, fetched and checked by apt.  The deb-src
# list it needs is made from the host's own entries for its release's
# main suite, in a directory of its own: the host's apt setup stays as it
# is.
if [ "$FLAVOUR" = debian-rt ] && [ ! -f "$RT_PATCHES/series" ]; then
	mkdir -p "$CACHE"
	# beside its destination, so that the last step is a rename
	tmp=$(mktemp -d "$CACHE/.debian-patches-rt.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	mkdir -p "$tmp/parts" "$tmp/lists/partial" "$tmp/cache/archives/partial"
	suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
	# deb822 stanzas (*.sources) and one-line entries (*.list) of type
	# deb that list the suite, as deb-src entries of that suite alone
	awk -v s="$suite" 'BEGIN { RS = ""; FS = "\n" }
		{ t = m = 0; out = ""
		  for (i = 1; i <= NF; i++) {
			if ($i ~ /^Types:/) t = $i ~ /[: ]deb( |$)/
			else if ($i ~ /^Suites:/) m = (" " substr($i, 8) " ") ~ (" " s " ")
			else if ($i !~ /^#/) out = out $i "\n" }
		  if (t && m) printf "Types: deb-src\nSuites: %s\n%s\n", s, out }' \
		/etc/apt/sources.list.d/*.sources >"$tmp/parts/src.sources" 2>/dev/null || true
	# (the options in brackets, which may hold spaces, kept whole)
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk -v s="$suite" '$1 == "deb" { line = $0; opts = ""
			if (match(line, /\[[^]]*\]/)) {
				opts = substr(line, RSTART, RLENGTH) " "
				line = substr(line, 1, RSTART - 1) substr(line, RSTART + RLENGTH)
			}
			n = split(line, f, " ")
			if (n >= 3 && f[3] == s) {
				printf "deb-src %s%s", opts, f[2]
				for (i = 3; i <= n; i++) printf " %s", f[i]
				printf "\n"
			} }' >"$tmp/parts/src.list" || true
	[ -s "$tmp/parts/src.sources" ] || [ -s "$tmp/parts/src.list" ] ||
		die "no apt entry of type deb for $suite in /etc/apt: cannot fetch Debian's RT patch set"
	# The host's apt.conf.d stays in force (proxies), but its update hooks
	# do not run for this private list
	printf '#clear %s;\n' APT::Update::Pre-Invoke APT::Update::Post-Invoke \
		APT::Update::Post-Invoke-Success >"$tmp/apt.conf"
	# (as root: the cache is in root's home, which apt's _apt cannot enter)
	apt=(apt-get -qq -c "$tmp/apt.conf" -o APT::Sandbox::User=root
	     -o Dir::Etc::SourceList=/dev/null
	     -o Dir::Etc::SourceParts="$tmp/parts" -o Dir::State::Lists="$tmp/lists"
	     -o Dir::Cache="$tmp/cache")
	"${apt[@]}" update || die "apt-get update of the deb-src list failed ($tmp/parts)"
	uri=$("${apt[@]}" source --print-uris "linux=$RT_SOURCE" | grep "debian\.tar\.xz' ") ||
		die "apt finds no Debian source package linux $RT_SOURCE"
	read -r url file _ hash <<<"$uri"
	/usr/lib/apt/apt-helper -qq -o APT::Sandbox::User=root download-file "${url//\'/}" "$tmp/$file" "$hash" ||
		die "cannot download $file"
	tar -C "$tmp" -xf "$tmp/$file" debian/patches-rt
	[ -f "$tmp/debian/patches-rt/series" ] || die "$file has no debian/patches-rt/series"
	rm -rf "$RT_PATCHES"
	mv -T "$tmp/debian/patches-rt" "$RT_PATCHES"
fi
