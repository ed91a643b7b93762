#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rmem-kernels: newest (run.sh): rmem's checks of remote input and the
# NIC's key checks; no compat path in them
# A rogue RDMA client (selftests/rogue/, built as selftests/bin/rmem_rogue)
# attacks the kernel server while a kernel client uses it: malformed connect
# requests (each must be rejected with the right status, never accepted),
# one-sided RDMA outside what its session was given (past a chunk's end,
# beyond every chunk, a WRITE through the read-only chunk table, guessed
# keys: each must fail at the NIC), and one session using another session's
# key (refused: another protection domain).  The server must release every
# rogue session, and the kernel client's data must stay intact, with no I/O
# error.
source "$(dirname "$0")/../lib.sh"

lab_start one || exit 1
H=$LAB_CLIENT A=$LAB_SERVER_ADDR
ROGUE=$REPO/selftests/bin/rmem_rogue
SIZE=$((16 << 20))

rmem_load "$H" || exit 1
# 4 MiB memory regions: a rogue session of 8 MiB has two chunks
check "server, 64 MiB pool in 4 MiB chunks" vm "$H" "$R server add name s0 listen $A size 64M mr-size 4M"
expect_eq "a kernel client attaches 16 MiB" "/dev/rmem0" vm "$H" "$R dev add peer $A size 16M"
check "the kernel client writes 0xc3 everywhere" vm -t 120 "$H" \
	"python3 -c 'import sys; sys.stdout.buffer.write(bytes([0xc3]) * $SIZE)' > /tmp/c3 &&
	 [ \"\$(od -An -tx1 -N1 /tmp/c3)\" = ' c3' ] &&
	 dd if=/tmp/c3 of=/dev/rmem0 bs=1M oflag=direct status=none &&
	 dd if=/dev/rmem0 bs=1M iflag=direct status=none | cmp /tmp/c3 -"

check "every attack of the rogue client is refused, every positive control passes" \
	vm -t 330 "$H" "timeout 300 $ROGUE $A 7410"

check "the server released every rogue session: only the kernel client's 16 MiB in use" vm -t 60 "$H" \
	"for i in \$(seq 30); do
		[ \"\$($R -j server show | python3 -c 'import json, sys; j = json.load(sys.stdin)[0]; print(j[\"used\"], len(j[\"clients\"]))')\" = '$SIZE 1' ] && exit 0
		sleep 1
	 done; $R server show; exit 1"
check "server show still works" vm "$H" "$R server show"
check "the kernel client's data is intact (direct read)" vm -t 120 "$H" \
	"dd if=/dev/rmem0 bs=1M iflag=direct status=none | cmp /tmp/c3 -"
expect_eq "the kernel client is live, no I/O error counted" "live 0" json "$H" \
	"(j[0]['state'], j[0]['stats']['errors'])" dev show
check "the kernel client still writes and reads" vm -t 120 "$H" \
	"python3 -c 'import sys; sys.stdout.buffer.write(bytes([0x3c]) * (1 << 20))' > /tmp/3c &&
	 dd if=/tmp/3c of=/dev/rmem0 bs=1M oflag=direct status=none &&
	 dd if=/dev/rmem0 bs=1M count=1 iflag=direct status=none | cmp /tmp/3c -"
check "cleanup" vm -t 60 "$H" "$R dev del rmem0 && $R server del s0 && rmmod rmem"
test_done
