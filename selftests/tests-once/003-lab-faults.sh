#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rmem-suite: long (run.sh; make check-long): the lab's fault injection;
# make check's fault tests fail if it does not work
# The lab's fault injection, which later tests rely on: cutting the server's
# link stops RDMA traffic, restoring it brings traffic back, and powering
# the server VM off leaves the client running.  Once per machine
# (tests-once/), on the newest lab kernel: these are QEMU's and the
# guest's network stack's, not rmem's.
source "$(dirname "$0")/../lib.sh"

lab_start two || exit 1
S=$LAB_SERVER C=$LAB_CLIENT A=$LAB_SERVER_ADDR

check "rping works before the cut" rping_ok "$C" "$S" "$A" 3
lab_link "$S" off
check_fail "ping fails with the server's link cut" vm "$C" "ping -c 2 -W 2 $A > /dev/null"
check_fail "rping fails with the server's link cut" vm -t 60 "$C" "timeout 20 rping -c -a $A -C 1 -V"
lab_link "$S" on
check "ping works after the link is restored" vm "$C" "ping -c 3 -W 5 $A > /dev/null"
check "rping works after the link is restored" rping_ok "$C" "$S" "$A" 3

lab_poweroff "$S"
check "server VM is gone after power-off" lab_gone "$S"
check_fail "client sees the server gone" vm "$C" "ping -c 2 -W 2 $A > /dev/null"
check "client VM still runs commands" vm "$C" "true"
test_done
