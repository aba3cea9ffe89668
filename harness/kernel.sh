#!/usr/bin/env bash
# Configure and build the kernel (its boot image + vmlinux, with BTF but
# for the build-only flavour) out of tree, for $BPFEXC_ARCH (lib.sh).
#
# The config is derived reproducibly: `make allnoconfig` with expert.config,
# lean.config, the architecture's <arch>.config and, for a flavour other
# than lean, harness/config/$FLAVOUR.config and $FLAVOUR-<arch>.config if
# there is one forced in (KCONFIG_ALLCONFIG);
# the build-only flavour (harness/cross-build.sh) replaces lean.config.
# Afterwards every option in harness/config/required*.list must be =y,
# else the build stops naming it.
source "$(dirname "$0")/lib.sh"

frag=$HARNESS/config/$FLAVOUR.config
[ -f "$frag" ] || die "no config fragment $frag"
mkdir -p "$KBUILD"

# The lean fragment is the base of every flavour that boots, and the
# options the tests need (required.list) are checked; build-only is a base
# of its own, with a list of its own.
allconfig=$KBUILD/allconfig.fragment
frags=("$HARNESS/config/expert.config")
if [ "$FLAVOUR" = build-only ]; then
	frags+=("$frag" "$HARNESS/config/$BPFEXC_ARCH.config") required=()
else
	frags+=("$HARNESS/config/lean.config" "$HARNESS/config/$BPFEXC_ARCH.config")
	[ "$FLAVOUR" = lean ] || frags+=("$frag")
	# and the flavour's options for one architecture only
	[ -f "$HARNESS/config/$FLAVOUR-$BPFEXC_ARCH.config" ] &&
		frags+=("$HARNESS/config/$FLAVOUR-$BPFEXC_ARCH.config")
	required=("$HARNESS/config/required.list")
fi
cat "${frags[@]}" > "$allconfig.new"
if ! cmp -s "$allconfig.new" "$allconfig" || [ ! -f "$KBUILD/.config" ]; then
	log "configuring $FLAVOUR kernel in $KBUILD"
	# The fragment is kept only once the config was made from it
	"${KMAKE[@]}" -s -C "$KSRC" O="$KBUILD" KCONFIG_ALLCONFIG="$allconfig.new" allnoconfig >/dev/null
	mv "$allconfig.new" "$allconfig"
else
	rm -f "$allconfig.new"
fi

missing=()
while read -r opt; do
	grep -qx "$opt=y" "$KBUILD/.config" || missing+=("$opt")
done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' \
	"${required[@]}" "$HARNESS/config/required-$FLAVOUR.list" \
	"$HARNESS/config/required-$BPFEXC_ARCH.list" 2>/dev/null)
# Options the fragments set that Kconfig dropped (unmet dependencies).
while read -r line; do
	grep -qx "$line" "$KBUILD/.config" || missing+=("${line%=*}")
done < <(grep -E '^CONFIG_[A-Z0-9_]+=y' "$allconfig")
((${#missing[@]} == 0)) || die "kernel config lacks: ${missing[*]}"

jobs=${JOBS:-$(nproc)}
image=$(basename "$KIMAGE")
log "building $BPFEXC_ARCH $FLAVOUR kernel (make -j$jobs $image modules_prepare), log: $KBUILD/build.log"
start=$SECONDS
if ! "${KMAKE[@]}" -C "$KSRC" O="$KBUILD" -j"$jobs" \
	"$image" modules_prepare >"$KBUILD/build.log" 2>&1; then
	grep -m 20 -E 'error|Error' "$KBUILD/build.log" >&2
	die "kernel build failed, see $KBUILD/build.log"
fi
log "kernel built in $((SECONDS - start)) s: $KBUILD/$KIMAGE"
