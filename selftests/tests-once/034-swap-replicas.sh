#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Swap over three servers with replicas 2 (lab topology "three"; issue
# 19's acceptance): the client VM has 256 MiB of RAM and swaps with
# discard on a thin device (1 MiB extents) whose extents each have a copy
# on two of three servers.  rmem_swapload writes a working set of 256 MiB
# and checks it page by page (-p 1: written once, checked once); a server
# VM is powered off while it swaps:
#  - the workload never waits for the lost server (another copy of each
#    extent is current) and every page it reads back is the one it wrote;
#  - the device stays live, the lost server goes dead at the loss
#    timeout, and the resync gives its extents new copies on the two
#    others (nothing degraded);
#  - once the workload exits its swap is discarded and the extents go
#    back to the servers;
#  - swapoff brings every page back; no hung task, allocation failure,
#    OOM kill or I/O error in the client's kernel log.
# This is also the thin swap with discard of 024 (its phase C, run only
# in the long suite), under replicas.
# The probes go every 2 s (a loss after 6 s): with 1 s probes the client
# VM, starved by four TCG VMs on two host cores, twice lost all three
# connections at once for no failure (2 December); each such flap leaves
# copies stale (writes went on to the other copy) until the resync, and
# s3's power-off in that window lost an extent's last current copy (the
# device, rightly, went dead).  The servers' probes of the client flap
# too: s3 goes once nothing is degraded (30 s at most), so that the test
# is one failure, as the issue's acceptance asks.
# rmem-timeout: 1200 (298 s on 2 December, alone on the slow machine;
# four TCG VMs on two host cores: a set of 384 MiB once ran out of 900 s
# with compiles on the host)
source "$(dirname "$0")/../lib.sh"

SET_MIB=${RMEM_SWAP_SET_MIB:-256}
LAB_MEM_CLIENT=256
LAB_MEM_SERVER1=768 LAB_MEM_SERVER2=768 LAB_MEM_SERVER3=768
THREE_POOL=448M
export LAB_MEM_CLIENT LAB_MEM_SERVER1 LAB_MEM_SERVER2 LAB_MEM_SERVER3
LOAD=$REPO/selftests/bin/rmem_swapload
PSWPOUT="awk '/^pswpout/ {print \$2}' /proc/vmstat"
# held: the device's extents held, degraded, and its discards so far
held="$R -j dev show rmem0 | python3 -c 'import json, sys; d = json.load(sys.stdin)[0]; print(d[\"extents_held\"], d[\"extents_degraded\"], d[\"stats\"][\"discards\"])'"

three_servers_start || exit 1
check "client VM has $LAB_MEM_CLIENT MiB, a 16 MiB free reserve" vm "$H" \
	"[ \$(awk '/^MemTotal:/ {print int(\$2 / 1024)}' /proc/meminfo) -le $LAB_MEM_CLIENT ] && echo 16384 > /proc/sys/vm/min_free_kbytes"
check "a thin device of $((SET_MIB * 4)) MiB over the three, replicas 2, 1 MiB extents, 2 s probes; swapon --discard=pages" vm -t 120 "$H" \
	"$R dev add peer $P1 peer $P2 peer $P3 size $((SET_MIB * 4))M extent 1M replicas 2 qps 2 keepalive 2s loss-timeout 60s > /dev/null && mkswap /dev/rmem0 > /dev/null && swapon --discard=pages /dev/rmem0 && grep -q rmem0 /proc/swaps"
b0=$(vm "$H" "$PSWPOUT")
[[ $b0 =~ ^[0-9]+$ ]] || b0=0
vm "$H" "rm -f /tmp/load.rc; ($LOAD -s 7 -p 1 $SET_MIB > /tmp/load.out 2>&1; echo \$? > /tmp/load.rc.new; mv /tmp/load.rc.new /tmp/load.rc) > /dev/null 2>&1 &"
# power s3 off once the workload swaps hard: 20000 pages out
vm -t 300 "$H" "for i in \$(seq 600); do [ \$($PSWPOUT) -gt $((b0 + 20000)) ] && exit 0; sleep 0.5; done; exit 1" ||
	echo "# (the workload did not reach 20000 swapped-out pages; powering off anyway)"
# a flap before (see above) left copies stale: their resync first, for
# 30 s at most, so that the power-off is one failure, not two
vm -t 60 "$H" "for i in \$(seq 150); do set -- \$($held); [ \"\$2\" = 0 ] && exit 0; sleep 0.2; done; exit 1" ||
	echo "# (extents still degraded when s3 goes: a flap's resync had not ended)"
check "the workload is still running when s3 goes" vm "$H" "[ ! -e /tmp/load.rc ]"
echo "# before: $(vm "$H" "set -- \$($held); echo \$1 extents held, \$2 degraded")"
# (a flap of every connection at once, the client VM starved, leaves
# copies stale until the resync: a server lost before that loses data)
echo "# reconnects so far (s1 s2 s3): $(peers reconnects)"
lab_poweroff "$S3"
# a dead device fails the test at once (its swap-ins would never end)
check "the workload completes, every page intact, the device never dead" vm -t 1200 "$H" \
	"for i in \$(seq 2400); do [ -e /tmp/load.rc ] && break; if grep -qx dead /sys/block/rmem0/rmem/state; then echo 'the device went dead:'; dmesg | grep -E 'rmem' | tail -n 15; exit 1; fi; sleep 0.5; done; cat /tmp/load.out; [ \"\$(cat /tmp/load.rc)\" = 0 ] && grep -q ' errors=0 ' /tmp/load.out"
vm "$H" "cat /tmp/load.out" | sed 's/^/# load: /'
check "swap was used: at least half the set went out to rmem0" vm "$H" \
	"n=\$(( \$($PSWPOUT) - $b0 )); echo \"# \$((n / 256)) MiB swapped out\"; [ \$n -ge $((SET_MIB * 128)) ]"
check "s3's session goes dead at the loss timeout, the others stay live" wait_states "live live dead" 120
expect_eq "the device is live" live json "$H" "j[0]['state']" dev show rmem0
echo "# after: $(vm "$H" "set -- \$($held); echo \$1 extents held, \$2 degraded, \$3 discards; tail -n 1 /proc/swaps")"
# (a cluster goes back only once all its pages are free: the guest's
# other processes keep a few MiB in swap, scattered: 1.2 to 1.4 MiB kept
# 11 to 14 extents, 2.9 MiB kept 51 in one run of 2 December; without
# discards every extent the set touched, over 128, would stay)
check "the freed swap went back: at most $((SET_MIB / 4)) extents held within 60 s" vm -t 120 "$H" \
	"t0=\$(date +%s); while :; do set -- \$($held); [ \"\$1\" -le $((SET_MIB / 4)) ] && break; [ \$((\$(date +%s) - t0)) -ge 60 ] && break; sleep 1; done; echo \"# \$1 extents held, \$2 degraded, \$3 discards\"; [ \"\$1\" -le $((SET_MIB / 4)) ]"
check "resync: nothing degraded within 300 s" vm -t 330 "$H" \
	"for i in \$(seq 1500); do set -- \$($held); [ \"\$2\" = 0 ] && exit 0; sleep 0.2; done; $R dev show rmem0; exit 1"
check "swapoff brings every page back, dev del" vm -t 600 "$H" "swapoff /dev/rmem0 && $R dev del rmem0"
check "client kernel log: no hung task, allocation failure, OOM kill or I/O error" swap_log_clean "$H"
# USED0: a guest command that waits up to 30 s for its server to use
# nothing, and fails if it still does
USED0="for i in \$(seq 100); do [ \"\$($R -j server show | python3 -c 'import json, sys; print(json.load(sys.stdin)[0][\"used\"])')\" = 0 ] && break; sleep 0.3; done; [ \"\$($R -j server show | python3 -c 'import json, sys; print(json.load(sys.stdin)[0][\"used\"])')\" = 0 ]"
check "s1: every extent back, server del, unload" vm -t 60 "$S1" "$USED0 && $R server del s1 && rmmod rmem"
check "s2: every extent back, server del, unload" vm -t 60 "$S2" "$USED0 && $R server del s2 && rmmod rmem"
check "client unload" vm "$H" "rmmod rmem"
test_done
