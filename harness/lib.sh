# Common settings for the harness scripts; sourced, not run.
#
# Everything big (kernel tree, build outputs, ccache, initramfs) lives in
# one cache directory outside the repository, kept between runs:
#   BPFEXC_CACHE  (default: ${XDG_CACHE_HOME:-$HOME/.cache}/bpf-exceptions)
# The kernel tree sits at one fixed path inside it so ccache hits survive
# re-creating the tree (debug info embeds the path).

set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HARNESS=$REPO/harness
CACHE=${BPFEXC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bpf-exceptions}
KSRC=${BPFEXC_KSRC:-$CACHE/linux-source-6.1}
# Kernel flavour: lean (default) or another fragment in harness/config/.
FLAVOUR=${FLAVOUR:-lean}
KBUILD=${BPFEXC_KBUILD:-$CACHE/build-$FLAVOUR}
GUEST=${BPFEXC_GUEST:-$CACHE/guest-$FLAVOUR}
export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }
