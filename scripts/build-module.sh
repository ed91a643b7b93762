#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-module.sh KDIR [KBUILD ARGS...]: build rmem.ko for the kernel tree
# KDIR in build/<its release>/, so modules for several kernels live side by
# side: configure (feature probes, scripts/configure.sh), then Kbuild.
# build/<release>/ mirrors the source tree with symbolic links; the objects,
# the generated rmem_config.h and rmem.ko are its own.  KBUILD ARGS go to
# Kbuild (default: modules; make sparse passes C=2 ...).
# RMEM_VARIANT=bare builds make bench's reference module (no latency
# timestamps, histograms or request tracepoints: kernel/client/client.h)
# in build/<release>-bare/.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
KDIR=${1:?usage: build-module.sh KDIR [KBUILD ARGS...]}
shift
[ -f "$KDIR/Makefile" ] || {
	echo "No kernel headers at KDIR='$KDIR'. Run 'make deps' or set KDIR=." >&2
	exit 1
}
KVER=$("$REPO/scripts/kernels.sh" kver "$KDIR")
[ -n "$KVER" ] || { echo "build-module: $KDIR has no kernel release (not configured?)" >&2; exit 1; }
OUT=$REPO/build/$KVER
variant=()
case ${RMEM_VARIANT:-} in
"") ;;
bare) OUT=$OUT-bare variant=(RMEM_BENCH_BARE=y) ;;
*) echo "build-module: unknown RMEM_VARIANT '$RMEM_VARIANT'" >&2; exit 1 ;;
esac

# the mirror: links to every source, none to a source that is gone
mkdir -p "$OUT/kernel"
# One build at a time per release: configure rewrites the probes and
# Kbuild the objects (make -j lint all, or make beside make check).
exec 9> "$OUT/.lock"
flock 9
ln -sfn ../../Kbuild "$OUT/Kbuild"
ln -sfn ../../include "$OUT/include"
ln -sfn ../../VERSION "$OUT/VERSION"
# kernel/ and its role folders (client/, server/): sources only
for d in "" client/ server/; do
	mkdir -p "$OUT/kernel/$d"
	for f in "$OUT/kernel/$d"*; do
		[ ! -L "$f" ] || [ -e "$f" ] || rm -f "$f"
	done
	up=../../../${d:+../}
	for f in "$REPO/kernel/$d"Kbuild "$REPO/kernel/$d"*.[ch]; do
		[ -e "$f" ] || continue
		case "$f" in *.mod.c) continue ;; esac
		ln -sfn "${up}kernel/$d${f##*/}" "$OUT/kernel/$d${f##*/}"
	done
done

"$REPO/scripts/configure.sh" "$KDIR" "$OUT/kernel"
[ $# -gt 0 ] || set -- modules
make -C "$KDIR" M="$OUT" ${variant[@]+"${variant[@]}"} "$@"
if [ -e "$OUT/kernel/rmem.ko" ]; then
	ln -f "$OUT/kernel/rmem.ko" "$OUT/rmem.ko" 2>/dev/null ||
		cp "$OUT/kernel/rmem.ko" "$OUT/rmem.ko"
fi
