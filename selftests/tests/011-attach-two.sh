#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rmem-kernels: newest (run.sh): latency histograms, tracepoints, netem
# and the allow list: no compat path; 013 and 024 attach across two VMs on
# every kernel
# Two VMs: the server VM exports RAM, the client VM attaches it as
# /dev/rmem0 across the wire; a verified round trip, both sides' views,
# latency histograms and tracepoints under a known delay (netem),
# detach.  "allow" admits the client's address and refuses others.
source "$(dirname "$0")/../lib.sh"

lab_start two || exit 1
S=$LAB_SERVER C=$LAB_CLIENT A=$LAB_SERVER_ADDR

# an RC ack timeout of 1.07 s (exponent 18, not rxe's 67 ms): the netem
# delay below (at most 0.3 s a round trip) must not make rxe retry (its
# retried READs are the debug lane's known warning, and a reconnect would
# spoil the counts)
check "rmem.ko loads on the server" vm "$S" "insmod $RMEM_KO ack_timeout=18"
check "rmem.ko loads on the client" vm "$C" "insmod $RMEM_KO ack_timeout=18"
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

echo "# latency histograms and tracepoints, with a known delay on the wire"
T=/sys/kernel/tracing
check "tracefs, and the rmem events in it" vm "$C" \
	"{ [ -d $T/events ] || mount -t tracefs nodev $T; } && ls $T/events/rmem | tee /dev/stderr | grep -c '^rmem_' | grep -qx 5"
check "dev stats reset" vm "$C" "$R dev stats reset rmem0"
expect_eq "after the reset: no reads, writes or bytes, empty histograms, no longest" "0 0 0 0 0 0 0" \
	json "$C" "j[0]['stats']['reads'], j[0]['stats']['writes'], j[0]['stats']['read_bytes'], sum(j[0]['stats']['read_latency']['counts']), sum(j[0]['stats']['write_latency']['counts']), j[0]['stats']['read_latency']['max_ns'], j[0]['stats']['write_latency']['max_ns']" dev show
expect_err "stats reset of a device that does not exist" "no such device" "$C" "$R dev stats reset rmem7"
check "20 reads of 4 KiB (O_DIRECT), no added delay" vm "$C" \
	"dd if=/dev/rmem0 of=/dev/null bs=4k count=20 iflag=direct status=none"
# Bucket i holds latencies from 2^i us.  TCG over the UDP wire: about
# 1 ms for a 4 KiB READ on a Debian kernel, tens of ms on the debug one
# (KASAN, lockdep).  BASE: the bucket holding the 18th fastest read (an
# emulator stall may slow one or two); the delay then puts every request
# at least two buckets above, in bucket B (14 to 18: 16.4 to 262 ms) or
# the next: each direction gets 1.1 x 2^(B-1) us, so a round trip takes more
# than 2^B us and, with the request's own time (under 2^(BASE+1) us),
# less than 2^(B+2).
expect_eq "the 20 reads counted" "20 20" \
	json "$C" "j[0]['stats']['reads'], sum(j[0]['stats']['read_latency']['counts'])" dev show
BASE=$(json "$C" "next(i for i in range(24) if sum(j[0]['stats']['read_latency']['counts'][:i + 1]) >= 18)" dev show)
if ! [[ $BASE =~ ^[0-9]+$ ]]; then
	echo "# FAIL: no base bucket from the histogram: $BASE"
	LAB_FAILS=$((LAB_FAILS + 1))
	BASE=12
fi
B=$((BASE + 2))
[ "$B" -ge 14 ] || B=14
[ "$B" -le 18 ] || B=18
D_US=$(((1 << (B - 1)) * 11 / 10))
echo "# 18 of 20 reads in buckets up to $BASE: a delay of $D_US us each way puts them in bucket $B or $((B + 1))"
check "$D_US us of netem delay on both VMs' wire" eval \
	'vm "$C" "modprobe sch_netem; tc qdisc add dev eth0 root netem delay ${D_US}us" && vm "$S" "modprobe sch_netem; tc qdisc add dev eth0 root netem delay ${D_US}us"'
check "reset, then 20 reads with the delay, traced" vm -t 120 "$C" \
	"$R dev stats reset rmem0 && echo > $T/trace && echo 1 > $T/events/rmem/rmem_rq_issue/enable && echo 1 > $T/events/rmem/rmem_rq_done/enable && dd if=/dev/rmem0 of=/dev/null bs=4k count=20 skip=100 iflag=direct status=none && echo 0 > $T/events/rmem/rmem_rq_issue/enable && echo 0 > $T/events/rmem/rmem_rq_done/enable"
check "then 10 writes of 4 KiB with the delay" vm -t 120 "$C" \
	"head -c 40960 /dev/urandom > /tmp/w && dd if=/tmp/w of=/dev/rmem0 bs=4k count=10 seek=200 oflag=direct status=none"
# no request can beat the delay (none under bucket B); most land in
# buckets B and B + 1
RT_NS=$((2 * D_US * 1000))
expect_eq "read histogram: 20, none under bucket $B, most in $B-$((B + 1)), max >= $RT_NS ns" "20 0 True True" \
	json "$C" "sum(j[0]['stats']['read_latency']['counts']), sum(j[0]['stats']['read_latency']['counts'][:$B]), sum(j[0]['stats']['read_latency']['counts'][$B:$((B + 2))]) >= 11, j[0]['stats']['read_latency']['max_ns'] >= $RT_NS" dev show
expect_eq "write histogram: 10, none under bucket $B, most in $B-$((B + 1))" "10 0 True" \
	json "$C" "sum(j[0]['stats']['write_latency']['counts']), sum(j[0]['stats']['write_latency']['counts'][:$B]), sum(j[0]['stats']['write_latency']['counts'][$B:$((B + 2))]) >= 6" dev show
check "dev show prints the read and write latency percentiles" vm "$C" \
	"$R dev show -s rmem0 | tee /dev/stderr | grep -q 'read latency: p50 .* (20 requests)' && $R -s dev show rmem0 | grep -q 'write latency: p50 .* (10 requests)'"
check "without -s, dev show's text has no counters or latency lines" vm "$C" \
	"$R dev show rmem0 > /tmp/show.txt && grep -q '^rmem0: ' /tmp/show.txt && ! grep -E 'latency:|read-bytes' /tmp/show.txt"
check "rmem_rq_issue traced each read: device, queue, op, offset, length" vm "$C" \
	"grep rmem_rq_issue: $T/trace | head -n 2 >&2; [ \$(grep -c 'rmem_rq_issue: rmem0 queue [01] tag [0-9]* read offset [0-9]* len 4096' $T/trace) = 20 ] && grep -q 'rmem_rq_issue: rmem0 .* read offset 409600 len 4096' $T/trace"
check "rmem_rq_done traced each with its latency (>= $RT_NS ns) and status 0" vm "$C" \
	"grep rmem_rq_done: $T/trace | head -n 2 >&2; [ \$(grep -c 'rmem_rq_done: rmem0 queue [01] tag [0-9]* read offset [0-9]* len 4096 latency_ns [0-9]* status 0' $T/trace) = 20 ] && ! grep 'rmem_rq_done:' $T/trace | sed 's/.*latency_ns \\([0-9]*\\).*/\\1/' | awk '\$1 < $RT_NS { bad = 1 } END { exit !bad }'"
check "the 10 writes read back (after the counts: this reads)" vm -t 120 "$C" \
	"cmp -n 40960 -i 0:819200 /tmp/w /dev/rmem0"
check "the delay off" eval 'vm "$C" "tc qdisc del dev eth0 root" && vm "$S" "tc qdisc del dev eth0 root"'
check "rmem_dev_state: enabled for the detach" vm "$C" "echo > $T/trace && echo 1 > $T/events/rmem/rmem_dev_state/enable"
check "detach" vm "$C" "$R dev del rmem0 && [ ! -e /dev/rmem0 ]"
check "rmem_dev_state traced the detach" vm "$C" \
	"cat $T/trace | grep rmem_dev_state >&2; grep -q 'rmem_dev_state: rmem0 state deleting' $T/trace && echo 0 > $T/events/rmem/rmem_dev_state/enable"
expect_eq "server: no client, nothing used" "0 0" \
	json "$S" "len(j[0]['clients']), j[0]['used']" server show
check "server del, unload on both" vm "$S" "$R server del narrow && $R server del mem && rmmod rmem"
check "unload on the client" rmem_unload "$C"
test_done
