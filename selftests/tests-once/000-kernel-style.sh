#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host-side: the kernel code is checkpatch --strict, kernel-doc and sparse
# clean (make lint), sparse against every lab kernel of the run.  No lab
# needed; once per machine (tests-once/): nothing here boots a kernel.
source "$(dirname "$0")/../lib.sh"

# style TARGET [KDIR]: make TARGET (for KDIR, default the lab's kernel)
style()
{
	local out
	out=$(make -C "$REPO" -s --no-print-directory KDIR="${2:-$LAB_KDIR}" "$1" 2>&1) && return 0
	echo "$out" | grep -vE '^(deps:|make)' | tail -n 30
	return 1
}
check "checkpatch --strict clean" style checkpatch
check "kernel-doc clean" style kernel-doc
# the debug lane: its own tree (LAB_KDIR), which has no Debian headers
if [ -n "${RMEM_LAB_KERNEL:-}" ]; then
	check "sparse clean ($LAB_KVER)" style sparse
else
	for k in ${LAB_KERNELS:-$LAB_KVER}; do
		check "sparse clean ($k)" style sparse "$("$REPO/scripts/kernels.sh" kdir "$k")"
	done
fi
check "netlink spec matches the uapi header" style check-spec
test_done
