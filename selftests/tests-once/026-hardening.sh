#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rmem-suite: long (run.sh; make check-long): regressions of the issue 16
# review (293 s); their code paths run in make check's attach, fault and
# rogue tests
# rmem-timeout: 1200
#
# One VM, regressions of the hardening review (issue 16):
#
#  A. server add with a 4 KiB MR size and a 1 GiB pool: more chunks than
#     the RDMA device can register for one client (memory regions, chunk
#     table) is refused with a message before anything is sized by it (no
#     allocation warning in the kernel log);
#  B. a request the server's NIC refuses every time (fault_sector: a
#     wrong rkey) fails with EIO after its retry budget, within the loss
#     timeout, instead of looping through reconnects for ever; the device
#     is live afterwards and other I/O works;
#  C. attach time does not depend on what earlier clients used: right
#     after 1 GiB was released (dirty, not yet zeroed), the background
#     zeroing pauses while a 128 MiB attach connects, after the chunk it
#     is on (the old code zeroed recycled chunks in the attach path; the
#     time of that attach is bounded in two VMs by 029, where the
#     server's zeroing cannot take the client's CPU); once the
#     1 GiB is zeroed in the background, a 1 GiB attach takes less than
#     twice as long as the same attach on a clean pool.  (An attach that
#     only dirty memory can serve waits for its zeroing: no server can
#     hand out memory faster than it clears it.)
#  D. 300 sessions on one server: server show lists all of them (they
#     take several netlink messages), dev show lists 300 devices;
#  E. a slow attach (the server's READY held 20 s by fault_ready_delay_ms)
#     holds up no other device command: dev show answers, another attach
#     and detach go through, the slow one's name is taken, and it then
#     completes (the attach used to hold the device list's lock while it
#     waited for the server).
source "$(dirname "$0")/../lib.sh"

LAB_MEM=${LAB_MEM_HOST:-2560}
lab_start one || exit 1
H=$LAB_CLIENT A=$LAB_SERVER_ADDR
P=/sys/module/rmem/parameters

check "rmem.ko loads" rmem_load "$H"

echo "# A: too many chunks for the device"
expect_err "4 KiB MR size, 1 GiB pool: refused" "too many chunks.*MR size" "$H" \
	"$R server add name s0 listen $A size 1G mr-size 4K"
expect_eq "nothing was created" "" vm "$H" "$R server show"

echo "# B: a request that fails the same way every time"
check "server, device (loss-timeout 30s)" vm -t 120 "$H" \
	"$R server add name s0 listen $A size 64M > /dev/null && $R dev add peer $A size 32M keepalive 500ms loss-timeout 30s > /dev/null"
check "write a pattern" vm -t 120 "$H" \
	"head -c 1M /dev/urandom > /tmp/pat && dd if=/tmp/pat of=/dev/rmem0 bs=1M oflag=direct status=none"
vm "$H" "echo 4096 > $P/fault_sector" || echo "# FAIL: cannot set fault_sector"
T0=$(date +%s)
expect_err "a read of the faulty sector fails with EIO" "Input/output error" "$H" \
	"timeout 60 dd if=/dev/rmem0 of=/dev/null bs=4k count=1 skip=512 iflag=direct"
T=$(($(date +%s) - T0))
check "it failed within the loss timeout (${T} s)" test "$T" -lt 30
vm "$H" "echo 18446744073709551615 > $P/fault_sector"
check "the kernel log names the retries" vm "$H" "dmesg | grep -E 'rmem0: I/O error at sector 4096 after 5 retries'"
check "the device is live again and the rest reads back" vm -t 60 "$H" \
	"for i in \$(seq 50); do grep -qx live /sys/block/rmem0/rmem/state && break; sleep 0.2; done; grep -qx live /sys/block/rmem0/rmem/state && dd if=/dev/rmem0 of=/tmp/back bs=1M count=1 iflag=direct status=none && cmp /tmp/pat /tmp/back"
check "detach, server del" vm -t 60 "$H" "$R dev del rmem0 && $R server del s0"

echo "# C: attach time after 1 GiB was used"
check "server with 1.25 GiB" vm -t 300 "$H" "$R server add name s0 listen $A size 1280M > /dev/null"
clean=$(attach_ms "$H" $A 1G) && [[ $clean =~ ^[0-9]+$ ]] && echo "# ok: 1 GiB attach on a clean pool: $clean ms" ||
	{ echo "# FAIL: attach: $clean"; LAB_FAILS=$((LAB_FAILS + 1)); clean=1; }
check "a 128 MiB device (rmem1) next to the 1 GiB one" vm -t 300 "$H" \
	"$R dev add peer $A size 128M > /dev/null"
# detach and attach in one command: the attach starts milliseconds after
# the release, while the 1 GiB is being zeroed; the server's dirty count
# is read twice right after it, 0.1 s apart.  Three rounds, the best
# attach counts: a regression (zeroing in the attach path) is slow every
# time, a busy host only sometimes.
dirty="$R -j server show | grep -o '\"dirty\":[0-9]*' | head -n 1 | cut -d: -f2"
best=999999 observed=0
for i in 1 2 3; do
	check "round $i: write 64 MiB to the 1 GiB device" vm -t 300 "$H" \
		"dd if=/dev/urandom of=/dev/rmem0 bs=1M count=64 oflag=direct status=none"
	# t2: after the second read; the pause lasts 1 s from the last
	# accepted connect, before t1: a round whose reads ended later says
	# nothing (each read is a rmemctl run, 0.3-0.5 s under TCG)
	out=$(lab_exec -t 300 "$H" "$R dev del rmem0 2> /dev/null || exit 1; t0=\$(date +%s%N); $R dev add peer $A size 128M > /dev/null 2>&1 || exit 1; t1=\$(date +%s%N); d1=\$($dirty); sleep 0.1; d2=\$($dirty); t2=\$(date +%s%N); echo \$(( (t1 - t0) / 1000000 )) \$d1 \$d2 \$(( (t2 - t1) / 1000000 ))")
	read -r again d1 d2 dt <<< "$out"
	if [[ "$again $d1 $d2 $dt" =~ ^[0-9]+\ [0-9]+\ [0-9]+\ [0-9]+$ ]]; then
		echo "# ok: round $i: detach the 1 GiB device; a 128 MiB attach right after: $again ms; dirty then $((d1 >> 20)) MiB, $dt ms later $((d2 >> 20)) MiB"
		[ "$again" -lt "$best" ] && best=$again
		# the zeroing runs while the client resolves the server's
		# address and route, and pauses from the accepted connect
		# until a second after the last accepted one, after the 64
		# MiB chunk it is on: at most one chunk may go between the
		# reads (6.1's clear_page under TCG zeroes hundreds of MiB in
		# 0.3 s; 6.12's can zero the whole 1 GiB before the attach
		# connects: nothing is left to pause)
		if [ "$d1" = 0 ]; then
			echo "# note: round $i: all zeroed before the attach connected; the pause is not observable"
		elif [ "$dt" -gt 1000 ]; then
			echo "# note: round $i: the reads took $dt ms, near the end of the pause: not observable"
		else
			observed=$((observed + 1))
			check "round $i: zeroing paused after the attach (at most one 64 MiB chunk in $dt ms: $(((d1 - d2) >> 20)) MiB)" \
				test $((d1 - d2)) -le $((64 << 20))
		fi
	else
		echo "# FAIL: round $i: detach, attach: $out"
		LAB_FAILS=$((LAB_FAILS + 1))
	fi
	server_zeroed "$H" "round $i: the server zeroed the rest after the attach (dirty drops to 0)"
	[ $i = 3 ] && break
	check "round $i: the new device reads zeros" vm -t 300 "$H" "cmp -n 134217728 /dev/rmem0 /dev/zero"
	check "round $i: detach it, attach 1 GiB again" vm -t 300 "$H" \
		"$R dev del rmem0 && $R dev add peer $A size 1G > /dev/null"
	server_zeroed "$H" "round $i: the released 128 MiB zeroed (clean room for the next round)"
done
echo "# note: the best of three rounds: $best ms (029-attach-after-release bounds it, in two VMs); the pause observed in $observed of 3"
check "the new device reads zeros" vm -t 300 "$H" "cmp -n 134217728 /dev/rmem0 /dev/zero"
check "detach it" vm -t 120 "$H" "$R dev del rmem0"
server_zeroed "$H" "the server zeroes it in the background (dirty drops to 0)"
again=$(attach_ms "$H" $A 1G) && [[ $again =~ ^[0-9]+$ ]] && echo "# ok: 1 GiB attach after the release: $again ms" ||
	{ echo "# FAIL: attach: $again"; LAB_FAILS=$((LAB_FAILS + 1)); again=999999; }
# one attach under TCG varies by 2x now and then (516 against 220 ms once
# on 6.12): a slow one is measured again, and the better counts; a
# regression (zeroing in the attach path) is slow both times
if [ "$again" -gt $((2 * clean)) ] && [ "$again" != 999999 ]; then
	check "detach it, to measure again" vm -t 120 "$H" "$R dev del rmem0"
	server_zeroed "$H" "the server zeroes it in the background (dirty drops to 0)"
	a2=$(attach_ms "$H" $A 1G) && [[ $a2 =~ ^[0-9]+$ ]] && echo "# ok: 1 GiB attach after the release, again: $a2 ms" ||
		{ echo "# FAIL: attach: $a2"; LAB_FAILS=$((LAB_FAILS + 1)); a2=999999; }
	[ "$a2" -lt "$again" ] && again=$a2
fi
check "within twice the clean attach time ($again <= 2 * $clean ms)" test "$again" -le $((2 * clean))
check "the new device reads zeros, not the old client's data" vm -t $((300 * LAB_SLOW)) "$H" \
	"cmp -n 1073741824 /dev/rmem0 /dev/zero"
check "detach both, server del" vm -t 120 "$H" \
	"$R dev del rmem0 && $R dev del rmem1 && $R server del s0"

echo "# D: 300 sessions on one server"
N=300
check "server with 300 chunks of 64 KiB" vm "$H" \
	"$R server add name s1 listen $A size $((N * 64))K mr-size 64K > /dev/null"
check "$N devices of 64 KiB" vm -t $((900 * LAB_SLOW)) "$H" \
	"for i in \$(seq $N); do $R dev add peer $A size 64K qps 1 queue-depth 1 keepalive 0 loss-timeout 0 > /dev/null || { echo device \$i; exit 1; }; done"
expect_eq "server show -j lists $N clients" "$N" json "$H" "len(j[0]['clients'])" server show
expect_eq "server show s1 -j lists $N clients" "$N" json "$H" "len(j[0]['clients'])" server show s1
check "server show (text) lists $N clients" vm -t 60 "$H" \
	"[ \$($R server show | grep -c ' client ') = $N ]"
expect_eq "dev show -j lists $N devices" "$N" json "$H" "len(j)" dev show
check "$N detaches" vm -t $((900 * LAB_SLOW)) "$H" \
	"for d in \$(ls /sys/block | grep '^rmem'); do $R dev del \$d || exit 1; done"
expect_eq "no client left" "0 0" json "$H" "len(j[0]['clients']), j[0]['used']" server show

echo "# E: a slow attach holds up no other device command"
# below the client's 60 s READY timeout on the debug kernel too
DELAY=$((LAB_SLOW > 1 ? 45000 : 20000))
check "READY delayed by $DELAY ms" vm "$H" "echo $DELAY > $P/fault_ready_delay_ms"
vm "$H" "rm -f /tmp/slow.rc; ($R dev add peer $A size 1M name rmem7 > /tmp/slow.out 2>&1; echo \$? > /tmp/slow.rc.new; mv /tmp/slow.rc.new /tmp/slow.rc) > /dev/null 2>&1 &"
# the server took the memory and waits before READY
for i in $(seq 100); do
	u=$(json "$H" "j[0]['used']" server show)
	[[ $u =~ ^[0-9]+$ ]] && [ "$u" -gt 0 ] && break
	sleep 0.2
done
check "the slow attach waits for READY (server memory in use: $u)" test "${u:-0}" -gt 0
check "READY at once for the next sessions" vm "$H" "echo 0 > $P/fault_ready_delay_ms"
T=$(lab_exec -t 60 "$H" "t0=\$(date +%s%N); $R dev show > /dev/null && echo \$(( (\$(date +%s%N) - t0) / 1000000 ))")
check "dev show answers meanwhile (${T} ms)" test "${T:-99999}" -lt $((DELAY / 4))
expect_err "the slow attach's name is taken" "a device with this name exists" "$H" \
	"$R dev add peer $A size 1M name rmem7"
check "another attach and detach meanwhile" vm -t 60 "$H" \
	"$R dev add peer $A size 1M name rmem8 > /dev/null && $R dev del rmem8"
check "the slow attach was waiting all along" vm "$H" "[ ! -e /tmp/slow.rc ]"
check "then it completes" vm -t 120 "$H" \
	"for i in \$(seq 500); do [ -e /tmp/slow.rc ] && break; sleep 0.2; done; cat /tmp/slow.out; [ \"\$(cat /tmp/slow.rc)\" = 0 ] && [ -e /sys/block/rmem7 ]"
check "detach it" vm -t 60 "$H" "$R dev del rmem7"
check "server del, unload" vm -t 60 "$H" "$R server del s1 && rmmod rmem"
test_done
