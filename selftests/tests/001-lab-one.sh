#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One-VM lab: Soft-RoCE on dummy0, loopback RDMA works, rmem.ko loads,
# registers the genl family that rmemctl resolves, and unloads cleanly.
source "$(dirname "$0")/../lib.sh"

# The lab's own log classifiers: run.sh runs a test again only on what they
# call an emulator fault, so they must say no to a real fault.
fx=$(mktemp)
printf 'Oops: double fault: 0000 [#1] PREEMPT SMP NOPTI\nRSP: 0018:ffffb0d0 EFLAGS: %s\n' 43527286 > "$fx"
check "log scan: a double fault with reserved EFLAGS bits is an emulator fault" lab_emulator_fault "$fx"
printf 'Oops: double fault: 0000 [#1] PREEMPT SMP NOPTI\nRSP: 0018:ffffb0d0 EFLAGS: %s\n' 00010246 > "$fx"
check_fail "log scan: one with a valid EFLAGS is not" lab_emulator_fault "$fx"
printf 'kernel BUG at lib/list_debug.c:29!\nRSP: 0018:ffffcdcbc010fca8 EFLAGS: %s\n' 83906446 > "$fx"
check "log scan: any oops whose EFLAGS has reserved bits is an emulator fault" lab_emulator_fault "$fx"
printf 'kernel BUG at lib/list_debug.c:29!\nRSP: 0018:ffffcdcbc010fca8 EFLAGS: 00010246\nRIP: 0000:0x0\nRSP: 0000:0000000000000000 EFLAGS: 00000000 ORIG_RAX: 0000000000000000\n' > "$fx"
check_fail "log scan: a kernel thread's oops (valid EFLAGS, an empty user frame) is not" lab_emulator_fault "$fx"
# ld.so's entry point is _start: mov %rsp,%rdi (a file offset = its address)
ld=$(readlink -f /lib64/ld-linux-x86-64.so.2)
entry=$(readelf -hW "$ld" | awk '/Entry point address/ { print $NF }')
mem=$(objdump -d --no-show-raw-insn --start-address=$((entry)) --stop-address=$((entry + 64)) "$ld" |
	awk -F'\t' '$2 ~ /\(%/ { sub(/:$/, "", $1); gsub(/ /, "", $1); print $1; exit }')
gp='traps: sleep[1646] general protection fault ip:7f7a3a4e0b70 sp:7ffe4743aa30 error:0 in'
printf '%s %s[%x,7f7a3a4c7000+26000]\n' "$gp" "${ld##*/}" $((entry)) > "$fx"
check "log scan: a user fault on ld.so's first instruction (mov %rsp,%rdi) is an emulator fault" \
	lab_user_gp_fault "$fx"
printf '%s %s[%s,7f7a3a4c7000+26000]\n' "$gp" "${ld##*/}" "${mem:-0}" > "$fx"
check_fail "log scan: one on an instruction with a memory operand ($mem), no registers, is not" \
	lab_user_gp_fault "$fx"
# a store to a canonical address, registers from print-fatal-signals (a
# 024-swap client, 25 November); then the same with a non-canonical one
dump() {
	cat <<EOF
traps: rmem_swapload[257] general protection fault ip:55a6b35289e2 sp:7ffc167347c8 error:0 in rmem_swapload[19e2,55a6b3528000+1000]
rmem_swapload: rmem_swapload: potentially unexpected fatal signal 11.
RIP: 0033:0x55a6b35289e2
Code: 48 31 c2 48 89 d0 48 c1 e0 11 48 31 d0 <48> 89 41 f8 48 39 ce 75 d5 c3 0f 1f 40 00
RSP: 002b:00007ffc167347c8 EFLAGS: 00000286
RAX: e893da44b34dc0bb RBX: 000000000002b48b RCX: $1
RDX: 94f5be33323bc0bb RSI: 00007f62a988b000 RDI: 00007f62a988a000
EOF
}
dump 00007f62a988a008 > "$fx"
check "log scan: a fault on a store to a canonical address is an emulator fault" lab_user_gp_fault "$fx"
dump 80007f62a988a008 > "$fx"
check_fail "log scan: one on a store to a non-canonical address is not" lab_user_gp_fault "$fx"
# a %rip-relative compare (a 035 server's guest-init in libc, 2 December):
# canonical whatever the instruction's length; then one whose ip sits
# below the top of the lower half, so that its target crosses it
ripdump() {
	cat <<EOF
traps: guest-init[348] general protection fault ip:$1 sp:7ffc870fe808 error:0 in libc.so.6[f89e0,7f3c97d46000+156000]
bash: guest-init: potentially unexpected fatal signal 11.
RIP: 0033:0x$1
Code: 00 00 0f 1f 44 00 00 <80> 3d f1 2b 0e 00 00 74 17 b8 03 00 00 00 0f 05 48 3d 00 f0 ff ff
RSP: 002b:00007ffc870fe808 EFLAGS: 00000206
RAX: 00000000000000ff RBX: 0000000000000000 RCX: 0000000000000002
EOF
}
ripdump 7f3c97e189e0 > "$fx"
check "log scan: a %rip-relative compare to a canonical address is an emulator fault" lab_user_gp_fault "$fx"
ripdump 7ffffff1d408 > "$fx"
check_fail "log scan: one whose target crosses the top of the lower half is not" lab_user_gp_fault "$fx"
rm -f "$fx"

lab_start one || exit 1
H=$LAB_CLIENT A=$LAB_SERVER_ADDR

check "rxe0 is ACTIVE on dummy0" rdma_link_active "$H"
check "rping (rdma_cm + RDMA READ/WRITE) over loopback rxe" rping_ok "$H" "$H" "$A"
check "rmem.ko loads" rmem_load "$H"
check "genl family rmem is registered" vm "$H" "genl ctrl get name rmem | grep -q 'Name: rmem'"
check "rmemctl dev show: empty listing, exit 0" vm "$H" "out=\$($RMEMCTL dev show) && [ -z \"\$out\" ]"
check "rmemctl -j dev show: []" vm "$H" "[ \"\$($RMEMCTL -j dev show)\" = '[]' ]"
check "rmemctl server show: exit 0" vm "$H" "$RMEMCTL server show"
check "rmem.ko unloads" rmem_unload "$H"
check_fail "rmemctl fails once the module is gone" vm "$H" "$RMEMCTL dev show"
check "load/unload 5 times" vm "$H" "for i in 1 2 3 4 5; do insmod $RMEM_KO && rmmod rmem || exit 1; done"
# read_depth (the client queue pairs' initiator depth) is checked at load
check_fail "read_depth=0 is refused at load" vm "$H" "insmod $RMEM_KO read_depth=0"
check_fail "read_depth=17 is refused at load" vm "$H" "insmod $RMEM_KO read_depth=17"
check "read_depth=2 loads, and reads back" vm "$H" "insmod $RMEM_KO read_depth=2 && [ \$(cat /sys/module/rmem/parameters/read_depth) = 2 ] && rmmod rmem"
test_done
