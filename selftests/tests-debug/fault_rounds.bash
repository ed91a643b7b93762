#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fault_rounds.bash RMEMCTL ADDR ROUNDS: runs in a lab VM on the debug
# kernel (helper of 030-fault-injection.sh).  Each round, from a task whose
# kmalloc and page allocations fail at random (failslab + fail_page_alloc
# with task-filter, a different interval each round; the task marks
# itself once loaded: bin/fail_inject.so): server add, dev
# add, an O_DIRECT write, dev del, server del; then ten server adds under
# dense injection.  A command must succeed or
# fail with a message, never die on a signal; a write that reported success
# must read back intact (read with injection off); what injection left
# behind must delete cleanly without it.  Prints one summary line:
#   counts op:ok/failed ... bad=N
R=$1 A=$2 ROUNDS=$3
# copies on the guest's tmpfs: the binaries the failures hit live in RAM
cp "$(dirname "$0")/../bin/fail_inject.so" "$1" /tmp/ || exit 1
INJECT=/tmp/fail_inject.so
R=/tmp/rmemctl
D=/sys/kernel/debug
# probability 100 with an interval: every Nth allocation of a marked task
# fails, N cycling from rare (most commands succeed) to dense (few do).
# Not denser than 1 in 40: a user page fault that needs N allocations (a
# file fault reads ahead 32 pages) is retried for ever when each try hits
# a failure, which would test the test, not rmem.
INTERVALS=(2000 500 200 100 40)

for f in failslab fail_page_alloc; do
	echo Y > $D/$f/task-filter
	echo N > $D/$f/ignore-gfp-wait
	echo -1 > $D/$f/times
	echo 0 > $D/$f/space
	echo 0 > $D/$f/verbose
	echo 100 > $D/$f/probability
done
echo N > $D/fail_page_alloc/ignore-gfp-highmem
echo 0 > $D/fail_page_alloc/min-order

declare -A ok=() failed=()
bad=0
head -c 1M /dev/urandom > /tmp/pat
: > /tmp/messages

# The injected command's output goes to files whose pages exist already
# (zeroed in place, opened without truncation): a write that needs a new
# page would fail under injection and lose the very message checked here.
: > /tmp/out; : > /tmp/err
out() { tr -d '\000' < /tmp/out; }
err() { tr -d '\000' < /tmp/err; }

# interval N: every Nth allocation of a marked task fails (both knobs)
interval()
{
	echo "$1" > $D/failslab/interval
	echo "$1" > $D/fail_page_alloc/interval
}

# inject OP CMD...: run CMD with injection on; 0 if it succeeded.
inject()
{
	local op=$1 rc f
	shift
	for f in /tmp/out /tmp/err; do
		dd if=/dev/zero of=$f bs=4k count=4 conv=notrunc status=none
	done
	LC_ALL=C LD_PRELOAD=$INJECT LD_BIND_NOW=1 "$@" 1<> /tmp/out 2<> /tmp/err
	rc=$?
	if [ $rc -eq 0 ]; then
		ok[$op]=$((${ok[$op]:-0} + 1))
		return 0
	fi
	if [ $rc -ge 128 ]; then
		echo "BAD: $op: killed by signal $((rc - 128)): $*"
		bad=$((bad + 1))
	elif [ -z "$(err)" ]; then
		echo "BAD: $op: exit $rc without a message: $*"
		bad=$((bad + 1))
	fi
	failed[$op]=$((${failed[$op]:-0} + 1))
	echo "$op: $(err | head -n 1)" >> /tmp/messages
	return 1
}

# leftover WHAT EXISTS-CMD DEL-CMD: after a failed add, with injection off:
# what exists must be deleted; it may exist only if the add's answer was
# lost (rmemctl said the command may have taken effect).
leftover()
{
	local what=$1 exists=$2 del=$3
	eval "$exists" > /dev/null 2>&1 || return 0
	if ! err | grep -q 'may have taken effect'; then
		echo "BAD: a failed add left $what behind: $(err | head -n 1)"
		bad=$((bad + 1))
	fi
	clean $del
}

# clean CMD...: without injection, CMD must succeed.
clean()
{
	"$@" > /dev/null 2>&1 && return 0
	echo "BAD: without injection, failed: $*"
	bad=$((bad + 1))
	return 1
}

for i in $(seq "$ROUNDS"); do
	interval "${INTERVALS[$((i % ${#INTERVALS[@]}))]}"

	if ! inject server_add "$R" server add name f$i listen "$A" size 16M; then
		leftover "server f$i" "$R server show f$i" "$R server del f$i"
		continue
	fi
	if ! inject dev_add "$R" dev add peer "$A" size 8M; then
		leftover "a device" "$R dev show | grep -q ." "$R dev del rmem0"
	else
		dev=$(out | grep -o 'rmem[0-9]*' | head -n 1)
		if inject write dd if=/tmp/pat of=/dev/$dev bs=64k oflag=direct status=none; then
			# a fresh readback: a stale /tmp/back must not pass
			rm -f /tmp/back
			if ! dd if=/dev/$dev of=/tmp/back bs=64k count=16 iflag=direct status=none; then
				echo "BAD: round $i: a write that succeeded cannot be read back"
				bad=$((bad + 1))
			elif ! cmp /tmp/pat /tmp/back; then
				echo "BAD: round $i: a write that succeeded reads back different"
				bad=$((bad + 1))
			fi
		fi
		inject dev_del "$R" dev del "$dev" ||
			{ ! "$R" dev show "$dev" > /dev/null 2>&1 || clean "$R" dev del "$dev"; }
	fi
	inject server_del "$R" server del f$i ||
		{ ! "$R" server show f$i > /dev/null 2>&1 || clean "$R" server del f$i; }
done

# A server add makes few allocations (its pool is a handful of large
# blocks), so the sparse intervals above may never hit one (60 rounds,
# 0 failures, seen): ten more adds with every 8th to 17th allocation
# failing, which a command of that many allocations cannot escape.  Dense
# is safe here: rmemctl's pages are locked in (fail_inject.so), so no
# file fault has to retry its way through the failures.
for i in $(seq 8 17); do
	interval "$i"
	if inject server_add "$R" server add name d$i listen "$A" size 16M; then
		clean "$R" server del d$i
	else
		leftover "server d$i" "$R server show d$i" "$R server del d$i"
	fi
done
echo 0 > $D/failslab/probability
echo 0 > $D/fail_page_alloc/probability

# nothing may be left over
if [ -n "$("$R" dev show)" ] || [ -n "$("$R" server show)" ]; then
	echo "BAD: left over after the rounds:"; "$R" dev show; "$R" server show
	bad=$((bad + 1))
fi
echo "messages of the failed commands:"
sort /tmp/messages | uniq -c | sort -rn
line=counts
for op in server_add dev_add write dev_del server_del; do
	line+=" $op:${ok[$op]:-0}/${failed[$op]:-0}"
done
echo "$line bad=$bad"
