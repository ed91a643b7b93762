#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two VMs: the server VM exports RAM, the client VM attaches it as
# /dev/rmem0 across the wire; a verified round trip, both sides' views,
# detach.  "allow" admits the client's address and refuses others.
source "$(dirname "$0")/../lib.sh"

lab_start two || exit 1
S=$LAB_SERVER C=$LAB_CLIENT A=$LAB_SERVER_ADDR

check "rmem.ko loads on the server" rmem_load "$S"
check "rmem.ko loads on the client" rmem_load "$C"
check "server add, allowing the client's /32 and a /24" vm "$S" \
	"$R server add name mem listen $A size 128M allow $LAB_ADDR_CLIENT/32 allow 10.9.8.0/24"
check "a server allowing only another address" vm "$S" \
	"$R server add name narrow listen $A:7411 size 16M allow 198.18.1.99"
expect_eq "server show lists the allow prefixes" "$LAB_ADDR_CLIENT/32 10.9.8.0/24" \
	json "$S" "tuple(j[0]['allow'])" server show mem
expect_err "the client is refused by the server not allowing it" \
	"does not allow this client's address" "$C" "$R dev add peer $A:7411 size 4M"
check "refused: nothing created on either side" vm "$C" "[ -z \"\$($R dev show)\" ]"
expect_eq "dev add on the client prints /dev/rmem0" "/dev/rmem0" \
	vm "$C" "$R dev add peer $A size 32M qps 2"
check "write 32 MiB, read back identical" vm -t 300 "$C" \
	"head -c 32M /dev/urandom > /tmp/pat && dd if=/tmp/pat of=/dev/rmem0 bs=1M oflag=direct status=none && dd if=/dev/rmem0 of=/tmp/back bs=1M iflag=direct status=none && cmp /tmp/pat /tmp/back"
expect_eq "server sees the client by address, 32 MiB, 2 QPs" "$LAB_ADDR_CLIENT 33554432 2" \
	json "$S" "j[0]['clients'][0]['addr'].rsplit(':', 1)[0], j[0]['clients'][0]['size'], j[0]['clients'][0]['qps']" server show
check "client's dev show (text)" vm "$C" "$R dev show | tee /dev/stderr | grep -q 'rmem0: peer $A:7410 size 32M qps 2'"
check "detach" vm "$C" "$R dev del rmem0 && [ ! -e /dev/rmem0 ]"
expect_eq "server: no client, nothing used" "0 0" \
	json "$S" "len(j[0]['clients']), j[0]['used']" server show
check "server del, unload on both" vm "$S" "$R server del narrow && $R server del mem && rmmod rmem"
check "unload on the client" rmem_unload "$C"
test_done
