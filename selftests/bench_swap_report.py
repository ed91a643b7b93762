#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench_swap_report.py OUTDIR: the swap benchmark's tables, JSON, CSV, plot.

Reads OUTDIR/results.txt (one line per run: target=NAME pc=N run=R
key=value... as printed by rmem_swapload, plus the MiB swapped in and out),
OUTDIR/latency.txt (each device's 4 KiB QD1 latency) and, if present,
OUTDIR/profile-TARGET-pcN.txt (perf report by symbol).  Prints, for each
vm.page-cluster setting and target, the median over the runs of the
completion time, its split into user, system and waiting time, major
faults, swap traffic and first-touch latency, with the time ratios to
nvme-rdma and to brd; then the profiles summed by kind of work.  Writes
swap.json, swap.csv and, with gnuplot, swap.png.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys

TARGETS = ["rmem", "nvme-rdma", "zram", "brd"]
KEYS = ["seconds", "majflt", "touch_us_p50", "touch_us_p99", "slow_us_mean"]

# Kinds of work, by symbol name (first match wins).
KINDS = [
    ("idle", ("native_safe_halt", "default_idle", "amd_e400_idle",
              "cpu_idle", "do_idle", "poll_idle")),
    ("icrc", ("loop_64", "crc32", "rxe_crc", "rxe_icrc")),
    ("rxe", ("rxe_",)),
    ("nvme", ("nvme", "nvmet")),
    ("rmem", ("rmem_",)),
    ("copy+clear", ("memcpy", "memset", "clear_page", "copy_page",
                    "copy_user", "copy_mc", "memmove")),
    ("user", ("main", "__memcmp", "rand", "fill")),
    ("mm+swap", ("swap", "shrink_", "folio", "lru", "page_", "do_user_addr",
                 "handle_mm", "__handle_mm", "pte", "flush_tlb", "mem_cgroup",
                 "try_to_", "filemap", "workingset", "reclaim", "vma")),
]
KIND_NAMES = [k for k, _ in KINDS] + ["other"]


def kv_of(line):
    return dict(w.split("=", 1) for w in line.split() if "=" in w)


def kind_of(sym):
    for kind, prefixes in KINDS:
        for p in prefixes:
            if sym.startswith(p) or (len(p) > 4 and p in sym):
                return kind
    return "other"


def profile(path):
    """The share of cpu-clock samples of each kind of work in a report."""
    acc = {}
    with open(path) as f:
        for line in f:
            w = line.split()
            # "  12.34%  [k] symbol" or "  1.2%  [.] symbol"
            if len(w) < 3 or not w[0].endswith("%"):
                continue
            try:
                pct = float(w[0][:-1])
            except ValueError:
                continue
            k = kind_of(w[-1])
            acc[k] = acc.get(k, 0.0) + pct
    return acc


def median(runs, key):
    return statistics.median(float(x[key]) for x in runs)


def summarise(target, pc, runs):
    r = {"target": target, "pc": pc, "runs": len(runs)}
    for k in KEYS:
        r[k] = median(runs, k)
    if all("swapin_mib" in x for x in runs):
        r["swapped_mib"] = statistics.median(
            float(x["swapin_mib"]) + float(x["swapout_mib"]) for x in runs)
        r["swap_mbps"] = statistics.median(
            (float(x["swapin_mib"]) + float(x["swapout_mib"])) *
            1.048576 / float(x["seconds"]) for x in runs)
    if all("user_s" in x for x in runs):
        r["user_s"] = median(runs, "user_s")
        r["sys_s"] = median(runs, "sys_s")
        r["wait_s"] = max(0.0, r["seconds"] - r["user_s"] - r["sys_s"])
    r["size_mib"] = int(runs[0]["size_mib"])
    r["passes"] = int(runs[0]["passes"])
    return r


def fmt(r, key, f="%.1f"):
    return f % r[key] if key in r else "-"


def print_table(pc, rows):
    print("vm.page-cluster %s (swap readahead up to %d pages):"
          % (pc, 1 << int(pc)))
    hdr = ("target", "runs", "seconds", "user s", "sys s", "wait s",
           "majflt", "swapped MiB", "swap MB/s", "touch p50 us",
           "touch p99 us", "slow touch mean us", "4K QD1 read us",
           "4K QD1 write us", "time/nvme-rdma", "time/brd")
    print("| " + " | ".join(hdr) + " |")
    print("|" + "---|" * len(hdr))
    for r in rows:
        print("| " + " | ".join([
            r["target"], "%d" % r["runs"], "%.1f" % r["seconds"],
            fmt(r, "user_s"), fmt(r, "sys_s"), fmt(r, "wait_s"),
            "%d" % r["majflt"], fmt(r, "swapped_mib", "%d"),
            fmt(r, "swap_mbps"), "%.1f" % r["touch_us_p50"],
            "%.1f" % r["touch_us_p99"], "%.1f" % r["slow_us_mean"],
            fmt(r, "qd1_read_us"), fmt(r, "qd1_write_us"),
            fmt(r, "time_vs_nvme-rdma", "%.2f"),
            fmt(r, "time_vs_brd", "%.2f")]) + " |")
    by = {r["target"]: r for r in rows}
    if "rmem" in by and "time_vs_nvme-rdma" in by["rmem"]:
        v = by["rmem"]["time_vs_nvme-rdma"]
        print("page-cluster %s: rmem completes the workload in %.2fx the "
              "time of swap on nvme-rdma (target: at most 0.50x): %s"
              % (pc, v, "met" if v <= 0.5 else "NOT met"))
    print()


def plot(out, pcs, rows):
    if not shutil.which("gnuplot") or not rows:
        return
    dat = os.path.join(out, "swap.dat")
    with open(dat, "w") as f:
        for t in TARGETS:
            got = {r["pc"]: r for r in rows if r["target"] == t}
            if not got:
                continue
            f.write('"%s"' % t)
            for pc in pcs:
                f.write(" %f" % got[pc]["seconds"] if pc in got else " 0")
            f.write(" %s\n" % fmt(next(iter(got.values())), "qd1_read_us",
                                  "%f").replace("-", "0"))
    series = ", ".join(
        "'%s' using %d%s title 'page-cluster %s'"
        % (dat, i + 2, ":xtic(1)" if i == 0 else "", pc)
        for i, pc in enumerate(pcs))
    script = """
set terminal pngcairo size 1000,420 noenhanced
set output '%s'
set multiplot layout 1,2 title 'swap: %d MiB working set in a %s cgroup'
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.6 border -1
set yrange [0:*]
set key top left
set title 'completion time (s)'
plot %s
set title 'device 4 KiB read latency, QD1 (us)'
plot '%s' using %d:xtic(1) notitle
unset multiplot
""" % (os.path.join(out, "swap.png"), rows[0]["size_mib"],
       "memory.max-limited", series, dat, len(pcs) + 2)
    subprocess.run(["gnuplot"], input=script.encode(), check=False)


def main():
    out = sys.argv[1]
    runs = {}
    pcs = []
    with open(os.path.join(out, "results.txt")) as f:
        for line in f:
            kv = kv_of(line)
            if "target" not in kv or "seconds" not in kv:
                continue
            pc = kv.get("pc", "3")
            if pc not in pcs:
                pcs.append(pc)
            runs.setdefault((pc, kv["target"]), []).append(kv)
    lat = {}
    path = os.path.join(out, "latency.txt")
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                kv = kv_of(line)
                if "target" in kv:
                    lat[kv["target"]] = kv

    rows = []
    for pc in pcs:
        group = [summarise(t, pc, runs[(pc, t)]) for t in TARGETS
                 if (pc, t) in runs]
        by = {r["target"]: r for r in group}
        for r in group:
            for k in ("read_us", "write_us"):
                if k in lat.get(r["target"], {}):
                    r["qd1_" + k] = float(lat[r["target"]][k])
            for ref in ("nvme-rdma", "brd"):
                if ref in by and by[ref]["seconds"]:
                    r["time_vs_" + ref] = r["seconds"] / by[ref]["seconds"]
        print_table(pc, group)
        rows += group

    prof = {}
    for pc in pcs:
        for t in TARGETS:
            path = os.path.join(out, "profile-%s-pc%s.txt" % (t, pc))
            if os.path.exists(path):
                prof["%s pc%s" % (t, pc)] = profile(path)
    if prof:
        print("cpu-clock profile of one more run, whole VM (2 vCPUs), "
              "% of samples by kind of work:")
        print("| run | " + " | ".join(KIND_NAMES) + " |")
        print("|" + "---|" * (len(KIND_NAMES) + 1))
        for name, acc in prof.items():
            print("| %s | " % name + " | ".join(
                "%.1f" % acc.get(k, 0.0) for k in KIND_NAMES) + " |")

    with open(os.path.join(out, "swap.json"), "w") as f:
        json.dump({"rows": rows, "profile": prof,
                   "runs": {"%s pc%s" % (t, pc): v
                            for (pc, t), v in runs.items()}}, f, indent=1)
    cols = (["pc", "target", "runs"] + KEYS +
            ["user_s", "sys_s", "wait_s", "swapped_mib", "swap_mbps",
             "qd1_read_us", "qd1_write_us", "time_vs_nvme-rdma",
             "time_vs_brd"])
    with open(os.path.join(out, "swap.csv"), "w") as f:
        f.write(",".join(cols) + "\n")
        for r in rows:
            f.write(",".join(str(r.get(c, "")) for c in cols) + "\n")
    plot(out, pcs, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
