#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench_swap.sh: swap over the fabric against local alternatives (make
# bench-swap).  One lab VM (rxe on dummy0, MTU 9000 as in make bench); a
# memory cgroup limits the workload to SWAP_LIMIT_MIB of RAM and
# selftests/rmem_swapload runs the same fixed work on a working set of
# SWAP_SET_MIB (3x the limit by default): write every page, then PASSES
# passes that check and rewrite every page, then a final check.  Swap on:
#
#   rmem        /dev/rmem0, attached to the VM's own rmem server
#   nvme-rdma   nvmet-rdma exporting a brd disk, nvme connect -t rdma over
#               the same rxe link
#   zram        local compressed RAM (lzo-rle; the pattern is random, so
#               it does not compress: zram's best case is not this one)
#   brd         a local RAM disk: swap without any network
#
# The targets run one after the other, SWAP_RUNS times each (a fresh
# mkswap/swapon for every run), each set up and torn down in turn so that
# only one holds RAM at a time.  Printed: completion time, major faults,
# the latency of the first touch of a page (a major fault when it was
# swapped out) and the ratios to nvme-rdma.  Results in build/bench-swap/:
# results.txt (raw), swap.json, swap.csv and swap.png.
source "$(dirname "$0")/lib.sh"

SET_MIB=${SWAP_SET_MIB:-768}
LIMIT_MIB=${SWAP_LIMIT_MIB:-256}
RUNS=${SWAP_RUNS:-2}
PASSES=${SWAP_PASSES:-1}
DEV_MIB=$((SET_MIB + 128))
: "${LAB_MEM:=3072}"
export LAB_MEM
MTU=${BENCH_MTU:-9000}
OUT=$REPO/build/bench-swap
LOAD=$REPO/selftests/bin/rmem_swapload
CG=/sys/fs/cgroup/swapbench

say() { echo "# bench-swap: $*"; }

mkdir -p "$OUT"
: > "$OUT/results.txt"

lab_start one || exit 1
H=$LAB_CLIENT A=$LAB_SERVER_ADDR

say "MTU $MTU: $(lab_exec "$H" "ip link set dev dummy0 mtu $MTU && for i in \$(seq 10); do ibv_devinfo -d rxe0 | grep -q 'active_mtu.*4096' && break; sleep 0.5; done; ibv_devinfo -d rxe0 | grep active_mtu")"
lab_exec "$H" "mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null; echo +memory > /sys/fs/cgroup/cgroup.subtree_control && mkdir -p $CG && echo ${LIMIT_MIB}M > $CG/memory.max && echo max > $CG/memory.swap.max" ||
	{ say "cannot set up the memory cgroup"; exit 1; }
say "workload: ${SET_MIB} MiB working set, ${LIMIT_MIB} MiB of RAM (memory.max), $PASSES passes, $RUNS runs per target"

# run_target NAME DEV: RUNS runs of the workload with swap on DEV.
run_target()
{
	local name=$1 dev=$2 run out
	for run in $(seq "$RUNS"); do
		out=$(lab_exec -t 3600 "$H" "mkswap $dev > /dev/null && swapon $dev && sync && echo 3 > /proc/sys/vm/drop_caches && sh -c 'echo \$\$ > $CG/cgroup.procs && exec $LOAD -p $PASSES -s $run $SET_MIB'; rc=\$?; swapoff $dev; exit \$rc")
		local rc=$?
		say "$name run $run: $out"
		if [ $rc -ne 0 ] || ! echo "$out" | grep -q ' errors=0 '; then
			say "$name run $run FAILED (exit $rc)"
			return 1
		fi
		echo "target=$name run=$run ${out#swapload }" >> "$OUT/results.txt"
	done
}

fail=0

say "rmem"
rmem_load "$H" || exit 1
lab_exec -t 300 "$H" "$R server add name s0 listen $A size $((DEV_MIB + 64))M > /dev/null && $R dev add peer $A size ${DEV_MIB}M > /dev/null && $R dev show rmem0" | sed 's/^/# /'
run_target rmem /dev/rmem0 || fail=1
lab_exec -t 120 "$H" "$R dev del rmem0 && $R server del s0 && rmmod rmem"

say "nvme-rdma"
{ lab_exec "$H" "modprobe brd rd_nr=1 rd_size=$((DEV_MIB * 1024))" &&
	nvmet_export "$H" swapb /dev/ram0 "$A" &&
	lab_exec -t 120 "$H" "modprobe nvme-rdma && nvme connect -t rdma -a $A -s 4420 -n swapb > /dev/null && sleep 2"; } ||
	{ say "nvme-rdma setup failed"; exit 1; }
NVME=$(lab_exec "$H" "ls /dev/nvme*n1 | head -n 1")
run_target nvme-rdma "$NVME" || fail=1
lab_exec -t 120 "$H" "nvme disconnect -n swapb > /dev/null"
nvmet_unexport "$H" swapb
lab_exec "$H" "sleep 1 && rmmod brd"

say "zram"
lab_exec "$H" "modprobe zram num_devices=1 && echo ${DEV_MIB}M > /sys/block/zram0/disksize && cat /sys/block/zram0/comp_algorithm" | sed 's/^/# zram algorithms: /'
run_target zram /dev/zram0 || fail=1
lab_exec "$H" "echo 1 > /sys/block/zram0/reset; rmmod zram"

say "brd"
lab_exec "$H" "modprobe brd rd_nr=1 rd_size=$((DEV_MIB * 1024))"
run_target brd /dev/ram0 || fail=1
lab_exec "$H" "rmmod brd"

python3 "$REPO/selftests/bench_swap_report.py" "$OUT" || fail=1
[ $fail -eq 0 ]
