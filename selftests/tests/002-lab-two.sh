#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rmem-suite: long (run.sh; make check-long): the lab's own two-VM wiring;
# every two-VM test in make check stands on it
# rmem-kernels: newest (run.sh): the lab's own two-VM wiring (perftest,
# rping); every kernel's group boots two VMs in its other tests
# Two-VM lab: server and client each with rxe0 on a virtio NIC, wired by a
# QEMU UDP socket.  Raw verbs (perftest) and rdma_cm (rping) work across
# the wire; rmem.ko loads, is reachable by rmemctl and unloads on both.
source "$(dirname "$0")/../lib.sh"

lab_start two || exit 1
S=$LAB_SERVER C=$LAB_CLIENT A=$LAB_SERVER_ADDR

check "server rxe0 ACTIVE" rdma_link_active "$S"
check "client rxe0 ACTIVE" rdma_link_active "$C"
check "IP reachability client -> server" vm "$C" "ping -c 2 -W 5 $A > /dev/null"

read_lat()
{
	lab_exec "$S" "(timeout 120 ib_read_lat -d rxe0 -s 4096 -n 200 > /tmp/lat.log 2>&1 &); sleep 1" || return 1
	local out
	out=$(lab_exec -t 150 "$C" "timeout 120 ib_read_lat -d rxe0 -s 4096 -n 200 $A") || return 1
	echo "$out" | grep -E '^ *4096 +200 ' | awk '{ print "# ib_read_lat 4 KiB: t_typical " $5 " us, t_avg " $6 " us" }'
	echo "$out" | grep -qE '^ *4096 +200 '
}
check "ib_read_lat 4 KiB client -> server (raw verbs)" read_lat
check "rping client -> server (rdma_cm, verified data)" rping_ok "$C" "$S" "$A"

for vm in "$S" "$C"; do
	check "$vm: rmem.ko loads" rmem_load "$vm"
	check "$vm: rmemctl -j dev show gives []" vm "$vm" "[ \"\$($RMEMCTL -j dev show)\" = '[]' ]"
	check "$vm: rmem.ko unloads" rmem_unload "$vm"
done
test_done
