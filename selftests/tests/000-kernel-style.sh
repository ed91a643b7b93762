#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host-side: the kernel code is checkpatch --strict, kernel-doc and sparse
# clean (make lint), sparse against this run's kernel.  No lab needed.
source "$(dirname "$0")/../lib.sh"

style()
{
	local out
	out=$(make -C "$REPO" -s --no-print-directory KDIR="$LAB_KDIR" "$1" 2>&1) && return 0
	echo "$out" | grep -vE '^(deps:|make)' | tail -n 30
	return 1
}
check "checkpatch --strict clean" style checkpatch
check "kernel-doc clean" style kernel-doc
check "sparse clean" style sparse
check "netlink spec matches the uapi header" style check-spec
test_done
