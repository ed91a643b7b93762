#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A thin device over three server VMs with replicas 2 (lab topology
# "three"; Documentation/multi-server.rst steps 4 and 5):
#  - refusals: more replicas than servers, more than three;
#  - every extent written has memory on two distinct servers (each
#    server's use is what the device says it holds there, and the holds
#    add up to twice the extents);
#  - one server's link cut: a rewrite of every extent and a read of it
#    complete with no error while it is cut (the cut server's replicas
#    turn stale: failfast, not the loss timeout); the extents it held are
#    degraded, and its stale replicas serve no read once it is back;
#  - resync held (fault_resync_hold): the server back, its stale
#    replicas serve no read; released while fio writes and verifies every
#    extent in passes: they are copied current (degraded drops to 0 while
#    fio still writes; "events" says start and end), fio sees no error;
#  - a resync's copy takes writes (rmem1, one 8 MiB extent, copied in
#    256 KiB windows, slowed by fault_resync_delay_ms): a write to every
#    fourth window completes while the copy goes on; writes go on until
#    the copy ends and after; the copy is not redone (no write missed its
#    target); the target alone (the other copy's server cut) reads back
#    every write;
#  - a second server powered off while fio writes and verifies 16 new
#    extents (crc32c): fio sees no error and does not wait for its loss
#    timeout; once it is dead, every extent still reads back (none had
#    its only current copy there), and resync copies its extents onto
#    the two live servers;
#  - a third loss, a server deleted: every extent reads back from the
#    last server alone, the resynced copies included;
#  - the device stays live while each extent has a current copy on a
#    server that is not dead; with the last server deleted it is dead
#    and I/O fails.
# rmem-timeout: 900
source "$(dirname "$0")/../lib.sh"

M=$((1 << 20))
N=24
three_servers_start || exit 1

degraded() { json "$H" "j[0]['extents_degraded']" dev show rmem0; }

expect_err "more replicas than servers are refused" \
	"more replicas than servers" "$H" "$R dev add peer $P1 peer $P2 size 64M extent 1M replicas 3"
expect_err "more than three replicas are refused" \
	"replicas must be 1 to 3" "$H" "$R dev add peer $P1 peer $P2 peer $P3 size 64M extent 1M replicas 4"
check "a thin device of 256 MiB over the three, replicas 2, 1 MiB extents, loss timeout 60 s" vm -t 60 "$H" \
	"$R dev add peer $P1 peer $P2 peer $P3 size 256M extent 1M replicas 2 loss-timeout 60s > /dev/null"
expect_eq "dev show: replicas 2, nothing degraded" "2 0" \
	json "$H" "j[0]['replicas'], j[0]['extents_degraded']" dev show rmem0
check "dev show (text) says replicas 2" vm "$H" "$R dev show rmem0 | grep -q ' replicas 2 degraded 0'"
check "write $N MiB ($N extents)" vm -t 180 "$H" \
	"head -c $((N * M)) /dev/urandom > /tmp/a && dd if=/tmp/a of=/dev/rmem0 bs=1M oflag=direct status=none"
read -r n1 n2 n3 <<< "$(peers extents_held)"
echo "# replicas held: $n1 on s1, $n2 on s2, $n3 on s3"
expect_eq "two replicas of each extent: $((2 * N)) held in all" "$((2 * N))" eval 'echo $((n1 + n2 + n3))'
expect_eq "each server's use is what the device holds there (no two replicas on one server)" \
	"$((n1 * M)) $((n2 * M)) $((n3 * M))" eval 'echo "$(server_used $S1) $(server_used $S2) $(server_used $S3)"'
check "the $N MiB read back" vm -t 120 "$H" \
	"dd if=/dev/rmem0 bs=1M count=$N iflag=direct status=none | cmp - /tmp/a"

P=/sys/module/rmem/parameters
vm "$H" "($R monitor > /tmp/mon.txt 2>&1 &)"
check "resync held (fault_resync_hold): stale replicas stay stale until released" vm "$H" "echo 1 > $P/fault_resync_hold"
echo "# s2's link is cut: writes and reads go on"
check "s2's link down" lab_link "$S2" off
check "rewrite every extent while s2 is cut, no error, well within the loss timeout" vm -t 120 "$H" \
	"head -c $((N * M)) /dev/urandom > /tmp/b && t0=\$(date +%s) && timeout 45 dd if=/tmp/b of=/dev/rmem0 bs=1M oflag=direct status=none && echo \"# \$((\$(date +%s) - t0)) s\""
check "and read it back while s2 is cut" vm -t 120 "$H" \
	"timeout 45 dd if=/dev/rmem0 bs=1M count=$N iflag=direct status=none | cmp - /tmp/b"
expect_eq "s2's session is reconnecting, the others live" "live reconnecting live" peers state
expect_eq "the extents with a replica on s2 are degraded ($n2)" "$n2" degraded
check "s2's link up" lab_link "$S2" on
check "s2's session is live again" wait_states "live live live" 60
check "s2's stale replicas serve no read: every extent reads the new data, three times over" vm -t 180 "$H" \
	"for i in 1 2 3; do dd if=/dev/rmem0 bs=1M count=$N iflag=direct status=none | cmp - /tmp/b || exit 1; done"
expect_eq "no resync while held: still $n2 degraded" "$n2" degraded

echo "# resync while fio writes and verifies every extent"
# fio passes (write the 24 MiB at random, verify all) one after another
# until told to stop between passes; the resync is released once the
# first pass writes, so its copies meet writes to the extents they copy
vm "$H" "$(fio_passes --iodepth=8 --size=${N}M --rw=randwrite --bsrange=4k-128k)"
check "fio is writing (1 MiB written)" vm -t 60 "$H" \
	"w0=\$($R -j dev show rmem0 | python3 -c 'import json, sys; print(json.load(sys.stdin)[0][\"stats\"][\"write_bytes\"] >> 20)'); for i in \$(seq 200); do [ \$($R -j dev show rmem0 | python3 -c 'import json, sys; print(json.load(sys.stdin)[0][\"stats\"][\"write_bytes\"] >> 20)') -gt \$w0 ] && exit 0; sleep 0.2; done; exit 1"
check "resync released" vm "$H" "echo 0 > $P/fault_resync_hold"
check "resync: s2's replicas are current again, nothing degraded, within 90 s, fio still writing" vm -t 120 "$H" \
	"for i in \$(seq 450); do [ \"\$($R -j dev show rmem0 | python3 -c 'import json, sys; print(json.load(sys.stdin)[0][\"extents_degraded\"])')\" = 0 ] && break; sleep 0.2; done; $R dev show rmem0 | grep -o 'degraded.*resync [a-z]* [0-9/]*'; [ ! -e /tmp/fio.rc ] && [ \"\$($R -j dev show rmem0 | python3 -c 'import json, sys; print(json.load(sys.stdin)[0][\"extents_degraded\"])')\" = 0 ]"
check "fio stopped after its pass: no error, every pass verified" vm -t 240 "$H" \
	"$(fio_passes_end $N)"
check "events: the resync started and ended" vm -t 30 "$H" \
	"for i in \$(seq 50); do grep -q 'resync idle' /tmp/mon.txt && break; sleep 0.2; done; grep -E 'resync (running 0/|idle)' /tmp/mon.txt | sed 's/^/# event: /'; grep -q 'resync running 0/' /tmp/mon.txt && grep -q 'resync idle' /tmp/mon.txt"
check "what fio wrote last reads back the same three times" vm -t 180 "$H" \
	"dd if=/dev/rmem0 bs=1M count=$N iflag=direct status=none of=/tmp/b && for i in 1 2 3; do dd if=/dev/rmem0 bs=1M count=$N iflag=direct status=none | cmp - /tmp/b || exit 1; done"

echo "# a resync's copy takes writes: rmem1, one 8 MiB extent"
dev1() { json "$H" "$1" dev show rmem1; }
d1="$R -j dev show rmem1 | python3 -c 'import json, sys; print(json.load(sys.stdin)[0][\"extents_degraded\"])'"
# w1 OFF: (in the guest) 64 KiB of random data written to rmem1 at OFF
# (in 64 KiB units) and into /tmp/w2, rmem1's expected content
w1='w1() { head -c 65536 /dev/urandom > /tmp/p && dd if=/tmp/p of=/dev/rmem1 bs=64k seek=$1 oflag=direct status=none && dd if=/tmp/p of=/tmp/w2 bs=64k seek=$1 conv=notrunc status=none; }'
check "rmem1: one 8 MiB extent over the three, replicas 2" vm -t 60 "$H" \
	"$R dev add peer $P1 peer $P2 peer $P3 size 8M extent 8M replicas 2 loss-timeout 60s | grep -q rmem1"
check "rmem1 written whole" vm -t 60 "$H" \
	"head -c 8M /dev/urandom > /tmp/w && dd if=/tmp/w of=/dev/rmem1 bs=1M oflag=direct status=none"
read -r -a held <<< "$(dev1 "' '.join(str(p['extents_held']) for p in j[0]['peers'])")"
VMS=("$S1" "$S2" "$S3")
X= Y=
for i in 0 1 2; do
	[ "${held[i]}" = 1 ] || continue
	if [ -z "$X" ]; then X=${VMS[i]}; else Y=${VMS[i]}; fi
done
echo "# rmem1's extent is held by: ${held[*]} (s1 s2 s3)"
check "its two replicas are on two servers" test -n "$X" -a -n "$Y"
check "resync held" vm "$H" "echo 1 > $P/fault_resync_hold"
check "one holder's link down" lab_link "$X" off
check "rmem1 rewritten whole while it is cut: its replica there turns stale" vm -t 120 "$H" \
	"head -c 8M /dev/urandom > /tmp/w && timeout 45 dd if=/tmp/w of=/dev/rmem1 bs=1M oflag=direct status=none"
check "its link up" lab_link "$X" on
check "rmem0's sessions live again" wait_states "live live live" 60
check "rmem1's sessions live again" wait_states "live live live" 60 rmem1
expect_eq "its extent is degraded" 1 dev1 "j[0]['extents_degraded']"
check "the copy slowed: 0.5 s after each 256 KiB window (16 s for the extent at least)" vm "$H" "echo 500 > $P/fault_resync_delay_ms"
check "resync released" vm "$H" "dmesg -C; echo 0 > $P/fault_resync_hold"
check "once the copy runs, a write to every fourth window, last first, completes while it goes on (rmem1 still degraded after them)" vm -t 60 "$H" \
	"$w1; cp /tmp/w /tmp/w2 && for i in \$(seq 150); do $R dev show rmem1 | grep -q 'resync running' && break; sleep 0.1; done; $R dev show rmem1 | grep -q 'resync running' || exit 1; sleep 0.5; t0=\$(date +%s%N) && for i in 7 6 5 4 3 2 1 0; do w1 \$((i * 16 + 3)) || exit 1; done; d=\$($d1); echo \"# 8 writes in \$(((\$(date +%s%N) - t0) / 1000000)) ms, degraded after them: \$d\"; [ \"\$d\" = 1 ]"
check "writes go on, one window after another, until the copy ends (rmem1 whole within 120 s), and 4 more after it" vm -t 150 "$H" \
	"$w1; t0=\$(date +%s); n=0; k=0; while [ \$k -lt 4 ]; do w1 \$((n % 32 * 4 + 1)) || exit 1; n=\$((n + 1)); [ \"\$($d1)\" = 0 ] && k=\$((k + 1)); [ \$((\$(date +%s) - t0)) -lt 120 ] || exit 1; done; echo \"# \$n writes, the copy ended after \$((n - 4)) of them\""
check "the copy was not redone: no write missed its target" vm "$H" \
	"dmesg | grep -E 'rmem1: (resync|extent)' | sed 's/^/# /'; ! dmesg | grep -q 'missed the copy'"
check "the other copy's link down" lab_link "$Y" off
check "rmem1 reads back from the copy's target alone, every write made during the copy there" vm -t 120 "$H" \
	"timeout 60 dd if=/dev/rmem1 bs=1M iflag=direct status=none | cmp - /tmp/w2"
check "its link up" lab_link "$Y" on
check "rmem0's sessions live again" wait_states "live live live" 60
check "rmem1 deleted" vm -t 60 "$H" "echo 0 > $P/fault_resync_delay_ms; $R dev del rmem1"

echo "# s3 is powered off while fio writes and verifies"
# writes at 1 MiB/s: the 16 MiB take 16 s, s3 goes about 2 s in, so most
# of them meet its loss (unbounded, fio once ended in 3.9 s, before the
# client noticed s3 was gone)
vm "$H" "rm -f /tmp/fio.rc; (fio --name=v --filename=/dev/rmem0 --direct=1 --ioengine=libaio --iodepth=16 --offset=32M --size=16M --rw=randwrite --bsrange=4k-128k --rate=,1m --verify=crc32c --verify_fatal=1 --do_verify=1 > /tmp/fio.out 2>&1; echo \$? > /tmp/fio.rc) > /dev/null 2>&1 &"
check "fio is writing (2 MiB written)" vm -t 60 "$H" \
	"for i in \$(seq 200); do [ \$($R -j dev show rmem0 | python3 -c 'import json, sys; print(json.load(sys.stdin)[0][\"stats\"][\"write_bytes\"] >> 20)') -ge $((2 * N + 2)) ] && exit 0; sleep 0.2; done; exit 1"
lab_poweroff "$S3"
check "fio's writes and verify end with no error" vm -t 120 "$H" \
	"for i in \$(seq 500); do [ -e /tmp/fio.rc ] && break; sleep 0.2; done; grep -E 'err=|WRITE:|READ:' /tmp/fio.out; [ \"\$(cat /tmp/fio.rc)\" = 0 ] && grep -q 'WRITE: .*io=16.0MiB' /tmp/fio.out && grep -q 'READ: .*io=16.0MiB' /tmp/fio.out"
expect_eq "fio did not wait for s3's loss timeout (60 s): s3 still reconnecting" "live live reconnecting" peers state
check "fio's 16 MiB saved" vm -t 60 "$H" "dd if=/dev/rmem0 bs=1M skip=32 count=16 iflag=direct status=none of=/tmp/f"
check "s3's session goes dead at the loss timeout, the others stay live" wait_states "live live dead" 120
expect_eq "the device stays live: every extent has a current copy on s1 or s2" live json "$H" "j[0]['state']" dev show rmem0
check "no extent lost: every one reads back" vm -t 120 "$H" \
	"dd if=/dev/rmem0 bs=1M count=$N iflag=direct status=none | cmp - /tmp/b && dd if=/dev/rmem0 bs=1M skip=32 count=16 iflag=direct status=none | cmp - /tmp/f"
check "a new extent gets two replicas on the live servers, and reads back" vm -t 60 "$H" \
	"head -c $M /dev/urandom > /tmp/c && timeout 30 dd if=/tmp/c of=/dev/rmem0 bs=1M seek=100 oflag=direct status=none && dd if=/dev/rmem0 bs=1M skip=100 count=1 iflag=direct status=none | cmp - /tmp/c"
check "resync: s3's extents copied onto s1 and s2, nothing degraded, within 60 s" vm -t 90 "$H" \
	"for i in \$(seq 300); do [ \"\$($R -j dev show rmem0 | python3 -c 'import json, sys; print(json.load(sys.stdin)[0][\"extents_degraded\"])')\" = 0 ] && exit 0; sleep 0.2; done; $R dev show rmem0; exit 1"
read -r n1 n2 n3 <<< "$(peers extents_held)"
echo "# replicas held: $n1 on s1, $n2 on s2, $n3 on s3 (dead)"
check "s1 and s2 each hold a copy of every extent ($((N + 17)))" test "$n1" = $((N + 17)) -a "$n2" = $((N + 17))

echo "# s1 is deleted: s2 alone"
check "server del s1" vm -t 60 "$S1" "$R server del s1"
check "s1's session goes dead" wait_states "dead live dead" 90
expect_eq "the device stays live: s2 has a copy of every extent" live json "$H" "j[0]['state']" dev show rmem0
check "every extent reads back from s2 alone" vm -t 120 "$H" \
	"dd if=/dev/rmem0 bs=1M count=$N iflag=direct status=none | cmp - /tmp/b && dd if=/dev/rmem0 bs=1M skip=32 count=16 iflag=direct status=none | cmp - /tmp/f && dd if=/dev/rmem0 bs=1M skip=100 count=1 iflag=direct status=none | cmp - /tmp/c"
check "server del s2" vm -t 60 "$S2" "$R server del s2"
check "with no server left the device goes dead" vm -t 90 "$H" \
	"for i in \$(seq 300); do [ \"\$($R -j dev show rmem0 | python3 -c 'import json, sys; print(json.load(sys.stdin)[0][\"state\"])')\" = dead ] && exit 0; sleep 0.2; done; $R dev show rmem0; exit 1"
check "I/O to the dead device fails" vm -t 60 "$H" "! dd if=/dev/rmem0 of=/dev/null bs=1M count=1 iflag=direct status=none"
check "dev del" vm -t 60 "$H" "pkill -f 'rmemctl monitor'; $R dev del rmem0"
check "s2: unload" vm -t 60 "$S2" "rmmod rmem"
check "s1: unload" vm -t 60 "$S1" "rmmod rmem"
check "client unload" vm "$H" "rmmod rmem"
test_done
