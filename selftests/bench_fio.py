#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""fio JSON on stdin -> the figures bench.sh records, as a JSON fragment."""
import json
import sys

d = json.load(sys.stdin)
j = d["jobs"][0]
side = j["read"] if j["read"]["io_bytes"] else j["write"]
# total latency (submission + completion): with --lat_percentiles=1 fio
# puts its percentiles in lat_ns; a polled device completes inside the
# submission, so completion latency alone would say nothing.
pct = side["lat_ns"].get("percentile") or side["clat_ns"].get("percentile", {})


def us(ns):
    return round(ns / 1000.0, 2)


out = {
    "mean_us": us(side["lat_ns"]["mean"]),
    "p50_us": us(pct.get("50.000000", 0)),
    "p99_us": us(pct.get("99.000000", 0)),
    "p999_us": us(pct.get("99.900000", 0)),
    "iops": round(side["iops"], 1),
    "bw_MBps": round(side["bw"] / 1024.0, 2),
    "ios": side["total_ios"],
    "runtime": int(j.get("job options", {}).get("runtime", 0) or 0),
}
print(json.dumps(out)[1:-1])
