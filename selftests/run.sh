#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [PATTERN...]: run the selftests in selftests/tests/ (all, or those
# whose name contains one of PATTERNs) and report in KTAP:
#
#   KTAP version 1
#   1..N
#   # <diagnostics of the test, streamed as it runs>
#   ok 1 lab-one
#   not ok 2 ...
#   ...
#   N passed, N failed, N skipped
#
# A test is an executable script; exit 0 = pass, 4 = skip (kselftest's
# KSFT_SKIP), anything else = fail.  Each test boots its own lab (see
# lab/lab.sh), whose teardown fails the test on a bad kernel log line.
# RMEM_TEST_TIMEOUT (seconds, default 600) bounds each test; a test that
# needs longer says so in a header line "# rmem-timeout: SECONDS" (the
# larger of the two applies; on the debug kernel, three times the header).

cd "$(dirname "$0")" || exit 1
TIMEOUT=${RMEM_TEST_TIMEOUT:-600}

# On the debug kernel (make check-debug) the fault-injection tests in
# tests-debug/ run too; they need its failslab and fail_page_alloc.
dirs=(tests/*.sh)
[ -z "${RMEM_LAB_KERNEL:-}" ] || dirs+=(tests-debug/*.sh)

tests=()
for t in "${dirs[@]}"; do
	name=$(basename "$t" .sh)
	if [ $# -gt 0 ]; then
		keep=
		for p in "$@"; do
			case "$name" in *"$p"*) keep=1 ;; esac
		done
		[ -n "$keep" ] || continue
	fi
	tests+=("$t")
done

echo "KTAP version 1"
echo "1..${#tests[@]}"
pass=0 fail=0 skip=0 n=0
start=$SECONDS
for t in "${tests[@]}"; do
	n=$((n + 1))
	name=$(basename "$t" .sh)
	name=${name#[0-9][0-9][0-9]-}
	t0=$SECONDS
	limit=$TIMEOUT
	own=$(sed -n 's/^# rmem-timeout: \([0-9]\+\).*/\1/p' "$t" | head -n 1)
	# the debug kernel is 3-5x slower: three times a test's own limit
	[ -z "$own" ] || [ -z "${RMEM_LAB_KERNEL:-}" ] || own=$((own * 3))
	[ -z "$own" ] || [ "$own" -le "$limit" ] || limit=$own
	# Stream the test's output as KTAP diagnostics.
	timeout -k 30 "$limit" bash "$t" 2>&1 | sed -u 's/^\([^#]\)/# \1/; s/^$/#/'
	rc=${PIPESTATUS[0]}
	dt=$((SECONDS - t0))
	echo "# $name: exit status $rc after ${dt}s"
	case $rc in
	0) echo "ok $n $name"; pass=$((pass + 1)) ;;
	4) echo "ok $n $name # SKIP"; skip=$((skip + 1)) ;;
	124|137) echo "# $name: timed out after ${limit}s"
		echo "not ok $n $name"; fail=$((fail + 1)) ;;
	*) echo "not ok $n $name"; fail=$((fail + 1)) ;;
	esac
done
echo "# total time $((SECONDS - start))s"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
