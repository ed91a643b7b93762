#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A mirrored RAM disk across two memory servers with the kernel's md
# RAID1 (Documentation/swap.rst has the recipe; two VMs: one leg on the
# server VM, the other on a server in the client VM itself):
#
#  - the legs start identical (zeroed memory: --assume-clean is right):
#    an md check finds no mismatch;
#  - data written through md; the server VM loses power while more is
#    being written: the write completes, md drops the dead leg, and every
#    byte written before and during the loss reads back intact;
#  - the lost leg is replaced by a new device and resyncs: md check clean.
source "$(dirname "$0")/../lib.sh"

lab_start two || exit 1
S=$LAB_SERVER C=$LAB_CLIENT A=$LAB_SERVER_ADDR
CA=$LAB_ADDR_CLIENT
MD=/dev/md/rmirror

# md_idle: wait for md's resync/check to finish (up to 300 s).
md_idle() { vm -t 330 "$C" "for i in \$(seq 600); do [ \"\$(cat /sys/block/md127/md/sync_action)\" = idle ] && exit 0; sleep 0.5; done; exit 1"; }

rmem_load "$S" || exit 1
rmem_load "$C" || exit 1
check "server on the server VM" vm "$S" "$R server add name s0 listen $A size 96M > /dev/null"
check "server on the client VM" vm "$C" "$R server add name s1 listen $CA size 192M > /dev/null"
check "one device on each server (loss-timeout 5s)" vm -t 120 "$C" \
	"$R dev add peer $A size 64M keepalive 500ms loss-timeout 5s name rmem0 > /dev/null && $R dev add peer $CA size 64M loss-timeout 5s name rmem1 > /dev/null"
check "md RAID1 over both, --assume-clean --bitmap=none" vm -t 60 "$C" \
	"modprobe raid1 && mdadm --create $MD --run --level=1 --raid-devices=2 --assume-clean --bitmap=none --metadata=1.2 --homehost=any /dev/rmem0 /dev/rmem1 2>&1 && [ \"\$(readlink -f $MD)\" = /dev/md127 ]"
check "md check: the zeroed legs are identical" vm -t 60 "$C" "echo check > /sys/block/md127/md/sync_action"
md_idle
expect_eq "mismatch_cnt after the check" "0" vm "$C" "cat /sys/block/md127/md/mismatch_cnt"

check "write 24 MiB through md, then 32 MiB more in the background" vm -t 120 "$C" \
	"head -c 24M /dev/urandom > /tmp/a && head -c 32M /dev/urandom > /tmp/b && dd if=/tmp/a of=$MD bs=1M oflag=direct status=none"
vm "$C" "rm -f /tmp/w.rc; (dd if=/tmp/b of=$MD bs=4k seek=6144 oflag=direct status=none; echo \$? > /tmp/w.rc) > /dev/null 2>&1 &"
sleep 1
check "the second write (32 MiB in 4 KiB writes) is still running" vm "$C" "[ ! -e /tmp/w.rc ]"
t0=$(date +%s%N)
lab_poweroff "$S"
echo "# the server VM lost power during the second write"
check "the write during the loss completes without error" vm -t 120 "$C" \
	"for i in \$(seq 200); do [ -e /tmp/w.rc ] && break; sleep 0.5; done; [ \"\$(cat /tmp/w.rc)\" = 0 ]"
echo "# write done $(( ($(date +%s%N) - t0) / 1000000 )) ms after the power loss"
check "md runs degraded on the surviving leg" vm "$C" "grep -A1 '^md127' /proc/mdstat | grep -Eq '\\[(U_|_U)\\]'"
expect_eq "the lost leg's device is dead" "dead" json "$C" "j[0]['state']" dev show rmem0
check "every byte written before and during the loss reads back" vm -t 120 "$C" \
	"dd if=$MD of=/tmp/back bs=1M count=56 iflag=direct status=none && cat /tmp/a /tmp/b | cmp - /tmp/back"

check "replace the lost leg with a new device, resync" vm -t 120 "$C" \
	"mdadm $MD --fail /dev/rmem0 --remove /dev/rmem0 > /dev/null 2>&1; $R dev del rmem0 force && $R dev add peer $CA size 64M loss-timeout 5s name rmem2 > /dev/null && mdadm $MD --add /dev/rmem2"
md_idle
check "md is whole again" vm "$C" "grep -A1 '^md127' /proc/mdstat | grep -q '\\[UU\\]'"
check "md check after the resync: legs identical" vm -t 60 "$C" "echo check > /sys/block/md127/md/sync_action"
md_idle
expect_eq "mismatch_cnt after the resync" "0" vm "$C" "cat /sys/block/md127/md/mismatch_cnt"
check "the data still reads back" vm -t 120 "$C" \
	"dd if=$MD of=/tmp/back bs=1M count=56 iflag=direct status=none && cat /tmp/a /tmp/b | cmp - /tmp/back"
check "stop md, detach, server del, unload" vm -t 60 "$C" \
	"mdadm --stop $MD > /dev/null 2>&1 && $R dev del rmem1 && $R dev del rmem2 && $R server del s1 && rmmod rmem"
test_done
