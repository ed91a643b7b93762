#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rmem-timeout: 900
# Debug kernel only (make check-debug): no stale data from Soft-RoCE's
# READ retries.  Under KASAN and lockdep rxe retries RDMA READs, and its
# completer (check_ack()) can end a retried READ with IB_WC_SUCCESS and
# part of its data missing, then break the queue pair (the WARNING the lab
# allows on this kernel, lab.sh LAB_KNOWN_WARN_RE).  Before rmem's READ tail
# (rmem_build_read_tail()) a 512 MiB random pattern read back with 0.2 to
# 0.5 MB wrong in each of three rounds, 8 queue pair errors a round; the
# Debian kernels see no retry there.  One VM: write the pattern, read it
# back twice through the page cache (readahead: many 128 KiB READs in
# flight), compare every byte.
source "$(dirname "$0")/../lib.sh"

LAB_MEM=${LAB_MEM_HOST:-2560}
lab_start one || exit 1
H=$LAB_CLIENT A=$LAB_SERVER_ADDR
C=/sys/class/infiniband/rxe0/ports/1/hw_counters

check "rmem.ko loads" rmem_load "$H"
check "server, 512 MiB device" vm -t 300 "$H" \
	"$R server add name s0 listen $A size 640M > /dev/null && $R dev add peer $A size 512M > /dev/null"
check "write a 512 MiB random pattern" vm -t 600 "$H" \
	"head -c 512M /dev/urandom > /tmp/p && dd if=/tmp/p of=/dev/rmem0 bs=1M oflag=direct status=none"
retries0=$(lab_exec "$H" "cat $C/completer_retry_err")
for round in 1 2; do
	check "read back $round: every byte as written" vm -t 600 "$H" \
		"echo 3 > /proc/sys/vm/drop_caches; n=\$(cmp -l /dev/rmem0 /tmp/p | wc -l); echo \$n bytes differ; [ \$n = 0 ]"
	echo "# after round $round: $(lab_exec "$H" "echo \$(dmesg | grep -c 'lost the connection') connection losses, rxe READ retries \$(cat $C/completer_retry_err)")"
done
# the path under test ran: rxe retried during the read-backs (READs, and
# the probes' few zero-length WRITEs; else the rounds prove nothing)
check "rxe retried READs during the read-backs" vm "$H" \
	"n=\$((\$(cat $C/completer_retry_err) - ${retries0:-0})); echo \$n retries; [ \$n -gt 0 ]"
check "detach, server del, unload" vm -t 120 "$H" \
	"$R dev del rmem0 && $R server del s0 && rmmod rmem"
test_done
