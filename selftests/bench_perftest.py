#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""perftest client output on stdin -> a JSON fragment (us, MB/s).

Bandwidth tests may hold the output of several client processes run at
once (one per vCPU): their bandwidths and message rates add up."""
import json
import re
import sys

tool = sys.argv[1]
out = {}
streams = 0
for line in sys.stdin:
    f = line.split()
    if not f or not re.match(r"^\d+$", f[0]):
        continue
    if tool.endswith("_lat") and len(f) >= 9:
        # bytes iters t_min t_max t_typical t_avg t_stdev p99 p99.9
        out = {"mean_us": float(f[5]), "p50_us": float(f[4]),
               "p99_us": float(f[7]), "p999_us": float(f[8])}
    elif tool.endswith("_bw") and len(f) >= 5:
        # bytes iters BW_peak BW_average MsgRate  (MB/sec)
        streams += 1
        out = {"bw_MBps": round(out.get("bw_MBps", 0) + float(f[3]), 2),
               "iops": round(out.get("iops", 0) + float(f[4]) * 1e6, 1),
               "streams": streams}
print(json.dumps(out)[1:-1] if out else '"error": "unparsed"')
