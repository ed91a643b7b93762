# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Common helpers for rmem selftests; sources the lab.
source "$(dirname "${BASH_SOURCE[0]}")/lab/lab.sh"

RMEMCTL=$REPO/user/rmemctl

# LAB_SLOW: the factor for the time limit of a step that moves much data
# (a 1 GiB compare, hundreds of detaches): 4 on the debug kernel
# (KASAN, lockdep, kmemleak under TCG), 1 elsewhere.
LAB_SLOW=1
[ -z "${RMEM_LAB_KERNEL:-}" ] || LAB_SLOW=4

# vm VM CMD...: lab_exec that returns success/failure for check().
vm() { lab_exec "$@"; }

# rmem_load VM / rmem_unload VM
rmem_load() { lab_exec "$1" "insmod $RMEM_KO"; }
rmem_unload() { lab_exec "$1" "rmmod rmem"; }

# rdma_link_active VM: rxe0 is up and ACTIVE.
rdma_link_active() { lab_exec "$1" "rdma link show rxe0/1 | grep -q 'state ACTIVE'"; }

# rping_ok CLIENT_VM SERVER_VM ADDR [COUNT]: an rdma_cm connection plus
# RDMA READ/WRITE ping-pong from CLIENT to SERVER, verified (-V).
rping_ok()
{
	local c=$1 s=$2 addr=$3 count=${4:-10}
	lab_exec "$s" "(timeout 60 rping -s -a $addr -C $count -V > /tmp/rping-s.log 2>&1 &); sleep 1" || return 1
	lab_exec -t 60 "$c" "timeout 30 rping -c -a $addr -C $count -V -v | tail -n 2"
}

# nvmet_export VM NQN DEV ADDR: export block device DEV over NVMe-oF RDMA
# (nvmet-rdma, port 1, ADDR:4420) as subsystem NQN, open to any host.
nvmet_export()
{
	local vm=$1 nqn=$2 dev=$3 addr=$4 n=/sys/kernel/config/nvmet
	lab_exec -t 120 "$vm" "modprobe nvmet-rdma && cd $n && mkdir subsystems/$nqn && echo 1 > subsystems/$nqn/attr_allow_any_host && mkdir subsystems/$nqn/namespaces/1 && echo $dev > subsystems/$nqn/namespaces/1/device_path && echo 1 > subsystems/$nqn/namespaces/1/enable && mkdir ports/1 && echo rdma > ports/1/addr_trtype && echo ipv4 > ports/1/addr_adrfam && echo $addr > ports/1/addr_traddr && echo 4420 > ports/1/addr_trsvcid && ln -s $n/subsystems/$nqn ports/1/subsystems/$nqn"
}

# nvmet_unexport VM NQN: undo nvmet_export.
nvmet_unexport()
{
	local vm=$1 nqn=$2
	lab_exec -t 120 "$vm" "cd /sys/kernel/config/nvmet && rm ports/1/subsystems/$nqn && rmdir ports/1 && echo 0 > subsystems/$nqn/namespaces/1/enable && rmdir subsystems/$nqn/namespaces/1 && rmdir subsystems/$nqn"
}

# rmemctl in a VM, as a shell string: "$(R) dev show"
R=$RMEMCTL

# json VM EXPR CMD: run rmemctl -j CMD in VM, print python3 EXPR of its output
# (the parsed JSON is "j"); a tuple prints space-separated.
json()
{
	local vm=$1 expr=$2
	shift 2
	lab_exec "$vm" "$R -j $* | JEXPR=$(printf %q "$expr") python3 -c 'import json, os, sys
j = json.load(sys.stdin)
v = eval(os.environ[\"JEXPR\"])
print(*v) if isinstance(v, tuple) else print(v)'"
}

# expect_eq DESC WANT CMD...: the output of CMD equals WANT.
expect_eq()
{
	local desc=$1 want=$2 got
	shift 2
	got=$("$@" 2>&1)
	if [ "$got" = "$want" ]; then
		echo "# ok: $desc"
	else
		echo "# FAIL: $desc: want '$want', got '$got'"
		LAB_FAILS=$((LAB_FAILS + 1))
		lab_died_stop
	fi
}

# expect_err DESC PATTERN VM CMD: CMD fails in VM and its stderr matches
# PATTERN (grep -E).
expect_err()
{
	local desc=$1 pat=$2 vm=$3 cmd=$4 out
	out=$(lab_exec "$vm" "$cmd 2>&1 >/dev/null; echo rc=\$?")
	if echo "$out" | grep -q '^rc=0$'; then
		echo "# FAIL: $desc: succeeded: $out"
		LAB_FAILS=$((LAB_FAILS + 1))
		lab_died_stop
	elif ! echo "$out" | grep -Eq "$pat"; then
		echo "# FAIL: $desc: message does not match '$pat': $out"
		LAB_FAILS=$((LAB_FAILS + 1))
		lab_died_stop
	else
		echo "# ok: $desc: $(echo "$out" | grep -v '^rc=' | head -n 1)"
	fi
}

# attach_ms VM PEER SIZE: milliseconds a dev add of SIZE to PEER takes in VM
attach_ms()
{
	lab_exec -t 300 "$1" "t0=\$(date +%s%N); $R dev add peer $2 size $3 > /dev/null 2>&1 || exit 1; echo \$(( (\$(date +%s%N) - t0) / 1000000 ))"
}

# server_zeroed VM NAME: check NAME: the first server's dirty count in VM
# drops to 0 (its background zeroing), within 300 s
server_zeroed()
{
	check "$2" vm -t 300 "$1" \
		"for i in \$(seq 600); do [ \"\$($R -j server show | python3 -c 'import json, sys; print(json.load(sys.stdin)[0][\"dirty\"])')\" = 0 ] && exit 0; sleep 0.5; done; exit 1"
}

# three_servers_start: lab topology "three" with small server VMs, rmem
# loaded in all four, a server s1, s2, s3 on each (pools of THREE_POOL,
# by default 48M, in 1 MiB chunks, at port 7410); sets H (the client), S1..S3 (the server
# VMs) and P1..P3 (their servers' addresses).  Returns non-zero if the
# lab or a module did not come up (the server check is recorded).
three_servers_start()
{
	local v pool=${THREE_POOL:-48M}
	# each server VM needs little memory
	LAB_MEM_SERVER1=${LAB_MEM_SERVER1:-512} LAB_MEM_SERVER2=${LAB_MEM_SERVER2:-512}
	LAB_MEM_SERVER3=${LAB_MEM_SERVER3:-512}
	export LAB_MEM_SERVER1 LAB_MEM_SERVER2 LAB_MEM_SERVER3
	lab_start three || return 1
	H=$LAB_CLIENT
	S1=${LAB_SERVERS[0]} S2=${LAB_SERVERS[1]} S3=${LAB_SERVERS[2]}
	P1=${LAB_SERVER_ADDRS[0]}:7410 P2=${LAB_SERVER_ADDRS[1]}:7410 P3=${LAB_SERVER_ADDRS[2]}:7410
	for v in "$S1" "$S2" "$S3" "$H"; do
		rmem_load "$v" || return 1
	done
	check "three server VMs, a pool of $pool each in 1 MiB chunks" eval \
		"vm $S1 '$R server add name s1 listen $P1 size $pool mr-size 1M > /dev/null' && vm $S2 '$R server add name s2 listen $P2 size $pool mr-size 1M > /dev/null' && vm $S3 '$R server add name s3 listen $P3 size $pool mr-size 1M > /dev/null'"
}

# peers FIELD: that field of each server of rmem0 in the client $H, space
# separated
peers() { json "$H" "' '.join(str(p.get('$1')) for p in j[0]['peers'])" dev show rmem0; }

# server_used VM: the bytes the (first) server in VM uses
server_used() { json "$1" "j[0]['used']" server show; }

# fio_passes ARGS...: a guest command that starts fio passes over
# /dev/rmem0 in the background, one after another (each writes as ARGS
# say, --size among them, then verifies all it wrote) until fio_passes_end
# stops them between passes.  A SIGINT to a fio that verifies with a
# backlog once made it abort (signal 6, CI of stop 42): no SIGINT here.
fio_passes()
{
	echo "rm -f /tmp/fio.rc /tmp/fio.stop /tmp/fio.out; (n=0; rc=0; while [ ! -e /tmp/fio.stop ]; do fio --name=p --filename=/dev/rmem0 --direct=1 --ioengine=libaio $* --verify=crc32c --verify_fatal=1 --do_verify=1 >> /tmp/fio.out 2>&1 || { rc=\$?; break; }; n=\$((n + 1)); done; echo \$rc \$n > /tmp/fio.rc.new; mv /tmp/fio.rc.new /tmp/fio.rc) > /dev/null 2>&1 &"
}

# fio_passes_end MIB: a guest command that stops fio_passes after the pass
# under way and succeeds if none failed, at least one ran, and each read
# back (verified) its MIB MiB
fio_passes_end()
{
	echo "touch /tmp/fio.stop; while [ ! -e /tmp/fio.rc ]; do sleep 1; done; grep -E 'err=' /tmp/fio.out; read -r rc n < /tmp/fio.rc; echo \"# fio passes: \$n, exit status \$rc\"; [ \$rc = 0 ] && [ \$n -ge 1 ] && [ \$(grep -c 'READ: .*io=$1.0MiB' /tmp/fio.out) = \$n ] && ! grep -qE 'err= *[1-9]|verify.*(bad|fail)' /tmp/fio.out"
}

# wait_states WANT SECONDS [DEV]: until the states of DEV's servers (in
# $H; rmem0 if not given) are WANT, space separated
wait_states()
{
	local dev=${3:-rmem0}

	vm -t $(($2 + 30)) "$H" "for i in \$(seq $(($2 * 5))); do [ \"\$($R -j dev show $dev | python3 -c 'import json, sys; print(\" \".join(p[\"state\"] for p in json.load(sys.stdin)[0][\"peers\"]))')\" = '$1' ] && exit 0; sleep 0.2; done; $R dev show $dev; exit 1"
}

# swap_log_clean VM: nothing in VM's kernel log that a swap device must
# never cause
swap_log_clean()
{
	local out rc

	out=$(lab_exec "$1" "dmesg | grep -E 'page allocation failure|blocked for more than|Out of memory|oom-kill|I/O error|Read-error on swap|Write-error on swap'")
	rc=$?
	# grep: 1 is "no such line"; 0 found some, anything else (124: the
	# VM is gone or hangs) is no answer
	[ $rc -eq 1 ] && return 0
	echo "$out" | head -n 20 | sed 's/^/#   /'
	return 1
}
