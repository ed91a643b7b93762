#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two clients of one server (the client VM, and the server VM attaching to
# itself) each see only their own data, and a fresh client reads zeros even
# when it gets memory another client wrote.
source "$(dirname "$0")/../lib.sh"

lab_start two || exit 1
S=$LAB_SERVER C=$LAB_CLIENT A=$LAB_SERVER_ADDR

rmem_load "$S" && rmem_load "$C" || exit 1
# a pool that two 32 MiB clients fill exactly
check "server add, 64 MiB pool" vm "$S" "$R server add name mem listen $A size 64M mr-size 8M"
expect_eq "client A (client VM) attaches 32 MiB" "/dev/rmem0" vm "$C" "$R dev add peer $A size 32M"
expect_eq "client B (server VM) attaches 32 MiB" "/dev/rmem0" vm "$S" "$R dev add peer $A size 32M"
check "A reads zeros before writing" vm "$C" "cmp -n 33554432 /dev/rmem0 /dev/zero"
# pattern PATH BYTE: 32 MiB of BYTE, checked (no shell escapes to get wrong)
pattern() { echo "python3 -c 'import sys; sys.stdout.buffer.write(bytes([$2]) * (32 << 20))' > $1 && [ \"\$(od -An -tx1 -N1 $1)\" = ' $(printf %x "$2")' ]"; }
check "A writes 0xaa everywhere" vm -t 300 "$C" "$(pattern /tmp/aa 0xaa) && dd if=/tmp/aa of=/dev/rmem0 bs=1M oflag=direct status=none"
check "B writes 0x55 everywhere" vm -t 300 "$S" "$(pattern /tmp/55 0x55) && dd if=/tmp/55 of=/dev/rmem0 bs=1M oflag=direct status=none"
check "A still reads only its own 0xaa" vm "$C" "cmp /tmp/aa /dev/rmem0 && od -An -tx1 -N4 /dev/rmem0"
check "B still reads only its own 0x55" vm "$S" "cmp /tmp/55 /dev/rmem0"
expect_eq "the two sessions hold different memory (pool full)" "67108864 2" \
	json "$S" "j[0]['used'], len(j[0]['clients'])" server show
expect_err "a third client gets no memory" "not enough free memory" "$C" "$R dev add peer $A size 8M"
check "A detaches" vm "$C" "$R dev del rmem0"
expect_eq "client C attaches, getting A's former memory" "/dev/rmem0" vm "$C" "$R dev add peer $A size 32M"
check "C reads zeros, not A's data" vm "$C" "cmp -n 33554432 /dev/rmem0 /dev/zero"
check "B's data untouched" vm "$S" "cmp /tmp/55 /dev/rmem0"
check "cleanup" vm "$C" "$R dev del rmem0 && rmmod rmem"
check "cleanup on the server" vm "$S" "$R dev del rmem0 && $R server del mem && rmmod rmem"
test_done
