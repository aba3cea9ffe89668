#!/usr/bin/env bash
# Build the unpatched baseline kernel (Debian's source without the series,
# the tree's `baseline` tag in a worktree of its own) with the lean config,
# for the side-by-side runs of make regress and make bench.  Prints the
# build directory.
source "$(dirname "$0")/lib.sh"

base_src=$CACHE/linux-baseline
base_build=$CACHE/build-${archdir}baseline
if [ ! -d "$base_src/.git" ] && [ ! -f "$base_src/.git" ]; then
	git -C "$KSRC" worktree prune
	git -C "$KSRC" worktree add -f "$base_src" baseline >/dev/null
fi
log "building the baseline kernel (Debian source without the series)"
BPFEXC_KSRC=$base_src BPFEXC_KBUILD=$base_build "$HARNESS/kernel.sh" >&2
echo "$base_build"
