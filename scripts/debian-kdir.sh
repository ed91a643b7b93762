#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Print the headers directory of the newest Debian kernel that has both its
# image (/boot/vmlinuz-V) and its headers (/usr/src/linux-headers-V).
for d in $(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -rV); do
	v=${d#/usr/src/linux-headers-}
	if [ -e "/boot/vmlinuz-$v" ] && [ -f "$d/Makefile" ]; then
		echo "$d"
		exit 0
	fi
done
echo /usr/src/linux-headers-NOT-INSTALLED
