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
# Each target is set up once; for every vm.page-cluster value in
# SWAP_PAGE_CLUSTERS (default "3 0": the kernel's default swap readahead of
# 8 pages, then none, where every major fault is one 4 KiB round trip) the
# workload runs SWAP_RUNS times (default 2; a fresh mkswap/swapon for every
# run).  Targets run one after the other, each set up and torn down in turn
# so that only one holds RAM at a time.  Printed: completion time (with its
# user, system and wait parts), major faults, the latency of the first touch
# of a page (a major fault when it was swapped out), the MiB swapped in and
# out (vmstat) and the ratios to nvme-rdma; per device, its own 4 KiB
# latency at queue depth 1 (fio, O_DIRECT, read and write), which is what a
# major fault waits for.  SWAP_PROFILE=1 adds, per target and page-cluster,
# one more run (not counted) under a system-wide perf profile (cpu-clock,
# the VM has no PMU): every symbol's share in profile-TARGET-pcN.txt, and
# the report sums them by kind (idle, rxe, CRC, copies, ...).  Results in
# build/bench-swap/ (or SWAP_OUT): results.txt and latency.txt (raw),
# swap.json, swap.csv, swap.png and the profiles.
#
# SWAP_TARGETS (default "rmem nvme-rdma zram brd") picks targets.
# before lib.sh, which defaults LAB_MEM to 1024
: "${LAB_MEM:=3072}"
export LAB_MEM
source "$(dirname "$0")/lib.sh"

SET_MIB=${SWAP_SET_MIB:-768}
LIMIT_MIB=${SWAP_LIMIT_MIB:-256}
RUNS=${SWAP_RUNS:-2}
PASSES=${SWAP_PASSES:-1}
DEV_MIB=$((SET_MIB + 128))
MTU=${BENCH_MTU:-9000}
OUT=${SWAP_OUT:-$REPO/build/bench-swap}
TARGETS=" ${SWAP_TARGETS:-rmem nvme-rdma zram brd} "
PCS=${SWAP_PAGE_CLUSTERS:-3 0}
LOAD=$REPO/selftests/bin/rmem_swapload
CG=/sys/fs/cgroup/swapbench

say() { echo "# bench-swap: $*"; }

mkdir -p "$OUT"
: > "$OUT/results.txt"
: > "$OUT/latency.txt"
rm -f "$OUT"/profile-*.txt

lab_start one || exit 1
H=$LAB_CLIENT A=$LAB_SERVER_ADDR

say "MTU $MTU: $(lab_exec "$H" "ip link set dev dummy0 mtu $MTU && for i in \$(seq 10); do ibv_devinfo -d rxe0 | grep -q 'active_mtu.*4096' && break; sleep 0.5; done; ibv_devinfo -d rxe0 | grep active_mtu")"
lab_exec "$H" "mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null; echo +memory > /sys/fs/cgroup/cgroup.subtree_control && mkdir -p $CG && echo ${LIMIT_MIB}M > $CG/memory.max && echo max > $CG/memory.swap.max" ||
	{ say "cannot set up the memory cgroup"; exit 1; }
say "workload: ${SET_MIB} MiB working set, ${LIMIT_MIB} MiB of RAM (memory.max), $PASSES passes, $RUNS runs per target and vm.page-cluster ($PCS)"

# one_run DEV SEED [PERF]: the workload once with swap on DEV (under perf
# record, writing to the guest file PERF, if given); prints its result.
one_run()
{
	local dev=$1 seed=$2 perf=${3:-} pre= post=
	if [ -n "$perf" ]; then
		pre="perf record -q -F 99 -a -g -o $perf > /dev/null 2>&1 & p=\$!; sleep 2;"
		post="kill -TERM \$p; wait \$p;"
	fi
	lab_exec -t 3600 "$H" "mkswap $dev > /dev/null 2>&1 && swapon $dev && sync && echo 3 > /proc/sys/vm/drop_caches && i0=\$(awk '/^pswpin / {print \$2}' /proc/vmstat) && o0=\$(awk '/^pswpout / {print \$2}' /proc/vmstat) && { $pre sh -c 'echo \$\$ > $CG/cgroup.procs && exec $LOAD -p $PASSES -s $seed $SET_MIB'; rc=\$?; $post }; echo vmstat swapin_mib=\$(( (\$(awk '/^pswpin / {print \$2}' /proc/vmstat) - i0) / 256 )) swapout_mib=\$(( (\$(awk '/^pswpout / {print \$2}' /proc/vmstat) - o0) / 256 )); swapoff $dev; exit \$rc"
}

# devlat NAME DEV: DEV's 4 KiB latency at queue depth 1, read and write.
devlat()
{
	local name=$1 dev=$2 rw lat line="target=$name"
	for rw in read write; do
		lat=$(lab_exec -t 300 "$H" "fio --name=lat --filename=$dev --rw=rand$rw --bs=4k --iodepth=1 --direct=1 --ioengine=psync --size=256M --runtime=15 --time_based --output-format=json | python3 -c 'import json, sys; j = json.load(sys.stdin)[\"jobs\"][0]; print(\"%.1f\" % (j[\"$rw\"][\"clat_ns\"][\"mean\"] / 1000))'") ||
			{ say "$name: fio $rw failed"; return 1; }
		line+=" ${rw}_us=$lat"
	done
	say "$name 4 KiB QD1 latency: $line"
	echo "$line" >> "$OUT/latency.txt"
}

# profile NAME PC DEV: one more run (not counted) under perf, reported.
profile()
{
	local name=$1 pc=$2 dev=$3 data=/tmp/perf.$1.data
	one_run "$dev" 99 "$data" > /dev/null || { say "$name: profiled run failed"; return 1; }
	lab_exec -t 900 "$H" "perf report -i $data --no-children --sort sym --stdio -g none 2> /dev/null | grep -v '^#' | grep .; rm -f $data" > "$OUT/profile-$name-pc$pc.txt"
	say "$name profile: $OUT/profile-$name-pc$pc.txt"
}

# run_target NAME DEV: for each page-cluster, RUNS runs of the workload
# with swap on DEV (and the profiled run with SWAP_PROFILE=1); then the
# device's own latency.
run_target()
{
	local name=$1 dev=$2 pc run out res vms
	for pc in $PCS; do
		lab_exec "$H" "echo $pc > /proc/sys/vm/page-cluster" || return 1
		for run in $(seq "$RUNS"); do
			out=$(one_run "$dev" "$run")
			local rc=$?
			res=$(echo "$out" | grep '^swapload ')
			vms=$(echo "$out" | grep '^vmstat ')
			say "$name page-cluster $pc run $run: ${res:-$out} ${vms#vmstat }"
			if [ $rc -ne 0 ] || ! echo "$res" | grep -q ' errors=0 '; then
				say "$name run $run FAILED (exit $rc)"
				return 1
			fi
			echo "target=$name pc=$pc run=$run ${res#swapload } ${vms#vmstat }" >> "$OUT/results.txt"
		done
		[ -z "${SWAP_PROFILE:-}" ] || profile "$name" "$pc" "$dev"
	done
	lab_exec "$H" "echo 3 > /proc/sys/vm/page-cluster"
	devlat "$name" "$dev"
}

# want TARGET: whether TARGET is in SWAP_TARGETS
want() { [[ $TARGETS == *" $1 "* ]]; }

fail=0

if want rmem; then
say "rmem"
rmem_load "$H" || exit 1
lab_exec -t 300 "$H" "$R server add name s0 listen $A size $((DEV_MIB + 64))M > /dev/null && $R dev add peer $A size ${DEV_MIB}M > /dev/null && $R dev show rmem0" | sed 's/^/# /'
[ "${PIPESTATUS[0]}" -eq 0 ] || { say "rmem setup failed"; exit 1; }
run_target rmem /dev/rmem0 || fail=1
lab_exec -t 120 "$H" "$R dev del rmem0 && $R server del s0 && rmmod rmem"
fi

if want nvme-rdma; then
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
fi

if want zram; then
say "zram"
lab_exec "$H" "modprobe zram num_devices=1 && echo ${DEV_MIB}M > /sys/block/zram0/disksize && cat /sys/block/zram0/comp_algorithm" | sed 's/^/# zram algorithms: /'
run_target zram /dev/zram0 || fail=1
lab_exec "$H" "echo 1 > /sys/block/zram0/reset; rmmod zram"
fi

if want brd; then
say "brd"
lab_exec "$H" "modprobe brd rd_nr=1 rd_size=$((DEV_MIB * 1024))"
run_target brd /dev/ram0 || fail=1
lab_exec "$H" "rmmod brd"
fi

python3 "$REPO/selftests/bench_swap_report.py" "$OUT" || fail=1
[ $fail -eq 0 ]
