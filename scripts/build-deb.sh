#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-deb.sh: build the Debian packages (make deb) into build/deb/:
#
#   rmem-dkms_<version>_all.deb     the module source for DKMS, which builds
#                                   rmem.ko on the target for its kernels
#   rmemctl_<version>_<arch>.deb    /usr/sbin/rmemctl and its man page
#
# <version> is VERSION's.  The build runs in a scratch copy of the sources
# under build/ with a debian/changelog written from VERSION (the one place
# the version lives), so the work tree gets no debhelper leftovers.  Only
# rmemctl is compiled here; the log goes to build/deb.log.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
VERSION=$(cat "$REPO/VERSION")
OUT=$REPO/build/deb
LOG=$REPO/build/deb.log

# a native package's version: a hyphen would make dpkg read what follows as
# a Debian revision (use ~ for pre-releases: 1.0~rc1)
if ! dpkg --validate-version "$VERSION" 2>/dev/null || [ "${VERSION#*-}" != "$VERSION" ]; then
	echo "build-deb: VERSION '$VERSION' is not a native Debian version (no '-')" >&2
	exit 1
fi

mkdir -p "$REPO/build"
STAGE=$(mktemp -d "$REPO/build/deb-stage.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT
SRC=$STAGE/rmem-$VERSION
mkdir "$SRC"

# What the packages are made of, without objects of an in-tree build
tar -C "$REPO" -cf - \
	--exclude='*.o' --exclude='*.ko' --exclude='*.mod' --exclude='*.mod.c' \
	--exclude='.*.cmd' --exclude='*.order' --exclude=Module.symvers \
	--exclude=user/rmemctl \
	Makefile Kbuild VERSION dkms.conf kernel include scripts user \
	Documentation/rmemctl.8 debian |
	tar -C "$SRC" -xf -

# The changelog's date: the last commit's when there is git (the same tree
# builds the same packages), else now.
when=${SOURCE_DATE_EPOCH:-$(git -C "$REPO" log -1 --format=%ct 2>/dev/null || date +%s)}
cat > "$SRC/debian/changelog" <<EOF
rmem ($VERSION) unstable; urgency=medium

  * rmem $VERSION (from the top-level VERSION file).

 -- rmem developers <rmem@localhost>  $(date -R -u -d "@$when")
EOF

arch=$(dpkg --print-architecture)
debs=("rmem-dkms_${VERSION}_all.deb" "rmemctl_${VERSION}_${arch}.deb")

# -b: binary packages only; no dbgsym package (we ship exactly two)
echo "build-deb: building ${debs[*]} (log: ${LOG#"$REPO"/})"
if ! (cd "$SRC" && DEB_BUILD_OPTIONS="noautodbgsym nocheck ${DEB_BUILD_OPTIONS:-}" \
	dpkg-buildpackage -b -us -uc) > "$LOG" 2>&1; then
	tail -n 30 "$LOG" >&2
	echo "build-deb: dpkg-buildpackage failed (full log: $LOG)" >&2
	exit 1
fi

mkdir -p "$OUT"
rm -f "$OUT"/*.deb
for d in "${debs[@]}"; do
	mv "$STAGE/$d" "$OUT/"
	echo "build-deb: ${OUT#"$REPO"/}/$d"
done
