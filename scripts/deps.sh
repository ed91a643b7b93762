#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install everything rmem needs to build and to run its lab, from Debian 12
# packages.  Idempotent: when every package is present it only checks, which
# takes well under a second.  Also extracts, once, the few files used from
# linux-source-6.1 (checkpatch, the kselftest harness) into build/linux-src.

set -euo pipefail
cd "$(dirname "$0")/.."

PKGS=(
	# the kernels the lab boots and rmem.ko builds for: Debian 12's 6.1 LTS
	# and 6.12 LTS (Debian 13's kernel), image and headers of each
	linux-image-amd64 linux-headers-amd64
	linux-image-6.12-amd64 linux-headers-6.12-amd64
	# build tools
	gcc make flex bison bc libelf-dev libssl-dev pkg-config sparse
	# the lab: QEMU, a static busybox for the initramfs, module tools
	qemu-system-x86 busybox-static kmod cpio iproute2 iputils-ping util-linux procps socat
	# RDMA user space: rdma tool, providers (rxe), perftest, rping
	rdma-core ibverbs-providers ibverbs-utils rdmacm-utils perftest
	libibverbs-dev librdmacm-dev
	# workloads, references and plots
	fio nvme-cli e2fsprogs gnuplot-nox
	# md RAID1 across two rmem devices (mirror recipe and its test)
	mdadm
	# rmemctl
	libmnl-dev
	# checkpatch.pl, kselftest_harness.h come from this tarball; both are
	# the debug lane's kernel sources (make check-debug DEBUG_KERNEL=)
	linux-source-6.1 linux-source-6.12 xz-utils perl
	# make deb: Debian packages (rmem-dkms, rmemctl), dkms for the first
	dkms dh-dkms debhelper dpkg-dev fakeroot
	# spec/header drift check
	python3 python3-yaml
)

missing=()
for p in "${PKGS[@]}"; do
	case "$p" in \#*) continue ;; esac
	if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q '^install ok installed$'; then
		missing+=("$p")
	fi
done

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo

if [ ${#missing[@]} -gt 0 ]; then
	echo "deps: installing: ${missing[*]}"
	$SUDO apt-get update -q
	$SUDO env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q --no-install-recommends "${missing[@]}"
else
	echo "deps: all ${#PKGS[@]} Debian packages present"
fi

# Pieces of linux-source-6.1 that we use, extracted once.
SRC=build/linux-src
STAMP=$SRC/.extracted
TARBALL=$(ls /usr/src/linux-source-6.1.tar.* 2>/dev/null | head -n1)
if [ ! -e "$STAMP" ] || [ "$TARBALL" -nt "$STAMP" ]; then
	echo "deps: extracting checkpatch and kselftest harness from $TARBALL"
	rm -rf "$SRC"
	mkdir -p "$SRC"
	top=linux-source-6.1
	tar -C "$SRC" --strip-components=1 -xf "$TARBALL" \
		"$top/scripts/checkpatch.pl" \
		"$top/scripts/spelling.txt" \
		"$top/scripts/const_structs.checkpatch" \
		"$top/scripts/kernel-doc" \
		"$top/tools/testing/selftests/kselftest_harness.h" \
		"$top/tools/testing/selftests/kselftest.h"
	touch "$STAMP"
fi
