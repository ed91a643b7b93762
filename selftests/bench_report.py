#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench_report.py DIR: results.jsonl -> table, results.json, results.csv,
latency.png and qps.png (gnuplot), and the issue's target ratios."""
import csv
import json
import os
import shutil
import subprocess
import sys

d = sys.argv[1]
if not os.path.exists(os.path.join(d, "results.jsonl")):
    sys.exit(f"bench: no results in {d}")
rows = [json.loads(line) for line in open(os.path.join(d, "results.jsonl"))]
JOBS = ["lat-randread", "lat-randwrite", "iops-randread", "iops-randwrite",
        "bw-read", "bw-write"]
RAW = {"lat-randread": "ib_read_lat", "lat-randwrite": "ib_write_lat",
       "bw-read": "ib_read_bw", "bw-write": "ib_write_bw"}


def get(topo, target, job):
    for r in rows:
        if r["topology"] == topo and r["target"] == target and r["job"] == job:
            return r
    return None


def metric(job):
    return {"lat": "mean_us", "iops": "iops", "bw": "bw_MBps"}[job.split("-")[0]]


def ratio(a, b):
    return round(a / b, 3) if a and b else None


out = {"results": rows, "ratios": [], "targets": []}
for topo in sorted({r["topology"] for r in rows}):
    print(f"\n== topology {topo}")
    hdr = f"{'job':16} {'metric':8} {'rmem':>10} {'nvme-rdma':>10} {'brd':>10} {'raw':>10}" \
          f" {'rmem/nvme':>10} {'rmem/brd':>9} {'rmem/raw':>9}"
    print(hdr)
    for job in JOBS:
        m = metric(job)
        v = {t: (get(topo, t, job) or {}).get(m) for t in ("rmem", "nvme-rdma", "brd")}
        raw = (get(topo, "raw", RAW[job]) or {}).get(m) if job in RAW else None
        rr = {"topology": topo, "job": job, "metric": m,
              "rmem/nvme-rdma": ratio(v["rmem"], v["nvme-rdma"]),
              "rmem/brd": ratio(v["rmem"], v["brd"]),
              "rmem/raw": ratio(v["rmem"], raw)}
        out["ratios"].append(rr)
        f = lambda x: f"{x:10.1f}" if x is not None else f"{'-':>10}"
        g = lambda x: f"{x:9.3f}" if x is not None else f"{'-':>9}"
        print(f"{job:16} {m:8} {f(v['rmem'])} {f(v['nvme-rdma'])} {f(v['brd'])} {f(raw)}"
              f" {g(rr['rmem/nvme-rdma']):>10} {g(rr['rmem/brd'])} {g(rr['rmem/raw'])}")
    for job in ("lat-randread", "lat-randwrite"):
        for t in ("rmem", "nvme-rdma", "brd"):
            r = get(topo, t, job) or {}
            if r:
                print(f"  {job} {t:10} p50 {r.get('p50_us')} us  p99 {r.get('p99_us')} us"
                      f"  p99.9 {r.get('p999_us')} us")
    q = {n: (get(topo, f"rmem-qps{n}", "iops-randread") or {}).get("iops") for n in (1, 2, 4)}
    print("  rmem 4 KiB randread QD32 IOPS by QP count: " +
          ", ".join(f"{n}: {q[n]}" for n in q))

    def tgt(name, val, ok):
        out["targets"].append({"topology": topo, "target": name, "value": val,
                               "met": bool(val is not None and ok(val))})
    rr = {x["job"]: x for x in out["ratios"] if x["topology"] == topo}
    tgt("randread QD1 mean <= 1.25x ib_read_lat", rr["lat-randread"]["rmem/raw"], lambda x: x <= 1.25)
    tgt("randread QD1 mean <= 0.3x nvme-rdma", rr["lat-randread"]["rmem/nvme-rdma"], lambda x: x <= 0.3)
    tgt("randread QD32 IOPS >= 3x nvme-rdma", rr["iops-randread"]["rmem/nvme-rdma"], lambda x: x >= 3)
    tgt("randwrite QD32 IOPS >= 3x nvme-rdma", rr["iops-randwrite"]["rmem/nvme-rdma"], lambda x: x >= 3)
    tgt("1 MiB read bw >= 1.5x nvme-rdma", rr["bw-read"]["rmem/nvme-rdma"], lambda x: x >= 1.5)
    tgt("1 MiB write bw >= 1.5x nvme-rdma", rr["bw-write"]["rmem/nvme-rdma"], lambda x: x >= 1.5)
    tgt("IOPS 2 QPs >= 1.6x 1 QP", ratio(q[2], q[1]), lambda x: x >= 1.6)
    print("  targets:")
    for t in out["targets"]:
        if t["topology"] == topo:
            print(f"    {'met ' if t['met'] else 'MISS'} {t['target']}: {t['value']}")

json.dump(out, open(os.path.join(d, "results.json"), "w"), indent=1)
with open(os.path.join(d, "results.csv"), "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["topology", "target", "job", "mean_us", "p50_us", "p99_us", "p999_us",
                "iops", "bw_MBps"])
    for r in rows:
        w.writerow([r.get(k) for k in ("topology", "target", "job", "mean_us", "p50_us",
                                       "p99_us", "p999_us", "iops", "bw_MBps")])

if shutil.which("gnuplot"):
    for topo in sorted({r["topology"] for r in rows}):
        with open(os.path.join(d, f"lat-{topo}.dat"), "w") as fh:
            for t in ("rmem", "nvme-rdma", "brd"):
                r = get(topo, t, "lat-randread") or {}
                fh.write(f"{t} {r.get('p50_us', 0)} {r.get('p99_us', 0)} {r.get('p999_us', 0)}\n")
            r = get(topo, "raw", "ib_read_lat") or {}
            fh.write(f"ib_read_lat {r.get('p50_us', 0)} {r.get('p99_us', 0)} {r.get('p999_us', 0)}\n")
        with open(os.path.join(d, f"qps-{topo}.dat"), "w") as fh:
            for n in (1, 2, 4):
                fh.write(f"{n} {(get(topo, f'rmem-qps{n}', 'iops-randread') or {}).get('iops', 0)}\n")
        gp = f"""set terminal pngcairo noenhanced size 900,500
set output '{d}/latency-{topo}.png'
set title '4 KiB random read, QD1, latency percentiles ({topo} VM topology, TCG)'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set ylabel 'microseconds'
set logscale y
plot '{d}/lat-{topo}.dat' using 2:xtic(1) title 'p50', '' using 3 title 'p99', '' using 4 title 'p99.9'
set output '{d}/qps-{topo}.png'
unset logscale y
set style data linespoints
set title 'rmem 4 KiB random read QD32, IOPS by QP count ({topo})'
set xlabel 'QPs'
set ylabel 'IOPS'
set yrange [0:*]
plot '{d}/qps-{topo}.dat' using 1:2 title 'rmem' lw 2
"""
        subprocess.run(["gnuplot"], input=gp.encode(), check=False)
print(f"\nresults: {d}/results.json, results.csv, *.png")
