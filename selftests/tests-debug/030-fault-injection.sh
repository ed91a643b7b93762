#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Debug kernel only (make check-debug): rmem under allocation failures.
# 60 rounds of server add, dev add, an O_DIRECT write, dev del and
# server del, each command from a task whose kmalloc and page allocations
# fail (failslab + fail_page_alloc, task-filter; every 40th to every 2000th
# allocation of the command's task), then ten server adds with every 8th
# to 17th allocation failing.  Every
# command succeeds or fails with a message, no signal; successful writes
# read back intact; leftovers delete cleanly; both add commands saw both
# outcomes (or the test proved nothing); the module unloads.  The lab's
# teardown adds: no KASAN/lockdep/BUG line, no kmemleak report from rmem.
source "$(dirname "$0")/../lib.sh"
# the allocator reports failures it was made to give (a stack dump each:
# "vmalloc error" from the partition scan's vmalloc, seen once on 6.12)
LAB_ALLOC_FAILS_OK=1

ROUNDS=${RMEM_FAULT_ROUNDS:-60}
lab_start one || exit 1
H=$LAB_CLIENT A=$LAB_SERVER_ADDR

check "the kernel has failslab and fail_page_alloc" \
	vm "$H" "test -d /sys/kernel/debug/failslab && test -d /sys/kernel/debug/fail_page_alloc"
rmem_load "$H" || exit 1
out=$(lab_exec -t 1500 "$H" "bash $REPO/selftests/tests-debug/fault_rounds.bash $R $A $ROUNDS")
echo "$out" | sed 's/^/# /'
counts=$(echo "$out" | grep '^counts ')
check "$ROUNDS rounds finished" test -n "$counts"
check "no command died or failed silently; every write intact; nothing left" \
	grep -q ' bad=0$' <<< "$counts"
for op in server_add dev_add; do
	n=$(echo "$counts" | grep -o " $op:[0-9]*/[0-9]*")
	s=${n#*:}
	check "$op both succeeded and failed under injection (${s})" \
		test "${s%/*}" -gt 0 -a "${s#*/}" -gt 0
done
check "clean attach after the rounds" vm -t 120 "$H" \
	"$R server add name s0 listen $A size 16M > /dev/null && $R dev add peer $A size 8M > /dev/null && dd if=/dev/urandom of=/tmp/x bs=64k count=16 status=none && dd if=/tmp/x of=/dev/rmem0 oflag=direct bs=64k status=none && cmp /tmp/x /dev/rmem0 -n 1048576"
check "detach, server del, unload" vm -t 120 "$H" "$R dev del rmem0 && $R server del s0 && rmmod rmem"
test_done
