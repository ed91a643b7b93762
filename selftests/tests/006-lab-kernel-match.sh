#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host-side: the lab never loads a module into a kernel it was not built
# for.  Asked to boot this run's kernel with rmem.ko built for another
# release (a real one when another lab kernel's build is here, and always
# a copy of this kernel's module whose vermagic names another release),
# lab_start refuses with a message and boots nothing; with the module built
# for it, the check passes.
source "$(dirname "$0")/../lib.sh"

# refused KO WHY: lab_start with RMEM_KO=KO fails saying WHY and starts no VM
refused()
{
	local out
	out=$( (RMEM_KO=$1; lab_start one && echo BOOTED) 2>&1)
	echo "$out" | sed -n 's/^# lab: /# lab said: /p'
	! echo "$out" | grep -q BOOTED && echo "$out" | grep -qF "$2"
}

check "this kernel's module ($RMEM_KO) is accepted" lab_module_ok "$RMEM_KO"

others=0
for r in $("$REPO/scripts/kernels.sh" lab); do
	[ "$r" != "$LAB_KVER" ] && [ -e "$REPO/build/$r/rmem.ko" ] || continue
	check "build/$r/rmem.ko is refused on $LAB_KVER" refused "$REPO/build/$r/rmem.ko" \
		"refusing $REPO/build/$r/rmem.ko: it was built for $r, the lab boots $LAB_KVER"
	others=$((others + 1))
done
echo "# modules of other lab kernels tried: $others"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
objcopy --dump-section .modinfo="$T/modinfo" "$RMEM_KO" "$T/x.ko"
sed -z "s/^vermagic=$LAB_KVER /vermagic=9.9.9-other /" "$T/modinfo" > "$T/modinfo.new"
objcopy --update-section .modinfo="$T/modinfo.new" "$RMEM_KO" "$T/other.ko"
check "the copy says 9.9.9-other" test "$(modinfo -F vermagic "$T/other.ko" | cut -d' ' -f1)" = 9.9.9-other
check "a module built for 9.9.9-other is refused on $LAB_KVER" refused "$T/other.ko" \
	"refusing $T/other.ko: it was built for 9.9.9-other, the lab boots $LAB_KVER"
check "a missing module is refused" refused "$T/none.ko" "no module at $T/none.ko"
test_done
