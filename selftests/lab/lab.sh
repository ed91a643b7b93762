# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The rmem lab: QEMU (TCG) VMs running a Debian kernel (LAB_KERNEL) and
# the rmem.ko built for it (RMEM_KO, default build/<release>/rmem.ko), each
# sharing the host's / read-only over 9p.  Source this file, then:
#
#   lab_start one            one VM "host": Soft-RoCE rxe0 on dummy0
#   lab_start two            VMs "server" and "client": rxe0 on a virtio NIC,
#                            wired point to point by QEMU UDP sockets
#   lab_start three          VMs "server1" to "server3" and "client": each
#                            server's one NIC wired point to point to a NIC
#                            of the client, whose three NICs are bridged
#                            (br0: one address, one rxe0); LAB_SERVERS and
#                            LAB_SERVER_ADDRS list the servers in order
#   lab_exec VM CMD...       run a shell command in VM, print its output,
#                            return its exit status (LAB_TIMEOUT seconds)
#   lab_link VM off|on       cut or restore VM's NIC (QMP set_link)
#   lab_poweroff VM          pull VM's plug at once (QMP quit)
#   lab_stop                 orderly shutdown of all VMs, collect logs
#
# Every VM also has an interactive root shell on a virtio console, reachable
# while it runs with: socat -,raw,echo=0,escape=0x1d UNIX-CONNECT:RUN/VM/shell.sock
# (RUN is printed at the end of each test; Ctrl-] leaves).
#
# An EXIT trap stops the VMs, saves every VM's kernel log and fails the test
# (exit 1) if any log has a BUG/WARNING/Oops/... line, which it prints.

LAB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$LAB_DIR/../.." && pwd)
LAB_BUILD=${LAB_BUILD:-$REPO/build/lab}
LAB_MEM=${LAB_MEM:-1024}
LAB_CPUS=${LAB_CPUS:-2}
LAB_TIMEOUT=${LAB_TIMEOUT:-300}
LAB_BOOT_TIMEOUT=${LAB_BOOT_TIMEOUT:-180}
# Addresses live only on the VMs' private virtual wire (RFC 2544 range).
LAB_ADDR_ONE=198.18.0.1
LAB_ADDR_SERVER=198.18.1.1
LAB_ADDR_CLIENT=198.18.1.2
# lab_start three: server1 has LAB_ADDR_SERVER, the others these
LAB_ADDR_SERVER2=198.18.1.3
LAB_ADDR_SERVER3=198.18.1.4
LAB_PREFIX=24

# Kernel log lines that fail a test: besides BUG/WARNING/Oops, what a bad
# pointer in a kworker prints on a non-debug kernel (general protection
# fault, invalid opcode, a bare Call Trace:), UBSAN and RCU stall reports.
LAB_BAD_RE='(^|[^_A-Za-z])BUG[: ]|WARNING:|Oops|KASAN|Kernel panic|list_(add|del) corruption|hung task|blocked for more than|refcount_t|general protection fault|invalid opcode|UBSAN:|rcu: INFO|Call Trace:'
# A user-space process's fatal fault as the kernel logs it (a bad kernel
# log line only through its register dump's Call Trace).
LAB_USER_FAULT_RE='segfault at [0-9a-f]+|traps: .* general protection fault|potentially unexpected fatal signal'
# LAB_KNOWN_WARN_RE: WARNING sites of known defects outside rmem that a
# test may hit; such a block (WARNING line to "end trace") is reported but
# does not fail the test.  One by default: Soft-RoCE's completer.  rxe
# retries RDMA READs when the VM is slow (under KASAN and lockdep about 25
# per GiB read, over one VM's loopback, with a 67 ms or 0.5 s ack timeout;
# nvme-rdma's reads are RDMA WRITEs and see none), and check_ack() ends
# some retried READ responses in COMPST_ERROR without an error status:
# WARN_ON_ONCE(wqe->status == IB_WC_SUCCESS), the READ completes as
# successful with data missing, and the queue pair goes to error.  rmem's
# READ tail (blk.c) turns that into a reissue; tests-debug/031-read-retry.sh
# checks the data.  Seen on the debug kernel first, and on Debian's 6.12
# once (27 November, fs-volume, with the host's other core busy compiling;
# its checksums matched).
LAB_KNOWN_WARN_RE=${LAB_KNOWN_WARN_RE-at drivers/infiniband/sw/rxe/rxe_comp\.c:[0-9]+ rxe_completer}
# LAB_ALLOC_FAILS_OK=1 (a test that injects allocation failures): the
# allocator's own report of a failed allocation ("page allocation
# failure", "vmalloc error": a stack dump, then </TASK>) is expected, not
# a bad line; any other bad line inside such a report still counts.
LAB_ALLOC_FAILS_OK=${LAB_ALLOC_FAILS_OK:-}

declare -A LAB_PID=() LAB_T0=()
LAB_VMS=()
LAB_RUN=

lab_log() { echo "# lab: $*"; }

# RMEM_LAB_KERNEL=DIR boots another kernel instead of the Debian one:
# DIR/bzImage, its release in DIR/kver, its modules under DIR/modroot
# (make check-debug points it at scripts/debug-kernel.sh's build).
RMEM_LAB_KERNEL=${RMEM_LAB_KERNEL:-}
# LAB_APPEND: more kernel parameters.  On the debug kernel, ACPI's AML
# interpreter under KASAN and lockdep takes ~20 s per PCI interrupt link
# (80 s a boot): route PCI interrupts from the BIOS's PIRQ table instead.
LAB_APPEND=${LAB_APPEND-${RMEM_LAB_KERNEL:+pci=noacpi}}
# LAB_CPU: QEMU's -cpu (default qemu64: no PCLMUL, AVX, XSAVE, PCID, PKU
# or 5-level paging, fewer emulated paths; the suite ran a little faster
# than with max).  Neither model avoids QEMU 7.2's emulator faults (a 6.12
# memory server dying of a double fault with impossible EFLAGS under
# heavy RDMA writes): run.sh reruns a test they hit, once.
LAB_CPU=${LAB_CPU:-qemu64}
# LAB_TCG_THREAD: QEMU's TCG threading, single (default) or multi.  With
# multi (one host thread per vCPU), QEMU 7.2 let a 6.12 guest vCPU run
# code another vCPU had already patched back (an int3 of a finished
# text_poke_bp(): "Oops: int3" in sched_clock_cpu() at boot, CI) and once
# saw a double fault with reserved EFLAGS bits set, which no guest code
# can make.  Single-threaded TCG runs a VM's vCPUs in turn on one host
# thread, with no such races; on 2 host cores with two VMs it costs no
# time (the 6.12 suite: 1361 s multi, 1444 s single, swap 552 and 598 s).
LAB_TCG_THREAD=${LAB_TCG_THREAD:-single}
# LAB_MTU: the MTU of the VMs' RDMA netdev (empty: the default, 1500).  On
# the debug kernel 9000 (rxe MTU 4096): rxe under KASAN moved 1.2 MB/s
# between two VMs at MTU 1500 (a quarter of its packets retransmitted),
# 2.5 MB/s at 9000; at the lower rate ext4's discards (which then wrote
# zeros) outlasted the 3 s loss detection (a false loss and reconnect every
# 5 s).
LAB_MTU=${LAB_MTU-${RMEM_LAB_KERNEL:+9000}}

# LAB_KVER: the release the lab boots.  LAB_KERNEL=RELEASE (or a prefix of
# one: 6.1, 6.12) picks an installed Debian kernel with image and headers
# (scripts/kernels.sh lab); default: the newest.  RMEM_LAB_KERNEL: its own.
if [ -n "$RMEM_LAB_KERNEL" ]; then
	LAB_KVER=$(cat "$RMEM_LAB_KERNEL/kver")
else
	LAB_KVER=$("$REPO/scripts/kernels.sh" lab ${LAB_KERNEL:+"$LAB_KERNEL"} | head -n 1)
fi
RMEM_KO=${RMEM_KO:-$REPO/build/$LAB_KVER/rmem.ko}
# the kernel tree rmem.ko is built against for LAB_KVER
if [ -n "$RMEM_LAB_KERNEL" ]; then
	LAB_KDIR=$RMEM_LAB_KERNEL/tree
else
	LAB_KDIR=$("$REPO/scripts/kernels.sh" kdir "$LAB_KVER")
fi

# lab_module_ok KO: KO is a module built for LAB_KVER (its vermagic says
# so).  The lab never loads a module into a kernel it was not built for.
lab_module_ok()
{
	local ko=$1 built

	if [ -z "$LAB_KVER" ]; then
		lab_log "no lab kernel${LAB_KERNEL:+ matches LAB_KERNEL=$LAB_KERNEL} (make deps installs them)"
		return 1
	fi
	if [ ! -r "$ko" ]; then
		lab_log "no module at $ko: build it with make KDIR=$LAB_KDIR"
		return 1
	fi
	built=$(modinfo -F vermagic "$ko" 2>/dev/null)
	built=${built%% *}
	if [ "$built" != "$LAB_KVER" ]; then
		lab_log "refusing $ko: it was built for ${built:-an unknown kernel}, the lab boots $LAB_KVER"
		return 1
	fi
}

lab_prepare()
{
	lab_module_ok "$RMEM_KO" || return 1
	LAB_VMLINUZ=/boot/vmlinuz-$LAB_KVER
	LAB_MODROOT=
	if [ -n "$RMEM_LAB_KERNEL" ]; then
		LAB_VMLINUZ=$RMEM_LAB_KERNEL/bzImage
		LAB_MODROOT=$RMEM_LAB_KERNEL/modroot
	fi
	[ -r "$LAB_VMLINUZ" ] || { lab_log "no $LAB_VMLINUZ (install linux-image-$LAB_KVER)"; return 1; }
	LAB_INITRD=$LAB_BUILD/initramfs-$LAB_KVER.cpio.gz
	if [ ! -e "$LAB_INITRD" ] || [ "$LAB_DIR/initramfs-init" -nt "$LAB_INITRD" ] ||
	   [ "$LAB_DIR/mkinitramfs.sh" -nt "$LAB_INITRD" ] ||
	   { [ -n "$LAB_MODROOT" ] && [ "$LAB_VMLINUZ" -nt "$LAB_INITRD" ]; }; then
		"$LAB_DIR/mkinitramfs.sh" "$LAB_KVER" "$LAB_INITRD" ${LAB_MODROOT:+"$LAB_MODROOT"} || return 1
	fi
	mkdir -p "$LAB_BUILD"
	LAB_RUN=$(mktemp -d "$LAB_BUILD/run.XXXXXX")
	trap lab_exit EXIT
	trap 'exit 143' TERM INT
}

# lab_boot NAME NET [extra qemu args...]: boot one VM, wait until ready.
lab_boot()
{
	lab_launch "$@" && lab_wait_ready "$1"
}

# lab_launch NAME NET [extra qemu args...]: start one VM's QEMU; does not
# wait (lab_wait_ready does), so two VMs boot at once, one host core each.
lab_launch()
{
	local name=$1 net=$2
	shift 2
	local dir=$LAB_RUN/$name
	mkdir -p "$dir/job"
	# print-fatal-signals: a process killed by SIGSEGV and the like has
	# its registers logged, which tells a corrupted page it loaded (a
	# register holds what memory held) from corrupted CPU state
	# rcu_cpu_stall_timeout: TCG runs a guest 20 to 50 times slower than
	# hardware; 21 s (Debian's) caught a compaction pass under swap
	local cmdline="console=ttyS0 panic=1 print-fatal-signals=1"
	cmdline+=" rcupdate.rcu_cpu_stall_timeout=60"
	# and the soft-lockup watchdog at 60 s, not 20 (watchdog_thresh 30,
	# not 10), for the same reason: under swap two vCPUs took turns on
	# one host thread while both spun for the zone lock (a 6.12 client
	# "stuck for 22s" in get_page_from_freelist, CI, 28 November), and
	# on the debug kernel rxe's receive task, copying a backlog of 4 KiB
	# WRITEs under KASAN, held a CPU for 22 s.  An endless loop still trips it.
	cmdline+=" watchdog_thresh=30"
	cmdline+=" rmem_lab_init=$LAB_DIR/guest-init"
	cmdline+=" rmem_lab_repo=$REPO rmem_lab_name=$name rmem_lab_net=$net"
	[ -z "$LAB_MTU" ] || cmdline+=" rmem_lab_mtu=$LAB_MTU"
	[ -z "$LAB_MODROOT" ] || cmdline+=" rmem_lab_modules=$LAB_MODROOT/lib/modules/$LAB_KVER"
	cmdline+=" $LAB_APPEND"
	# LAB_MEM_<VM> (LAB_MEM_CLIENT, LAB_MEM_SERVER, LAB_MEM_HOST) overrides
	# LAB_MEM for one VM
	local memvar=LAB_MEM_${name^^}
	local mem=${!memvar:-$LAB_MEM}
	qemu-system-x86_64 -name "$name" -nodefaults -no-user-config \
		-accel "tcg,thread=$LAB_TCG_THREAD" -cpu "$LAB_CPU" -smp "$LAB_CPUS" -m "$mem" \
		-kernel "$LAB_VMLINUZ" -initrd "$LAB_INITRD" -append "$cmdline" \
		-display none -serial "file:$dir/console.log" -no-reboot \
		-qmp "unix:$dir/qmp.sock,server=on,wait=off" \
		-chardev "socket,id=shell,path=$dir/shell.sock,server=on,wait=off" \
		-device virtio-serial-pci -device virtconsole,chardev=shell \
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
		-virtfs "local,path=$REPO,mount_tag=repo,security_model=none,readonly=on,multidevs=remap" \
		-virtfs "local,path=$dir/job,mount_tag=job,security_model=none" \
		"$@" > "$dir/qemu.log" 2>&1 &
	LAB_PID[$name]=$!
	LAB_VMS+=("$name")
	LAB_T0[$name]=$EPOCHREALTIME
}

# lab_wait_ready NAME: wait until a launched VM's guest-init is ready.
lab_wait_ready()
{
	local name=$1 dir=$LAB_RUN/$1 t=0
	while [ ! -e "$dir/job/ready" ]; do
		if ! kill -0 "${LAB_PID[$name]}" 2>/dev/null; then
			lab_log "$name: QEMU exited during boot"
			sed 's/^/# /' "$dir/qemu.log"; tail -n 30 "$dir/console.log" | sed 's/^/# /'
			return 1
		fi
		if [ $t -ge $((LAB_BOOT_TIMEOUT * 5)) ]; then
			lab_log "$name: not ready after ${LAB_BOOT_TIMEOUT}s"
			tail -n 30 "$dir/console.log" | sed 's/^/# /'
			return 1
		fi
		sleep 0.2
		t=$((t + 1))
	done
	lab_log "$name up in $(awk -v a="${LAB_T0[$name]}" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')s"
}

# lab_start one|two|three: boot a topology.
lab_start()
{
	lab_prepare || return 1
	LAB_TOPOLOGY=$1
	case "$1" in
	one)
		lab_boot host "dummy0:$LAB_ADDR_ONE/$LAB_PREFIX" -nic none
		LAB_SERVER=host LAB_CLIENT=host
		LAB_SERVER_ADDR=$LAB_ADDR_ONE
		;;
	two)
		local base=$((20000 + ($$ % 20000) * 2))
		# both at once: with single-threaded TCG each VM is one host
		# thread, and the suite boots two VMs some 30 times
		lab_launch server "eth0:$LAB_ADDR_SERVER/$LAB_PREFIX" \
			-netdev "socket,id=n0,udp=127.0.0.1:$((base + 1)),localaddr=127.0.0.1:$base" \
			-device virtio-net-pci,netdev=n0,mac=52:54:00:72:6d:01 || return 1
		lab_launch client "eth0:$LAB_ADDR_CLIENT/$LAB_PREFIX" \
			-netdev "socket,id=n0,udp=127.0.0.1:$base,localaddr=127.0.0.1:$((base + 1))" \
			-device virtio-net-pci,netdev=n0,mac=52:54:00:72:6d:02 || return 1
		lab_wait_ready server || return 1
		lab_wait_ready client || return 1
		LAB_SERVER=server LAB_CLIENT=client
		LAB_SERVER_ADDR=$LAB_ADDR_SERVER
		;;
	three)
		# link i (1 to 3): server i's port base + 2i, the client's
		# base + 2i + 1; all four boot at once
		local base=$((20000 + ($$ % 6000) * 8)) i addr cnet=()
		LAB_SERVERS=(server1 server2 server3)
		LAB_SERVER_ADDRS=("$LAB_ADDR_SERVER" "$LAB_ADDR_SERVER2" "$LAB_ADDR_SERVER3")
		for i in 1 2 3; do
			addr=${LAB_SERVER_ADDRS[i - 1]}
			lab_launch "server$i" "eth0:$addr/$LAB_PREFIX" \
				-netdev "socket,id=n0,udp=127.0.0.1:$((base + 2 * i + 1)),localaddr=127.0.0.1:$((base + 2 * i))" \
				-device "virtio-net-pci,netdev=n0,mac=52:54:00:72:6d:1$i" || return 1
			cnet+=(-netdev "socket,id=n$i,udp=127.0.0.1:$((base + 2 * i)),localaddr=127.0.0.1:$((base + 2 * i + 1))"
			       -device "virtio-net-pci,netdev=n$i,mac=52:54:00:72:6d:2$i")
		done
		lab_launch client "br0:$LAB_ADDR_CLIENT/$LAB_PREFIX" "${cnet[@]}" || return 1
		for i in 1 2 3; do
			lab_wait_ready "server$i" || return 1
		done
		lab_wait_ready client || return 1
		LAB_SERVER=server1 LAB_CLIENT=client
		LAB_SERVER_ADDR=$LAB_ADDR_SERVER
		;;
	*) lab_log "unknown topology $1"; return 1 ;;
	esac
}

# lab_exec [-t SECONDS] VM CMD...: run CMD (one shell string) in VM.
lab_exec()
{
	local timeout=$LAB_TIMEOUT
	if [ "$1" = -t ]; then timeout=$2; shift 2; fi
	local name=$1
	shift
	local cmd=$LAB_RUN/$name/job/cmd
	mkdir -p "$cmd"
	local n=$(( $(cat "$cmd/.seq" 2>/dev/null || echo 0) + 1 ))
	LAB_UNFINISHED=0
	echo "$n" > "$cmd/.seq"
	printf 'set -o pipefail\n%s\n' "$*" > "$cmd/$n.sh.tmp"
	mv "$cmd/$n.sh.tmp" "$cmd/$n.sh"
	local t=0
	while [ ! -e "$cmd/$n.rc" ]; do
		if [ $t -ge $((timeout * 10)) ] || ! kill -0 "${LAB_PID[$name]}" 2>/dev/null; then
			cat "$cmd/$n.out" 2>/dev/null
			if kill -0 "${LAB_PID[$name]}" 2>/dev/null; then
				lab_log "$name: '$*' did not finish within ${timeout}s"
			elif [ ! -e "$LAB_RUN/$name/gone" ]; then
				# once per VM (a file: callers run in subshells): what
				# it said last, as CI keeps no lab directory
				: > "$LAB_RUN/$name/gone"
				lab_log "$name: '$*' did not finish: the VM is gone; its console ended with:"
				tail -n 40 "$LAB_RUN/$name/console.log" 2>/dev/null | sed 's/^/# | /'
			else
				lab_log "$name: '$*' did not finish: the VM is gone"
			fi
			# for check_fail (a caller in this shell): no answer at all
			LAB_UNFINISHED=1
			return 124
		fi
		sleep 0.1
		t=$((t + 1))
	done
	cat "$cmd/$n.out"
	return "$(cat "$cmd/$n.rc")"
}

lab_qmp()
{
	local name=$1 json=$2
	printf '{"execute":"qmp_capabilities"}\n%s\n' "$json" |
		socat -t 5 - "UNIX-CONNECT:$LAB_RUN/$name/qmp.sock" > /dev/null
}

# lab_link VM off|on: cut or restore VM's NIC; waits until the guest sees
# its carrier change (QMP answers late when QEMU is busy: retried).
lab_link()
{
	local up=true carrier=1 try
	[ "$2" = off ] && up=false carrier=0
	for try in 1 2 3; do
		lab_qmp "$1" "{\"execute\":\"set_link\",\"arguments\":{\"name\":\"n0\",\"up\":$up}}"
		lab_exec -t 20 "$1" "for i in \$(seq 50); do [ \"\$(cat /sys/class/net/eth0/carrier)\" = $carrier ] && exit 0; sleep 0.1; done; exit 1" && return 0
		lab_log "$1: link still not $2, again"
	done
	lab_log "$1: could not set the link $2"
	return 1
}

# lab_kill_vm VM: wait up to 5 s for VM's QEMU to exit, then SIGKILL it.
lab_kill_vm()
{
	local name=$1 pid=${LAB_PID[$1]} t=0
	[ -n "$pid" ] || return 0
	while kill -0 "$pid" 2>/dev/null && [ $t -lt 50 ]; do
		sleep 0.1
		t=$((t + 1))
	done
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	LAB_PID[$name]=
}

# lab_poweroff VM: the VM disappears at once, as if unplugged.
lab_poweroff()
{
	lab_qmp "$1" '{"execute":"quit"}' || lab_log "$1: QMP quit failed, killing QEMU"
	lab_kill_vm "$1"
}

# lab_stop: save each VM's dmesg (and, on a kernel with kmemleak, a leak
# scan), then power it off; kill after a grace time.
lab_stop()
{
	local name pid t
	# kmemleak's scan (debug kernel) takes minutes under TCG; elsewhere a
	# VM that does not answer in 30 s is hung (an oops), and waiting 300 s
	# for it once ate the rest of 024's time limit, before the log scan
	# could see the emulator fault run.sh reruns a test for
	local kt=${RMEM_LAB_KERNEL:+300}
	for name in "${LAB_VMS[@]}"; do
		pid=${LAB_PID[$name]}
		[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || continue
		# a VM still booting (its peer failed to): nothing to scan
		[ -e "$LAB_RUN/$name/job/ready" ] || continue
		lab_exec -t "${kt:-30}" "$name" 'k=/sys/kernel/debug/kmemleak; [ ! -w $k ] || { echo scan > $k && cat $k > /job/kmemleak.txt; }' > /dev/null 2>&1
	done
	for name in "${LAB_VMS[@]}"; do
		pid=${LAB_PID[$name]}
		[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || continue
		lab_exec -t 30 "$name" 'dmesg > /job/dmesg.txt; sync; poweroff -f' > /dev/null 2>&1 &
	done
	# the poweroff commands above end with the VMs; give them 30 s
	t=0
	for name in "${LAB_VMS[@]}"; do
		pid=${LAB_PID[$name]}
		while [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && [ $t -lt 300 ]; do
			sleep 0.1
			t=$((t + 1))
		done
		lab_kill_vm "$name"
	done
	wait 2>/dev/null
}

# kmemleak report blocks whose allocation trace is in rmem.ko, or in a module
# no longer loaded (a bare module-space address: rmem.ko after rmmod).
LAB_KMEMLEAK_AWK='BEGIN { RS = "unreferenced object "; ORS = "" } /\[rmem\]|0xffffffff[a-f][0-9a-f]+\n/'

# lab_emulator_fault FILE: an EFLAGS of a register dump in a console log
# (an oops, a double fault, a warning, a process killed by a fatal signal
# with print-fatal-signals) that has bits set x86 reserves (1, 3, 5, 15,
# 22-63: bit 1 always set, the others always clear).  No guest instruction
# can load such a value (popf and iret mask them), and the CPU saves none in
# an exception frame; QEMU 7.2's TCG has (see Documentation/lab.rst,
# "Emulator faults").  Prints the first one.
lab_emulator_fault()
{
	local ef
	for ef in $(grep -aoE 'EFLAGS: [0-9a-f]+' "$1" | cut -d' ' -f2); do
		# all zero: the empty user frame printed for a kernel thread
		[ ${#ef} -le 16 ] && ((0x$ef)) || continue
		if (((0x$ef & 0xffffffffffc08028) != 0 || (0x$ef & 2) == 0)); then
			echo "$ef"
			return 0
		fi
	done
	return 1
}

# lab_user_gp_fault FILE: a user-space general protection fault in a
# console log that its instruction cannot raise: one with no memory
# operand, or (from the registers print-fatal-signals logs) one whose
# address is canonical.  Prints the evidence (gp_fault.py says how; see
# Documentation/lab.rst, "Emulator faults").
lab_user_gp_fault()
{
	python3 "$LAB_DIR/gp_fault.py" "$1"
}

# lab_known_warn FILE: FILE without the blocks of LAB_KNOWN_WARN_RE
# warnings: a block is its WARNING line up to its "end trace", at most 100
# lines; any LAB_BAD_RE line in it but its own Call Trace still counts, and
# a block with no end trace is printed as bad.  With LAB_ALLOC_FAILS_OK,
# the same for the allocator's failure reports, up to their </TASK>.
lab_known_warn()
{
	if [ -z "$LAB_KNOWN_WARN_RE" ] && [ -z "$LAB_ALLOC_FAILS_OK" ]; then
		cat "$1"
		return
	fi
	KNOWN=${LAB_KNOWN_WARN_RE:+"WARNING: .*$LAB_KNOWN_WARN_RE"} BAD="$LAB_BAD_RE" ALLOC=$LAB_ALLOC_FAILS_OK awk '
		function unfinished() {
			if (skip)
				print "WARNING: a known warning block with no end trace: " head
			skip = 0
		}
		ENVIRON["KNOWN"] != "" && $0 ~ ENVIRON["KNOWN"] { unfinished(); skip = 1; n = 0; head = $0; next }
		ENVIRON["ALLOC"] != "" && /(page allocation failure|vmalloc error): / { unfinished(); skip = 2; n = 0; head = $0; next }
		skip == 2 && /<\/TASK>/ { skip = 0; next }
		skip && /---\[ end trace/ { skip = 0; next }
		skip && (/\[ cut here \]/ || ++n > 100) { unfinished() }
		skip && ($0 !~ ENVIRON["BAD"] || /Call Trace:/) { next }
		{ print }
		END { unfinished() }' "$1"
}

# lab_scan_logs: print bad kernel log lines of every VM; 1 if any.
lab_scan_logs()
{
	local name f ef bad=0
	for name in "${LAB_VMS[@]}"; do
		for f in "$LAB_RUN/$name/console.log" "$LAB_RUN/$name/job/dmesg.txt"; do
			[ -e "$f" ] || continue
			if [ -n "$LAB_KNOWN_WARN_RE" ] &&
			   grep -aEq "WARNING: .*$LAB_KNOWN_WARN_RE" "$f"; then
				lab_log "$name: known defect outside rmem, allowed on this kernel (${f#"$LAB_RUN"/}):"
				grep -aE "WARNING: .*$LAB_KNOWN_WARN_RE" "$f" | head -n 3 | sed 's/^/# | /'
			fi
			if lab_known_warn "$f" | grep -aEq "$LAB_BAD_RE"; then
				lab_log "$name: bad kernel log lines in ${f#"$LAB_RUN"/}:"
				lab_known_warn "$f" | grep -aE -A3 "$LAB_BAD_RE" | head -n 40 | sed 's/^/# | /'
				bad=1
			fi
			# a process killed by a signal (print-fatal-signals): its
			# fault and registers, which tell corrupted memory (a
			# register holds a page's pattern) from corrupted CPU state
			if grep -aEq "$LAB_USER_FAULT_RE" "$f"; then
				lab_log "$name: a process died of a fault (${f#"$LAB_RUN"/}):"
				grep -aE -A14 "$LAB_USER_FAULT_RE" "$f" | head -n 32 | sed 's/^/# | /'
			fi
			# the marker run.sh looks for (a test fails all the same)
			if ef=$(lab_emulator_fault "$f"); then
				lab_log "$name: EMULATOR FAULT: a register dump with EFLAGS $ef, reserved bits set"
			fi
			if ef=$(lab_user_gp_fault "$f"); then
				lab_log "$name: EMULATOR FAULT: $ef"
			fi
		done
		f=$LAB_RUN/$name/job/kmemleak.txt
		[ -e "$f" ] || continue
		if awk "$LAB_KMEMLEAK_AWK"' { n++ } END { exit n ? 0 : 1 }' "$f"; then
			lab_log "$name: kmemleak: leaks allocated by rmem (job/kmemleak.txt):"
			awk "$LAB_KMEMLEAK_AWK"' { print "unreferenced object " $0 }' "$f" | head -n 60 | sed 's/^/# | /'
			bad=1
		else
			lab_log "$name: kmemleak: $(grep -c '^unreferenced object' "$f") suspect object(s), none from rmem"
		fi
	done
	return $bad
}

# lab_teardown: stop every VM, then check their logs; 1 on a bad line.
lab_teardown()
{
	trap - EXIT TERM INT
	lab_stop
	lab_scan_logs
}

lab_exit()
{
	local rc=$?

	lab_teardown || rc=1
	lab_log "logs in ${LAB_RUN#"$REPO"/}"
	exit $rc
}

# lab_exit_quiet RC WHY: lab_exit for the demo: a clear last line either way.
lab_exit_quiet()
{
	local rc=$1 why=$2

	if ! lab_teardown; then
		rc=1
		why=${why:-bad lines in a kernel log (above)}
	fi
	if [ "$rc" -eq 0 ]; then
		printf '\n\033[1;32mDEMO PASSED: remote RAM attached, file system written and read back, detached\033[0m\n'
	else
		printf '\n\033[1;31mDEMO FAILED: %s (logs in %s)\033[0m\n' "${why:-exit $rc}" "$LAB_RUN"
	fi
	exit "$rc"
}

# --- assertions for tests ------------------------------------------------
LAB_FAILS=0

# check DESC CMD...: run CMD on the host side, record pass/fail.  CMD's
# output goes to the log when it ends (a file, not a pipe: CMD runs in
# this shell, and what it starts in the background cannot hold it up);
# a FAIL line quotes its last line, so that the run's recap, which keeps
# only FAIL lines, says why.
check()
{
	local desc=$1 out last
	shift
	out=$(mktemp) || return 1
	if "$@" > "$out" 2>&1; then
		cat "$out"
		echo "# ok: $desc"
	else
		cat "$out"
		last=$(grep -a -v '^[#[:space:]]*$' "$out" | tail -n 1 | cut -c 1-160)
		last=${last#\# }
		echo "# FAIL: $desc${last:+ (last output: $last)}"
		LAB_FAILS=$((LAB_FAILS + 1))
		lab_died_stop
	fi
	rm -f "$out"
}

# check_fail DESC CMD...: CMD must fail.  A command in a VM that did not
# finish (lab_exec timed out, or the VM is gone) is no failure of CMD.
check_fail()
{
	local desc=$1 rc
	shift
	LAB_UNFINISHED=0
	"$@"
	rc=$?
	if [ $rc -eq 0 ]; then
		echo "# FAIL: $desc (unexpected success)"
		LAB_FAILS=$((LAB_FAILS + 1))
		lab_died_stop
	elif [ "$LAB_UNFINISHED" = 1 ]; then
		echo "# FAIL: $desc (did not finish: hung, or the VM is gone)"
		LAB_FAILS=$((LAB_FAILS + 1))
		lab_died_stop
	else
		echo "# ok: $desc"
	fi
}

# lab_died_stop: after a failed check, stop the test if a VM's QEMU
# exited though nothing powered it off (a guest panic: panic=1 with
# -no-reboot).  What follows would only fail too, waiting out its
# timeouts: 033 once ran into its 900 s limit that way (a server VM died
# of an emulator fault), and the limit's kill left no teardown to report
# the fault run.sh reruns a test for.  The EXIT trap's teardown checks the
# logs (and says EMULATOR FAULT if QEMU corrupted the VM).
lab_died_stop()
{
	local name pid

	for name in "${!LAB_PID[@]}"; do
		pid=${LAB_PID[$name]}
		[ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null || continue
		lab_log "$name: its QEMU exited, and nothing powered it off: the test stops here"
		if [ ! -e "$LAB_RUN/$name/gone" ]; then
			: > "$LAB_RUN/$name/gone"
			lab_log "$name: its console ended with:"
			tail -n 40 "$LAB_RUN/$name/console.log" 2>/dev/null | sed 's/^/# | /'
		fi
		exit 1
	done
}

# lab_gone VM: VM's QEMU has exited (lab_poweroff forgets its pid).
lab_gone()
{
	local pid=${LAB_PID[$1]:-}

	[ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null
}

# test_done: exit status of the test from the recorded checks.
test_done()
{
	[ "$LAB_FAILS" -eq 0 ] && exit 0
	echo "# $LAB_FAILS check(s) failed"
	exit 1
}
