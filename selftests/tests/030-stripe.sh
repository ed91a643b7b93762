#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rmem-kernels: newest (run.sh): on the older kernels 019 (thin) and 024
# (swap) run the extent code; 030 found 6.1 splitting write-zeroes without
# regard to chunk_sectors, and a device over several servers has no write-
# zeroes since
# A thin device over three servers, replicas 1 (dev add peer A peer B
# peer C ... extent SIZE: Documentation/multi-server.rst step 3).  The
# three are three "server add" instances on one server VM, on three of its
# addresses, with pools of 48, 32 and 16 MiB: distinct servers, one
# machine.
#  - refusals: several peers without extent, one server named twice,
#    polled queues over several servers;
#  - attach takes no memory from any of them; dev show lists each server
#    with its state, free memory and extents held (text and JSON);
#  - placement: 64 extents of 1 MiB written one after the other spread
#    as power of two choices on the servers' free memory predicts (the
#    test simulates it: each count within 4 standard deviations, or 3, of
#    its mean), which uniform placement would not; each server's use is
#    what the device says it holds there; every byte reads back;
#  - a discard of whole extents gives each back to the server holding it;
#  - when no server has room, a write to a new extent fails with ENOSPC
#    and every extent held keeps working;
#  - a server lost for good (server del: the reconnect finds no listener,
#    or the loss timeout of 20 s passes): the extents
#    it held fail with EIO (lost memory never reads as zeros), exactly
#    as many as it held, and the others still read back; dev del gives
#    the other servers their memory back.
source "$(dirname "$0")/../lib.sh"

lab_start two || exit 1
S=$LAB_SERVER H=$LAB_CLIENT A=$LAB_SERVER_ADDR
M=$((1 << 20))
A1=198.18.1.11 A2=198.18.1.12
P0=$A:7410 P1=$A1:7410 P2=$A2:7410

# (peers FIELD: lib.sh's)
# used: each server's bytes used, space separated
used() { json "$S" "' '.join(str(s['used']) for s in sorted(j, key=lambda s: s['name']))" server show; }
held_mib() { peers extents_held | awk '{ print $1 * 1048576, $2 * 1048576, $3 * 1048576 }'; }
total_held() { json "$H" "j[0]['extents_held']" dev show rmem0; }

rmem_load "$S" || exit 1
rmem_load "$H" || exit 1
check "server: two more addresses" vm "$S" "ip addr add $A1/24 dev eth0 && ip addr add $A2/24 dev eth0"
check "server: three servers, pools of 48, 32 and 16 MiB in 1 MiB chunks" vm "$S" \
	"$R server add name s0 listen $P0 size 48M mr-size 1M > /dev/null && $R server add name s1 listen $P1 size 32M mr-size 1M > /dev/null && $R server add name s2 listen $P2 size 16M mr-size 1M > /dev/null"
expect_err "several servers without an extent are refused" \
	"a device over several servers is thin" "$H" "$R dev add peer $P0 peer $P1 size 64M"
expect_err "one server named twice is refused" \
	"is named twice" "$H" "$R dev add peer $P0 peer $P1 peer $P0 size 64M extent 1M"
expect_err "polled queues over several servers are refused" \
	"has no polled queues" "$H" "$R dev add peer $P0 peer $P1 size 64M extent 1M poll-qps 1"
check "a thin device of 256 MiB over the three (96 MiB of pools; 16 times the smallest), 1 MiB extents" vm -t 60 "$H" \
	"$R dev add peer $P0 peer $P1 peer $P2 size 256M extent 1M keepalive 500ms loss-timeout 20s > /dev/null"
expect_eq "dev show: three servers, live, nothing held" "live live live 0 0 0" \
	eval 'echo "$(peers state) $(peers extents_held)"'
expect_eq "the servers gave nothing at attach" "0 0 0" used
check "dev show (text) has a line per server" vm "$H" \
	"$R dev show rmem0 | grep -c ' peer 198.18.1.1[12]*:7410 state live server s[012] held 0' | grep -qx 3"
check "sysfs peer lists the three" vm "$H" "grep -qx '$P0 $P1 $P2' /sys/block/rmem0/rmem/peer"
check "every server's free memory was read (the probe)" vm -t 30 "$H" \
	"for i in \$(seq 100); do $R -j dev show rmem0 | python3 -c 'import json, sys; sys.exit(any(p.get(\"server_free\") is None for p in json.load(sys.stdin)[0][\"peers\"]))' && exit 0; sleep 0.2; done; exit 1"

echo "# placement: 64 extents of 1 MiB, one after the other"
check "write 64 MiB at 0, 1 MiB at a time" vm -t 180 "$H" \
	"head -c $((64 * M)) /dev/urandom > /tmp/a && dd if=/tmp/a of=/dev/rmem0 bs=1M oflag=direct status=none"
got=$(peers extents_held)
echo "# extents held per server (48, 32, 16 MiB pools): $got"
expect_eq "64 extents held in all" "64" total_held
check "as power of two choices predicts (simulated: within 4 standard deviations, or 3)" \
	python3 - "$got" <<'EOF'
import random, statistics, sys
got = [int(x) for x in sys.argv[1].split()]
def place(free, n):
    free, c = list(free), [0] * len(free)
    for _ in range(n):
        cand = [i for i in range(len(free)) if free[i] >= 1]
        if len(cand) == 1:
            i = cand[0]
        else:
            a, b = random.sample(cand, 2)
            i = b if free[b] > free[a] else a
        free[i] -= 1
        c[i] += 1
    return c
random.seed(1)
runs = [place([48, 32, 16], 64) for _ in range(5000)]
ok = True
for k in range(3):
    xs = [r[k] for r in runs]
    mu, sd = statistics.mean(xs), statistics.pstdev(xs)
    tol = max(3, 4 * sd)
    print(f"# server {k}: {got[k]} extents, expected {mu:.1f} +- {tol:.1f}")
    ok &= abs(got[k] - mu) <= tol
sys.exit(0 if ok else 1)
EOF
expect_eq "each server's use is what the device holds there" "$(held_mib)" used
check "the 64 MiB read back" vm -t 120 "$H" \
	"dd if=/dev/rmem0 bs=1M count=64 iflag=direct status=none | cmp - /tmp/a"

echo "# discard"
before=$(held_mib)
check "discard the first 16 MiB (16 whole extents)" vm -t 60 "$H" "blkdiscard -o 0 -l $((16 * M)) /dev/rmem0"
check "48 extents held, within 10 s" vm -t 30 "$H" \
	"for i in \$(seq 100); do [ \"\$($R -j dev show rmem0 | python3 -c 'import json, sys; print(json.load(sys.stdin)[0][\"extents_held\"])')\" = 48 ] && exit 0; sleep 0.1; done; exit 1"
expect_eq "each server's use is still what the device holds there" "$(held_mib)" used
check "the servers' use dropped by 16 MiB in all" \
	eval "b=($before) u=(\$(used)); echo \"before: \${b[*]}, now: \${u[*]}\"; [ \$((b[0] + b[1] + b[2] - u[0] - u[1] - u[2])) = $((16 * M)) ]"
check "the discarded part reads zeros, the rest its data" vm -t 120 "$H" \
	"cmp -n $((16 * M)) /dev/rmem0 /dev/zero && dd if=/dev/rmem0 bs=1M skip=16 count=48 iflag=direct status=none | cmp - <(tail -c $((48 * M)) /tmp/a)"

echo "# the pools fill up"
check "write 1 MiB at a time from 128 MiB until ENOSPC: 48 more extents fit" vm -t 240 "$H" \
	"head -c $M /dev/urandom > /tmp/b; for i in \$(seq 0 59); do dd if=/tmp/b of=/dev/rmem0 bs=1M seek=\$((128 + i)) oflag=direct status=none 2> /tmp/e || break; done; cat /tmp/e; echo \"\$i written\"; [ \$i = 48 ] && grep -q 'No space left on device' /tmp/e"
expect_eq "96 extents held, every pool used" "96 $((48 * M)) $((32 * M)) $((16 * M))" \
	eval 'echo "$(total_held) $(used)"'
check "the extents held keep working" vm -t 120 "$H" \
	"dd if=/dev/rmem0 bs=1M skip=16 count=48 iflag=direct status=none | cmp - <(tail -c $((48 * M)) /tmp/a) && dd if=/dev/rmem0 bs=1M skip=$((128 + 47)) count=1 iflag=direct status=none | cmp - /tmp/b"

echo "# a server lost for good: s2"
lost=$(peers extents_held | awk '{ print $3 }')
check "server del s2 (its client sessions end)" vm -t 60 "$S" "$R server del s2"
check "the device's session to s2 goes dead (no listener, or the loss timeout), the others stay live" vm -t 90 "$H" \
	"for i in \$(seq 300); do [ \"\$($R -j dev show rmem0 | python3 -c 'import json, sys; print(\" \".join(p[\"state\"] for p in json.load(sys.stdin)[0][\"peers\"]))')\" = 'live live dead' ] && exit 0; sleep 0.2; done; $R dev show rmem0; exit 1"
check "the extents s2 held fail with EIO ($lost of them), the others read back" vm -t 240 "$H" \
	"bad=0; for e in \$(seq 16 63) \$(seq 128 175); do dd if=/dev/rmem0 bs=1M skip=\$e count=1 iflag=direct status=none of=/tmp/x 2> /dev/null || { bad=\$((bad + 1)); continue; }; if [ \$e -lt 64 ]; then dd if=/tmp/a bs=1M skip=\$e count=1 status=none | cmp - /tmp/x || exit 1; else cmp /tmp/x /tmp/b || exit 1; fi; done; echo \"\$bad failed\"; [ \$bad = $lost ]"
check "dev del; the other servers have their memory back" vm -t 60 "$H" "$R dev del rmem0"
check "s0 and s1 have every extent back" vm -t 60 "$S" \
	"for i in \$(seq 100); do [ \"\$($R -j server show | python3 -c 'import json, sys; print(sum(s[\"used\"] for s in json.load(sys.stdin)))')\" = 0 ] && exit 0; sleep 0.3; done; exit 1"
check "server del, unload" vm -t 60 "$S" "$R server del s0 && $R server del s1 && rmmod rmem"
check "client unload" vm "$H" "rmmod rmem"
test_done
