#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh [one|two|both]: rmem against NVMe-oF RDMA and a local RAM disk,
# in one lab boot per topology, over the same Soft-RoCE link:
#
#   rmem       /dev/rmem0 (default settings; QP sweep 1, 2, 4)
#   nvme-rdma  nvmet-rdma exporting a brd disk, nvme connect -t rdma
#   brd        a local RAM disk (the ceiling: RAM without a network)
#   raw        perftest ib_read_lat/ib_write_lat (4 KiB), ib_read_bw/
#              ib_write_bw (1 MiB) on the same rxe device
#
# Identical fio jobs for every block target; results as JSON lines in
# build/bench/<stamp>/results.jsonl, then selftests/bench_report.py prints
# the table and writes results.json, results.csv and the plots.
# BENCH_RUNTIME (seconds per fio job, default 10).

# an rmem pool and two filled RAM disks live in one VM: give it room
: "${LAB_MEM:=2560}"
export LAB_MEM
source "$(dirname "$0")/lib.sh"

RUNTIME=${BENCH_RUNTIME:-10}
STAMP=$(date +%Y%m%d-%H%M%S)
OUT=$REPO/build/bench/$STAMP
mkdir -p "$OUT"
RES=$OUT/results.jsonl
SIZE_MB=256

say() { echo "# bench: $*"; }

# record TOPO TARGET JOB JSON-FRAGMENT
record()
{
	echo "{\"topology\": \"$1\", \"target\": \"$2\", \"job\": \"$3\", $4}" >> "$RES"
}

# fio_job VM DEVICE JOB: run one of the standard jobs, print fio's JSON.
fio_job()
{
	local vm=$1 dev=$2 job=$3 args
	case $job in
	lat-randread)  args="--rw=randread --bs=4k --iodepth=1 --numjobs=1" ;;
	lat-randwrite) args="--rw=randwrite --bs=4k --iodepth=1 --numjobs=1" ;;
	iops-randread) args="--rw=randread --bs=4k --iodepth=32 --numjobs=\$(nproc)" ;;
	iops-randwrite) args="--rw=randwrite --bs=4k --iodepth=32 --numjobs=\$(nproc)" ;;
	bw-read)       args="--rw=read --bs=1M --iodepth=8 --numjobs=1" ;;
	bw-write)      args="--rw=write --bs=1M --iodepth=8 --numjobs=1" ;;
	esac
	lab_exec -t $((RUNTIME * 3 + 120)) "$vm" \
		"fio --name=$job --filename=$dev --direct=1 --ioengine=libaio --size=$((SIZE_MB / 2))M --time_based --runtime=$RUNTIME --ramp_time=1 --group_reporting --percentile_list=50:99:99.9 --output-format=json $args"
}

# fio_record TOPO TARGET VM DEVICE JOB
fio_record()
{
	local json
	json=$(fio_job "$3" "$4" "$5") || { say "$2 $5: fio failed"; return 1; }
	echo "$json" > "$OUT/$1-$2-$5.json"
	record "$1" "$2" "$5" "$(python3 "$LAB_DIR/../bench_fio.py" < "$OUT/$1-$2-$5.json")"
	say "$1 $2 $5: $(tail -n 1 "$RES" | cut -c1-160)"
}

# perf_pair TOPO TOOL ARGS: perftest server on S, client on C.
perf_pair()
{
	local topo=$1 tool=$2 args=$3 out
	lab_exec "$S" "(timeout 120 $tool -d rxe0 $args > /tmp/perf-s.log 2>&1 &); sleep 1" || return 1
	out=$(lab_exec -t 150 "$C" "timeout 120 $tool -d rxe0 $args $A") || { say "$tool failed"; return 1; }
	echo "$out" > "$OUT/$topo-raw-$tool.txt"
	record "$topo" raw "$tool" "$(python3 "$LAB_DIR/../bench_perftest.py" "$tool" < "$OUT/$topo-raw-$tool.txt")"
	say "$topo raw $tool: $(tail -n 1 "$RES" | cut -c1-160)"
}

bench_topology()
{
	local topo=$1 job q
	say "topology $topo: booting"
	lab_start "$topo" || return 1
	S=$LAB_SERVER C=$LAB_CLIENT A=$LAB_SERVER_ADDR

	say "setting up brd, nvmet-rdma, nvme-rdma, rmem"
	# ram0: exported by nvmet on the server; ram1: the client's local disk
	lab_exec "$S" "modprobe brd rd_nr=2 rd_size=$((SIZE_MB * 1024)) && modprobe nvmet-rdma && cd /sys/kernel/config/nvmet && mkdir subsystems/bench && echo 1 > subsystems/bench/attr_allow_any_host && mkdir subsystems/bench/namespaces/1 && echo /dev/ram0 > subsystems/bench/namespaces/1/device_path && echo 1 > subsystems/bench/namespaces/1/enable && mkdir ports/1 && echo rdma > ports/1/addr_trtype && echo ipv4 > ports/1/addr_adrfam && echo $A > ports/1/addr_traddr && echo 4420 > ports/1/addr_trsvcid && ln -s /sys/kernel/config/nvmet/subsystems/bench ports/1/subsystems/bench" || return 1
	[ "$C" = "$S" ] || lab_exec "$C" "modprobe brd rd_nr=2 rd_size=$((SIZE_MB * 1024))" || return 1
	lab_exec -t 120 "$C" "modprobe nvme-rdma && nvme connect -t rdma -a $A -s 4420 -n bench && sleep 2 && ls /dev/nvme*n1" || return 1
	NVME=$(lab_exec "$C" "ls /dev/nvme*n1 | head -n 1")
	rmem_load "$S" || return 1
	[ "$C" = "$S" ] || rmem_load "$C" || return 1
	lab_exec "$S" "$R server add name bench listen $A size $((SIZE_MB + 64))M" || return 1
	lab_exec -t 120 "$C" "$R dev add peer $A size ${SIZE_MB}M" || return 1
	# fill every device once so reads hit written memory everywhere
	lab_exec -t 600 "$C" "for d in /dev/rmem0 $NVME /dev/ram1; do dd if=/dev/zero of=\$d bs=1M count=$SIZE_MB oflag=direct status=none || exit 1; done" || return 1

	say "raw fabric (perftest)"
	perf_pair "$topo" ib_read_lat "-s 4096 -n 2000"
	perf_pair "$topo" ib_write_lat "-s 4096 -n 2000"
	perf_pair "$topo" ib_read_bw "-s 1048576 -n 200"
	perf_pair "$topo" ib_write_bw "-s 1048576 -n 200"

	for job in lat-randread lat-randwrite iops-randread iops-randwrite bw-read bw-write; do
		fio_record "$topo" rmem "$C" /dev/rmem0 "$job"
		fio_record "$topo" nvme-rdma "$C" "$NVME" "$job"
		fio_record "$topo" brd "$C" /dev/ram1 "$job"
	done

	say "rmem QP sweep"
	for q in 1 2 4; do
		lab_exec -t 120 "$C" "$R dev del rmem0 && $R dev add peer $A size ${SIZE_MB}M qps $q > /dev/null" || return 1
		fio_record "$topo" "rmem-qps$q" "$C" /dev/rmem0 iops-randread
	done
	lab_exec -t 120 "$C" "$R dev del rmem0; nvme disconnect -n bench" > /dev/null
	lab_teardown || say "WARNING: bad kernel log lines in topology $topo"
}

topos=${1:-both}
[ "$topos" = both ] && topos="one two"
for t in $topos; do
	( bench_topology "$t" ) || say "topology $t failed"
done
python3 "$LAB_DIR/../bench_report.py" "$OUT"
