#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A client and a server of different wire protocol versions fail fast with
# a clear error, not a hang: the kernel server (version 2) refuses a version-3 client
# (EVERSION in the reject data), and the kernel client reports a version-3
# server plainly.  The foreign peer is selftests/bin/rmem_wire_peer.
source "$(dirname "$0")/../lib.sh"

lab_start one || exit 1
H=$LAB_CLIENT A=$LAB_SERVER_ADDR
PEER=$REPO/selftests/bin/rmem_wire_peer

rmem_load "$H" || exit 1
check "kernel server" vm "$H" "$R server add name s0 listen $A size 16M"
check "a version 3 client is refused with EVERSION, server says version 2" vm -t 60 "$H" \
	"timeout 20 $PEER client $A 7410 3 | tee /dev/stderr | grep -q 'server version 2, status 1'"
check "a version 2 client of the same layout is accepted" vm -t 60 "$H" \
	"timeout 20 $PEER client $A 7410 2; [ \$? = 2 ]"
vm "$H" "(timeout 60 $PEER server $A 7500 3 > /tmp/peer.log 2>&1 &); sleep 1; cat /tmp/peer.log"
expect_err "the kernel client reports a version 3 server, within seconds" \
	"server speaks another rmem protocol version" "$H" "timeout 30 $R dev add peer $A:7500 size 4M"
check "no device was created" vm "$H" "! ls /dev/rmem* 2>/dev/null && [ -z \"\$($R dev show)\" ]"
check "the vanished peer's memory is back at once: a real client attaches" vm "$H" "$R dev add peer $A size 4M && $R dev del rmem0"
check "cleanup" vm "$H" "$R server del s0 && rmmod rmem"
test_done
