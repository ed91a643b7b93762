#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Draining a server out of a running device ("rmemctl dev set DEV peer del
# ADDR", lab topology "three"; Documentation/multi-server.rst, step 5):
#  - refusals, each with its message and a non-zero exit: a server the
#    device does not have, a device over one server,
#    a second drain while one runs (held by fault_resync_hold), the same
#    server again, too few servers left for the replicas, a server
#    already drained, and (replicas 1) a drain the other servers lack
#    room for, by their reports;
#  - replicas 2 over three servers: s3's drain, held, is released while
#    fio writes and verifies every extent in passes: s3 leaves the
#    device, fio sees no error, nothing is degraded, s1 and s2 each hold
#    a copy of every extent, and s3's server has all its memory back;
#  - replicas 1 over three servers, every extent read back and compared
#    while s2 (named without its port) is drained, rmemctl waiting and
#    reporting: s2's memory back;
#  - dev del while a drain runs (held): no hang, every server's memory
#    back;
#  - peer add ("dev set DEV peer add ADDR"): refusals (a device over one
#    server, a server it has, a missing device, a key for a device
#    without one, an address with no server: the device keeps its two);
#    s3 joins a device over s1 and s2 (replicas 2) while fio writes and
#    verifies, then s1, the device's first server, drains, its copies
#    going to s3 (s2 holds the others): no fio error, nothing degraded,
#    s2 and s3 hold a copy of every extent, the device-level fields of
#    dev show follow s2; s1, drained, is added again.
# rmem-timeout: 1200
source "$(dirname "$0")/../lib.sh"

M=$((1 << 20))
N=24
three_servers_start || exit 1

# USED0 SERVER: a guest command that waits up to 60 s for its server to
# use nothing, and fails if it still does
used0() { echo "for i in \$(seq 200); do [ \"\$($R -j server show $1 | python3 -c 'import json, sys; print(json.load(sys.stdin)[0][\"used\"])')\" = 0 ] && exit 0; sleep 0.3; done; $R server show $1; exit 1"; }

echo "# refusals"
check "a thin device of 256 MiB over the three, replicas 2, 1 MiB extents" vm -t 60 "$H" \
	"$R dev add peer $P1 peer $P2 peer $P3 size 256M extent 1M replicas 2 > /dev/null"
check "write $N MiB ($N extents)" vm -t 180 "$H" \
	"head -c $((N * M)) /dev/urandom > /tmp/a && dd if=/tmp/a of=/dev/rmem0 bs=1M oflag=direct status=none"
expect_err "a server the device does not have is refused" "no such server" "$H" \
	"$R dev set rmem0 peer del 198.18.1.99"
expect_err "a missing device is refused" "no such device" "$H" "$R dev set rmem9 peer del $P2"
check "a second device, over s1 alone" vm -t 60 "$H" "$R dev add peer $P1 size 8M name rmem5 > /dev/null"
expect_err "a device over one server has nowhere to drain to" "one server" "$H" \
	"$R dev set rmem5 peer del $P1"
check "the second device goes" vm -t 60 "$H" "$R dev del rmem5"

P=/sys/module/rmem/parameters
DRAINING="' '.join(str(p.get('draining')) for p in j[0]['peers'])"
echo "# replicas 2: s3's drain, held, then released while fio writes and verifies every extent"
check "resync held (fault_resync_hold)" vm "$H" "echo 1 > $P/fault_resync_hold"
check "dev set rmem0 peer del s3 nowait returns at once" vm -t 30 "$H" "$R dev set rmem0 peer del $P3 nowait"
expect_eq "dev show marks s3 draining" "False False True" json "$H" "$DRAINING" dev show rmem0
check "dev show (text) says draining" vm "$H" "$R dev show rmem0 | grep -q 'draining'"
expect_err "a second drain while s3's runs is refused" "one at a time" "$H" "$R dev set rmem0 peer del $P2"
expect_err "s3 again is refused" "draining already" "$H" "$R dev set rmem0 peer del $P3"
vm "$H" "$(fio_passes --rw=randwrite --bsrange=4k-64k --iodepth=16 --size=${N}M)"
check "fio is writing" vm -t 60 "$H" \
	"for i in \$(seq 200); do [ \$($R -j dev show rmem0 | python3 -c 'import json, sys; print(json.load(sys.stdin)[0][\"stats\"][\"write_bytes\"] >> 20)') -ge $((N + 2)) ] && exit 0; sleep 0.2; done; exit 1"
check "resync released" vm "$H" "echo 0 > $P/fault_resync_hold"
check "s3 leaves the device within 300 s, while fio runs" vm -t 330 "$H" \
	"t0=\$(date +%s); for i in \$(seq 1500); do [ \$($R -j dev show rmem0 | python3 -c 'import json, sys; print(len(json.load(sys.stdin)[0][\"peers\"]))') = 2 ] && break; sleep 0.2; done; echo \"# s3 left in \$((\$(date +%s) - t0)) s\"; [ ! -e /tmp/fio.rc ] && [ \$($R -j dev show rmem0 | python3 -c 'import json, sys; print(len(json.load(sys.stdin)[0][\"peers\"]))') = 2 ]"
check "fio's passes end with no error" vm -t 300 "$H" "$(fio_passes_end $N)"
expect_eq "s3 is no longer one of the device's servers" "live live" peers state
expect_eq "nothing degraded" 0 json "$H" "j[0]['extents_degraded']" dev show rmem0
expect_eq "s1 and s2 each hold a copy of every extent" "$N $N" peers extents_held
check "s3's server has its memory back" vm -t 90 "$S3" "$(used0 s3)"
check "the sysfs peer list has two servers" vm "$H" "[ \$(wc -w < /sys/block/rmem0/rmem/peer) = 2 ]"
check "what fio wrote last reads back the same twice (nothing read from s3)" vm -t 120 "$H" \
	"dd if=/dev/rmem0 bs=1M count=$N iflag=direct status=none of=/tmp/b && dd if=/dev/rmem0 bs=1M count=$N iflag=direct status=none | cmp - /tmp/b"
expect_err "replicas 2 over two servers: a drain is refused" "too few other servers" "$H" \
	"$R dev set rmem0 peer del $P2"
expect_err "the drained server is no longer there to drain" "no such server" "$H" \
	"$R dev set rmem0 peer del $P3"
check "dev del" vm -t 60 "$H" "$R dev del rmem0"

echo "# replicas 1: s2 drained while every extent is read back"
check "a thin device over the three, replicas 1" vm -t 60 "$H" \
	"$R dev add peer $P1 peer $P2 peer $P3 size 256M extent 1M > /dev/null && dd if=/tmp/a of=/dev/rmem0 bs=1M oflag=direct status=none"
read -r n1 n2 n3 <<< "$(peers extents_held)"
echo "# extents held: $n1 on s1, $n2 on s2, $n3 on s3"
check "s2 holds some of the extents" test "${n2:-0}" -gt 0
# no room: plain devices (their memory committed at attach) take all of
# s1's and s3's free memory; once the client's reports show it, a drain
# of s2 is refused
FREE13="$R -j dev show rmem0 | python3 -c 'import json, sys; p = json.load(sys.stdin)[0][\"peers\"]; print(p[0].get(\"server_free\", 0) >> 20, p[2].get(\"server_free\", 0) >> 20)'"
read -r f1 f3 <<< "$(vm "$H" "$FREE13")"
echo "# free by the last reports: ${f1:-?} MiB on s1, ${f3:-?} MiB on s3"
check "plain devices over s1 (${f1:-?} MiB) and s3 (${f3:-?} MiB)" vm -t 120 "$H" \
	"$R dev add peer $P1 size ${f1:-0}M name rmem5 > /dev/null && $R dev add peer $P3 size ${f3:-0}M name rmem6 > /dev/null"
check "the reports show s1 and s3 full within 10 s" vm -t 30 "$H" \
	"for i in \$(seq 50); do set -- \$($FREE13); [ \"\$1 \$2\" = '0 0' ] && exit 0; sleep 0.2; done; echo \"# free: \$*\"; exit 1"
expect_err "a drain of s2 with no room on s1 and s3 is refused" "lack room" "$H" \
	"$R dev set rmem0 peer del $P2"
expect_eq "nothing draining after the refusal" "False False False" json "$H" "$DRAINING" dev show rmem0
check "the plain devices go" vm -t 60 "$H" "$R dev del rmem5 && $R dev del rmem6"
vm "$H" "rm -f /tmp/rd.rc /tmp/rd.stop; (n=0; while [ ! -e /tmp/rd.stop ]; do dd if=/dev/rmem0 bs=1M count=$N iflag=direct status=none | cmp - /tmp/a || { echo bad > /tmp/rd.rc; exit; }; n=\$((n + 1)); done; echo ok \$n > /tmp/rd.rc) > /dev/null 2>&1 &"
check "dev set rmem0 peer del s2 (no port) waits, reporting, until s2 is drained and removed" vm -t 330 "$H" \
	"t0=\$(date +%s); $R dev set rmem0 peer del ${P2%:*} > /tmp/drain.out 2>&1; rc=\$?; tail -n 3 /tmp/drain.out | sed 's/^/# /'; echo \"# drained in \$((\$(date +%s) - t0)) s\"; [ \$rc = 0 ] && grep -q 'extents held there' /tmp/drain.out && grep -q 'drained and removed' /tmp/drain.out"
check "every read during the drain was the data written" vm -t 120 "$H" \
	"touch /tmp/rd.stop; for i in \$(seq 300); do [ -e /tmp/rd.rc ] && break; sleep 0.3; done; cat /tmp/rd.rc; grep -q '^ok [1-9]' /tmp/rd.rc"
expect_eq "s1 and s3 hold every extent between them" "$N" eval 'read -r a b <<< "$(peers extents_held)"; echo $((a + b))'
check "s2's server has its memory back" vm -t 90 "$S2" "$(used0 s2)"

echo "# dev del while a drain runs (held)"
check "resync held" vm "$H" "echo 1 > $P/fault_resync_hold"
check "dev set rmem0 peer del s3 nowait returns at once" vm -t 30 "$H" "$R dev set rmem0 peer del $P3 nowait"
expect_eq "dev show marks s3 draining" "False True" json "$H" "$DRAINING" dev show rmem0
check "dev del while it drains" vm -t 120 "$H" "$R dev del rmem0 && echo 0 > $P/fault_resync_hold"
for v in 1 2 3; do
	vmv=S$v
	check "s$v has all its memory back" vm -t 90 "${!vmv}" "$(used0 s$v)"
done
echo "# peer add: s3 joins a device over s1 and s2 while fio writes and verifies; s1 (the first server) then drains onto it"
check "a thin device over s1 and s2, replicas 2, $N extents written" vm -t 180 "$H" \
	"$R dev add peer $P1 peer $P2 size 256M extent 1M replicas 2 > /dev/null && dd if=/tmp/a of=/dev/rmem0 bs=1M oflag=direct status=none"
check "a second device, over s1 alone" vm -t 60 "$H" "$R dev add peer $P1 size 8M name rmem5 > /dev/null"
expect_err "a device over one server takes no other" "several servers" "$H" \
	"$R dev set rmem5 peer add $P3"
check "the second device goes" vm -t 60 "$H" "$R dev del rmem5"
expect_err "a server the device has is refused" "has that server already" "$H" \
	"$R dev set rmem0 peer add $P2"
expect_err "a missing device is refused" "no such device" "$H" "$R dev set rmem9 peer add $P3"
expect_err "a key for a device attached without one is refused" "without a key" "$H" \
	"umask 077 && $R key gen > /tmp/k && $R dev set rmem0 peer add $P3 key-file /tmp/k"
expect_err "an address with no server fails the add" "unreachable|refused|timed out|No route" "$H" \
	"$R dev set rmem0 peer add 198.18.1.99"
expect_eq "the device keeps its two servers, live" "live live" peers state
vm "$H" "$(fio_passes --rw=randwrite --bsrange=4k-64k --iodepth=16 --size=${N}M)"
check "fio is writing" vm -t 60 "$H" \
	"for i in \$(seq 200); do [ \$($R -j dev show rmem0 | python3 -c 'import json, sys; print(json.load(sys.stdin)[0][\"stats\"][\"write_bytes\"] >> 20)') -ge $((N + 2)) ] && exit 0; sleep 0.2; done; exit 1"
check "dev set rmem0 peer add s3 while fio runs" vm -t 120 "$H" \
	"$R dev set rmem0 peer add $P3 | tee /dev/stderr | grep -q 'added'"
expect_eq "s3 is the device's third server, live" "live live live" peers state
check "s1, the first server, drained while fio runs: its copies go to s3" vm -t 330 "$H" \
	"t0=\$(date +%s); $R dev set rmem0 peer del $P1 > /tmp/drain.out 2>&1; rc=\$?; tail -n 2 /tmp/drain.out | sed 's/^/# /'; echo \"# drained in \$((\$(date +%s) - t0)) s\"; [ \$rc = 0 ] && [ ! -e /tmp/fio.rc ]"
check "fio's passes end with no error" vm -t 300 "$H" "$(fio_passes_end $N)"
expect_eq "nothing degraded" 0 json "$H" "j[0]['extents_degraded']" dev show rmem0
expect_eq "s2 and s3 each hold a copy of every extent" "$N $N" peers extents_held
expect_eq "dev show's device-level server is s2 now" "$P2" json "$H" "j[0]['peer']" dev show rmem0
check "s1's server has its memory back" vm -t 90 "$S1" "$(used0 s1)"
check "s1, drained, is added again" vm -t 120 "$H" "$R dev set rmem0 peer add $P1 > /dev/null"
expect_eq "three servers again, live" "live live live" peers state
check "what fio wrote last reads back the same twice" vm -t 120 "$H" \
	"dd if=/dev/rmem0 bs=1M count=$N iflag=direct status=none of=/tmp/b && dd if=/dev/rmem0 bs=1M count=$N iflag=direct status=none | cmp - /tmp/b"
check "dev del" vm -t 60 "$H" "$R dev del rmem0"
for v in 1 2 3; do
	vmv=S$v
	check "s$v has all its memory back" vm -t 90 "${!vmv}" "$(used0 s$v)"
done
check "client kernel log: no I/O error, hung task or allocation failure" swap_log_clean "$H"
check "client unload" vm -t 60 "$H" "rmmod rmem"
check "servers: server del, unload" eval \
	"vm $S1 '$R server del s1 && rmmod rmem' && vm $S2 '$R server del s2 && rmmod rmem' && vm $S3 '$R server del s3 && rmmod rmem'"
test_done
