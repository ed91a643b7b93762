#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One VM: server and client in one kernel over loopback Soft-RoCE.  Attach,
# the device's attributes (rmemctl, JSON, sysfs), a verified data round
# trip, discard and write-zeroes, events, detach, server removal, unload.
source "$(dirname "$0")/../lib.sh"

lab_start one || exit 1
H=$LAB_CLIENT A=$LAB_SERVER_ADDR

check "rmem.ko loads" rmem_load "$H"
check "server add reports the chunk geometry" vm "$H" \
	"$R server add name s0 listen $A size 256M mr-size 16M | tee /dev/stderr | grep -q 'listening on $A:7410, pool 256M in 16M chunks'"
expect_eq "server show -j: pool, mr size, used" "268435456 16777216 0" \
	json "$H" "j[0]['pool_size'], j[0]['mr_size'], j[0]['used']" server show
vm "$H" "($R -j monitor > /tmp/mon.log 2>&1 &); sleep 1"

expect_eq "dev add prints the device path" "/dev/rmem0" \
	vm "$H" "$R dev add peer $A size 64M qps 2 queue-depth 32"
check "/dev/rmem0 is a 64 MiB block device" vm "$H" \
	"[ -b /dev/rmem0 ] && [ \$(blockdev --getsize64 /dev/rmem0) = 67108864 ]"
check "sysfs: state live, 2 QPs, queue depth 32, peer" vm "$H" \
	"grep -qx live /sys/block/rmem0/rmem/state && grep -qx 2 /sys/block/rmem0/rmem/qps && grep -qx 32 /sys/block/rmem0/rmem/queue_depth && grep -qx $A:7410 /sys/block/rmem0/rmem/peer"
check "2 hardware queues" vm "$H" "[ \$(ls /sys/block/rmem0/mq | wc -l) = 2 ]"
check "no volatile write cache advertised" vm "$H" "grep -qx 'write through' /sys/block/rmem0/queue/write_cache"
check "discard and write-zeroes advertised" vm "$H" \
	"[ \$(cat /sys/block/rmem0/queue/discard_max_bytes) -gt 0 ] && [ \$(cat /sys/block/rmem0/queue/write_zeroes_max_bytes) -gt 0 ]"
check "requests are at most 1 MiB (within a 16 MiB chunk), never split at chunks" vm "$H" \
	"grep -qx 1024 /sys/block/rmem0/queue/max_hw_sectors_kb && grep -qx 0 /sys/block/rmem0/queue/chunk_sectors"
expect_eq "dev show -j: state, qps, queue depth, size" "live 2 32 67108864" \
	json "$H" "j[0]['state'], j[0]['qps'], j[0]['queue_depth'], j[0]['size']" dev show
id=$(json "$H" "j[0]['id']" server show)
check "the server's identity is set (not all zeros): $id" test -n "${id//0/}"
expect_eq "server identity recorded at attach = server's" "$id" \
	json "$H" "j[0]['server_id']" dev show
check "the device's generation is set" test "$(json "$H" "j[0]['generation']" dev show)" != 0
expect_eq "server accounts 64 MiB used and one client" "67108864 1" \
	json "$H" "j[0]['used'], len(j[0]['clients'])" server show

check "write 64 MiB, read back identical (O_DIRECT)" vm -t 300 "$H" \
	"head -c 64M /dev/urandom > /tmp/pat && dd if=/tmp/pat of=/dev/rmem0 bs=1M oflag=direct status=none && dd if=/dev/rmem0 of=/tmp/back bs=1M iflag=direct status=none && cmp /tmp/pat /tmp/back"
# 16 MiB - 512 KiB: half in chunk 0, half in chunk 1 (one request, two
# work requests); the rest of the device keeps the first pattern
check "a 1 MiB O_DIRECT write and read straddling the 16 MiB chunk boundary" vm "$H" \
	"head -c 1M /dev/urandom > /tmp/st && dd if=/tmp/st of=/dev/rmem0 bs=1M seek=\$((16 * 1024 * 1024 - 512 * 1024)) oflag=direct,seek_bytes status=none && dd if=/dev/rmem0 of=/tmp/st2 bs=1M count=1 skip=\$((16 * 1024 * 1024 - 512 * 1024)) iflag=direct,skip_bytes status=none && cmp /tmp/st /tmp/st2 && cmp -n \$((15 * 1024 * 1024 + 512 * 1024)) /tmp/pat /dev/rmem0 && cmp -i \$((16 * 1024 * 1024 + 512 * 1024)) -n 1048576 /tmp/pat /dev/rmem0"
expect_eq "dev show -j: READs split at 128 KiB by default" "131072" \
	json "$H" "j[0]['read_split']" dev show
# one RDMA READ is one request packet whatever its size: 16 reads of 1 MiB
# are 16 x 8 READs split (and a tail each on Soft-RoCE), 16 (32) unsplit
check "16 O_DIRECT reads of 1 MiB post at least 128 RDMA READs (read-split 128K)" vm "$H" \
	"p0=\$(cat /sys/class/infiniband/rxe0/ports/1/hw_counters/sent_pkts) && dd if=/dev/rmem0 of=/dev/null bs=1M count=16 iflag=direct status=none && p1=\$(cat /sys/class/infiniband/rxe0/ports/1/hw_counters/sent_pkts) && echo sent \$((p1 - p0)) packets && [ \$((p1 - p0)) -ge 128 ]"
check "buffered I/O and fsync (a fresh pattern)" vm "$H" \
	"head -c 1M /dev/urandom > /tmp/buf && dd if=/tmp/buf of=/dev/rmem0 bs=64k count=16 conv=fsync status=none && echo 3 > /proc/sys/vm/drop_caches && cmp -n 1048576 /tmp/buf /dev/rmem0"
# Discard sends nothing: the blocks keep their data (today; admin-guide.rst
# leaves it unspecified), the counters move, and the RDMA device sends next
# to no packets (keep-alives) for a whole-device discard that used to be
# 64 MiB of zeros.
wz0=$(json "$H" "j[0]['stats']['write_bytes'], j[0]['stats']['zeroes']" dev show)
check "discard completes and the range keeps its data (nothing was written)" vm "$H" \
	"blkdiscard -o 1M -l 2M /dev/rmem0 && cmp -n 2097152 -i 1048576:1048576 /dev/rmem0 /tmp/pat && cmp -n 1048576 /tmp/buf /dev/rmem0 && cmp -i 3145728 -n 1048576 /tmp/pat /dev/rmem0"
pk=/sys/class/infiniband/rxe0/ports/1/hw_counters/sent_pkts
# -f: no signature probe (blkdiscard reads the device's start first: ~1200
# packets of READ); 64 MiB of zeros is 16384 packets at rxe MTU 4096
check "a whole-device discard sends fewer than 1024 packets (64 MiB of zeros: 16384+)" vm "$H" \
	"p0=\$(cat $pk) && blkdiscard -f /dev/rmem0 && p1=\$(cat $pk) && echo sent \$((p1 - p0)) packets && [ \$((p1 - p0)) -lt 1024 ]"
expect_eq "discards counted (2 requests at least, 66 MiB); writes and write-zeroes unchanged" "True 69206016 $wz0" \
	json "$H" "j[0]['stats']['discards'] >= 2, j[0]['stats']['discard_bytes'], j[0]['stats']['write_bytes'], j[0]['stats']['zeroes']" dev show
check "the device still holds its data after the whole-device discard" vm "$H" \
	"cmp -i 3145728 -n 1048576 /tmp/pat /dev/rmem0"
check "write-zeroes across a chunk boundary" vm "$H" \
	"blkdiscard -z -o 15M -l 2M /dev/rmem0 && cmp -n 2097152 -i 15728640:0 /dev/rmem0 /dev/zero && cmp -i 17825792 -n 1048576 /tmp/pat /dev/rmem0"
# fault_ext's lines in the kernel log so far
fx_lines() { vm "$H" "dmesg | grep -c 'rmem0: fault_ext: a request found no room'"; }
# 16 MiB - 508 KiB: 8 pieces of the 64 KiB zero buffer before the chunk
# boundary and 9 after, 17 entries: more than a request's PDU holds.  A
# write-zeroes maps no pages, so only that fallback (-ENOSPC, built again
# in room from the mempool) can meet fault_ext=1: the requeue shows it ran
f0=$(fx_lines)
check "write-zeroes of 1 MiB across the chunk boundary in 17 pieces: built again in room from the mempool (found empty once: fault_ext=1), neighbours intact" vm "$H" \
	"head -c 3M /dev/urandom > /tmp/wz && dd if=/tmp/wz of=/dev/rmem0 bs=1M seek=15 oflag=direct status=none && echo 1 > /sys/module/rmem/parameters/fault_ext && blkdiscard -f -z -o \$((16 * 1024 * 1024 - 508 * 1024)) -l 1M /dev/rmem0 && grep -qx 0 /sys/module/rmem/parameters/fault_ext && cmp -n \$((1024 * 1024 - 508 * 1024)) -i 0:15728640 /tmp/wz /dev/rmem0 && cmp -n 1048576 -i \$((16 * 1024 * 1024 - 508 * 1024)) /dev/rmem0 /dev/zero && cmp -i \$((2 * 1024 * 1024 - 508 * 1024)):\$((17 * 1024 * 1024 - 508 * 1024)) -n \$((1024 * 1024 + 508 * 1024)) /tmp/wz /dev/rmem0"
expect_eq "the kernel log says so once" "$((f0 + 1))" fx_lines
# a 1 MiB READ has at least 16 segments (64 KiB each at most): it takes
# room from the mempool before its pages are mapped; finding it empty
# (fault_ext) it is requeued, not failed
check "two 1 MiB O_DIRECT reads while the mempool is found empty twice (fault_ext=2) are requeued and read right" vm "$H" \
	"head -c 1M /dev/urandom > /tmp/fx && dd if=/tmp/fx of=/dev/rmem0 bs=1M seek=40 oflag=direct status=none && echo 2 > /sys/module/rmem/parameters/fault_ext && dd if=/dev/rmem0 of=/tmp/fx2 bs=1M count=2 skip=40 iflag=direct status=none && grep -qx 0 /sys/module/rmem/parameters/fault_ext && cmp -n 1048576 /tmp/fx /tmp/fx2 && cmp -n 1048576 -i 0:41943040 /tmp/fx2 /dev/rmem0"
expect_eq "the kernel log says so twice more" "$((f0 + 3))" fx_lines
expect_eq "I/O counters count, no errors" "True True 0" \
	json "$H" "j[0]['stats']['reads'] > 0, j[0]['stats']['write_bytes'] >= 64 << 20, j[0]['stats']['errors']" dev show

# the PDU is at most 1 KiB (was 7.7 KiB: 16 MB here): 2 x 1024 requests
# with struct request, the mempool's reserve, queues, chunk table
check "dev show: a 2 x 1024 deep device holds under 3.6 MB (a PDU of at most 1 KiB)" vm "$H" \
	"$R dev add peer $A size 64M qps 2 queue-depth 1024 > /dev/null && m=\$($R -j dev show rmem1 | python3 -c 'import json, sys; print(json.load(sys.stdin)[0][\"memory\"])'); $R dev del rmem1; echo memory \$m; [ \"\$m\" -gt 1000000 ] && [ \"\$m\" -lt 3600000 ]"
check "dev del" vm "$H" "$R dev del rmem0 && [ ! -e /dev/rmem0 ]"
check "events: live and deleting announced" vm "$H" \
	"sleep 1; cat /tmp/mon.log; grep -q '\"state\":\"live\"' /tmp/mon.log && grep -q '\"state\":\"deleting\"' /tmp/mon.log"
expect_eq "memory back in the pool, no clients" "0 0" \
	json "$H" "j[0]['used'], len(j[0]['clients'])" server show
check "server del" vm "$H" "$R server del s0 && [ \"\$($R server show)\" = '' ]"
check "rmem.ko unloads" rmem_unload "$H"
test_done
