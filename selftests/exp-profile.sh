#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# experiment (issue 18, item 2): where does a 4 KiB random write at QD32
# spend CPU that a read does not?  One VM (client and server share it, as
# in make bench's one-VM topology); for rmem and nvme-rdma, randread and
# randwrite QD32 under fio while perf samples every CPU (cpu-clock: TCG
# has no hardware counters), then the top symbols and modules of each.
#
#   make module && selftests/exp-profile.sh   (the newest lab kernel; perf is
#   Debian 12's 6.1 and profiled 6.12 on 29 November; LAB_KERNEL=6.1 for 6.1)
#
# RUNTIME: seconds sampled per job (default 10).  Output: build/profile/
# <stamp>/<target>-<job>.{sym,dso}.txt and a summary on stdout.
: "${LAB_MEM:=2560}"
export LAB_MEM
# multi-threaded TCG, as make bench (bench.sh says why)
: "${LAB_TCG_THREAD:=multi}"
export LAB_TCG_THREAD
source "$(dirname "$0")/lib.sh"
SIZE_MB=256
RUNTIME=${RUNTIME:-10}
OUT=$REPO/build/profile/$(date +%Y%m%d-%H%M%S)
mkdir -p "$OUT"
lab_start one || exit 1
H=$LAB_CLIENT A=$LAB_SERVER_ADDR
lab_exec "$H" "command -v perf > /dev/null && perf --version" || { echo "# no perf in the VM"; exit 1; }
lab_exec "$H" "nd=\$(rdma link show rxe0/1 | sed -n 's/.*netdev \([^ ]*\).*/\1/p') && ip link set dev \$nd mtu 9000; sleep 2"
lab_exec "$H" "modprobe brd rd_nr=1 rd_size=$((SIZE_MB * 1024))" && nvmet_export "$H" prof /dev/ram0 "$A" || exit 1
lab_exec -t 120 "$H" "modprobe nvme-rdma && nvme connect -t rdma -a $A -s 4420 -n prof && sleep 2" || exit 1
NVME=$(lab_exec "$H" "ls /dev/nvme*n1 | head -n 1")
rmem_load "$H" || exit 1
lab_exec "$H" "$R server add name prof listen $A size $((SIZE_MB + 64))M > /dev/null && $R dev add peer $A size ${SIZE_MB}M > /dev/null" || exit 1
lab_exec -t 600 "$H" "for d in /dev/rmem0 $NVME; do dd if=/dev/zero of=\$d bs=1M count=$SIZE_MB oflag=direct status=none || exit 1; done" || exit 1

# prof TARGET DEV RW: perf samples every CPU while fio runs for RUNTIME s
# (perf starts fio: under TCG perf's own start takes seconds, and a
# recording started beside fio missed it whole; no call graphs, which
# doubled the sampling's cost)
prof()
{
	local t=$1 dev=$2 rw=$3 f=/tmp/perf.data
	lab_exec -t $((RUNTIME * 3 + 120)) "$H" "perf record -q -e cpu-clock -a -o $f -- fio --name=p --filename=$dev --direct=1 --ioengine=libaio --size=$((SIZE_MB / 2))M --time_based --runtime=$RUNTIME --rw=$rw --bs=4k --iodepth=32 --numjobs=\$(nproc) --group_reporting --output-format=json > /tmp/fio.json 2> /tmp/perf.err" || return 1
	lab_exec -t 300 "$H" "perf report -q -i $f --no-children --sort sym --stdio -g none --percent-limit 0.5" > "$OUT/$t-$rw.sym.txt"
	lab_exec -t 300 "$H" "perf report -q -i $f --no-children --sort dso --stdio -g none" > "$OUT/$t-$rw.dso.txt"
	echo "# $t $rw: $(lab_exec "$H" "python3 -c 'import json; j = json.load(open(\"/tmp/fio.json\"))[\"jobs\"][0]; s = j[\"read\"] if j[\"read\"][\"io_bytes\"] else j[\"write\"]; print(round(s[\"iops\"]), \"IOPS\")'")"
	head -n 25 "$OUT/$t-$rw.sym.txt" | sed 's/^/#   /'
	head -n 8 "$OUT/$t-$rw.dso.txt" | sed 's/^/#   dso /'
}
for rw in randread randwrite; do
	prof rmem /dev/rmem0 "$rw"
	prof nvme-rdma "$NVME" "$rw"
done
lab_exec -t 120 "$H" "$R dev del rmem0; nvme disconnect -n prof" > /dev/null
lab_teardown
echo "# profiles in $OUT"
