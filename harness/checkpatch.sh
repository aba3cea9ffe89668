#!/usr/bin/env bash
# Run the tree's checkpatch.pl --strict on every patch of the series.
# Exits non-zero if any patch has an error, warning or check.
source "$(dirname "$0")/lib.sh"
# spdxcheck.py needs python3-ply: use Debian's python3, not another one
export PATH=/usr/bin:$PATH
bad=0
# Run outside this repository: checkpatch treats a path that git tracks in
# the current repository as a source file (file mode), not as a patch, and
# it leaves a cache file in the current directory.
cd "$CACHE"
# FILE_PATH_CHANGES ("does MAINTAINERS need updating?") is raised by every
# patch that adds a file without touching MAINTAINERS; the series adds its
# MAINTAINERS entry once, for all its files, in the first patch that adds
# one, so the tests patch would raise it.  Every other check stays on.
for p in $(series_patches); do
	out=$(perl "$KSRC/scripts/checkpatch.pl" --strict -q --no-summary \
		--ignore FILE_PATH_CHANGES "$REPO/patches/$p" 2>&1) || true
	n=$(grep -cE '^(ERROR|WARNING|CHECK):' <<<"$out" || true)
	printf '%3d findings  %s\n' "$n" "$p"
	if [ "$n" != 0 ]; then bad=1; echo "$out"; fi
done
exit $bad
