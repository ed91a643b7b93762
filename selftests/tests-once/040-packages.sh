#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rmem-timeout: 1200
#
# The Debian packages on this host: make deb builds rmem-dkms and rmemctl;
# installing them makes dkms build and install rmem.ko (VERSION's version)
# for every lab kernel and puts rmemctl (same version) in /usr/sbin; then
# each lab kernel boots and uses the module dkms installed (boot_and_use).
# An EXIT trap purges both packages, on failure too, and checks that no
# trace of rmem is left; a marker file lets a later run finish the purge
# of a run that was killed before its trap could.  Needs root; skips (4)
# rather than touch an rmem installation that was there before.
source "$(dirname "$0")/../lib.sh"
# no -e: check() records failures and goes on; the lab is not -e safe
set -o pipefail

PKGS=(rmem-dkms rmemctl)
DEBS=$REPO/build/deb
# dkms signs with a key it creates on first use: remove it after if it is ours
MOK=(/var/lib/dkms/mok.key /var/lib/dkms/mok.pub)

# written before the install, removed after the purge: what is installed
# while it exists is this test's (and the dkms key files it lists)
MARK=/var/lib/rmem-selftests/040-packages

skip() { echo "# SKIP: $*"; exit 4; }

# apt and dpkg wait for a lock another apt holds (apt-daily, unattended
# upgrades on a fresh machine) instead of failing at once
APT_LOCK=(-o DPkg::Lock::Timeout=300)
apt_purge()
{
	DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "${APT_LOCK[@]}" \
		-o Dpkg::Use-Pty=0 "${PKGS[@]}"
}

[ "$(id -u)" -eq 0 ] || skip "installs packages: needs root"
if [ -e "$MARK" ]; then
	lab_log "an earlier run of this test was killed before it purged: purging now"
	apt_purge 2>&1 | sed 's/^/# /'
	while read -r f; do rm -f "$f"; done < "$MARK"
	rm -f "$MARK"
fi
for p in "${PKGS[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)
	[ -z "$st" ] || [ "$st" = not-installed ] ||
		skip "$p is already on this host ($st): not replacing nor purging it"
done
[ -z "$(dkms status -m rmem 2>/dev/null)" ] ||
	skip "dkms already has rmem ($(dkms status -m rmem 2>/dev/null | head -n 1)): leaving it alone"
! compgen -G '/usr/src/rmem-*' > /dev/null ||
	skip "$(compgen -G '/usr/src/rmem-*' | head -n 1) exists: leaving it alone"

# every lab kernel, or those make check / run.sh were given
KERNELS=${LAB_KERNELS:-$("$REPO/scripts/kernels.sh" lab)}
[ -n "$KERNELS" ] || skip "no lab kernel (make deps installs them)"
VERSION=$(make -s --no-print-directory -C "$REPO" print-version)

TMP=$(mktemp -d)
mok_ours=()
for f in "${MOK[@]}"; do [ -e "$f" ] || mok_ours+=("$f"); done

# leftovers: print what of rmem is still installed (nothing: as found)
leftovers()
{
	local p st
	for p in "${PKGS[@]}"; do
		st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)
		[ -z "$st" ] || [ "$st" = not-installed ] || echo "package $p ($st)"
	done
	dkms status -m rmem 2>/dev/null
	compgen -G '/usr/src/rmem-*'
	find /lib/modules -path '*/updates/dkms/rmem.ko*' 2>/dev/null
	[ ! -e /usr/sbin/rmemctl ] || echo /usr/sbin/rmemctl
}

cleanup()
{
	local rc=$? left f

	# the purge must finish: no signal (run.sh's timeout) cuts it short
	trap '' TERM INT
	trap - EXIT
	lab_log "purging ${PKGS[*]}"
	if ! apt_purge > "$TMP/purge.log" 2>&1; then
		sed 's/^/# /' "$TMP/purge.log"
		echo "# FAIL: apt-get purge ${PKGS[*]}"
		rc=1
	fi
	left=$(leftovers)
	if [ -n "$left" ]; then
		echo "# FAIL: rmem left on the host after the purge:"
		echo "$left" | sed 's/^/#   /'
		rc=1
	else
		echo "# ok: purged: no rmem package, dkms entry, source or module left"
	fi
	for f in "${mok_ours[@]}"; do rm -f "$f"; done
	[ -n "$left" ] || { rm -f "$MARK"; rmdir "${MARK%/*}" 2>/dev/null; }
	rm -rf "$TMP"
	exit "$rc"
}
trap cleanup EXIT
# a signal (run.sh's timeout sends TERM) ends the test through the EXIT trap
trap 'exit 143' TERM INT

# --- build and install ----------------------------------------------------
t0=$SECONDS
if ! make -s --no-print-directory -C "$REPO" deb; then
	echo "# FAIL: make deb"
	exit 1
fi
lab_log "make deb: $((SECONDS - t0))s"
debs=("$DEBS"/*.deb)
check "make deb: two packages: ${debs[*]##*/}" test ${#debs[@]} -eq 2 \
	-a -f "$DEBS/rmem-dkms_${VERSION}_all.deb" \
	-a -f "$DEBS/rmemctl_${VERSION}_$(dpkg --print-architecture).deb"

mkdir -p "${MARK%/*}"
printf '%s\n' "${mok_ours[@]}" > "$MARK"
# apt resolves the dependencies from what is installed (make deps): offline
t0=$SECONDS
if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"${APT_LOCK[@]}" -o Dpkg::Use-Pty=0 "${debs[@]}" > "$TMP/install.log" 2>&1; then
	grep -v 'readelf: Warning' "$TMP/install.log" | tail -n 40 | sed 's/^/# /'
	# the purge removes dkms's build log: show it first
	for f in /var/lib/dkms/rmem/*/build/make.log; do
		[ -e "$f" ] || continue
		echo "# $f (last 40 lines):"
		tail -n 40 "$f" | sed 's/^/#   /'
	done
	echo "# FAIL: apt-get install ${debs[*]##*/}"
	exit 1
fi
lab_log "install: $((SECONDS - t0))s; $(grep -m1 '^Building for' "$TMP/install.log")"

# --- what dkms built ------------------------------------------------------
# installed_ko RELEASE: the rmem.ko depmod finds for RELEASE (dkms's)
installed_ko() { modinfo -k "$1" -n rmem 2>/dev/null; }
# dkms_installed RELEASE: dkms says rmem/VERSION is installed for RELEASE
dkms_installed()
{
	dkms status -m rmem -v "$VERSION" -k "$1" 2>/dev/null | grep -q ': installed'
}

# Debian's dkms postinst builds for the running kernel and the newest
# one only (and none with /etc/dkms/no-autoinstall): a lab kernel it left
# out gets "dkms install -k", as the admin guide tells users to do.  What
# the postinst said it built for must be there.
# ("Building for 6.1.0-56-amd64 and 6.12.117+deb12-amd64")
for rel in $(sed -n 's/^Building for //p' "$TMP/install.log" | sed 's/ and / /g'); do
	check "dkms: the postinst's build for $rel is installed" dkms_installed "$rel"
done
for rel in $KERNELS; do
	if ! dkms_installed "$rel"; then
		lab_log "postinst did not build for $rel: dkms install -k $rel"
		check "dkms install rmem/$VERSION -k $rel" \
			sh -c "dkms install rmem/$VERSION -k '$rel' > '$TMP/dkms-$rel.log' 2>&1"
	fi
	check "dkms: rmem/$VERSION installed for $rel" dkms_installed "$rel"
	ko=$(installed_ko "$rel")
	check "$rel: depmod finds dkms's module: ${ko:-none}" \
		test -n "$ko" -a "${ko#/lib/modules/"$rel"/updates/dkms/rmem.ko}" != "$ko"
	got=$(modinfo -F version "$ko" 2>/dev/null)
	check "$rel: modinfo version ${got:-none} = $VERSION" test "$got" = "$VERSION"
	got=$(modinfo -F vermagic "$ko" 2>/dev/null)
	check "$rel: built for it (vermagic ${got%% *})" test "${got%% *}" = "$rel"
done

got=$(/usr/sbin/rmemctl -V 2>&1)
check "/usr/sbin/rmemctl -V: $got" test "${got#"rmemctl $VERSION "}" != "$got"
# the package's own file list: man-db need not be installed
check "rmemctl ships /usr/share/man/man8/rmemctl.8.gz" \
	sh -c "dpkg -L rmemctl | grep -qx /usr/share/man/man8/rmemctl.8.gz && [ -s /usr/share/man/man8/rmemctl.8.gz ]"

# --- each lab kernel with the packaged module -------------------------------
# boot_and_use RELEASE KO: boot lab kernel RELEASE (one VM) and, as a user
# would after installing the packages, modprobe rmem (depmod's choice: KO,
# dkms's module), then with the packaged /usr/sbin/rmemctl export memory,
# attach it, write, read back, detach.  Runs in a subshell (run_boot): the
# lab's EXIT trap stops the VM and fails it on a bad kernel log line.
boot_and_use()
{
	local rel=$1 ko=$2 H A C=/usr/sbin/rmemctl

	LAB_KVER=$rel RMEM_KO=$ko
	LAB_KDIR=$("$REPO/scripts/kernels.sh" kdir "$rel")
	lab_start one || return 1
	H=$LAB_CLIENT A=$LAB_SERVER_ADDR
	check "$rel: modprobe rmem loads dkms's module, version $VERSION" vm "$H" \
		"modprobe rmem && [ \"\$(modinfo -n rmem)\" = '$ko' ] && grep -qx '$VERSION' /sys/module/rmem/version"
	check "$rel: server add" vm "$H" "$C server add name s0 listen $A size 64M"
	expect_eq "$rel: dev add" /dev/rmem0 vm "$H" "$C dev add peer $A size 32M"
	check "$rel: write 32 MiB, read it back identical (O_DIRECT)" vm -t 300 "$H" \
		"head -c 32M /dev/urandom > /tmp/pat && dd if=/tmp/pat of=/dev/rmem0 bs=1M oflag=direct status=none && dd if=/dev/rmem0 of=/tmp/back bs=1M iflag=direct status=none && cmp /tmp/pat /tmp/back"
	check "$rel: dev del, server del, rmmod" vm "$H" \
		"$C dev del rmem0 && [ ! -e /dev/rmem0 ] && $C server del s0 && rmmod rmem"
}

run_boot()
{
	(
		boot_and_use "$1" "$2" || exit 1
		[ "$LAB_FAILS" -eq 0 ]
	)
}

for rel in $KERNELS; do
	ko=$(installed_ko "$rel")
	if [ -z "$ko" ]; then
		echo "# FAIL: $rel: no installed module to boot with"
		LAB_FAILS=$((LAB_FAILS + 1))
		continue
	fi
	check "$rel: boots and uses the packaged module" run_boot "$rel" "$ko"
done

test_done
