#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench_work.sh OUT CMD...: run CMD in this VM (its output to OUT) and print,
# as a JSON fragment, the work the whole VM did meanwhile: context switches,
# interrupts, softirqs by kind, busy CPU time (all CPUs: user, nice,
# system, irq, softirq, steal; in microseconds), and the rxe device's packet
# and error counters.  bench.sh divides them by the I/Os fio completed.
snap()
{
	awk '/^ctxt/ {print "ctxt", $2} /^intr/ {print "intr", $2}' /proc/stat
	awk -v hz="$(getconf CLK_TCK)" '/^cpu / {printf "cpu_busy_us %.0f\n", ($2 + $3 + $4 + $7 + $8 + $9) * 1000000 / hz}' /proc/stat
	awk 'NR > 1 {s = 0; for (i = 2; i <= NF; i++) s += $i; sub(":", "", $1); print "softirq_" $1, s}' /proc/softirqs
	for f in /sys/class/infiniband/rxe0/ports/1/hw_counters/*; do
		[ -r "$f" ] && echo "rxe_$(basename "$f") $(cat "$f")"
	done
}
out=$1
shift
tmp=$(mktemp -d)
snap | sort > "$tmp/a"
"$@" > "$out"
rc=$?
snap | sort > "$tmp/b"
join "$tmp/a" "$tmp/b" |
	awk 'BEGIN {printf "\"work\": {"} {printf "%s\"%s\": %d", (NR > 1 ? ", " : ""), $1, $3 - $2} END {print "}"}'
rm -rf "$tmp"
exit $rc
