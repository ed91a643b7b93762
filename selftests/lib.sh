# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Common helpers for rmem selftests; sources the lab.
source "$(dirname "${BASH_SOURCE[0]}")/lab/lab.sh"

RMEM_KO=$REPO/kernel/rmem.ko
RMEMCTL=$REPO/user/rmemctl

# vm VM CMD...: lab_exec that returns success/failure for check().
vm() { lab_exec "$@"; }

# rmem_load VM / rmem_unload VM
rmem_load() { lab_exec "$1" "insmod $RMEM_KO"; }
rmem_unload() { lab_exec "$1" "rmmod rmem"; }

# rdma_link_active VM: rxe0 is up and ACTIVE.
rdma_link_active() { lab_exec "$1" "rdma link show rxe0/1 | grep -q 'state ACTIVE'"; }

# rping_ok CLIENT_VM SERVER_VM ADDR [COUNT]: an rdma_cm connection plus
# RDMA READ/WRITE ping-pong from CLIENT to SERVER, verified (-V).
rping_ok()
{
	local c=$1 s=$2 addr=$3 count=${4:-10}
	lab_exec "$s" "(timeout 60 rping -s -a $addr -C $count -V > /tmp/rping-s.log 2>&1 &); sleep 1" || return 1
	lab_exec -t 60 "$c" "timeout 30 rping -c -a $addr -C $count -V -v | tail -n 2"
}
