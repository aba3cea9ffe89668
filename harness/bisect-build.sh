#!/usr/bin/env bash
# Check that every prefix of the series builds: apply the patches one by
# one on baseline and build the kernel after each that touches it (a
# patch of only tools/ or Documentation/ leaves the kernel build as it
# was).  The tree ends with the whole series applied.
#   BISECT_FROM=K   start at prefix K (the prefixes before it built before)
source "$(dirname "$0")/lib.sh"

"$HARNESS/tree.sh" >/dev/null
g() { git -C "$KSRC" "$@"; }
mapfile -t patches < <(series_patches)
head=$(g rev-parse HEAD)
n=${#patches[@]}
bad=0
for ((k = ${BISECT_FROM:-1}; k <= n; k++)); do
	commit=$(g rev-parse "$head~$((n - k))")
	if ! g diff --name-only "$commit~1" "$commit" | grep -qvE '^(tools|Documentation)/'; then
		log "prefix $k/$n (${patches[k - 1]}): tools/docs only, skipped"
		continue
	fi
	g checkout -q "$commit"
	if BPFEXC_DEV=1 "$HARNESS/kernel.sh" >/dev/null 2>&1; then
		log "prefix $k/$n (${patches[k - 1]}): builds"
	else
		log "prefix $k/$n (${patches[k - 1]}): BUILD FAILED, see $KBUILD/build.log"
		bad=1
		break
	fi
done

g checkout -q master
exit $bad
