#!/bin/bash
# experiment: 1 MiB (BS=) sequential read QD8 on rmem for each ack_timeout x
# read_depth x read_split_kb (ACKS=, DEPTHS=, SPLITS=; the module is reloaded
# for each), nvme-rdma before and after; TOPO=two (default) or one, MTU=
# (default 1500).  SPLITS in KiB, 0 or 64..1024 (the module refuses
# others).  rmem0 is read as attached (the server zeroed it); nvme-rdma's
# brd is filled first.  Prints one RESULT line per run with the client's
# completer_retry_err delta (performance.rst, "Lossy links").
: "${LAB_MEM:=2560}"
export LAB_MEM
source "$(dirname "$0")/lib.sh"
SIZE_MB=256
RUNTIME=${RUNTIME:-10}
lab_start ${TOPO:-two} || exit 1
S=$LAB_SERVER C=$LAB_CLIENT A=$LAB_SERVER_ADDR
for v in $(echo $S $C | tr " " "\n" | sort -u); do lab_exec "$v" "nd=\$(rdma link show rxe0/1 | sed -n 's/.*netdev \([^ ]*\).*/\1/p') && ip link set dev \$nd mtu ${MTU:-1500}; sleep 2; ibv_devinfo -d rxe0 | grep active_mtu"; done
lab_exec "$S" "modprobe brd rd_nr=1 rd_size=$((SIZE_MB * 1024))" && nvmet_export "$S" bench /dev/ram0 "$A" || exit 1
lab_exec -t 120 "$C" "modprobe nvme-rdma && nvme connect -t rdma -a $A -s 4420 -n bench && sleep 2" || exit 1
NVME=$(lab_exec "$C" "ls /dev/nvme*n1 | head -n 1")
rmem_load "$S"; [ "$S" = "$C" ] || rmem_load "$C"
lab_exec "$S" "$R server add name bench listen $A size $((SIZE_MB + 64))M" > /dev/null || exit 1
run() { # name dev
	local out
	local r0=$(lab_exec "$C" "cat /sys/class/infiniband/rxe0/ports/1/hw_counters/completer_retry_err")
	out=$(lab_exec -t 300 "$C" "fio --name=r --filename=$2 --direct=1 --ioengine=libaio --size=$((SIZE_MB / 2))M --time_based --runtime=$RUNTIME --ramp_time=1 --rw=read --bs=${BS:-1M} --iodepth=8 --numjobs=1 --output-format=json | python3 -c 'import json,sys; j=json.load(sys.stdin)[\"jobs\"][0][\"read\"]; print(\"%.1f MB/s %d ios\" % (j[\"bw_bytes\"]/1e6, j[\"total_ios\"]))'")
	local r1=$(lab_exec "$C" "cat /sys/class/infiniband/rxe0/ports/1/hw_counters/completer_retry_err")
	echo "# RESULT $1: $out retries=$((r1 - r0))"
}
lab_exec -t 600 "$C" "dd if=/dev/zero of=$NVME bs=1M count=$SIZE_MB oflag=direct status=none"
run nvme-rdma "$NVME"
for ack in ${ACKS:-14}; do
for depth in ${DEPTHS:-16 4}; do
	for split in ${SPLITS:-0 256 128 64}; do
		# the parameters are read at load: reload the client's module
		# (in one VM the server's too, so it is made again)
		lab_exec -t 120 "$C" "$R dev del rmem0 > /dev/null 2>&1; $R server del bench > /dev/null 2>&1; rmmod rmem && insmod $RMEM_KO ack_timeout=$ack read_depth=$depth read_split_kb=$split" || exit 1
		[ "$S" != "$C" ] || lab_exec "$S" "$R server add name bench listen $A size $((SIZE_MB + 64))M" > /dev/null || exit 1
		lab_exec -t 120 "$C" "$R dev add peer $A size ${SIZE_MB}M > /dev/null" || exit 1
		run "rmem ack=$ack depth=$depth split=${split}k" /dev/rmem0
	done
done
done
run nvme-rdma "$NVME"
lab_exec -t 120 "$C" "$R dev del rmem0; nvme disconnect -n bench" > /dev/null
