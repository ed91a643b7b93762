#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench_swap_report.py OUTDIR: the swap benchmark's table, JSON, CSV, plot.

Reads OUTDIR/results.txt (one line per run: target=NAME run=N key=value...
as printed by rmem_swapload) and prints, per target, the median over the
runs of: completion time, major faults, first-touch latency p50/p99 and the
mean of the slow (> 20 us) touches, with the time ratio to nvme-rdma and
to brd.  Writes swap.json, swap.csv and, with gnuplot, swap.png.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys

TARGETS = ["rmem", "nvme-rdma", "zram", "brd"]
KEYS = ["seconds", "majflt", "touch_us_p50", "touch_us_p99", "slow_us_mean"]


def main():
    out = sys.argv[1]
    runs = {}
    with open(os.path.join(out, "results.txt")) as f:
        for line in f:
            kv = dict(w.split("=", 1) for w in line.split() if "=" in w)
            runs.setdefault(kv["target"], []).append(kv)
    rows = []
    for t in TARGETS:
        if t not in runs:
            continue
        r = {"target": t, "runs": len(runs[t])}
        for k in KEYS:
            r[k] = statistics.median(float(x[k]) for x in runs[t])
        r["size_mib"] = int(runs[t][0]["size_mib"])
        r["passes"] = int(runs[t][0]["passes"])
        rows.append(r)
    by = {r["target"]: r for r in rows}
    for r in rows:
        for ref in ("nvme-rdma", "brd"):
            if ref in by and by[ref]["seconds"]:
                r["time_vs_" + ref] = r["seconds"] / by[ref]["seconds"]

    hdr = ("target", "runs", "seconds", "majflt", "touch p50 us",
           "touch p99 us", "slow touch mean us", "time/nvme-rdma",
           "time/brd")
    print("| " + " | ".join(hdr) + " |")
    print("|" + "---|" * len(hdr))
    for r in rows:
        print("| %s | %d | %.1f | %d | %.1f | %.1f | %.1f | %s | %s |" % (
            r["target"], r["runs"], r["seconds"], r["majflt"],
            r["touch_us_p50"], r["touch_us_p99"], r["slow_us_mean"],
            "%.2f" % r["time_vs_nvme-rdma"] if "time_vs_nvme-rdma" in r else "-",
            "%.2f" % r["time_vs_brd"] if "time_vs_brd" in r else "-"))
    if "rmem" in by and "time_vs_nvme-rdma" in by["rmem"]:
        v = by["rmem"]["time_vs_nvme-rdma"]
        print("rmem completes the workload in %.2fx the time of swap on "
              "nvme-rdma (target: at most 0.50x): %s"
              % (v, "met" if v <= 0.5 else "NOT met"))

    with open(os.path.join(out, "swap.json"), "w") as f:
        json.dump({"rows": rows, "runs": runs}, f, indent=1)
    with open(os.path.join(out, "swap.csv"), "w") as f:
        cols = ["target", "runs"] + KEYS + ["time_vs_nvme-rdma", "time_vs_brd"]
        f.write(",".join(cols) + "\n")
        for r in rows:
            f.write(",".join(str(r.get(c, "")) for c in cols) + "\n")
    if shutil.which("gnuplot") and rows:
        dat = os.path.join(out, "swap.dat")
        with open(dat, "w") as f:
            for r in rows:
                f.write('"%s" %f %f\n' % (r["target"], r["seconds"],
                                          r["slow_us_mean"]))
        script = """
set terminal pngcairo size 900,420 noenhanced
set output '%s'
set multiplot layout 1,2 title 'swap: %d MiB working set, %d check-and-rewrite pass(es)'
set style fill solid 0.6 border -1
set boxwidth 0.6
set yrange [0:*]
set title 'completion time (s)'
plot '%s' using 0:2:xtic(1) with boxes notitle
set title 'major fault (slow first touch) mean (us)'
plot '%s' using 0:3:xtic(1) with boxes notitle
unset multiplot
""" % (os.path.join(out, "swap.png"), rows[0]["size_mib"],
            rows[0]["passes"], dat, dat)
        subprocess.run(["gnuplot"], input=script.encode(), check=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
