#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rmem-kernels: newest (run.sh): the RDMA core's removal contract
# (ib_client remove, RDMA_CM_EVENT_DEVICE_REMOVAL) is the same from 6.1 to
# 6.12 and rmem has no compat path in it
# rmem-timeout: 900
#
# The RDMA device goes away under I/O (rdma link del: the same removal a
# driver unbind or a NIC reset makes), two VMs:
#
#  A. on the client, while fio writes and verifies: rdma link del returns
#     within seconds (rmem lets go of the device: no task stuck in D
#     state); the device reconnects; when the link is added again (a new
#     RDMA device) it reconnects over that one and fio finishes with every
#     block verified;
#  A2. on the client, while an attach waits for the server's READY (held
#     20 s by the server's fault_ready_delay_ms): rdma link del returns
#     within seconds (the attach, which the removal callback cannot see,
#     lets go of the device when its queue pair is told), the attach fails
#     with a message, and the device of part A reconnects as in A;
#  B. on the server, with a client attached and reading: rdma link del
#     returns within seconds and removes the server; the client finds no
#     server any more and goes dead (I/O fails, no hang);
#  C. both modules unload afterwards.
source "$(dirname "$0")/../lib.sh"

lab_start two || exit 1
S=$LAB_SERVER C=$LAB_CLIENT A=$LAB_SERVER_ADDR

# state VM DEV: the device's state
state() { lab_exec "$1" "cat /sys/block/$2/rmem/state 2>/dev/null"; }
# wait_state VM DEV STATE SECONDS
wait_state()
{
	lab_exec -t $(($4 + 30)) "$1" "for i in \$(seq $(($4 * 5))); do [ \"\$(cat /sys/block/$2/rmem/state)\" = $3 ] && exit 0; sleep 0.2; done; echo state \$(cat /sys/block/$2/rmem/state); exit 1"
}
# link_del VM: rdma link del rxe0; prints the seconds it took
link_del()
{
	lab_exec -t 120 "$1" "t0=\$(date +%s%N); timeout 60 rdma link del rxe0 || exit 1; echo \$(( (\$(date +%s%N) - t0) / 1000000 ))"
}
link_add() { lab_exec -t 60 "$1" "rdma link add rxe0 type rxe netdev eth0 && for i in \$(seq 50); do rdma link show rxe0/1 | grep -q ACTIVE && exit 0; sleep 0.2; done; exit 1"; }
# no_d_state VM: no task stays in D state (uninterruptible) across three
# samples 1 s apart.  One sample is not enough: a task only passing
# through D is not hung (30 November, 6.1: the check's own grep, paging
# in over 9p, was in D when ps looked).  The tasks of each sample, by PID.
no_d_state()
{
	lab_exec "$1" "for i in 1 2 3; do ps -eo pid,stat,comm | awk '\$2 ~ /^D/ {print \$1, \$3}' | sort > /tmp/dstate\$i; [ \$i = 3 ] || sleep 1; done; s=\$(comm -12 /tmp/dstate1 /tmp/dstate2 | comm -12 - /tmp/dstate3); [ -z \"\$s\" ] || { echo \"\$s\"; exit 1; }"
}

rmem_load "$S" || exit 1
rmem_load "$C" || exit 1
check "server" vm "$S" "$R server add name s0 listen $A size 96M > /dev/null"

echo "# A: the client's RDMA device goes away under fio"
check "attach (loss-timeout 60s)" vm -t 120 "$C" \
	"$R dev add peer $A size 64M qps 2 keepalive 500ms loss-timeout 60s > /dev/null"
vm "$C" "rm -f /tmp/fio.rc; (fio --name=v --filename=/dev/rmem0 --direct=1 --ioengine=libaio --iodepth=8 --rw=randwrite --bsrange=4k-64k --size=32M --verify=crc32c --verify_fatal=1 --do_verify=1 > /tmp/fio.out 2>&1; echo \$? > /tmp/fio.rc.new; mv /tmp/fio.rc.new /tmp/fio.rc) > /dev/null 2>&1 &"
sleep 4
check "fio is running when the device goes" vm "$C" "[ ! -e /tmp/fio.rc ] && pgrep -x fio > /dev/null"
T=$(link_del "$C") && echo "# ok: client rdma link del returned after $T ms" ||
	{ echo "# FAIL: client rdma link del: $T"; LAB_FAILS=$((LAB_FAILS + 1)); }
check "within 20 s" test "${T:-99999}" -lt 20000
check "no task in D state" no_d_state "$C"
expect_eq "the device reconnects (no RDMA device yet)" "reconnecting" state "$C" rmem0
check "a new RDMA device on the same link" link_add "$C"
check "live again, over the new device" wait_state "$C" rmem0 live 60
check "fio finished: no error, every block verified" vm -t 600 "$C" \
	"while [ ! -e /tmp/fio.rc ]; do sleep 1; done; grep -E 'err=|WRITE:|READ:' /tmp/fio.out; [ \$(cat /tmp/fio.rc) = 0 ] && grep -q 'READ: .*io=32.0MiB' /tmp/fio.out"
check "the kernel log names the removal" vm "$C" "dmesg | grep 'RDMA device rxe0 is being removed' > /dev/null"

echo "# A2: the client's RDMA device goes away during an attach"
P=/sys/module/rmem/parameters
# below the client's 60 s READY timeout on the debug kernel too
DELAY=$((LAB_SLOW > 1 ? 45000 : 20000))
u0=$(json "$S" "j[0]['used']" server show)
check "server: READY delayed by $DELAY ms" vm "$S" "echo $DELAY > $P/fault_ready_delay_ms"
vm "$C" "rm -f /tmp/add.rc; ($R dev add peer $A size 8M > /tmp/add.out 2>&1; echo \$? > /tmp/add.rc.new; mv /tmp/add.rc.new /tmp/add.rc) > /dev/null 2>&1 &"
# the server took the memory and waits before READY
for i in $(seq 100); do
	u=$(json "$S" "j[0]['used']" server show)
	[[ $u =~ ^[0-9]+$ ]] && [ "$u" -gt "${u0:-0}" ] && break
	sleep 0.2
done
check "the attach waits for READY (server memory in use: $u0, then $u)" test "${u:-0}" -gt "${u0:-0}"
check "it is still waiting" vm "$C" "[ ! -e /tmp/add.rc ]"
T=$(link_del "$C") && echo "# ok: client rdma link del returned after $T ms" ||
	{ echo "# FAIL: client rdma link del: $T"; LAB_FAILS=$((LAB_FAILS + 1)); }
check "within half the READY delay" test "${T:-99999}" -lt $((DELAY / 2))
check "the attach failed with a message, at once" vm -t 30 "$C" \
	"for i in \$(seq 50); do [ -e /tmp/add.rc ] && break; sleep 0.2; done; cat /tmp/add.out; [ \"\$(cat /tmp/add.rc)\" != 0 ] && grep -q 'connection failed during session setup' /tmp/add.out"
expect_eq "no second device" "rmem0" vm "$C" "ls /sys/block | grep rmem"
check "no task in D state" no_d_state "$C"
vm "$S" "echo 0 > $P/fault_ready_delay_ms"
check "a new RDMA device on the same link" link_add "$C"
check "rmem0 live again" wait_state "$C" rmem0 live 60

echo "# B: the server's RDMA device goes away"
check "a fresh device with loss-timeout 10s" vm -t 120 "$C" \
	"$R dev del rmem0 && $R dev add peer $A size 32M keepalive 500ms loss-timeout 10s > /dev/null"
# reads the device over and over until a read fails (one pass takes a few
# seconds: a single dd could finish before the server goes)
vm "$C" "rm -f /tmp/dd.rc; (while dd if=/dev/rmem0 of=/dev/null bs=64k iflag=direct 2>/tmp/dd.err; do :; done; echo 1 > /tmp/dd.rc) > /dev/null 2>&1 &"
sleep 2
check "the reader is running when the server's device goes" vm "$C" "[ ! -e /tmp/dd.rc ]"
T=$(link_del "$S") && echo "# ok: server rdma link del returned after $T ms" ||
	{ echo "# FAIL: server rdma link del: $T"; LAB_FAILS=$((LAB_FAILS + 1)); }
check "within 20 s" test "${T:-99999}" -lt 20000
check "no task in D state on the server" no_d_state "$S"
expect_eq "the server is gone" "" vm "$S" "$R server show"
check "the server's log says why" vm "$S" "dmesg | grep 'server s0: RDMA device rxe0 is being removed' > /dev/null"
check "the client's device goes dead (no server any more)" wait_state "$C" rmem0 dead 60
check "the reader ends with an I/O error, no hang" vm -t 60 "$C" \
	"for i in \$(seq 50); do [ -e /tmp/dd.rc ] && break; sleep 1; done; [ -e /tmp/dd.rc ] && grep -q 'Input/output error' /tmp/dd.err"

echo "# C: unload"
check "client: dev del, unload" vm -t 60 "$C" "$R dev del rmem0 && rmmod rmem"
check "server: unload" vm -t 60 "$S" "rmmod rmem"
check "server: link back, load again" vm -t 60 "$S" "rdma link add rxe0 type rxe netdev eth0 && insmod $RMEM_KO && rmmod rmem"
test_done
