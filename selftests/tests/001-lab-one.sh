#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One-VM lab: Soft-RoCE on dummy0, loopback RDMA works, rmem.ko loads,
# registers the genl family that rmemctl resolves, and unloads cleanly.
source "$(dirname "$0")/../lib.sh"

lab_start one || exit 1
H=$LAB_CLIENT A=$LAB_SERVER_ADDR

check "rxe0 is ACTIVE on dummy0" rdma_link_active "$H"
check "rping (rdma_cm + RDMA READ/WRITE) over loopback rxe" rping_ok "$H" "$H" "$A"
check "rmem.ko loads" rmem_load "$H"
check "genl family rmem is registered" vm "$H" "genl ctrl get name rmem | grep -q 'Name: rmem'"
check "rmemctl dev show: empty listing, exit 0" vm "$H" "out=\$($RMEMCTL dev show) && [ -z \"\$out\" ]"
check "rmemctl -j dev show: []" vm "$H" "[ \"\$($RMEMCTL -j dev show)\" = '[]' ]"
check "rmemctl server show: exit 0" vm "$H" "$RMEMCTL server show"
check "rmem.ko unloads" rmem_unload "$H"
check_fail "rmemctl fails once the module is gone" vm "$H" "$RMEMCTL dev show"
check "load/unload 5 times" vm "$H" "for i in 1 2 3 4 5; do insmod $RMEM_KO && rmmod rmem || exit 1; done"
test_done
