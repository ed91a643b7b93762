#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every rmemctl error path gives a clear message and a non-zero exit, and
# changes nothing: bad sizes, unknown device/server/volume, unreachable
# peer, no server listening, duplicate names, too large, zero QPs, bad queue
# depth or read depth, non-root caller.
source "$(dirname "$0")/../lib.sh"

lab_start one || exit 1
H=$LAB_CLIENT A=$LAB_SERVER_ADDR

rmem_load "$H" || exit 1
check "baseline: a server and a device" vm "$H" \
	"$R server add name s0 listen $A size 64M mr-size 4M && $R dev add peer $A size 16M"
# everything but what changes by itself: the I/O counters (which reading
# the state may not change) and the server's free memory as the device's
# probe last read it
snapshot()
{
	lab_exec "$H" "($R -j server show; $R -j dev show; $R -j volume show; ls /dev/rmem*) | python3 -c 'import re, sys; s = re.sub(r\"\\\"stats\\\":\\{([^{}]|\\{[^{}]*\\})*\\}\", \"\", sys.stdin.read()); print(re.sub(r\"\\\"server_free\\\":[0-9]*,\", \"\", s), end=\"\")'"
}
before=$(snapshot)

expect_err "unparsable size" "invalid size '12Q'" "$H" "$R dev add peer $A size 12Q"
expect_err "zero size" "invalid size '0'" "$H" "$R dev add peer $A size 0"
expect_err "size not a multiple of 4 KiB" "multiple of 4 KiB" "$H" "$R dev add peer $A size 5000"
expect_err "size larger than the pool" "not enough free memory" "$H" "$R dev add peer $A size 1G"
expect_err "zero QPs" "qps must be between 1 and 64" "$H" "$R dev add peer $A size 4M qps 0"
expect_err "keepalive below 100 ms" "keep-alive interval must be 0 \\(off\\) or 100 ms to 60 s" "$H" "$R dev add peer $A size 4M keepalive 50ms"
expect_err "loss timeout over an hour" "loss timeout must be at most 1 hour" "$H" "$R dev add peer $A size 4M loss-timeout 61m"
expect_err "unparsable loss timeout" "loss-timeout" "$H" "$R dev add peer $A size 4M loss-timeout soon"
expect_err "too many QPs" "qps must be between 1 and 64" "$H" "$R dev add peer $A size 4M qps 65"
expect_err "a volume name with a control character" "volume name must be printable ASCII" "$H" "$R dev add peer $A size 4M volume \$'v\\t1'"
expect_err "zero queue depth" "queue depth must be between 1 and 1024" "$H" "$R dev add peer $A size 4M queue-depth 0"
expect_err "read split not a power of two" "read split must be 0 .none. or a power of two from 64 KiB to 1 MiB" "$H" "$R dev add peer $A size 4M read-split 96K"
expect_err "read depth 0" "read depth must be between 1 and 16" "$H" "$R dev add peer $A size 4M read-depth 0"
expect_err "read depth 17" "read depth must be between 1 and 16" "$H" "$R dev add peer $A size 4M read-depth 17"
expect_err "unknown device (del)" "no such device" "$H" "$R dev del rmem7"
expect_err "unknown device (show)" "no such device" "$H" "$R dev show rmem7"
expect_err "bad device name" "device name must be rmemN" "$H" "$R dev add peer $A size 4M name sda"
expect_err "duplicate device name" "a device with this name exists" "$H" "$R dev add peer $A size 4M name rmem0"
expect_err "unreachable peer" "unreachable|no answer|timed out" "$H" "$R dev add peer 198.18.0.99 size 4M"
expect_err "no server listening on that port" "no rmem server at that address and port" "$H" "$R dev add peer $A:7999 size 4M"
expect_err "bad peer address" "invalid address" "$H" "$R dev add peer 300.1.2.3 size 4M"
expect_err "duplicate server name" "a server with this name exists" "$H" "$R server add name s0 listen $A:7411 size 4M"
expect_err "listen address of no RDMA device" "RDMA" "$H" "$R server add name s1 listen 198.18.7.7 size 4M"
expect_err "port in use" "already in use" "$H" "$R server add name s1 listen $A size 4M"
expect_err "bad MR size" "power of two" "$H" "$R server add name s1 listen $A:7411 size 4M mr-size 12K"
expect_err "unknown server" "no such server" "$H" "$R server del nosuch"
expect_err "unknown volume" "no such volume" "$H" "$R volume del server s0 volume nosuch"
expect_err "unknown object" "unknown object" "$H" "$R frobnicate"
expect_err "missing argument" "size|missing|requires" "$H" "$R dev add peer $A"
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
expect_err "non-root: dev add" "Operation not permitted" "$H" "$NOBODY $R dev add peer $A size 4M"
expect_err "non-root: dev del" "Operation not permitted" "$H" "$NOBODY $R dev del rmem0"
expect_err "non-root: server add" "Operation not permitted" "$H" "$NOBODY $R server add name s9 listen $A:7412 size 4M"
expect_err "non-root: server del" "Operation not permitted" "$H" "$NOBODY $R server del s0"
expect_err "non-root: volume del" "Operation not permitted" "$H" "$NOBODY $R volume del server s0 volume v"
check "non-root may list" vm "$H" "$NOBODY $R dev show | grep -q rmem0"

after=$(snapshot)
if [ "$before" = "$after" ]; then
	echo "# ok: nothing changed"
else
	echo "# FAIL: state changed:"; diff <(echo "$before") <(echo "$after") | sed 's/^/#   /'
	LAB_FAILS=$((LAB_FAILS + 1))
fi
check "device still works" vm "$H" "dd if=/dev/urandom of=/tmp/p bs=1M count=1 status=none && dd if=/tmp/p of=/dev/rmem0 oflag=direct status=none && cmp -n 1048576 /tmp/p /dev/rmem0"
# read-depth: the default from the module parameter, a value given per
# device; dev show also reports what the server granted in the
# connection's handshake, so a value lost on the way shows
expect_eq "dev show -j: read depth 16 by default, 16 granted" "16 16" \
	json "$H" "j[0]['read_depth'], j[0]['read_depth_granted']" dev show rmem0
if vm "$H" "$R dev add peer $A size 4M read-depth 1 name rmem1 > /dev/null"; then
	echo "# ok: attach with read-depth 1"
	expect_eq "dev show -j: read depth 1, 1 granted" "1 1" \
		json "$H" "j[0]['read_depth'], j[0]['read_depth_granted']" dev show rmem1
	check "dev show says read-depth 1" vm "$H" "$R dev show rmem1 | grep -q ' read-depth 1 '"
	check "4 MiB written and read back at read depth 1" vm "$H" \
		"head -c 4M /dev/urandom > /tmp/p4 && dd if=/tmp/p4 of=/dev/rmem1 bs=1M oflag=direct status=none && dd if=/dev/rmem1 of=/tmp/b4 bs=1M iflag=direct status=none && cmp /tmp/p4 /tmp/b4"
	check "detach rmem1" vm "$H" "$R dev del rmem1"
else
	echo "# FAIL: attach with read-depth 1"
	LAB_FAILS=$((LAB_FAILS + 1))
fi
test_done
