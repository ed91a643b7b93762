#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two VMs: ext4 on a named volume; files with checksums survive detach and
# re-attach of the same volume.  A busy volume is refused, so is a size
# mismatch; a detached volume is listed and can be freed.
source "$(dirname "$0")/../lib.sh"

lab_start two || exit 1
S=$LAB_SERVER C=$LAB_CLIENT A=$LAB_SERVER_ADDR

rmem_load "$S" && rmem_load "$C" || exit 1
check "server add" vm "$S" "$R server add name mem listen $A size 256M"
expect_eq "attach volume v1" "/dev/rmem0" vm "$C" "$R dev add peer $A size 128M volume v1"
check "mkfs.ext4, mount, write files, checksums" vm -t 300 "$C" \
	"mkfs.ext4 -q -F /dev/rmem0 && mkdir -p /mnt/r && mount /dev/rmem0 /mnt/r && for i in 1 2 3; do head -c 8M /dev/urandom > /mnt/r/f\$i; done && mkdir /mnt/r/d && echo hello > /mnt/r/d/small && (cd /mnt/r && sha256sum f1 f2 f3 d/small > /tmp/sums) && umount /mnt/r"
expect_err "a busy volume is refused" "volume is attached by another client" \
	"$S" "$R dev add peer $A size 128M volume v1"
expect_err "dev del of a mounted device is refused without force" "in use" \
	"$C" "mount /dev/rmem0 /mnt/r && $R dev del rmem0"
check "unmount and detach" vm "$C" "umount /mnt/r && $R dev del rmem0"
expect_eq "server lists v1: 128 MiB, idle" "v1 134217728 False" \
	json "$S" "j[0]['name'], j[0]['size'], j[0]['busy']" volume show
expect_err "re-attach with another size is refused" "different size" \
	"$C" "$R dev add peer $A size 64M volume v1"
expect_eq "re-attach volume v1" "/dev/rmem0" vm "$C" "$R dev add peer $A size 128M volume v1"
gen=$(json "$S" "j[0]['generation']" volume show)
check "the volume has a generation (not 0): $gen" test -n "$gen" -a "$gen" != 0
expect_eq "same generation as listed on the server" "$gen" \
	json "$C" "j[0]['generation']" dev show
check "fsck clean, mount, checksums match" vm -t 300 "$C" \
	"fsck.ext4 -n /dev/rmem0 > /dev/null && mount /dev/rmem0 /mnt/r && (cd /mnt/r && sha256sum -c /tmp/sums) && umount /mnt/r"
expect_err "a volume in use cannot be freed" "attached" "$S" "$R volume del server mem volume v1"
check "detach" vm "$C" "$R dev del rmem0"
check "volume del frees its memory" vm "$S" \
	"$R volume del server mem volume v1 && [ \"\$($R volume show)\" = '' ] && $R -j server show | grep -q '\"used\":0'"
expect_err "volume del of an unknown volume" "no such volume" "$S" "$R volume del server mem volume v1"
test_done
