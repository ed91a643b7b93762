#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Module unload with servers and devices present tears everything down
# cleanly; while a device is mounted the unload is refused (the block layer
# holds a module reference) and nothing breaks.
source "$(dirname "$0")/../lib.sh"

lab_start one || exit 1
H=$LAB_CLIENT A=$LAB_SERVER_ADDR

rmem_load "$H" || exit 1
check "two servers, three devices (one a volume)" vm "$H" \
	"$R server add name s0 listen $A size 64M mr-size 4M && $R server add name s1 listen $A:7411 size 32M mr-size 4M && $R dev add peer $A size 16M && $R dev add peer $A:7411 size 16M qps 2 && $R dev add peer $A size 8M volume keep"
check "mkfs and mount rmem1" vm "$H" "mkfs.ext4 -q /dev/rmem1 && mkdir -p /mnt/r && mount /dev/rmem1 /mnt/r && echo data > /mnt/r/f"
check_fail "rmmod refused while mounted" vm "$H" "rmmod rmem"
check "everything still there and working" vm "$H" \
	"[ \$($R dev show | grep -c '^rmem') = 3 ] && cat /mnt/r/f && dd if=/dev/zero of=/dev/rmem0 bs=4k count=1 oflag=direct status=none"
check "unmount" vm "$H" "umount /mnt/r"
check "rmmod with 2 servers and 3 devices present" vm "$H" "rmmod rmem"
check "no device nodes left" vm "$H" "! ls /dev/rmem* 2>/dev/null"
check "rmem.ko loads again, empty" vm "$H" "insmod $RMEM_KO && [ -z \"\$($R dev show)\" ] && [ -z \"\$($R server show)\" ]"
check "and works again" vm "$H" "$R server add name s0 listen $A size 16M && $R dev add peer $A size 8M && $R dev del rmem0 && rmmod rmem"
test_done
