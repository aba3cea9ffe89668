# Common settings for the harness scripts; sourced, not run.
#
# Everything big (kernel tree, build outputs, ccache, initramfs) lives in
# one cache directory outside the repository, kept between runs:
#   BPFEXC_CACHE  (default: ${XDG_CACHE_HOME:-$HOME/.cache}/bpf-exceptions)
# The kernel tree sits at one fixed path inside it so ccache hits survive
# re-creating the tree (debug info embeds the path).

set -euo pipefail

# usage: the comment block at the top of the running script, which says
# how to run it, without its comment marks.
usage() { sed -n '1d; /^#/!q; s/^# \{0,1\}//p' "$0"; }
# Every script that sources this answers -h and --help with its usage,
# here, before it does any work.
case ${1:-} in -h | --help) usage; exit 0 ;; esac

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HARNESS=$REPO/harness
CACHE=${BPFEXC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bpf-exceptions}
KSRC=${BPFEXC_KSRC:-$CACHE/linux-source-6.1}
# Kernel flavour: lean (default) or another fragment in harness/config/.
FLAVOUR=${FLAVOUR:-lean}

# Target architecture: x86_64 (default), arm64, s390x or ppc64el, from
# `make ... ARCH=arm64`.
# The tools' makefiles (libbpf, bpftool) read ARCH too, and bpftool must be
# built for the host: every kernel or cross build is given ARCH explicitly
# ($KMAKE below), and the environment keeps BPFEXC_ARCH instead.
BPFEXC_ARCH=${BPFEXC_ARCH:-${ARCH:-x86_64}}
unset ARCH
case $BPFEXC_ARCH in
x86_64 | x86)
	BPFEXC_ARCH=x86_64 SRCARCH=x86 CROSS_COMPILE= KIMAGE=arch/x86/boot/bzImage
	# x86_64 keeps the directory names it had before other architectures
	archdir= ;;
arm64 | aarch64)
	BPFEXC_ARCH=arm64 SRCARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
	KIMAGE=arch/arm64/boot/Image archdir=arm64- ;;
s390x | s390)
	BPFEXC_ARCH=s390x SRCARCH=s390 CROSS_COMPILE=s390x-linux-gnu-
	KIMAGE=arch/s390/boot/bzImage archdir=s390x- ;;
ppc64el | ppc64le | powerpc)
	BPFEXC_ARCH=ppc64el SRCARCH=powerpc CROSS_COMPILE=powerpc64le-linux-gnu-
	KIMAGE=vmlinux archdir=ppc64el- ;;
*) printf 'error: unknown ARCH %s (x86_64, arm64, s390x, ppc64el)\n' "$BPFEXC_ARCH" >&2; exit 1 ;;
esac
export BPFEXC_ARCH
# The series' JITs support exceptions on every architecture above.
# Whether the demo and the apps (examples/, asserts/, bench/, stress/,
# fuzz/) run there: built against Debian's libbpf for that architecture.
# Elsewhere (s390x and ppc64el, whose 6.1 JITs lack what the stress test
# and the fuzzer throw through: trampolines, tail calls beside subprogs)
# the bench runs alone (build-apps.sh --bench), leaving out what it
# measures of those (bench/bench.c).
case $BPFEXC_ARCH in x86_64 | arm64) APPS=1 ;; *) APPS=0 ;; esac
# The guest's libelf and zlib, headers and static libraries, where they
# are not installed as multiarch packages (deps.sh says why)
case $BPFEXC_ARCH in s390x) XLIBS=$CACHE/libs-$BPFEXC_ARCH ;; *) XLIBS= ;; esac
# make -C <kernel tree or build dir> for the target architecture: with
# gcc, or for the clang-cfi flavour with Debian's clang and lld 16, as
# Android's and ChromeOS's kernels are built
if [ "$FLAVOUR" = clang-cfi ]; then
	KMAKE=(make ARCH="$SRCARCH" LLVM=-16 CC="ccache clang-16")
else
	KMAKE=(make ARCH="$SRCARCH" CROSS_COMPILE="$CROSS_COMPILE" CC="ccache ${CROSS_COMPILE}gcc")
fi
# A Debian flavour's release is CONFIG_LOCALVERSION's alone: without
# LOCALVERSION set, 6.1 appends a "+" for a tree kept in git
case $FLAVOUR in debian*) KMAKE+=(LOCALVERSION=) ;; esac
# QEMU's x86-64 CPU model (vm.sh): "max", every feature TCG has; for the
# Debian flavours a Zen CPU (EPYC), which Debian's kernel mitigates with
# the return thunk and retpolines: the JIT's code under those
# mitigations is what runs (mitigations/jitcheck.c)
case $FLAVOUR in debian*) VM_CPU=${VM_CPU:-EPYC} ;; *) VM_CPU=${VM_CPU:-max} ;; esac

# debian_config: Debian's config file that a Debian flavour (debian,
# debian-rt) starts from, from linux-config-6.1 (deps.sh: the host's
# package, or another architecture's unpacked into the cache)
debian_config() {
	local set=none arch=amd64 dir=/usr/src/linux-config-6.1
	[ "$FLAVOUR" = debian-rt ] && set=rt
	[ "$BPFEXC_ARCH" = arm64 ] && arch=arm64 dir=$CACHE/linux-config-6.1-arm64
	[ -f "$dir/config.${arch}_${set}_$arch.xz" ] ||
		die "no Debian config $dir/config.${arch}_${set}_$arch.xz (harness/deps.sh)"
	echo "$dir/config.${arch}_${set}_$arch.xz"
}
# FLAVOUR=debian-rt: Debian's RT patch set (debian/patches-rt of Debian's
# `linux` source package; linux-source-6.1 does not carry it) of this
# version of the source package, the one bookworm's main suite serves,
# unpacked by deps.sh; its tree is one of its own (tree.sh), the RT patch
# set under the series
RT_SOURCE=6.1.176-1
RT_PATCHES=$CACHE/debian-patches-rt-$RT_SOURCE
[ "$FLAVOUR" = debian-rt ] && KSRC=${BPFEXC_KSRC:-$CACHE/linux-source-6.1-rt}
KBUILD=${BPFEXC_KBUILD:-$CACHE/build-$archdir$FLAVOUR}
GUEST=${BPFEXC_GUEST:-$CACHE/guest-$archdir$FLAVOUR}
export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}

# sign_modules KO...: a kernel that checks module signatures (Debian's
# config) gets modules signed with the key its build made, which it trusts
sign_modules() {
	local hash key ko
	grep -qx CONFIG_MODULE_SIG=y "$KBUILD/.config" || return 0
	hash=$(sed -n 's/^CONFIG_MODULE_SIG_HASH="\(.*\)"/\1/p' "$KBUILD/.config")
	key=$(sed -n 's/^CONFIG_MODULE_SIG_KEY="\(.*\)"/\1/p' "$KBUILD/.config")
	[[ $key == /* ]] || key=$KBUILD/$key
	for ko in "$@"; do
		"$KBUILD/scripts/sign-file" "$hash" "$key" "$KBUILD/certs/signing_key.x509" "$ko"
	done
}

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# list_entries FILE...: the entries of list files (patches/series,
# harness/config/*.list, harness/tests*.list), one a line: without
# comments, blank lines and the spaces around an entry.
list_entries() {
	sed -e 's/#.*//' -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$@"
}

# arch_skipped_tests: the whole tests that harness/config/
# skip-$BPFEXC_ARCH.list names (not its subtests), one a line: they do not
# build or run on the architecture.
arch_skipped_tests() {
	[ -f "$HARNESS/config/skip-$BPFEXC_ARCH.list" ] || return 0
	list_entries "$HARNESS/config/skip-$BPFEXC_ARCH.list" | grep -v / || true
}

# series_patches: the patch files that patches/series lists, in order, one
# a line (names relative to patches/).
series_patches() {
	list_entries "$REPO/patches/series"
}

# series_hash: the SHA-1 of patches/series followed by the patches it
# lists.  A kernel tree that holds exactly the series keeps it in `git
# config bpfexc.series` (tree.sh, export-series.sh); a tree whose value
# differs is reset and rebuilt, so the value must not change for the same
# files.
series_hash() {
	local patches
	mapfile -t patches < <(series_patches)
	(cd "$REPO/patches" && cat series ${patches[@]+"${patches[@]}"}) | sha1sum | cut -c1-40
}

# What a kernel log must not hold (vm.sh, debian-vm.sh): WARN, BUG, Oops,
# panic, KASAN, UBSAN, lockdep, kmemleak, RCU stall, hung task.
SPLAT_RE='WARNING:|BUG:|Oops|Kernel panic|general protection fault|UBSAN:|'
SPLAT_RE+='possible (circular|recursive) locking|INFO: (lockdep|task .* blocked|rcu_)|'
SPLAT_RE+='unreferenced object|Call Trace:|kernel BUG|stack-protector|double fault'
# and what matches it without being one: the advice 6.1 prints at boot on a
# Zen CPU without the SRSO microcode, which QEMU's EPYC model has not
SPLAT_NOT_RE='Speculative Return Stack Overflow: WARNING: See'
# splats FILE...: print the first lines of kernel logs that SPLAT_RE
# matches and SPLAT_NOT_RE does not, with what follows; false if none.
# (No grep -m in the pipe: under pipefail, the grep it stops early would
# die of SIGPIPE and make a log with many splats look clean.)
splats() {
	local found
	found=$(cat "$@" | grep -avE "$SPLAT_NOT_RE" | grep -aE -A 15 "$SPLAT_RE") || true
	[ -n "$found" ] || return 1
	head -n 80 <<<"$found"
}

# The parser of test_progs' output, as awk source to put in front of a
# program that uses it: awk "$TEST_PROGS_AWK"'test_progs_result() { ... }'.
# test_progs prints "#N name:OK|FAIL|SKIP" for a test and
# "#N/M name/sub:OK|FAIL|SKIP" for a subtest (a result whose name has a
# space, as some subtests' do, is not recognised).  test_progs_result()
# tells whether the line just read is such a result, not seen before in
# this file (test_progs repeats failed tests in its closing error log), and
# sets tp_id (#N or #N/M), tp_name and tp_res.  tp_keep() keeps that
# result as the tp_n-th of tp_ids[], tp_names[] and tp_results[];
# tp_counts(i) tells whether the i-th counts in a tally: a test with
# subtests is counted by its subtests.
TEST_PROGS_AWK='
function test_progs_result() {
	if ($0 !~ /^#[0-9]+(\/[0-9]+)?[ \t]+[^ ]+:(OK|FAIL|SKIP)/) return 0
	tp_id = $1
	tp_res = $2; sub(/.*:/, "", tp_res)
	tp_name = $2; sub(/:[A-Z]+$/, "", tp_name)
	if ((FILENAME, tp_id) in tp_seen) return 0
	tp_seen[FILENAME, tp_id] = 1
	return 1
}
function tp_keep(	part) {
	split(tp_id, part, "/")
	if (part[2] != "") tp_hassub[part[1]] = 1
	tp_n++; tp_ids[tp_n] = tp_id; tp_names[tp_n] = tp_name; tp_results[tp_n] = tp_res
}
function tp_counts(i) {
	return tp_ids[i] ~ /\// || !(tp_ids[i] in tp_hassub)
}
'
