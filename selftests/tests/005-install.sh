#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host-side: make install (staged with DESTDIR) for this run's kernel puts
# the module under /lib/modules/KVER/extra (compressed as the kernel's own
# modules are: 6.12's with xz) with a depmod index, rmemctl in sbin and the
# man page in man8; both say the version; the man page renders without
# warnings.
source "$(dirname "$0")/../lib.sh"

D=$(mktemp -d)
trap 'rm -rf "$D" "$D.log"' EXIT
KVER=$LAB_KVER
VERSION=$(cat "$REPO/VERSION")
do_install()
{
	make -s -C "$REPO" --no-print-directory install KDIR="$LAB_KDIR" \
		DESTDIR="$D" > "$D.log" 2>&1 || { cat "$D.log"; return 1; }
}
check "make install KDIR=$LAB_KDIR DESTDIR=..." do_install
KO=$(ls "$D/lib/modules/$KVER/extra/kernel/"rmem.ko* 2>/dev/null | head -n 1)
check "module under extra/: ${KO#"$D"}" test -f "$KO"
check "depmod indexed it" grep -q '^extra/kernel/rmem.ko' "$D/lib/modules/$KVER/modules.dep"
check "modinfo: license and parameters" sh -c "modinfo '$KO' | grep -q 'license: *GPL' && modinfo -p '$KO' | grep -q queue_depth"
check "modinfo: version $VERSION, built for $KVER" sh -c "modinfo -F version '$KO' | grep -qxF '$VERSION' && modinfo -F vermagic '$KO' | grep -q '^$KVER '"
check "rmemctl installed and says version $VERSION" sh -c "'$D/usr/local/sbin/rmemctl' -V | grep -qF 'rmemctl $VERSION '"
check "man page renders without warnings" sh -c "! groff -man -Tutf8 -ww '$D/usr/local/share/man/man8/rmemctl.8' 2>&1 >/dev/null | grep -q ."
test_done
