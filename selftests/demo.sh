#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh: the main job, step by step, in the two-host lab: the server host
# exports RAM, the client host attaches it as /dev/rmem0, makes a file
# system, writes and reads back a file, shows both sides, detaches.
source "$(dirname "$0")/lib.sh"

step=0
DEMO_ERR=
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
fail() { DEMO_ERR="step $step: $*"; exit 1; }

# run VM CMD: show the command as typed on that host, then its output.
run()
{
	local vm=$1 cmd=$2
	printf '%s# %s\n' "$vm" "$cmd"
	lab_exec "$vm" "PATH=$REPO/user:\$PATH; $cmd" 2>&1 | sed 's/^/    /'
	return "${PIPESTATUS[0]}"
}

next() { step=$((step + 1)); say "step $step: $*"; }

say "booting two hosts (QEMU, Soft-RoCE on each NIC, wired by a UDP socket)"
lab_start two > /dev/null || fail "lab did not boot"
# the lab's teardown checks every kernel log; the verdict comes last
trap 'lab_exit_quiet $? "$DEMO_ERR"' EXIT
S=$LAB_SERVER C=$LAB_CLIENT A=$LAB_SERVER_ADDR
echo "server host 'server' at $A, client host 'client' at $LAB_ADDR_CLIENT"

next "both hosts: the RDMA link and the module"
run "$S" "rdma link show" || fail "no RDMA link on the server"
run "$C" "rdma link show" || fail "no RDMA link on the client"
run "$S" "insmod $RMEM_KO" || fail "cannot load rmem.ko on the server"
run "$C" "insmod $RMEM_KO" || fail "cannot load rmem.ko on the client"

next "server host: export 256 MiB of RAM"
run "$S" "rmemctl server add name mem0 listen $A size 256M" || fail "server add"

next "client host: attach 128 MiB of it as a block device"
run "$C" "rmemctl dev add peer $A size 128M volume demo" || fail "dev add"
run "$C" "lsblk /dev/rmem0" || fail "no /dev/rmem0"

next "client host: make a file system and mount it"
run "$C" "mkfs.ext4 -q /dev/rmem0 && mkdir -p /mnt/remote && mount /dev/rmem0 /mnt/remote && df -h /mnt/remote" ||
	fail "mkfs or mount"

next "client host: write a file, drop the page cache, read it back"
run "$C" "head -c 32M /dev/urandom > /tmp/data && cp /tmp/data /mnt/remote/data && sync && sha256sum /tmp/data /mnt/remote/data" ||
	fail "write"
run "$C" "echo 3 > /proc/sys/vm/drop_caches && cmp /tmp/data /mnt/remote/data && echo 'read back: identical'" ||
	fail "read back differs"

next "both sides' view"
run "$C" "rmemctl dev show" || fail "dev show"
run "$S" "rmemctl server show" || fail "server show"

next "client host: unmount and detach"
run "$C" "umount /mnt/remote && rmemctl dev del rmem0 && rmemctl dev show" || fail "detach"
run "$S" "rmemctl volume show" || fail "volume show"

next "clean up"
run "$S" "rmemctl volume del server mem0 volume demo && rmemctl server del mem0" || fail "cleanup"
