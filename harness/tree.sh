#!/usr/bin/env bash
# Make $KSRC the Debian linux-source-6.1 tree with patches/series applied.
#
# The tree is a git repository: commit "baseline" is the pristine Debian
# source, and the series is applied on top with `git am`.  When the tree
# already holds exactly the current series and nothing else, it is left
# alone (so an incremental build stays incremental).  Otherwise it is reset
# to baseline and the series re-applied.
#
# FLAVOUR=debian-rt has a tree of its own (lib.sh) whose "baseline" is
# the Debian source with Debian's RT patch set applied, as Debian builds
# its rt flavour, but for the patches harness/config/debian-rt-skip.list
# names (each with its reason).
#
# BPFEXC_DEV=1 keeps a tree that differs from the series (local hacking);
# without it, local changes in the tree are discarded.
source "$(dirname "$0")/lib.sh"

TARBALL=/usr/src/linux-source-6.1.tar.xz
[ -f "$TARBALL" ] || die "$TARBALL missing: run harness/deps.sh"
version=$(dpkg-query -W -f='${Version}' linux-source-6.1)
log "kernel source: Debian linux-source-6.1 $version"
if [ "$FLAVOUR" = debian-rt ]; then
	[ -f "$RT_PATCHES/series" ] ||
		die "no RT patch set in $RT_PATCHES: run FLAVOUR=debian-rt harness/deps.sh"
	rt_skip=$(list_entries "$HARNESS/config/debian-rt-skip.list")
	# (a change of the skip list makes the tree anew)
	version+=" with the RT patch set of $RT_SOURCE, skipping $(sha1sum <<<"$rt_skip" |
		cut -c1-12)"
fi

g() { git -C "$KSRC" -c user.name='BPF Exceptions Project' \
	-c user.email=bpf-exceptions@localhost "$@"; }

if [ "$(g config --get bpfexc.debian-version 2>/dev/null)" != "$version" ] ||
   ! g rev-parse -q --verify refs/tags/baseline >/dev/null; then
	log "unpacking $TARBALL into $KSRC"
	rm -rf "$KSRC" "$KSRC.unpack"
	mkdir -p "$KSRC.unpack"
	tar -C "$KSRC.unpack" -xf "$TARBALL"
	[ -d "$KSRC.unpack/linux-source-6.1" ] || die "tarball did not unpack to linux-source-6.1"
	mv "$KSRC.unpack/linux-source-6.1" "$KSRC"
	rmdir "$KSRC.unpack"
	g init -q
	# Debian's top-level .gitignore ignores everything ('/*'): force-add.
	g add -f -A
	g commit -q -m "Debian linux-source-6.1 ${version%% *}"
	if [ "$FLAVOUR" = debian-rt ]; then
		# quilt's way, as Debian applies it: no fuzz
		rt=$(list_entries "$RT_PATCHES/series")
		stale=$(grep -v -x -F -f <(printf "%s\n" "$rt") <<<"$rt_skip" || true)
		[ -z "$stale" ] || die "debian-rt-skip.list: not in the RT patch set: $stale"
		for p in $(grep -v -x -F -f <(printf "%s\n" "$rt_skip") <<<"$rt"); do
			patch -d "$KSRC" -p1 -s -F0 --no-backup-if-mismatch \
				-i "$RT_PATCHES/$p" >&2 ||
				die "RT patch does not apply: $RT_PATCHES/$p"
		done
		g add -f -A
		g commit -q -m "Debian's RT patch set of $RT_SOURCE"
		log "applied Debian's RT patch set of $RT_SOURCE"
	fi
	g tag baseline
	g config bpfexc.debian-version "$version"
fi

mapfile -t patches < <(series_patches)
want=$(series_hash)
have=$(g config --get bpfexc.series 2>/dev/null || true)
# The commit the series was applied as: commits made in the tree since
# (hacking) make it differ from the series as much as edits do.
head=$(g config --get bpfexc.head 2>/dev/null || true)

if [ "$want" = "$have" ] && [ "$(g rev-parse HEAD)" = "$head" ] &&
   [ -z "$(g status --porcelain)" ]; then
	log "tree up to date: ${#patches[@]} patches applied"
	exit 0
fi
if [ "${BPFEXC_DEV:-0}" = 1 ]; then
	log "BPFEXC_DEV=1: building the tree as it is, not patches/series"
	exit 0
fi

log "applying ${#patches[@]} patches on baseline"
g am --abort >/dev/null 2>&1 || true
# What the reset discards, commits made in the tree and edits to its files,
# stays reachable under refs/bpfexc/discarded
saved=$(g stash create 2>/dev/null || true)
[ -n "$saved" ] || saved=$(g rev-parse HEAD)
if [ "$saved" != "$head" ]; then
	g update-ref refs/bpfexc/discarded "$saved"
	log "the tree's own commits and edits are kept in refs/bpfexc/discarded"
fi
g reset -q --hard baseline
g clean -q -fdx
for p in ${patches[@]+"${patches[@]}"}; do
	if ! g am -q --keep-cr "$REPO/patches/$p" >/dev/null 2>&1; then
		g am --abort >/dev/null 2>&1 || true
		die "patch does not apply: patches/$p (on Debian $version)"
	fi
	log "  applied $p"
done
g config bpfexc.series "$want"
g config bpfexc.head "$(g rev-parse HEAD)"
