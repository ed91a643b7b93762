#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The C netlink ABI test (kselftest harness) against the loaded module:
# family, dumps, policy rejections and their extack text.
source "$(dirname "$0")/../lib.sh"

lab_start one || exit 1
H=$LAB_CLIENT

check "rmem.ko loads" rmem_load "$H"
check "rmem_nl_test passes" vm "$H" "$REPO/selftests/bin/rmem_nl_test"
check "rmem.ko unloads" rmem_unload "$H"
test_done
