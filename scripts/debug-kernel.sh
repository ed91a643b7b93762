#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# debug-kernel.sh: build (once, then reuse) the kernel make check-debug boots:
# Debian's linux-source-VERSION (6.12 or 6.1) configured as x86_64_defconfig
# + kvm_guest.config + scripts/debug-kernel.config (KASAN, lockdep, kmemleak,
# fault injection, everything the lab needs built in).
#
#   scripts/debug-kernel.sh [VERSION]         build if not cached; print the
#                                             cache dir (VERSION: 6.12)
#   scripts/debug-kernel.sh --path [VERSION]  print the cache dir only
#
# The cache dir holds:  tree/ (configured, built tree: KDIR for rmem.ko),
# bzImage, modroot/lib/modules/KVER (for modprobe in the guest), kver,
# build-seconds.  It is keyed by the source package version, the fragment
# and RECIPE below (bump it when a change here changes the build), under
# $RMEM_DEBUG_CACHE (default ~/.cache/rmem), so a fresh clone on the same
# machine reuses it.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD

RECIPE=1
FRAG=$REPO/scripts/debug-kernel.config
path_only=
[ "${1:-}" != --path ] || { path_only=1; shift; }
V=${1:-6.12}
case "$V" in
6.1 | 6.12) ;;
*) echo "debug-kernel: no debug lane for '$V' (6.1 or 6.12)" >&2; exit 1 ;;
esac
TARBALL=$(ls /usr/src/linux-source-"$V".tar.* 2>/dev/null | head -n1)
[ -n "$TARBALL" ] || { echo "debug-kernel: no /usr/src/linux-source-$V.tar.* (make deps)" >&2; exit 1; }
SRCVER=$(dpkg-query -W -f='${Version}' linux-source-"$V" 2>/dev/null || stat -c %Y "$TARBALL")
KEY=$( { echo "$SRCVER recipe $RECIPE"; cat "$FRAG"; } | sha256sum | cut -c1-12)
CACHE_ROOT=${RMEM_DEBUG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rmem}
OUT=$CACHE_ROOT/debug-kernel-$V-$KEY

if [ -n "$path_only" ]; then
	echo "$OUT"
	exit 0
fi
# The release, from the tree's utsrelease.h: "make kernelrelease" under a
# make (make check-debug) also prints "Entering directory" lines.
kver() { scripts/kernels.sh kver "$OUT/tree" > "$OUT/kver"; }
if [ -e "$OUT/done" ]; then
	# a build by an older recipe may have written those lines into kver
	[ "$(wc -l < "$OUT/kver" 2>/dev/null)" = 1 ] &&
		grep -qx '[^ ]\+' "$OUT/kver" || kver
	echo "$OUT"
	exit 0
fi

log() { echo "debug-kernel: $*" >&2; }
start=$(date +%s)
rm -rf "$OUT"
mkdir -p "$OUT"
log "building in $OUT (linux-source-$V $SRCVER; 8 to 15 minutes on 2 cores)"
tar -xf "$TARBALL" -C "$OUT"
mv "$OUT/linux-source-$V" "$OUT/tree"
T=$OUT/tree
MK=(make -C "$T" -s LOCALVERSION=-rmem-debug)

"${MK[@]}" x86_64_defconfig >&2
"${MK[@]}" kvm_guest.config >&2
"$T/scripts/kconfig/merge_config.sh" -m -O "$T" "$T/.config" "$FRAG" >/dev/null
"${MK[@]}" olddefconfig >&2

# Every line of the fragment must have survived Kconfig.
bad=0
while read -r line; do
	case "$line" in
	CONFIG_*=*)
		grep -qxF "$line" "$T/.config" || { log "not in .config: $line"; bad=1; } ;;
	"# CONFIG_"*" is not set")
		sym=${line#\# }; sym=${sym%% *}
		if grep -q "^$sym=" "$T/.config"; then log "still set: $sym"; bad=1; fi ;;
	esac
done < "$FRAG"
[ $bad -eq 0 ] || { log "configuration does not match $FRAG"; exit 1; }

"${MK[@]}" -j"$(nproc)" bzImage modules >&2
"${MK[@]}" INSTALL_MOD_PATH="$OUT/modroot" modules_install >&2
cp "$T/arch/x86/boot/bzImage" "$OUT/bzImage"
kver
# The module build of rmem.ko needs headers, scripts, Module.symvers and the
# config, not the built-in objects: drop those to save about 1 GB.
find "$T" -name '*.o' ! -path '*/scripts/*' ! -path '*/tools/*' -delete
echo $(( $(date +%s) - start )) > "$OUT/build-seconds"
touch "$OUT/done"
log "done in $(cat "$OUT/build-seconds") s: $(cat "$OUT/kver")"
# Older cached builds of this version (other keys) are dead weight; so are
# those from before the version was part of the name.
for d in "$CACHE_ROOT"/debug-kernel-"$V"-* "$CACHE_ROOT"/debug-kernel-????????????; do
	[ -e "$d" ] || continue
	[ "$d" = "$OUT" ] || rm -rf "$d"
done
echo "$OUT"
