#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fio writes the whole device with block sizes from 512 B to 1 MiB over 2
# QPs (one per vCPU) and 4 jobs, then verifies every block (crc32c): no
# mismatch.  Then the same over polled queue pairs (poll-qps, io_uring
# --hipri): the polled queues carry the I/O and verify it.
source "$(dirname "$0")/../lib.sh"

lab_start one || exit 1
H=$LAB_CLIENT A=$LAB_SERVER_ADDR

rmem_load "$H" || exit 1
check "server and device (2 QPs = 2 vCPUs, chunks of 4 MiB)" vm "$H" \
	"$R server add name s0 listen $A size 64M mr-size 4M && $R dev add peer $A size 48M qps 2"
check "fio randwrite 512B-1M + crc32c verify over the whole device, 4 jobs" vm -t 900 "$H" \
	"fio --name=verify --filename=/dev/rmem0 --direct=1 --ioengine=libaio --iodepth=16 --numjobs=4 --offset_increment=12M --size=12M --rw=randwrite --bsrange=512-1M --verify=crc32c --verify_fatal=1 --do_verify=1 --group_reporting > /tmp/fio.out 2>&1; rc=\$?; grep -E 'err=|READ:|WRITE:|verify' /tmp/fio.out; exit \$rc"
check "fio wrote and verified all 48 MiB" vm "$H" \
	"grep -q 'WRITE: .*io=48.0MiB' /tmp/fio.out && grep -q 'READ: .*io=48.0MiB' /tmp/fio.out"
expect_eq "no I/O errors counted" "0" json "$H" "j[0]['stats']['errors']" dev show
check "both hardware queues (QPs) carried I/O" vm "$H" \
	"cat /sys/block/rmem0/rmem/qp_requests; set -- \$(cat /sys/block/rmem0/rmem/qp_requests); [ \$# -eq 2 ] && [ \$1 -gt 0 ] && [ \$2 -gt 0 ]"

check "re-attach with 1 interrupt and 2 polled queue pairs" vm -t 120 "$H" \
	"$R dev del rmem0 && $R dev add peer $A size 48M qps 1 poll-qps 2 && $R dev show rmem0 | grep -q 'qps 1 poll-qps 2'"
expect_eq "the queue is pollable; sysfs has 1 + 2 queue pairs" "1 1 2" vm "$H" \
	"echo \$(cat /sys/block/rmem0/queue/io_poll /sys/block/rmem0/rmem/qps /sys/block/rmem0/rmem/poll_qps)"
expect_eq "rmemctl -j reports them" "1 2" json "$H" "(j[0]['qps'], j[0]['poll_qps'])" dev show
check "fio io_uring --hipri randwrite + crc32c verify over the whole device, 2 jobs" vm -t 900 "$H" \
	"fio --name=pverify --filename=/dev/rmem0 --direct=1 --ioengine=io_uring --hipri --iodepth=8 --numjobs=2 --offset_increment=24M --size=24M --rw=randwrite --bsrange=4k-256k --verify=crc32c --verify_fatal=1 --do_verify=1 --group_reporting > /tmp/pfio.out 2>&1; rc=\$?; grep -E 'err=|READ:|WRITE:|verify' /tmp/pfio.out; exit \$rc"
check "fio wrote and verified all 48 MiB" vm "$H" \
	"grep -q 'WRITE: .*io=48.0MiB' /tmp/pfio.out && grep -q 'READ: .*io=48.0MiB' /tmp/pfio.out"
check "the polled queues carried it (interrupt queue: only the attach's reads)" vm "$H" \
	"cat /sys/block/rmem0/rmem/qp_requests; set -- \$(cat /sys/block/rmem0/rmem/qp_requests); [ \$# -eq 3 ] && [ \$1 -lt 100 ] && [ \$((\$2 + \$3)) -gt 1000 ]"
expect_eq "no I/O errors counted" "0" json "$H" "j[0]['stats']['errors']" dev show
check "detach and cleanup" vm "$H" "$R dev del rmem0 && $R server del s0 && rmmod rmem"
test_done
