#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh KVER OUT [MODROOT]: build the lab's tiny initramfs.  It holds a static
# busybox and the modules needed to mount the host's root over virtio-9p
# (read-only) under a tmpfs overlay; /init then switch_roots into that.
set -euo pipefail

KVER=$1
OUT=$2
# modules of a kernel not installed on the host live under MODROOT
MODPROBE=(modprobe -S "$KVER")
[ -z "${3:-}" ] || MODPROBE+=(-d "$3")
HERE=$(cd "$(dirname "$0")" && pwd)
BUSYBOX=/bin/busybox
[ -x "$BUSYBOX" ] || { echo "mkinitramfs: $BUSYBOX missing (busybox-static)" >&2; exit 1; }
file -L "$BUSYBOX" 2>/dev/null | grep -q 'dynamically' &&
	{ echo "mkinitramfs: $BUSYBOX is not static" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"/{bin,dev,proc,sys,mnt/lower,mnt/rw,newroot,modules}
cp "$BUSYBOX" "$tmp/bin/busybox"
for app in sh mount umount mkdir insmod switch_root cat sleep echo \
		mknod poweroff reboot; do
	ln -s busybox "$tmp/bin/$app"
done

# Module load order from the kernel's own dependency data (nothing to load
# when they are built in).
: > "$tmp/modules/order"
for m in virtio_pci 9pnet_virtio 9p overlay; do
	"${MODPROBE[@]}" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
done | awk '!seen[$0]++' | while read -r ko; do
	# busybox insmod takes plain modules: Debian's 6.12 ones come
	# xz-compressed
	name=$(basename "$ko")
	case "$name" in
	*.ko.xz) name=${name%.xz}; xz -dc "$ko" > "$tmp/modules/$name" ;;
	*) cp "$ko" "$tmp/modules/" ;;
	esac
	echo "$name" >> "$tmp/modules/order"
done

install -m 0755 "$HERE/initramfs-init" "$tmp/init"
mkdir -p "$(dirname "$OUT")"
(cd "$tmp" && find . | cpio -o -H newc --quiet) | gzip -1 > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
