#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rmem-kernels: newest (run.sh): 024-swap's phase B drops the link and
# reconnects under load on every kernel; the fault matrix here runs on the
# newest
# Failure detection and reconnect (two VMs; faults injected on the wire):
#
#  A. the server's link drops for 3 s while fio writes and verifies: the
#     device goes "reconnecting", then "live" again; fio sees no error and
#     every block verifies; both transitions are announced as events;
#     the attempts are traced (rmem_reconnect);
#  B. the client's own link stays down beyond the loss timeout (rxe then
#     holds its work requests instead of failing them: the probe deadline
#     finds it, traced: rmem_probe_miss): the device goes dead,
#     reads fail with EIO (never zeros), it stays dead when the link comes
#     back, and the server frees the memory once its hold time is over;
#  C. the server loses the session (server del + add: a new pool): the
#     client's reconnect is refused and the device is dead at once;
#  D. dev del force of a reconnecting device returns promptly and fails
#     the I/O it held;
#  E. server del with a client attached (and no server coming back): the
#     client's first reconnect finds no listener, so the memory is gone:
#     the device is dead at once, long before its loss timeout;
#  F. (before E) a link flap while the server sends READY for a reconnect
#     (delayed by a testing-only parameter to open the window): the READY
#     fails, the server holds the session, the next reconnect gets it;
#  G. (before E) the loss deadline passes before the reconnect work
#     started (delayed by a testing-only parameter, as if queued behind
#     others): the reads in flight on the lost queue pairs (the client's
#     link is down: rxe holds them) fail at the deadline, not at their
#     30 s timeout.
#
# Times from fault to detection, recovery and death are printed.
source "$(dirname "$0")/../lib.sh"

lab_start two || exit 1
S=$LAB_SERVER C=$LAB_CLIENT A=$LAB_SERVER_ADDR

# wait_state DEV STATE TIMEOUT: poll dev show until DEV is in STATE; print
# the seconds it took; fail after TIMEOUT seconds.
wait_state()
{
	lab_exec -t $(($3 + 30)) "$C" "t0=\$(date +%s%N); while [ \$((\$(date +%s%N) - t0)) -lt $3000000000 ]; do
		s=\$($R -j dev show $1 | python3 -c 'import json, sys; print(json.load(sys.stdin)[0][\"state\"])')
		if [ \"\$s\" = $2 ]; then echo \$(( (\$(date +%s%N) - t0) / 1000000 )); exit 0; fi
		sleep 0.2
	done; echo \"state \$s, not $2\"; exit 1"
}

# server_freed TRIES TIMEOUT: the server's pool has nothing in use, within TRIES
# looks a second apart (the command gives up after TIMEOUT seconds).
server_freed()
{
	vm -t $2 "$S" "for i in \$(seq $1); do [ \"\$($R -j server show | python3 -c 'import json, sys; print(json.load(sys.stdin)[0][\"used\"])')\" = 0 ] && exit 0; sleep 1; done; exit 1"
}

# read_fails DEV: a direct read of DEV fails (EIO), it does not return data.
read_fails() { vm "$C" "! dd if=/dev/$1 of=/dev/null bs=4k count=1 iflag=direct 2>/tmp/dd.err; grep -q 'Input/output error' /tmp/dd.err"; }

rmem_load "$S" || exit 1
rmem_load "$C" || exit 1
check "server" vm "$S" "$R server add name s0 listen $A size 96M > /dev/null"
vm "$C" "($R -j monitor > /tmp/monitor.log 2>&1 &)"

echo "# A: transient link loss under fio verify"
# A's loss timeout: 20 s, 60 s on the debug kernel, where noticing the
# loss, the 3 s and setting the link up again took 23 s (6.12, 2026-11-27:
# the device rightly went dead at 20 s, just before the link came back)
LT_A=20
[ -z "${RMEM_LAB_KERNEL:-}" ] || LT_A=60
check "attach with keepalive 500ms loss-timeout ${LT_A}s" vm -t 120 "$C" \
	"$R dev add peer $A size 64M keepalive 500ms loss-timeout ${LT_A}s"
expect_eq "dev show reports the timeouts" "500 ${LT_A}000" json "$C" \
	"(j[0]['keepalive_ms'], j[0]['loss_timeout_ms'])" dev show
vm "$C" "rm -f /tmp/fio.rc; (fio --name=v --filename=/dev/rmem0 --direct=1 --ioengine=libaio --iodepth=8 --rw=randwrite --bsrange=4k-64k --size=48M --verify=crc32c --verify_fatal=1 --do_verify=1 > /tmp/fio.out 2>&1; echo \$? > /tmp/fio.rc.new; mv /tmp/fio.rc.new /tmp/fio.rc) > /dev/null 2>&1 &"
sleep 4
check "fio is writing when the link goes" vm "$C" "[ ! -e /tmp/fio.rc ] && pgrep -x fio > /dev/null"
# the reconnect and probe tracepoints (issue 18): A traces the attempts,
# B (no I/O: only the probe can find the loss) the unanswered probe
TR=/sys/kernel/tracing
check "tracing rmem_reconnect and rmem_probe_miss" vm "$C" \
	"{ [ -d $TR/events ] || mount -t tracefs nodev $TR; } && echo > $TR/trace && echo 1 > $TR/events/rmem/rmem_reconnect/enable && echo 1 > $TR/events/rmem/rmem_probe_miss/enable"
lab_link "$S" off
T=$(wait_state rmem0 reconnecting 20) && echo "# ok: loss detected after $T ms" ||
	{ echo "# FAIL: loss not detected: $T"; LAB_FAILS=$((LAB_FAILS + 1)); }
sleep 3
lab_link "$S" on
T=$(wait_state rmem0 live 40) && echo "# ok: live again $T ms after the link came back" ||
	{ echo "# FAIL: no reconnect: $T"; LAB_FAILS=$((LAB_FAILS + 1)); }
check "fio finished: no error, every block verified" vm -t 600 "$C" \
	"while [ ! -e /tmp/fio.rc ]; do sleep 1; done; grep -E 'err=|WRITE:|READ:' /tmp/fio.out; [ \$(cat /tmp/fio.rc) = 0 ] && grep -q 'READ: .*io=48.0MiB' /tmp/fio.out"
# one reconnect is usual; a lossy moment after the link returns may cost
# more (seen: 8), each without an I/O error
check "reconnected (at least once), no I/O error counted" vm "$C" \
	"$R -j dev show | python3 -c 'import json, sys; d = json.load(sys.stdin)[0]; print(\"# reconnects\", d[\"reconnects\"]); sys.exit(not (d[\"reconnects\"] >= 1 and d[\"stats\"][\"errors\"] == 0))'"
check "events: reconnecting, then live" vm "$C" \
	"grep -o '\"state\": *\"[a-z]*\"' /tmp/monitor.log | tr -d ' \"' | tr '\n' ' ' | grep -q 'state:reconnecting state:live'"
check "kernel log: reconnected after N ms" vm "$C" "dmesg | grep -E 'rmem0: reconnected to .* after [0-9]+ ms'"
check "rmem_reconnect traced each attempt: device, attempt number, time since the loss" vm "$C" \
	"grep rmem_reconnect: $TR/trace | head -n 2 >&2; grep -Eq 'rmem_reconnect: rmem0 attempt 1, [0-9]+ ms after the loss' $TR/trace"
check "detach" vm -t 60 "$C" "$R dev del rmem0"
expect_eq "detach released the memory on the server at once" "0" json "$S" "j[0]['used']" server show

echo "# B: loss beyond the loss timeout"
check "attach with loss-timeout 4s" vm -t 120 "$C" \
	"$R dev add peer $A size 16M keepalive 500ms loss-timeout 4s > /dev/null && python3 -c 'import sys; sys.stdout.buffer.write(bytes([0xaa]) * 65536)' | dd of=/dev/rmem0 bs=64k oflag=direct status=none"
vm "$C" "echo > $TR/trace"
lab_link "$C" off
T=$(wait_state rmem0 dead 40) && echo "# ok: dead $T ms after the link went down" ||
	{ echo "# FAIL: not dead: $T"; LAB_FAILS=$((LAB_FAILS + 1)); }
check "rmem_probe_miss traced the unanswered probe: device, time late, status" vm "$C" \
	"grep rmem_probe_miss: $TR/trace | head -n 2 >&2; grep -Eq 'rmem_probe_miss: rmem0 probe unanswered for [0-9]+ ms, work completion status -?[0-9]+' $TR/trace"
vm "$C" "echo 0 > $TR/events/rmem/rmem_reconnect/enable; echo 0 > $TR/events/rmem/rmem_probe_miss/enable"
check "a read fails with EIO (no zeros, no stale data)" read_fails rmem0
lab_link "$C" on
sleep 3
expect_eq "still dead after the link came back" "dead" json "$C" "j[0]['state']" dev show
check "a read still fails" read_fails rmem0
check "the server frees the memory when its hold time is over" server_freed 60 90
check "dev del of the dead device" vm -t 30 "$C" "$R dev del rmem0"

echo "# C: the server lost the session"
check "attach with keepalive 500ms loss-timeout 30s" vm -t 120 "$C" "$R dev add peer $A size 16M keepalive 500ms loss-timeout 30s > /dev/null"
# the client is cut off while the server is replaced, so that its first
# reconnect meets the new server (not the moment with no listener, E)
lab_link "$C" off
check "server del + add: a new pool, the session is gone" vm -t 60 "$S" \
	"$R server del s0 && $R server add name s0 listen $A size 96M > /dev/null"
T=$(wait_state rmem0 reconnecting 20) && echo "# ok: loss detected after $T ms" ||
	{ echo "# FAIL: loss not detected: $T"; LAB_FAILS=$((LAB_FAILS + 1)); }
lab_link "$C" on
T=$(wait_state rmem0 dead 40) && echo "# ok: dead $T ms after the link came back to a server without the session" ||
	{ echo "# FAIL: not dead: $T"; LAB_FAILS=$((LAB_FAILS + 1)); }
check "kernel log says why" vm "$C" "dmesg | grep 'rmem0: the server does not know the session any more' > /dev/null"
check "a read fails with EIO (not the new pool's zeros)" read_fails rmem0
check "dev del" vm -t 30 "$C" "$R dev del rmem0"

echo "# D: dev del (force: a read is waiting) while reconnecting"
check "attach with loss-timeout 60s" vm -t 120 "$C" "$R dev add peer $A size 16M loss-timeout 60s > /dev/null"
lab_link "$S" off
T=$(wait_state rmem0 reconnecting 20) && echo "# ok: reconnecting after $T ms" ||
	{ echo "# FAIL: not reconnecting: $T"; LAB_FAILS=$((LAB_FAILS + 1)); }
vm "$C" "(dd if=/dev/rmem0 of=/dev/null bs=4k count=1 iflag=direct 2> /tmp/dd2.err; echo \$? > /tmp/dd2.rc) > /dev/null 2>&1 &"
# the read is submitted and held by the device (dd waits in the kernel
# for it), not one that would only open the device after it is gone
check "the read is held by the reconnecting device" vm -t 60 "$C" \
	"for i in \$(seq 100); do [ \"\$(ps -o stat= -C dd | cut -c1)\" = D ] && break; sleep 0.2; done; sleep 1; ps -o stat=,args= -C dd; [ ! -e /tmp/dd2.rc ] && [ \"\$(ps -o stat= -C dd | cut -c1)\" = D ]"
T=$(lab_exec -t 60 "$C" "t0=\$(date +%s%N); $R dev del rmem0 force && echo \$(( (\$(date +%s%N) - t0) / 1000000 ))") &&
	echo "# ok: dev del returned after $T ms" ||
	{ echo "# FAIL: dev del: $T"; LAB_FAILS=$((LAB_FAILS + 1)); }
check "the held read failed with EIO" vm -t 30 "$C" \
	"for i in \$(seq 20); do [ -e /tmp/dd2.rc ] && break; sleep 1; done; [ \"\$(cat /tmp/dd2.rc)\" != 0 ] && grep -q 'Input/output error' /tmp/dd2.err"
lab_link "$S" on

echo "# F: a link flap while the server sends READY for a reconnect"
check "attach with keepalive 500ms loss-timeout 60s, write a pattern" vm -t 120 "$C" \
	"$R dev add peer $A size 16M keepalive 500ms loss-timeout 60s > /dev/null && head -c 1M /dev/urandom > /tmp/patf && dd if=/tmp/patf of=/dev/rmem0 bs=1M oflag=direct status=none"
# the server waits 3 s before READY (testing-only parameter): the window
n0=$(lab_exec "$S" "dmesg | grep -c 'reconnected to its session'")
check "server: READY delayed by 3 s" vm "$S" "echo 3000 > /sys/module/rmem/parameters/fault_ready_delay_ms"
lab_link "$C" off
T=$(wait_state rmem0 reconnecting 20) && echo "# ok: loss detected after $T ms" ||
	{ echo "# FAIL: loss not detected: $T"; LAB_FAILS=$((LAB_FAILS + 1)); }
lab_link "$C" on
check "the server takes the reconnect" vm -t 60 "$S" \
	"for i in \$(seq 400); do [ \$(dmesg | grep -c 'reconnected to its session') -gt $n0 ] && exit 0; sleep 0.1; done; exit 1"
# READY is due in 3 s: cut the client off so that it fails
m0=$(lab_exec "$S" "dmesg | grep -c 'lost the connection of'")
lab_link "$C" off
check "READY failed on the server, which holds the session" vm -t 60 "$S" \
	"for i in \$(seq 200); do [ \$(dmesg | grep -c 'lost the connection of') -gt $m0 ] && exit 0; sleep 0.1; done; dmesg | tail -n 5; exit 1"
vm "$S" "echo 0 > /sys/module/rmem/parameters/fault_ready_delay_ms"
lab_link "$C" on
T=$(wait_state rmem0 live 60) && echo "# ok: live again $T ms after the link came back: the session was held" ||
	{ echo "# FAIL: not live again: $T"; LAB_FAILS=$((LAB_FAILS + 1)); }
check "the data is there" vm -t 60 "$C" \
	"dd if=/dev/rmem0 of=/tmp/backf bs=1M count=1 iflag=direct status=none && cmp /tmp/patf /tmp/backf"
check "dev del" vm -t 30 "$C" "$R dev del rmem0"

echo "# G: the loss deadline passes before the reconnect work started"
check "attach with keepalive 500ms loss-timeout 3s" vm -t 120 "$C" \
	"$R dev add peer $A size 16M keepalive 500ms loss-timeout 3s > /dev/null"
check "client: the reconnect work starts 20 s late" vm "$C" \
	"echo 20000 > /sys/module/rmem/parameters/fault_reconnect_delay_ms"
vm "$C" "rm -f /tmp/g.rc; (fio --name=g --filename=/dev/rmem0 --direct=1 --ioengine=libaio --iodepth=4 --rw=randread --bs=4k --time_based --runtime=300 > /tmp/g.out 2>&1; echo \$? > /tmp/g.rc) > /dev/null 2>&1 &"
sleep 2
check "fio reads" vm "$C" "[ ! -e /tmp/g.rc ]"
lab_link "$C" off
T=$(wait_state rmem0 dead 30) && echo "# ok: dead $T ms after the link went down" ||
	{ echo "# FAIL: not dead: $T"; LAB_FAILS=$((LAB_FAILS + 1)); }
check "the reads in flight failed at the deadline (fio ended within 5 s), not at their timeout" vm -t 30 "$C" \
	"for i in \$(seq 50); do [ -e /tmp/g.rc ] && break; sleep 0.1; done; [ -e /tmp/g.rc ] && [ \"\$(cat /tmp/g.rc)\" != 0 ]"
check "kernel log: dead, the reconnect work not started" vm "$C" \
	"dmesg | grep 'rmem0: no reconnect within the loss timeout (0 attempts; the reconnect work had not started)' > /dev/null"
lab_link "$C" on
check "client: the reconnect work on time again; dev del" vm -t 60 "$C" \
	"echo 0 > /sys/module/rmem/parameters/fault_reconnect_delay_ms && $R dev del rmem0"
# (a dead device sends no LEAVE: the server holds its memory for the
# loss timeout plus 10 s, and E needs the pool)
check "the server frees the memory when its hold time is over" server_freed 90 150

echo "# E: server del with a client attached"
check "attach with keepalive 500ms loss-timeout 120s" vm -t 120 "$C" \
	"$R dev add peer $A size 16M keepalive 500ms loss-timeout 120s > /dev/null"
check "server del" vm -t 60 "$S" "$R server del s0"
# well inside the loss timeout: detection plus one refused attempt
T=$(wait_state rmem0 dead 30) && echo "# ok: dead $T ms after server del" ||
	{ echo "# FAIL: not dead within 30 s of server del (loss timeout 120 s): $T"; LAB_FAILS=$((LAB_FAILS + 1)); }
check "kernel log says why" vm "$C" "dmesg | grep 'rmem0: no rmem server listens at the peer any more' > /dev/null"
check "a read fails with EIO" read_fails rmem0
check "dev del" vm -t 30 "$C" "$R dev del rmem0"
check "cleanup" vm -t 60 "$S" "rmmod rmem"
check "client module unloads" vm -t 60 "$C" "rmmod rmem"
test_done
