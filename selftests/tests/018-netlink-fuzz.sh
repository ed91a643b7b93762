#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Netlink fuzzer (selftests/nl_fuzz/) against the loaded module:
# thousands of malformed requests to every command, and to command numbers
# rmem does not have, each refused with an extack message unless the
# genetlink core refuses it first; none accepted, none unanswered, nothing
# created.  Then mutating requests without CAP_NET_ADMIN get -EPERM.  The
# lab teardown fails the test on any BUG/WARNING/Oops in the kernel log.
source "$(dirname "$0")/../lib.sh"

FUZZ=$REPO/selftests/bin/rmem_nl_fuzz
FIXED_SEED=20260101
DATE_SEED=$(date +%s)

[ -x "$FUZZ" ] || { echo "# $FUZZ missing: make -C selftests"; exit 1; }

lab_start one || exit 1
H=$LAB_CLIENT

check "rmem.ko loads" rmem_load "$H"
check "fuzz, 5000 messages, fixed seed $FIXED_SEED" vm "$H" "$FUZZ -n 5000 -s $FIXED_SEED"
echo "# seed from the date: $DATE_SEED (replay: $FUZZ -n 5000 -s $DATE_SEED)"
check "fuzz, 5000 messages, seed $DATE_SEED" vm "$H" "$FUZZ -n 5000 -s $DATE_SEED"
check "unprivileged mutating requests get -EPERM" vm "$H" "$FUZZ -u -s $DATE_SEED"
check "rmemctl -j server show: []" vm "$H" "[ \"\$($R -j server show)\" = '[]' ]"
check "rmemctl -j dev show: []" vm "$H" "[ \"\$($R -j dev show)\" = '[]' ]"
check "rmemctl -j volume show: []" vm "$H" "[ \"\$($R -j volume show)\" = '[]' ]"
check "rmem.ko unloads" rmem_unload "$H"
test_done
