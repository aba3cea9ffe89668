#!/usr/bin/env bash
# Configure and build the kernel (its boot image + vmlinux, with BTF but
# for the build-only flavour) out of tree, for $BPFEXC_ARCH (lib.sh).
#
# The config is derived reproducibly: `make allnoconfig` with expert.config,
# lean.config, the architecture's <arch>.config and, for a flavour other
# than lean, harness/config/$FLAVOUR.config and $FLAVOUR-<arch>.config if
# there is one forced in (KCONFIG_ALLCONFIG);
# the build-only flavour (harness/cross-build.sh) replaces lean.config.
#
# The Debian flavours (debian, debian-rt) start from Debian's own config
# instead (debian_config(), lib.sh) and trim it: every module is left out
# but those of harness/config/debian-modules.list (the Debian system's
# root disk), then harness/config/debian.config (and debian-<arch>.config)
# builds in what the tests need that Debian builds as a module.  Every
# option that harness/config/debian-kept.list matches (BPF, the JITs, the
# unwinders, preemption, mitigations, LSMs) must end as Debian has it.
#
# Afterwards every option in harness/config/required*.list must be =y,
# else the build stops naming it.
source "$(dirname "$0")/lib.sh"

debian=
case $FLAVOUR in debian*) debian=$(debian_config) frag=$HARNESS/config/debian.config ;;
*) frag=$HARNESS/config/$FLAVOUR.config ;; esac
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
if [ -n "$debian" ]; then
	# Debian's config, modules left out, then what the tests need (a
	# later assignment of an option overrides an earlier one)
	frags=("$frag")
	[ -f "$HARNESS/config/debian-$BPFEXC_ARCH.config" ] &&
		frags+=("$HARNESS/config/debian-$BPFEXC_ARCH.config")
	orig=$(xzcat "$debian")
	# the lines of the modules kept, as Debian's config has them (an
	# architecture may build one of them in)
	names=$(list_entries "$HARNESS/config/debian-modules.list")
	kept=$(grep -E "^($(paste -s -d '|' <<<"$names"))=[my]$" <<<"$orig" || true)
	notm=$(grep -v -x -F -f <(sed 's/=.*//' <<<"$kept") <<<"$names" || true)
	[ -z "$notm" ] || die "not in Debian's config: $(echo $notm)"
	{ grep -v -x -F -e "$kept" <<<"$orig" |
		sed -E 's/^(CONFIG_[A-Za-z0-9_]+)=m$/# \1 is not set/'
	  grep -x -F -e "$kept" <<<"$orig"
	  cat "${frags[@]}"; } > "$allconfig.new"
else
	cat "${frags[@]}" > "$allconfig.new"
fi
if ! cmp -s "$allconfig.new" "$allconfig" || [ ! -f "$KBUILD/.config" ]; then
	log "configuring $FLAVOUR kernel in $KBUILD"
	# The fragment is kept only once the config was made from it
	if [ -n "$debian" ]; then
		cp "$allconfig.new" "$KBUILD/.config"
		"${KMAKE[@]}" -s -C "$KSRC" O="$KBUILD" olddefconfig >"$KBUILD/config.log" 2>&1 ||
			{ tail -n 20 "$KBUILD/config.log" >&2; die "olddefconfig failed"; }
	else
		"${KMAKE[@]}" -s -C "$KSRC" O="$KBUILD" KCONFIG_ALLCONFIG="$allconfig.new" allnoconfig >/dev/null
	fi
	mv "$allconfig.new" "$allconfig"
else
	rm -f "$allconfig.new"
fi

# The options the tests need, built in (or, in a Debian flavour, a module
# it keeps, which the guest loads)
missing=()
while read -r opt; do
	grep -qx "$opt=y" "$KBUILD/.config" && continue
	[ -n "$debian" ] && grep -qx "$opt=m" "$KBUILD/.config" &&
		grep -qx "$opt" <<<"$names" && continue
	missing+=("$opt")
done < <(list_entries "${required[@]}" "$HARNESS/config/required-$FLAVOUR.list" \
	"$HARNESS/config/required-$BPFEXC_ARCH.list" 2>/dev/null)
# Options the fragments set that Kconfig dropped (unmet dependencies).
while read -r line; do
	grep -qx "$line" "$KBUILD/.config" || missing+=("${line%=*}")
done < <(cat "${frags[@]}" | grep -E '^CONFIG_[A-Z0-9_]+=y')
((${#missing[@]} == 0)) || die "kernel config lacks: ${missing[*]}"
# A Debian flavour: what the trim must not change
if [ -n "$debian" ]; then
	kept_re=$(list_entries "$HARNESS/config/debian-kept.list")
	# Debian's lines of the options kept, but the exceptions ("!NAME"),
	# that the config does not have as they are
	changed=$(grep -E '^CONFIG_|^# CONFIG_.* is not set$' <<<"$orig" |
		  grep -E -f <(grep -v '^!' <<<"$kept_re" | sed 's/.*/^(# )?(&)[= ]/') |
		  grep -v -E -f <(sed -n 's/^!\([A-Za-z0-9_]*\).*/^(# )?\1[= ]/p' <<<"$kept_re") |
		  grep -v -x -F -f "$KBUILD/.config" | sed 's/^# //' || true)
	[ -z "$changed" ] || die "the trim changed Debian's: $(echo $changed)"
fi

jobs=${JOBS:-$(nproc)}
targets=("$(basename "$KIMAGE")" modules_prepare)
[ -z "$debian" ] || targets+=(modules)
log "building $BPFEXC_ARCH $FLAVOUR kernel (make -j$jobs ${targets[*]}), log: $KBUILD/build.log"
start=$SECONDS
if ! "${KMAKE[@]}" -C "$KSRC" O="$KBUILD" -j"$jobs" \
	"${targets[@]}" >"$KBUILD/build.log" 2>&1; then
	grep -m 20 -E 'error|Error' "$KBUILD/build.log" >&2
	die "kernel build failed, see $KBUILD/build.log"
fi
log "kernel built in $((SECONDS - start)) s: $KBUILD/$KIMAGE"
