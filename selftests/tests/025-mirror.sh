#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rmem-suite: long (run.sh; make check-long): md RAID1 over two rmem
# devices, a recipe; 033's replicas are rmem's own answer, tested in make
# check
# rmem-kernels: newest (run.sh): md RAID1 over two rmem devices, a recipe;
# rmem's part (a leg's power loss, a dead device) is the same on every
# kernel
# A mirrored RAM disk across two memory servers with the kernel's md
# RAID1 (Documentation/swap.rst has the recipe; two VMs: one leg on the
# server VM, the other on a server in the client VM itself):
#
#  - the legs start identical (zeroed memory: --assume-clean is right):
#    an md check finds no mismatch;
#  - data written through md; the server VM loses power while more is
#    being written: the write completes, md drops the dead leg, and every
#    byte written before and during the loss reads back intact;
#  - the lost leg is replaced by a new device and resyncs: md check clean;
#  - first, failfast members (mdadm --failfast, as dm-multipath and md use
#    for redundant legs): the server VM's link is cut under writes and md
#    fails that leg within a few probe intervals, not after the loss
#    timeout (60 s): rmem fails failfast I/O at once instead of holding it.
source "$(dirname "$0")/../lib.sh"

lab_start two || exit 1
S=$LAB_SERVER C=$LAB_CLIENT A=$LAB_SERVER_ADDR
CA=$LAB_ADDR_CLIENT
MD=/dev/md/rmirror

# md_idle [MD]: wait for md's resync/check to finish (up to 300 s).
md_idle() { vm -t 330 "$C" "for i in \$(seq 600); do [ \"\$(cat /sys/block/$MDK/md/sync_action)\" = idle ] && exit 0; sleep 0.5; done; exit 1"; }

rmem_load "$S" || exit 1
rmem_load "$C" || exit 1
check "server on the server VM" vm "$S" "$R server add name s0 listen $A size 96M > /dev/null"
check "server on the client VM" vm "$C" "$R server add name s1 listen $CA size 192M > /dev/null"
echo "# failfast legs: the link of one leg's server is cut under writes"
check "one device on each server (loss-timeout 60s)" vm -t 120 "$C" \
	"$R dev add peer $A size 16M keepalive 500ms loss-timeout 60s name rmem3 > /dev/null && $R dev add peer $CA size 16M keepalive 500ms loss-timeout 60s name rmem4 > /dev/null"
check "md RAID1 over both, failfast members" vm -t 60 "$C" \
	"modprobe raid1 && mdadm --create /dev/md/rfast --run --level=1 --raid-devices=2 --assume-clean --bitmap=none --metadata=1.2 --homehost=any --failfast /dev/rmem3 /dev/rmem4 2>&1 && [ \"\$(readlink -f /dev/md/rfast)\" = /dev/md127 ] && grep -A1 '^md127' /proc/mdstat"
# 12 MiB: the array is 15 MiB (16 MiB legs less md's metadata)
vm "$C" "rm -f /tmp/ff.rc; (dd if=/dev/urandom of=/dev/md/rfast bs=4k count=3072 oflag=direct status=none 2> /tmp/ff.err; echo \$? > /tmp/ff.rc.new; mv /tmp/ff.rc.new /tmp/ff.rc) > /dev/null 2>&1 &"
sleep 1
check "the writes are running" vm "$C" "[ ! -e /tmp/ff.rc ]"
lab_link "$S" off
T=$(lab_exec -t 90 "$C" "t0=\$(date +%s%N); for i in \$(seq 600); do grep -A1 '^md127' /proc/mdstat | grep -Eq '\\[(U_|_U)\\]' && { echo \$(( (\$(date +%s%N) - t0) / 1000000 )); exit 0; }; sleep 0.1; done; exit 1") &&
	echo "# ok: md failed the cut-off leg $T ms after the link cut" ||
	{ echo "# FAIL: md did not fail the cut-off leg within 60 s"; LAB_FAILS=$((LAB_FAILS + 1)); T=99999; }
check "within 10 s (a few probe intervals), not the loss timeout" test "$T" -lt 10000
check "the writes complete without error" vm -t 120 "$C" \
	"for i in \$(seq 200); do [ -e /tmp/ff.rc ] && break; sleep 0.5; done; cat /tmp/ff.err; [ \"\$(cat /tmp/ff.rc)\" = 0 ]"
lab_link "$S" on
# live again before the detach: the path to the server works again (a
# reconnect proves it) and LEAVE releases the session at once (dev del of
# a reconnecting device sends none: admin guide).  CI once failed the next
# part's dev add to this server right after the link came back, with no
# reason on record.
check "the cut-off leg's device reconnects" vm -t 90 "$C" \
	"for i in \$(seq 600); do [ \"\$($R -j dev show rmem3 | python3 -c 'import json, sys; print(json.load(sys.stdin)[0][\"state\"])')\" = live ] && exit 0; sleep 0.1; done; $R dev show rmem3; exit 1"
check "stop that array, detach its legs" vm -t 120 "$C" \
	"mdadm --stop /dev/md/rfast > /dev/null 2>&1 && $R dev del rmem3 force && $R dev del rmem4"

echo "# the server VM loses power under writes"
check "one device on each server (loss-timeout 5s)" vm -t 120 "$C" \
	"$R dev add peer $A size 64M keepalive 500ms loss-timeout 5s name rmem0 > /dev/null && $R dev add peer $CA size 64M loss-timeout 5s name rmem1 > /dev/null"
check "md RAID1 over both, --assume-clean --bitmap=none" vm -t 60 "$C" \
	"modprobe raid1 && mdadm --create $MD --run --level=1 --raid-devices=2 --assume-clean --bitmap=none --metadata=1.2 --homehost=any /dev/rmem0 /dev/rmem1 2>&1 && [ -b \"\$(readlink -f $MD)\" ]"
# its kernel name ($MDK, or md126 while the failfast array's is still
# being released)
MDK=$(lab_exec "$C" "basename \$(readlink -f $MD)")
check "md check: the zeroed legs are identical" vm -t 60 "$C" "echo check > /sys/block/$MDK/md/sync_action"
check "the check finished" md_idle
expect_eq "mismatch_cnt after the check" "0" vm "$C" "cat /sys/block/$MDK/md/mismatch_cnt"

check "write 24 MiB through md, then 32 MiB more in the background" vm -t 120 "$C" \
	"head -c 24M /dev/urandom > /tmp/a && head -c 32M /dev/urandom > /tmp/b && dd if=/tmp/a of=$MD bs=1M oflag=direct status=none"
vm "$C" "rm -f /tmp/w.rc; (dd if=/tmp/b of=$MD bs=4k seek=6144 oflag=direct status=none; echo \$? > /tmp/w.rc.new; mv /tmp/w.rc.new /tmp/w.rc) > /dev/null 2>&1 &"
sleep 1
check "the second write (32 MiB in 4 KiB writes) is still running" vm "$C" "[ ! -e /tmp/w.rc ]"
t0=$(date +%s%N)
lab_poweroff "$S"
echo "# the server VM lost power during the second write"
check "the write during the loss completes without error" vm -t 120 "$C" \
	"for i in \$(seq 200); do [ -e /tmp/w.rc ] && break; sleep 0.5; done; [ \"\$(cat /tmp/w.rc)\" = 0 ]"
echo "# write done $(( ($(date +%s%N) - t0) / 1000000 )) ms after the power loss"
check "md runs degraded on the surviving leg" vm "$C" "grep -A1 '^$MDK' /proc/mdstat | grep -Eq '\\[(U_|_U)\\]'"
expect_eq "the lost leg's device is dead" "dead" json "$C" "j[0]['state']" dev show rmem0
check "every byte written before and during the loss reads back" vm -t 120 "$C" \
	"dd if=$MD of=/tmp/back bs=1M count=56 iflag=direct status=none && cat /tmp/a /tmp/b | cmp - /tmp/back"

check "replace the lost leg with a new device, resync" vm -t 120 "$C" \
	"mdadm $MD --fail /dev/rmem0 --remove /dev/rmem0 > /dev/null 2>&1; $R dev del rmem0 force && $R dev add peer $CA size 64M loss-timeout 5s name rmem2 > /dev/null && mdadm $MD --add /dev/rmem2"
check "the resync finished" md_idle
check "md is whole again" vm "$C" "grep -A1 '^$MDK' /proc/mdstat | grep -q '\\[UU\\]'"
check "md check after the resync: legs identical" vm -t 60 "$C" "echo check > /sys/block/$MDK/md/sync_action"
check "the check finished" md_idle
expect_eq "mismatch_cnt after the resync" "0" vm "$C" "cat /sys/block/$MDK/md/mismatch_cnt"
check "the data still reads back" vm -t 120 "$C" \
	"dd if=$MD of=/tmp/back bs=1M count=56 iflag=direct status=none && cat /tmp/a /tmp/b | cmp - /tmp/back"
check "stop md, detach, server del, unload" vm -t 60 "$C" \
	"mdadm --stop $MD > /dev/null 2>&1 && $R dev del rmem1 && $R dev del rmem2 && $R server del s1 && rmmod rmem"
test_done
