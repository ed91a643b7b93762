#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# shell.sh [one|two|three] [VM]: boot a lab topology (default: two) and attach an
# interactive root shell to VM (default: the client, or "host" in the one-VM
# topology).  rmem.ko, rmemctl and the selftests are at their host paths
# inside the VMs.  Leaving the shell (Ctrl-]) powers the lab off.
source "$(dirname "$0")/lab.sh"

topo=${1:-two}
lab_start "$topo" || exit 1
vm=${2:-$LAB_CLIENT}
cat <<MSG
# lab: topology '$topo' is up; VMs: ${LAB_VMS[*]}; server address $LAB_SERVER_ADDR
# lab: in the VM: insmod $RMEM_KO; $REPO/user/rmemctl dev show
# lab: other VMs: socat -,raw,echo=0,escape=0x1d UNIX-CONNECT:$LAB_RUN/<vm>/shell.sock
# lab: attaching to '$vm' (Ctrl-] leaves and powers the lab off)
MSG
if [ -t 0 ]; then
	socat -,raw,echo=0,escape=0x1d "UNIX-CONNECT:$LAB_RUN/$vm/shell.sock"
else
	socat - "UNIX-CONNECT:$LAB_RUN/$vm/shell.sock"
fi
