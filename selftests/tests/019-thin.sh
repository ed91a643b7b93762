#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A thin device (dev add ... extent SIZE: wire version 4, memory on
# demand, Documentation/multi-server.rst step 2) over one server (two VMs):
#  - attach takes no memory; a read of extents never written returns
#    zeros without the network;
#  - the first write of an extent takes one extent of the server's pool
#    (a write across two extents takes both), and the data reads back;
#  - a link flap while a write waits for its extent (the server answers
#    late, a testing-only parameter): the device reconnects, keeps its
#    extents (the server holds the session's slots), and the write then
#    gets its extent;
#  - write-zeroes that may unmap takes nothing; BLKZEROOUT (which keeps
#    the space) takes the extent;
#  - when the pool is full, a write to a new extent fails with ENOSPC
#    ("No space left on device"), again and again, "events" says so once
#    (rmemctl monitor), and every extent held keeps working;
#  - a read across a held extent and one never written reads zeros for
#    that part, as one request, and takes no extent;
#  - a discard gives back the extents it covers whole (the server's use
#    drops; they read zeros) and no other; a write to a new extent then
#    succeeds; a write right after a discard of its extent is never lost
#    (20 times: it keeps the extent, or waits while it goes back and
#    takes a new one); a link flap while the server gives an extent back:
#    a write to it waits, and completes after the reconnect;
#  - dev del force while a write waits for its extent returns at once and
#    fails the write; the server has every extent back; an extent smaller
#    than the server's chunk is refused with a clear message.
source "$(dirname "$0")/../lib.sh"

lab_start two || exit 1
S=$LAB_SERVER H=$LAB_CLIENT A=$LAB_SERVER_ADDR
PK=/sys/class/infiniband/rxe0/ports/1/hw_counters/sent_pkts
M=$((1 << 20))

# held: the device's extents held, and the server's bytes used
held() { json "$H" "j[0]['extents_held']" dev show rmem0; }
used() { json "$S" "j[0]['used']" server show; }
# both: "HELD USED"
both() { echo "$(held) $(used)"; }

# flap_while_waiting WHAT CMD: with the server's answers to control
# messages 8 s late, run CMD in the background (its status goes to
# /tmp/w.rc), check WHAT (it still runs 2 s later), then the server's link
# goes down until the device is reconnecting, and comes back with the
# server answering at once again.
flap_while_waiting()
{
	check "the server answers control messages 8 s late" vm "$S" "echo 8000 > /sys/module/rmem/parameters/fault_ready_delay_ms"
	vm "$H" "rm -f /tmp/w.rc; ($2; echo \$? > /tmp/w.rc) > /dev/null 2>&1 &"
	sleep 2
	check "$1" vm "$H" "[ ! -e /tmp/w.rc ]"
	check "the server's link goes down" lab_link "$S" off
	check "the device notices (reconnecting)" vm -t 30 "$H" \
		"for i in \$(seq 100); do [ \"\$(cat /sys/block/rmem0/rmem/state)\" = reconnecting ] && exit 0; sleep 0.1; done; exit 1"
	check "the server answers at once again" vm "$S" "echo 0 > /sys/module/rmem/parameters/fault_ready_delay_ms"
	check "the server's link comes back" lab_link "$S" on
}

rmem_load "$S" || exit 1
rmem_load "$H" || exit 1
check "server: 64 MiB in 4 MiB chunks" vm "$S" "$R server add name s0 listen $A size 64M mr-size 4M > /dev/null"
expect_err "an extent smaller than the server's chunk is refused" \
	"extent must be at least its chunk size" "$H" "$R dev add peer $A size 64M extent 2M"
expect_err "an extent that does not divide the size is refused" \
	"extent must be a power of two" "$H" "$R dev add peer $A size 20M extent 8M"
check "a thin device of 256 MiB (4 times the pool) in 8 MiB extents" vm -t 60 "$H" \
	"$R dev add peer $A size 256M extent 8M keepalive 200ms loss-timeout 20s > /dev/null"
expect_eq "dev show: extent 8 MiB, none held, version 4" "8388608 0 4" \
	json "$H" "j[0]['extent'], j[0]['extents_held'], j[0]['wire_version']" dev show rmem0
expect_eq "the server gave nothing at attach" "0" used
# (256 MiB read over the wire would send at least 65536 READ requests;
# the probes send 5 a second)
check "reading all 256 MiB gives zeros, with almost nothing on the wire" vm -t 120 "$H" \
	"p0=\$(cat $PK) && cmp -n $((256 * M)) /dev/rmem0 /dev/zero && p1=\$(cat $PK) && echo sent \$((p1 - p0)) packets && [ \$((p1 - p0)) -lt 1024 ]"
expect_eq "still nothing held" "0 0" both

check "write 4 KiB at 0" vm -t 60 "$H" \
	"head -c 4096 /dev/urandom > /tmp/a && dd if=/tmp/a of=/dev/rmem0 bs=4k oflag=direct status=none"
expect_eq "one extent held, 8 MiB used on the server" "1 $((8 * M))" both
check "write 1 MiB across the boundary of extents 1 and 2 (at 16 MiB - 512 KiB)" vm -t 60 "$H" \
	"head -c $M /dev/urandom > /tmp/b && dd if=/tmp/b of=/dev/rmem0 bs=512k seek=31 oflag=direct status=none"
expect_eq "three extents held" "3" held
check "both read back, and the rest of extent 0 reads zeros" vm -t 60 "$H" \
	"dd if=/dev/rmem0 bs=4k count=1 iflag=direct status=none | cmp - /tmp/a && dd if=/dev/rmem0 bs=512k skip=31 count=2 iflag=direct status=none | cmp - /tmp/b && dd if=/dev/rmem0 bs=4k skip=1 count=2047 iflag=direct status=none | cmp -n $((8 * M - 4096)) - /dev/zero"

echo "# a link flap while a write waits for its extent's memory"
flap_while_waiting "the write to a new extent waits" \
	"dd if=/tmp/a of=/dev/rmem0 bs=4k seek=$((10 * 2048)) oflag=direct status=none"
check "live again" vm -t 60 "$H" \
	"for i in \$(seq 400); do [ \"\$(cat /sys/block/rmem0/rmem/state)\" = live ] && exit 0; sleep 0.1; done; exit 1"
check "the waiting write completed, after the reconnect" vm -t 60 "$H" \
	"for i in \$(seq 200); do [ -e /tmp/w.rc ] && break; sleep 0.2; done; [ \"\$(cat /tmp/w.rc)\" = 0 ]"
expect_eq "four extents held (the flap kept the first three)" "4" held
check "the data from before and during the flap reads back" vm -t 60 "$H" \
	"dd if=/dev/rmem0 bs=4k count=1 iflag=direct status=none | cmp - /tmp/a && dd if=/dev/rmem0 bs=512k skip=31 count=2 iflag=direct status=none | cmp - /tmp/b && dd if=/dev/rmem0 bs=4k skip=$((10 * 2048)) count=1 iflag=direct status=none | cmp - /tmp/a"

echo "# write-zeroes"
check "punching a hole in an unwritten extent (write-zeroes, may unmap) takes nothing" vm -t 60 "$H" \
	"fallocate -p -o $((12 * 8 * M)) -l $M /dev/rmem0"
expect_eq "still four extents held" "4" held
check "zeroing out (BLKZEROOUT: write-zeroes that keeps the space) takes the extent, which reads zeros" vm -t 60 "$H" \
	"blkdiscard -z -o $((13 * 8 * M)) -l $M /dev/rmem0 && dd if=/dev/rmem0 bs=1M skip=$((13 * 8)) count=1 iflag=direct status=none | cmp -n $M - /dev/zero"
expect_eq "five extents held" "5" held

echo "# the pool fills up: 8 extents of 8 MiB"
vm "$H" "($R -j monitor > /tmp/mon.log 2>&1 &); sleep 1"
check "write to 3 more extents (8 held, the whole pool)" vm -t 120 "$H" \
	"for e in 20 21 22; do dd if=/tmp/a of=/dev/rmem0 bs=4k seek=\$((e * 2048)) oflag=direct status=none || exit 1; done"
expect_eq "8 extents held, the pool used" "8 $((64 * M))" both
check "a write to a ninth extent fails: No space left on device" vm -t 60 "$H" \
	"dd if=/tmp/a of=/dev/rmem0 bs=4k seek=$((30 * 2048)) oflag=direct status=none 2> /tmp/e; rc=\$?; cat /tmp/e; [ \$rc != 0 ] && grep -q 'No space left on device' /tmp/e"
check "twenty more such writes fail the same, and the device stays live" vm -t 120 "$H" \
	"for i in \$(seq 20); do dd if=/tmp/a of=/dev/rmem0 bs=4k seek=\$((30 * 2048 + i)) oflag=direct status=none 2> /dev/null && exit 1; done; grep -qx live /sys/block/rmem0/rmem/state"
check "the kernel log says why" vm "$H" "dmesg | grep 'rmem0: the server has no room for extent 30 (pool full)' > /dev/null"
check "extents held keep working: write and read back" vm -t 60 "$H" \
	"head -c 4096 /dev/urandom > /tmp/c && dd if=/tmp/c of=/dev/rmem0 bs=4k seek=5 oflag=direct status=none && dd if=/dev/rmem0 bs=4k skip=5 count=1 iflag=direct status=none | cmp - /tmp/c"
expect_eq "server_free: 0" "0" json "$H" "j[0].get('server_free')" dev show rmem0
expect_eq "dev show: nospc-extent 30" "30" json "$H" "j[0].get('nospc_extent')" dev show rmem0
check "one nospc event for all 21 refusals (rmemctl monitor)" vm "$H" \
	"n=\$(grep -c '\"nospc_extent\": *30' /tmp/mon.log); echo \$n events; [ \"\$n\" = 1 ]"

echo "# discard gives whole extents back"
# wait until HELD extents are held and the server uses USED bytes
held_is() {
	vm -t 60 "$H" "for i in \$(seq 100); do [ \"\$($R -j dev show rmem0 | python3 -c 'import json, sys; print(json.load(sys.stdin)[0][\"extents_held\"])')\" = $1 ] && exit 0; sleep 0.1; done; exit 1" &&
	vm -t 60 "$S" "for i in \$(seq 100); do [ \"\$($R -j server show | python3 -c 'import json, sys; print(json.load(sys.stdin)[0][\"used\"])')\" = $2 ] && exit 0; sleep 0.1; done; exit 1"
}
check "discard half of extent 20 and the last 4 MiB of 21 (no extent whole)" vm -t 60 "$H" \
	"blkdiscard -o $((20 * 8 * M)) -l $((4 * M)) /dev/rmem0 && blkdiscard -o $((21 * 8 * M + 4 * M)) -l $((4 * M)) /dev/rmem0"
expect_eq "still 8 extents held" "8 $((64 * M))" both
check "discard 4 MiB before extent 20 to 4 MiB after extent 21: both given back" vm -t 60 "$H" \
	"blkdiscard -o $((20 * 8 * M - 4 * M)) -l $((24 * M)) /dev/rmem0"
check "6 extents held, the server uses 48 MiB" held_is 6 $((48 * M))
check "extents 20 and 21 read zeros; extent 22's data is there" vm -t 60 "$H" \
	"dd if=/dev/rmem0 bs=1M skip=$((20 * 8)) count=16 iflag=direct status=none | cmp -n $((16 * M)) - /dev/zero && dd if=/dev/rmem0 bs=4k skip=$((22 * 2048)) count=1 iflag=direct status=none | cmp - /tmp/a"
expect_eq "no nospc-extent any more" "None" json "$H" "j[0].get('nospc_extent')" dev show rmem0
# a 64 KiB read across two extents, one of them never written: it goes
# on the wire as one request (64 KiB of read bytes counted; split at the
# boundary, only the held half would count), the unwritten half reads
# zeros, and no extent is taken for it.  (A larger read may be split
# elsewhere, at the segment limit; udev may read 4 KiB after a write.)
rb() { json "$H" "j[0]['stats']['read_bytes']" dev show rmem0; }
check "the last 4 KiB of extent 22 written" vm -t 60 "$H" \
	"dd if=/tmp/a of=/dev/rmem0 bs=4k seek=$((23 * 2048 - 1)) oflag=direct status=none"
r0=$(rb)
K32=$((32 * 1024))
check "a 64 KiB read across extents 21 (given back) and 22: zeros, then 22's data" vm -t 60 "$H" \
	"(head -c $K32 /dev/zero; cat /tmp/a; head -c $((K32 - 4096)) /dev/zero) > /tmp/x && dd if=/dev/rmem0 bs=64k count=1 skip=$((22 * 8 * M - K32)) iflag=direct,skip_bytes status=none | cmp - /tmp/x"
check "a 64 KiB read across extents 22 and 23 (never written): 22's data, then zeros" vm -t 60 "$H" \
	"(head -c $((K32 - 4096)) /dev/zero; cat /tmp/a; head -c $K32 /dev/zero) > /tmp/y && dd if=/dev/rmem0 bs=64k count=1 skip=$((23 * 8 * M - K32)) iflag=direct,skip_bytes status=none | cmp - /tmp/y"
check "each went as one request (128 KiB of read bytes counted, 4 KiB more at most)" \
	eval "d=\$((\$(rb) - r0)); echo \"read bytes: \$d\"; [ \$d -ge $((4 * K32)) ] && [ \$d -le $((4 * K32 + 4096)) ]"
expect_eq "no extent taken for them: still 6 held" "6 $((48 * M))" both
check "the write to extent 30 now succeeds and reads back" vm -t 60 "$H" \
	"dd if=/tmp/c of=/dev/rmem0 bs=4k seek=$((30 * 2048)) oflag=direct status=none && dd if=/dev/rmem0 bs=4k skip=$((30 * 2048)) count=1 iflag=direct status=none | cmp - /tmp/c"
expect_eq "7 extents held" "7 $((56 * M))" both
check "20 times: discard extent 21 whole, write it at once, read it back" vm -t 120 "$H" \
	"for i in \$(seq 20); do head -c 4096 /dev/urandom > /tmp/d && blkdiscard -o $((21 * 8 * M)) -l $((8 * M)) /dev/rmem0 && dd if=/tmp/d of=/dev/rmem0 bs=4k seek=$((21 * 2048 + 7)) oflag=direct status=none && dd if=/dev/rmem0 bs=4k skip=$((21 * 2048 + 7)) count=1 iflag=direct status=none | cmp - /tmp/d || exit 1; done"
check "still 8 extents held (21 taken again)" held_is 8 $((64 * M))
flap_while_waiting "a write after a discard of its extent waits for the extent to go back" \
	"blkdiscard -o $((21 * 8 * M)) -l $((8 * M)) /dev/rmem0 && sleep 1 && dd if=/tmp/a of=/dev/rmem0 bs=4k seek=$((21 * 2048)) oflag=direct status=none"
check "the waiting write completed after the reconnect, and reads back" vm -t 60 "$H" \
	"for i in \$(seq 300); do [ -e /tmp/w.rc ] && break; sleep 0.2; done; [ \"\$(cat /tmp/w.rc)\" = 0 ] && dd if=/dev/rmem0 bs=4k skip=$((21 * 2048)) count=1 iflag=direct status=none | cmp - /tmp/a && grep -qx live /sys/block/rmem0/rmem/state"
check "8 extents held, the whole pool" held_is 8 $((64 * M))

echo "# dev del while a write waits for its extent"
check "the server answers control messages 20 s late" vm -t 60 "$S" "echo 20000 > /sys/module/rmem/parameters/fault_ready_delay_ms"
vm "$H" "rm -f /tmp/w.rc; (dd if=/tmp/a of=/dev/rmem0 bs=4k seek=$((40 * 2048)) oflag=direct status=none; echo \$? > /tmp/w.rc) > /dev/null 2>&1 &"
sleep 2
check "dev del force returns within 10 s, the waiting write fails" vm -t 60 "$H" \
	"t0=\$(date +%s); $R dev del rmem0 force && [ \$((\$(date +%s) - t0)) -lt 10 ] && for i in \$(seq 100); do [ -e /tmp/w.rc ] && break; sleep 0.1; done; [ \"\$(cat /tmp/w.rc)\" != 0 ]"
check "the server has every extent back" vm -t 60 "$S" \
	"echo 0 > /sys/module/rmem/parameters/fault_ready_delay_ms; for i in \$(seq 100); do [ \"\$($R -j server show | python3 -c 'import json, sys; print(json.load(sys.stdin)[0][\"used\"])')\" = 0 ] && exit 0; sleep 0.3; done; exit 1"
check "server del, unload" vm -t 60 "$S" "$R server del s0 && rmmod rmem"
check "client unload" vm "$H" "rmmod rmem"
test_done
