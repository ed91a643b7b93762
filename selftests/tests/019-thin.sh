#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A thin device (dev add ... extent SIZE: wire version 4, memory on
# demand, Documentation/multi-server.rst step 2) over one server (two VMs):
#  - attach takes no memory; a read of extents never written returns
#    zeros without the network;
#  - the first write of an extent takes one extent of the server's pool
#    (a write across two extents takes both), and the data reads back;
#  - when the pool is full, a write to a new extent fails with ENOSPC
#    ("No space left on device") and every extent held keeps working;
#  - a link flap: the device reconnects and keeps its extents (the server
#    holds the session's slots) and takes new ones after it;
#  - detach gives every extent back; an extent smaller than the server's
#    chunk is refused with a clear message.
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
check "reading all 256 MiB gives zeros, with almost nothing on the wire" vm -t 120 "$H" \
	"p0=\$(cat $PK) && cmp -n $((256 * M)) /dev/rmem0 /dev/zero && p1=\$(cat $PK) && echo sent \$((p1 - p0)) packets && [ \$((p1 - p0)) -lt 64 ]"
expect_eq "still nothing held" "0 0" both

check "write 4 KiB at 0" vm -t 60 "$H" \
	"head -c 4096 /dev/urandom > /tmp/a && dd if=/tmp/a of=/dev/rmem0 bs=4k oflag=direct status=none"
expect_eq "one extent held, 8 MiB used on the server" "1 $((8 * M))" both
check "write 1 MiB across the boundary of extents 1 and 2 (at 16 MiB - 512 KiB)" vm -t 60 "$H" \
	"head -c $M /dev/urandom > /tmp/b && dd if=/tmp/b of=/dev/rmem0 bs=512k seek=31 oflag=direct status=none"
expect_eq "three extents held" "3" held
check "both read back, and the rest of extent 0 reads zeros" vm -t 60 "$H" \
	"dd if=/dev/rmem0 bs=4k count=1 iflag=direct status=none | cmp - /tmp/a && dd if=/dev/rmem0 bs=512k skip=31 count=2 iflag=direct status=none | cmp - /tmp/b && dd if=/dev/rmem0 bs=4k skip=1 count=2047 iflag=direct status=none | cmp -n $((8 * M - 4096)) - /dev/zero"

echo "# a link flap: the extents stay, and new ones come after it"
check "the server's link goes down" lab_link "$S" off
check "the device notices (reconnecting)" vm -t 30 "$H" \
	"for i in \$(seq 100); do [ \"\$(cat /sys/block/rmem0/rmem/state)\" = reconnecting ] && exit 0; sleep 0.1; done; exit 1"
vm "$H" "rm -f /tmp/w.rc; (dd if=/tmp/a of=/dev/rmem0 bs=4k seek=$((10 * 2048)) oflag=direct status=none; echo \$? > /tmp/w.rc) > /dev/null 2>&1 &"
check "the server's link comes back" lab_link "$S" on
check "live again" vm -t 60 "$H" \
	"for i in \$(seq 400); do [ \"\$(cat /sys/block/rmem0/rmem/state)\" = live ] && exit 0; sleep 0.1; done; exit 1"
check "the write to a new extent held during the flap completed" vm -t 60 "$H" \
	"for i in \$(seq 200); do [ -e /tmp/w.rc ] && break; sleep 0.2; done; [ \"\$(cat /tmp/w.rc)\" = 0 ]"
expect_eq "four extents held" "4" held
check "the data from before the flap reads back" vm -t 60 "$H" \
	"dd if=/dev/rmem0 bs=4k count=1 iflag=direct status=none | cmp - /tmp/a && dd if=/dev/rmem0 bs=512k skip=31 count=2 iflag=direct status=none | cmp - /tmp/b && dd if=/dev/rmem0 bs=4k skip=$((10 * 2048)) count=1 iflag=direct status=none | cmp - /tmp/a"

echo "# the pool fills up: 8 extents of 8 MiB"
check "write to 4 more extents (8 held, the whole pool)" vm -t 120 "$H" \
	"for e in 20 21 22 23; do dd if=/tmp/a of=/dev/rmem0 bs=4k seek=\$((e * 2048)) oflag=direct status=none || exit 1; done"
expect_eq "8 extents held, the pool used" "8 $((64 * M))" both
check "a write to a ninth extent fails: No space left on device" vm -t 60 "$H" \
	"! dd if=/tmp/a of=/dev/rmem0 bs=4k seek=$((30 * 2048)) oflag=direct status=none 2> /tmp/e; cat /tmp/e; grep -q 'No space left on device' /tmp/e"
check "the kernel log says why" vm "$H" "dmesg | grep -q 'rmem0: the server has no room for extent 30 (pool full)'"
check "extents held keep working: write and read back" vm -t 60 "$H" \
	"head -c 4096 /dev/urandom > /tmp/c && dd if=/tmp/c of=/dev/rmem0 bs=4k seek=5 oflag=direct status=none && dd if=/dev/rmem0 bs=4k skip=5 count=1 iflag=direct status=none | cmp - /tmp/c"
expect_eq "server_free: 0" "0" json "$H" "j[0].get('server_free')" dev show rmem0

check "dev del" vm -t 60 "$H" "$R dev del rmem0"
expect_eq "the server has every extent back" "0" used
check "server del, unload" vm -t 60 "$S" "$R server del s0 && rmmod rmem"
check "client unload" vm "$H" "rmmod rmem"
test_done
