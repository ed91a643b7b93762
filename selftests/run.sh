#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [PATTERN...]: run the selftests (all, or those whose name contains
# one of PATTERNs) on each lab kernel and report in KTAP, one nested group
# of tests per kernel, then the tests that run once per machine:
#
#   KTAP version 1
#   1..2
#       KTAP version 1
#       1..21
#       # <diagnostics of the test, streamed as it runs>
#       ok 1 lab-one
#       not ok 2 ...
#   not ok 1 6.12.117+deb12-amd64
#       ...
#   ok 2 6.1.0-56-amd64
#   N passed, N failed, N skipped          (tests, over all kernels)
#
# LAB_KERNELS: the releases to run on (default: the lab's default kernel,
# the newest; make check passes every lab kernel).  RMEM_LAB_KERNEL (the
# debug lane) runs on its own kernel instead: tests/, tests-once/ but the
# package test, and tests-debug/.
#
# A test is an executable script; exit 0 = pass, 4 = skip (kselftest's
# KSFT_SKIP), anything else = fail.  Each test boots its own lab (see
# lab/lab.sh), whose teardown fails the test on a bad kernel log line.
# RMEM_TEST_TIMEOUT (seconds, default 600) bounds each test; a test that
# needs longer says so in a header line "# rmem-timeout: SECONDS" (the
# larger of the two applies; on the debug kernel, three times the header).
#
# A test whose header has a line "# rmem-suite: long" runs only when
# RMEM_SUITE=long (make check-long) or when a PATTERN names it: make check
# has to finish within CI's 90 minutes on a slow machine, and these are
# the longest tests whose subjects others in make check also reach (each
# says why in that line).  A run without them names them.
#
# A test whose header has a line "# rmem-kernels: newest" (with its
# reason) runs in the newest kernel's group only when a run has several:
# the older kernels' groups leave it out and say so ("# kernel K: left
# out: ..."), neither run nor counted.  It is for tests of what rmem does
# the same on every kernel (its wire protocol, a peer's misbehaviour, md
# over rmem) and whose kernel-facing paths other tests cover on each
# kernel: the suite has to finish within CI's limit on a slow machine.
#
# A test that failed while QEMU corrupted one of its VMs (the lab prints
# "EMULATOR FAULT": a register dump whose saved EFLAGS has reserved bits
# set, or a user-space general protection fault on an instruction that
# cannot raise one, which no guest code can cause; see
# Documentation/lab.rst) runs again, at most twice, and its last result
# counts.  Each such rerun is announced and counted in the "# emulator
# faults" line before the totals.

cd "$(dirname "$0")" || exit 1
# the lab's functions (lab_emulator_fault(), LAB_BUILD): definitions only
source lab/lab.sh
TIMEOUT=${RMEM_TEST_TIMEOUT:-600}
# reruns of a test whose VM QEMU corrupted: two (the 6.12 memory server of
# fs-volume once double-faulted in rxe on both of two tries in one run)
EMU_RERUNS=2

# tagged SCRIPT TAG: whether a test's header has the line "# TAG" (and
# its reason): "rmem-suite: long", "rmem-kernels: newest"
tagged() { grep -q "^# $2" "$1"; }

# select SCRIPT...: those of the scripts the command line's patterns pick
select_tests()
{
	local t name p
	for t in "$@"; do
		[ -e "$t" ] || continue
		name=$(basename "$t" .sh)
		if [ ${#PATTERNS[@]} -gt 0 ]; then
			for p in "${PATTERNS[@]}"; do
				case "$name" in *"$p"*) echo "$t"; break ;; esac
			done
		elif [ "${RMEM_SUITE:-}" = long ] || ! tagged "$t" "rmem-suite: long"; then
			echo "$t"
		fi
	done
}

# run_group INDENT TEST...: run tests as one KTAP (sub)test list; adds to
# pass/fail/skip; returns 1 if any failed
# emu_scan RUNS: a test that failed may not have said EMULATOR FAULT: one
# killed at its time limit never reached its teardown (033 once, a server
# VM dead of a double fault with reserved EFLAGS bits).  Its lab's logs
# (the lab directories not in RUNS, made since) are read here instead.
emu_scan()
{
	local d f ef

	for d in $(ls -d "$LAB_BUILD"/run.* 2> /dev/null); do
		grep -qxF "$d" <<< "$1" && continue
		for f in "$d"/*/console.log "$d"/*/job/dmesg.txt; do
			[ -e "$f" ] || continue
			if ef=$(lab_emulator_fault "$f") || ef=$(lab_user_gp_fault "$f"); then
				echo "# lab: ${f#"$LAB_BUILD"/}: EMULATOR FAULT: $ef (read after the test)"
				return
			fi
		done
	done
}

run_group()
{
	local ind=$1 label=$2 t n=0 name t0 limit own rc dt try out bad=0
	shift 2
	out=$(mktemp) || return 1
	echo "${ind}KTAP version 1"
	echo "${ind}1..$#"
	for t in "$@"; do
		n=$((n + 1))
		name=$(basename "$t" .sh)
		name=${name#[0-9][0-9][0-9]-}
		t0=$SECONDS
		limit=$TIMEOUT
		own=$(sed -n 's/^# rmem-timeout: \([0-9]\+\).*/\1/p' "$t" | head -n 1)
		# the debug kernel is 3-5x slower: three times a test's own limit
		[ -z "$own" ] || [ -z "${RMEM_LAB_KERNEL:-}" ] || own=$((own * 3))
		[ -z "$own" ] || [ "$own" -le "$limit" ] || limit=$own
		try=1
		while :; do
			# Stream the test's output as KTAP diagnostics.
			# the grace after TERM lets a test's trap stop its VMs
			# and undo what it did to the host (040-packages purges
			# its packages)
			runs0=$(ls -d "$LAB_BUILD"/run.* 2> /dev/null)
			timeout -k 120 "$limit" bash "$t" 2>&1 | tee "$out" |
				sed -u "s/^\([^#]\)/# \1/; s/^$/#/; s/^/$ind/"
			rc=${PIPESTATUS[0]}
			dt=$((SECONDS - t0))
			echo "${ind}# $name: exit status $rc after ${dt}s"
			case $rc in 0 | 4) break ;; esac
			grep -q "EMULATOR FAULT" "$out" ||
				emu_scan "$runs0" | tee -a "$out" | sed "s/^/$ind/"
			if [ $try -gt $EMU_RERUNS ] ||
			   ! grep -q "EMULATOR FAULT" "$out"; then
				break
			fi
			echo "${ind}# $name: QEMU corrupted a VM (EMULATOR FAULT above): running the test again ($try of at most $EMU_RERUNS)"
			emu=$((emu + 1))
			try=$((try + 1))
			t0=$SECONDS
		done
		case $rc in
		0) echo "${ind}ok $n $name"; pass=$((pass + 1)) ;;
		4) echo "${ind}ok $n $name # SKIP"; skip=$((skip + 1)) ;;
		124|137) echo "${ind}# $name: timed out after ${limit}s"
			echo "${ind}not ok $n $name"; fail=$((fail + 1)); bad=1 ;;
		*) echo "${ind}not ok $n $name"; fail=$((fail + 1)); bad=1 ;;
		esac
		# a failed test's FAIL lines again at the end of the run (CI
		# shows the tail of a long log; the middle may be cut): its exit
		# status, its FAIL lines and the lab's own complaints (a bad
		# kernel log line, a VM gone or not ready)
		case $rc in 0 | 4) ;; *)
			{ echo "exit status $rc after ${dt}s"
			  grep -a -h -E "FAIL|^# lab: .*(bad kernel log|kmemleak|did not finish|not ready|QEMU exited|EMULATOR FAULT|died of a fault)" "$out" |
				head -n 8 || true
			  # the first evidence lines the lab printed (a kernel
			  # log's bad lines, a dying process's registers)
			  grep -a -h '^# | ' "$out" | head -n 24 || true
			} | sed "s/^[# ]*/# recap: $label $name: /" >> "$recap" ;;
		esac
	done
	rm -f "$out"
	return $bad
}

PATTERNS=("$@")
if [ -n "${RMEM_LAB_KERNEL:-}" ]; then
	kernels=("$(cat "$RMEM_LAB_KERNEL/kver")")
	# one kernel: the once-per-machine tests run on it too (KASAN and
	# lockdep under 023, 026, 028), all but the package test, which
	# builds for the Debian kernels; in the order of their numbers
	mapfile -t per_kernel < <(for t in tests/*.sh tests-once/*.sh tests-debug/*.sh; do
		case "$t" in */040-packages.sh) ;; *) echo "$(basename "$t") $t" ;; esac
	done | LC_ALL=C sort | cut -d' ' -f2)
	once=()
else
	# releases or prefixes of them (6.12), separated by blanks: resolved
	# to full releases here, so every test (040-packages too) sees those
	# shellcheck disable=SC2086,SC2206
	if [ -n "${LAB_KERNELS:-}" ]; then
		kernels=($(../scripts/kernels.sh lab $LAB_KERNELS))
		[ ${#kernels[@]} -gt 0 ] || {
			echo "run.sh: no lab kernel matches LAB_KERNELS='$LAB_KERNELS'" >&2
			exit 1
		}
	else
		kernels=($(../scripts/kernels.sh lab | head -n 1))
	fi
	per_kernel=(tests/*.sh)
	mapfile -t once < <(select_tests tests-once/*.sh)
fi
mapfile -t per_kernel < <(select_tests "${per_kernel[@]}")
[ ${#kernels[@]} -gt 0 ] || { echo "run.sh: no lab kernel (make deps installs them)" >&2; exit 1; }

# kernel_tests RELEASE run|left: the per-kernel tests a kernel's group
# runs, or the names of those it leaves out (rmem-kernels: newest)
kernel_tests()
{
	local t
	for t in "${per_kernel[@]}"; do
		if [ "$1" != "${kernels[0]}" ] &&
		   tagged "$t" "rmem-kernels: newest"; then
			[ "$2" = run ] || basename "$t" .sh
		else
			[ "$2" = left ] || echo "$t"
		fi
	done
}

long=()
if [ ${#PATTERNS[@]} -eq 0 ] && [ "${RMEM_SUITE:-}" != long ]; then
	mapfile -t long < <(for t in tests/*.sh tests-once/*.sh; do
		tagged "$t" "rmem-suite: long" && basename "$t" .sh
	done)
fi

groups=0
for k in "${kernels[@]}"; do
	[ -z "$(kernel_tests "$k" run)" ] || groups=$((groups + 1))
done
[ ${#once[@]} -eq 0 ] || groups=$((groups + 1))
echo "KTAP version 1"
echo "1..$groups"
[ ${#long[@]} -eq 0 ] ||
	echo "# not in this run (rmem-suite: long; make check-long runs them): ${long[*]}"
pass=0 fail=0 skip=0 emu=0 g=0
recap=$(mktemp) || exit 1
trap 'rm -f "$recap"' EXIT
start=$SECONDS
if [ ${#per_kernel[@]} -gt 0 ]; then
	for k in "${kernels[@]}"; do
		mapfile -t these < <(kernel_tests "$k" run)
		mapfile -t left < <(kernel_tests "$k" left)
		[ ${#left[@]} -eq 0 ] ||
			echo "# kernel $k: left out (rmem-kernels: newest, run on ${kernels[0]}): ${left[*]}"
		[ ${#these[@]} -gt 0 ] || continue
		g=$((g + 1))
		echo "# kernel $k: ${#these[@]} tests"
		# LAB_KERNELS: the run's kernels, newest first; LAB_NEWEST:
		# the first (a test that does part of its work on the newest
		# only compares it with its LAB_KVER)
		if LAB_KERNEL=$k LAB_KERNELS="${kernels[*]}" LAB_NEWEST=${kernels[0]} run_group "    " "$k" "${these[@]}"; then
			echo "ok $g $k"
		else
			echo "not ok $g $k"
		fi
	done
fi
if [ ${#once[@]} -gt 0 ]; then
	g=$((g + 1))
	echo "# once per machine, every lab kernel: ${#once[@]} tests"
	# the newest kernel of this run (kernels is newest first), not the
	# newest installed: make check LAB_KERNELS=6.1 builds only 6.1's module
	if LAB_KERNEL="${kernels[0]}" LAB_KERNELS="${kernels[*]}" run_group "    " "every kernel" "${once[@]}"; then
		echo "ok $g machine"
	else
		echo "not ok $g machine"
	fi
fi
[ -s "$recap" ] && cat "$recap"
echo "# total time $((SECONDS - start))s"
echo "# emulator faults (tests run again): $emu"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
