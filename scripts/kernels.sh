#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kernels.sh: which kernels rmem builds for and the lab boots.
#
#   kernels.sh lab [PATTERN...]  releases of the installed Debian kernels with
#                                both image (/boot/vmlinuz-R) and headers
#                                (/usr/src/linux-headers-R), newest first;
#                                with PATTERNs, those a PATTERN names: the
#                                release itself or a prefix of it ending at
#                                a "." "-" or "+" (6.1 is not 6.12)
#   kernels.sh kdirs             trees "make" builds for without KDIR: the
#                                running kernel's if it has headers, else
#                                every lab kernel's
#   kernels.sh kdir RELEASE      the headers tree of a lab kernel
#   kernels.sh kver KDIR         the release a kernel tree builds for
set -eu

lab()
{
	for d in $(ls -d /usr/src/linux-headers-* 2>/dev/null | sort -rV); do
		r=${d#/usr/src/linux-headers-}
		[ -e "/boot/vmlinuz-$r" ] && [ -f "$d/Makefile" ] || continue
		if [ $# -eq 0 ]; then
			echo "$r"
			continue
		fi
		for p in "$@"; do
			case "$r" in "$p" | "$p".* | "$p"-* | "$p"+*)
				echo "$r"
				break
				;;
			esac
		done
	done
}

case "${1:-}" in
lab)
	shift
	lab "$@"
	;;
kdirs)
	running=/lib/modules/$(uname -r)/build
	if [ -f "$running/Makefile" ]; then
		echo "$running"
	else
		for r in $(lab); do echo "/usr/src/linux-headers-$r"; done
	fi
	;;
kdir)
	echo "/usr/src/linux-headers-${2:?release}"
	;;
kver)
	sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' \
		"${2:?KDIR}/include/generated/utsrelease.h"
	;;
*)
	sed -n '3,/^set -eu/{/^#/s/^# \{0,1\}//p}' "$0" >&2
	exit 2
	;;
esac
