#!/usr/bin/env bash
# Export the commits on top of "baseline" in the kernel tree into patches/
# (git format-patch, with the cover letter of patches/cover-letter.txt)
# and rewrite patches/series.  Run after hacking in the tree (with
# BPFEXC_DEV=1 builds); commit the result in this repository.
source "$(dirname "$0")/lib.sh"

cd "$KSRC"
[ -z "$(git status --porcelain)" ] || die "uncommitted changes in $KSRC"
branch=$(git symbolic-ref --short HEAD) || die "$KSRC: HEAD is not a branch"
rm -f "$REPO"/patches/*.patch
# The cover letter's subject and text come from patches/cover-letter.txt
# (its first line, then the rest), through the branch's description; git
# adds the shortlog and the diffstat.
git config "branch.$branch.description" "$(cat "$REPO/patches/cover-letter.txt")"
# Empty context lines as empty lines, not a lone space: checkpatch run on
# a tracked patch file (file mode) takes that space for trailing whitespace;
# git am reads both the same.
git -c diff.suppressBlankEmpty=true format-patch -q --zero-commit --no-signature \
	--cover-letter --cover-from-description=subject -o "$REPO/patches" baseline
{
	echo "# The BPF exceptions series, in order (git format-patch files in this folder)."
	(cd "$REPO/patches" && ls -1 ./*.patch | sed 's|^\./||' | grep -v '^0000-cover-letter')
} > "$REPO/patches/series"
# The tree now holds exactly the series: mark it so builds stay incremental.
git config bpfexc.series "$(series_hash)"
git config bpfexc.head "$(git rev-parse HEAD)"
log "exported $(git rev-list --count baseline..HEAD) patches to patches/"
