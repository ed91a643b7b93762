#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rmem-kernels: newest (run.sh): rmem's handshake versions, the same code
# on every kernel (no compat path); attach and I/O run on each kernel
# elsewhere
# Wire protocol versions: the kernel speaks 3 and 4.
#  - A client and a server with no version in common fail fast with a
#    clear error, not a hang: the kernel server refuses version-2 and
#    version-5 clients (EVERSION, naming version 4), and the kernel client
#    reports a version-2 or version-5 server plainly, a server that grants
#    no RDMA READ, and a server that cannot prove the host's key.  The
#    foreign peer is selftests/bin/rmem_wire_peer.
#  - Against a version 3 server (the kernel server with fault_wire_version
#    3) the client asks again in version 3 and works as before.
#  - In version 4 the connection probe reads the server's status entry:
#    dev show gives the server's free memory, and it follows the pool.
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
for v in 2 5; do
	check "a version $v client is refused with EVERSION, server says version 4" vm -t 60 "$H" \
		"timeout 20 $PEER client $A 7410 $v | tee /dev/stderr | grep -q 'server version 4, status 1'"
done
for v in 3 4; do
	check "a version $v client of the same layout is accepted (it then never authenticates)" vm -t 60 "$H" \
		"timeout 20 $PEER client $A 7410 $v; [ \$? = 2 ]"
done
for v in 2 5; do
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
peer_start impostor 7520 4
expect_err "the kernel client refuses a READY not signed with the session key" \
	"server's session description is not signed with the session key" "$H" \
	"timeout 30 $R dev add peer $A:7520 size 4M host h key-file /tmp/h.key"
check "the impostor got the AUTH message and sent READY" vm "$H" "grep -q 'sent a READY signed with made-up bytes' /tmp/peer.log"
peer_start impostor-nokey 7521 4
expect_err "the kernel client refuses a READY that claims no key was used" \
	"server could not prove it has this host's key" "$H" \
	"timeout 30 $R dev add peer $A:7521 size 4M host h key-file /tmp/h.key"
check "the impostor got the AUTH message and sent READY" vm "$H" "grep -q 'sent a READY that claims no key was used' /tmp/peer.log"
check "no device was created" vm "$H" "! ls /dev/rmem* 2>/dev/null && [ -z \"\$($R dev show)\" ]"
check "the vanished peer's memory is back at once: a real client attaches" vm "$H" "$R dev add peer $A size 4M && $R dev del rmem0"
check "cleanup" vm "$H" "$R server del s0"

echo "# version 4: the probe reads the server's free memory"
check "a server of 64 MiB in 16 MiB chunks" vm "$H" "$R server add name s1 listen $A size 64M mr-size 16M > /dev/null"
check "dev add (keepalive 200ms)" vm -t 60 "$H" "$R dev add peer $A size 16M keepalive 200ms > /dev/null"
expect_eq "it speaks version 4" "4" json "$H" "j[0]['wire_version']" dev show rmem0
# server_free VM DEV WANT: within about 10 s the device's server_free is WANT
server_free()
{
	vm -t 90 "$1" "for i in \$(seq 20); do v=\$($R -j dev show $2 | python3 -c 'import json, sys; print(json.load(sys.stdin)[0].get(\"server_free\"))'); [ \"\$v\" = $3 ] && exit 0; sleep 0.5; done; echo server_free \$v; exit 1"
}
check "server_free: 48 MiB left by the first device" server_free "$H" rmem0 $((48 << 20))
check "a second device of 32 MiB" vm -t 60 "$H" "$R dev add peer $A size 32M > /dev/null"
check "the first device sees the pool shrink: 16 MiB free" server_free "$H" rmem0 $((16 << 20))
check "the second device's leaves" vm -t 60 "$H" "$R dev del rmem1"
check "the first device sees the pool grow: 48 MiB free" server_free "$H" rmem0 $((48 << 20))
check "dev del" vm -t 60 "$H" "$R dev del rmem0"

echo "# a version 3 server: the client asks again in version 3"
check "the server speaks version 3 at most" vm "$H" "echo 3 > /sys/module/rmem/parameters/fault_wire_version"
check "dev add works" vm -t 60 "$H" "$R dev add peer $A size 16M > /dev/null"
expect_eq "it speaks version 3, and has no server_free" "3 None" json "$H" "j[0]['wire_version'], j[0].get('server_free')" dev show rmem0
check "the kernel log says so" vm "$H" "dmesg | grep 'rmem0: server .* speaks protocol version 3; using it' > /dev/null"
check "a write and a read back" vm -t 60 "$H" \
	"head -c 4M /dev/urandom > /tmp/v3 && dd if=/tmp/v3 of=/dev/rmem0 bs=1M oflag=direct status=none && head -c 4M /dev/rmem0 | cmp - /tmp/v3"
check "dev del; the server speaks version 4 again" vm -t 60 "$H" "$R dev del rmem0 && echo 0 > /sys/module/rmem/parameters/fault_wire_version"
check "cleanup" vm "$H" "$R server del s1 && rmmod rmem"
test_done
