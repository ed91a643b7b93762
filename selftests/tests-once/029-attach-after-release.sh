#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rmem-suite: long (run.sh; make check-long): a timing of the server's
# background zeroing; 014 checks the zeroing itself
# rmem-timeout: 900
#
# Two VMs, issue 16 item 9: attach time does not depend on what earlier
# clients used.  Right after a client released 3 GiB (dirty, being zeroed
# in the background), a fresh 128 MiB attach that clean memory can serve
# takes less than twice as long as the same attach on a clean pool.
# 3 GiB, not 1: 6.12 clears 1 GiB in about 200 ms under TCG, within the
# noise of an attach, so zeroing it in the attach path passed on 6.12
# (372 against 234 ms; 6.1 failed, 402 against 167 ms: 2026-11-26).
# Once per machine (tests-once/), on the newest lab kernel: it times the
# server's own background work, which uses no kernel interface that
# differs between the lab's kernels (it passed on both, 2026-11-26).
#
# Two VMs, not one: the lab runs a VM's vCPUs in turn on one host thread,
# so in one VM the server's background zeroing takes host time from the
# client's address and route resolution (before the server can know a
# client is coming and pause it), and a 128 MiB attach right after the
# release took 1.8-1.9x a clean one on 6.12 (026 C, 2026-11-26).  Here,
# as on real machines, the client's CPU is its own; what is left is what
# the server does for the attach.  026 C checks the pause itself (one VM,
# where the dirty count can be read right after the attach).
#
# Clean: the median of three attaches.  After the release: the best of
# three rounds (a regression, zeroing in the attach path, is slow every
# time; a busy host only sometimes).
source "$(dirname "$0")/../lib.sh"

# a timing on the debug kernel (KASAN, 3-5x slower, and its shadow
# leaves no room for a 3.25 GiB pool in 4 GiB) says nothing; make check
# runs it
[ -z "${RMEM_LAB_KERNEL:-}" ] || { echo "# SKIP: a timing test, not run on the debug kernel"; exit 4; }
LAB_MEM_SERVER=${LAB_MEM_SERVER:-4096}
export LAB_MEM_SERVER
lab_start two || exit 1
S=$LAB_SERVER C=$LAB_CLIENT A=$LAB_SERVER_ADDR

check "rmem.ko loads on the server" rmem_load "$S"
check "rmem.ko loads on the client" rmem_load "$C"
check "server with 3.25 GiB" vm -t 300 "$S" "$R server add name s0 listen $A size 3328M > /dev/null"

times=()
for i in 1 2 3; do
	t=$(attach_ms "$C" $A 128M) && [[ $t =~ ^[0-9]+$ ]] && times+=("$t") ||
		{ echo "# FAIL: attach: $t"; LAB_FAILS=$((LAB_FAILS + 1)); times+=(1); }
	check "detach it: 128 MiB dirty" vm -t 120 "$C" "$R dev del rmem0"
	server_zeroed "$S" "the server zeroes it in the background (dirty drops to 0)"
done
small=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 2p)
echo "# ok: 128 MiB attach on a clean pool: ${times[*]} ms, median $small ms"

check "a 3 GiB device (rmem0) and a 128 MiB one (rmem1)" vm -t 300 "$C" \
	"$R dev add peer $A size 3G > /dev/null && $R dev add peer $A size 128M > /dev/null"
best=999999
for i in 1 2 3; do
	check "round $i: write 64 MiB to the 3 GiB device" vm -t 300 "$C" \
		"dd if=/dev/urandom of=/dev/rmem0 bs=1M count=64 oflag=direct status=none"
	# detach and attach in one command: the attach starts milliseconds
	# after the release, while the server zeroes the 3 GiB
	out=$(lab_exec -t 300 "$C" "$R dev del rmem0 2> /dev/null || exit 1; t0=\$(date +%s%N); $R dev add peer $A size 128M > /dev/null 2>&1 || exit 1; echo \$(( (\$(date +%s%N) - t0) / 1000000 ))") &&
		[[ $out =~ ^[0-9]+$ ]] &&
		echo "# ok: round $i: detach the 3 GiB device; a 128 MiB attach right after: $out ms" ||
		{ echo "# FAIL: round $i: detach, attach: $out"; LAB_FAILS=$((LAB_FAILS + 1)); out=999999; }
	[ "$out" -lt "$best" ] && best=$out
	server_zeroed "$S" "round $i: the server zeroed the released 3 GiB (dirty drops to 0)"
	check "round $i: the new device reads zeros" vm -t 300 "$C" "cmp -n 134217728 /dev/rmem0 /dev/zero"
	[ $i = 3 ] && break
	check "round $i: detach it, attach 3 GiB again" vm -t 300 "$C" \
		"$R dev del rmem0 && $R dev add peer $A size 3G > /dev/null"
	server_zeroed "$S" "round $i: the released 128 MiB zeroed (clean room for the next round)"
done
check "the best of three ($best ms) within twice the clean attach time (2 * $small ms)" \
	test "$best" -le $((2 * small))
check "detach both" vm -t 120 "$C" "$R dev del rmem0 && $R dev del rmem1"
check "server del, unload" vm -t 120 "$S" "$R server del s0 && rmmod rmem"
check "unload on the client" rmem_unload "$C"
test_done
