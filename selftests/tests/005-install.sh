#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host-side: make install (staged with DESTDIR) puts the module under
# /lib/modules/KVER/extra with a depmod index, rmemctl in sbin and the man
# page in man8; the man page renders without warnings.
source "$(dirname "$0")/../lib.sh"

D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
KVER=$(make -s -C "$REPO" print-kver)
check "make install DESTDIR=..." make -s -C "$REPO" --no-print-directory install DESTDIR="$D" > /dev/null
check "module under extra/" test -f "$D/lib/modules/$KVER/extra/kernel/rmem.ko"
check "depmod indexed it" grep -q 'extra/kernel/rmem.ko' "$D/lib/modules/$KVER/modules.dep"
check "modinfo: license and parameters" sh -c "modinfo '$D/lib/modules/$KVER/extra/kernel/rmem.ko' | grep -q 'license: *GPL' && modinfo -p '$D/lib/modules/$KVER/extra/kernel/rmem.ko' | grep -q queue_depth"
check "rmemctl installed and runs" "$D/usr/local/sbin/rmemctl" -V
check "man page renders without warnings" sh -c "! groff -man -Tutf8 -ww '$D/usr/local/share/man/man8/rmemctl.8' 2>&1 >/dev/null | grep -q ."
test_done
