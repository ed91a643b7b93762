#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A client and a server of different wire protocol versions fail fast with
# a clear error, not a hang: the kernel server (version 3) refuses version-2
# and version-4 clients (EVERSION in the reject data), and the kernel client
# reports a version-2 or version-4 server plainly, a server that grants
# no RDMA READ, and a server that cannot prove the host's key.  The
# foreign peer is
# selftests/bin/rmem_wire_peer.
source "$(dirname "$0")/../lib.sh"

lab_start one || exit 1
H=$LAB_CLIENT A=$LAB_SERVER_ADDR
PEER=$REPO/selftests/bin/rmem_wire_peer

# peer_start MODE PORT VERSION: the foreign peer, listening when this returns
peer_start()
{
	vm -t 30 "$H" "rm -f /tmp/peer.log; (timeout 60 $PEER $1 $A $2 $3 > /tmp/peer.log 2>&1 &); for i in \$(seq 100); do grep -q listening /tmp/peer.log && break; sleep 0.1; done; cat /tmp/peer.log"
}

rmem_load "$H" || exit 1
check "kernel server" vm "$H" "$R server add name s0 listen $A size 16M"
for v in 2 4; do
	check "a version $v client is refused with EVERSION, server says version 3" vm -t 60 "$H" \
		"timeout 20 $PEER client $A 7410 $v | tee /dev/stderr | grep -q 'server version 3, status 1'"
done
check "a version 3 client of the same layout is accepted (it then never authenticates)" vm -t 60 "$H" \
	"timeout 20 $PEER client $A 7410 3; [ \$? = 2 ]"
for v in 2 4; do
	peer_start server 750$v $v
	expect_err "the kernel client reports a version $v server, within seconds" \
		"server speaks another rmem protocol version" "$H" "timeout 30 $R dev add peer $A:750$v size 4M"
done
# remote input that is not a version: a server granting no RDMA READ
# (responder resources 0) would leave every read to time out
peer_start noreads 7510 3
expect_err "the kernel client refuses a server that grants no RDMA READ, within seconds" \
	"server grants no RDMA READ" "$H" "timeout 30 $R dev add peer $A:7510 size 4M"
# a server that does not know this host's key cannot prove it: a client
# with a key refuses READY signed with made-up bytes, and one that claims
# no key was used (the client's own proof went to an impostor, which
# learns nothing from it: it is bound to the impostor's nonce)
vm "$H" "umask 077; $R key gen > /tmp/h.key"
peer_start impostor 7520 3
expect_err "the kernel client refuses a READY not signed with the session key" \
	"server's session description is not signed with the session key" "$H" \
	"timeout 30 $R dev add peer $A:7520 size 4M host h key-file /tmp/h.key"
check "the impostor got the AUTH message and sent READY" vm "$H" "grep -q 'sent a READY signed with made-up bytes' /tmp/peer.log"
peer_start impostor-nokey 7521 3
expect_err "the kernel client refuses a READY that claims no key was used" \
	"server could not prove it has this host's key" "$H" \
	"timeout 30 $R dev add peer $A:7521 size 4M host h key-file /tmp/h.key"
check "the impostor got the AUTH message and sent READY" vm "$H" "grep -q 'sent a READY that claims no key was used' /tmp/peer.log"
check "no device was created" vm "$H" "! ls /dev/rmem* 2>/dev/null && [ -z \"\$($R dev show)\" ]"
check "the vanished peer's memory is back at once: a real client attaches" vm "$H" "$R dev add peer $A size 4M && $R dev del rmem0"
check "cleanup" vm "$H" "$R server del s0 && rmmod rmem"
test_done
