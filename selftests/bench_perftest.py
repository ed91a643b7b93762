#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""perftest client output on stdin -> a JSON fragment (us, MB/s)."""
import json
import re
import sys

tool = sys.argv[1]
out = {}
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
        out = {"bw_MBps": float(f[3]), "iops": round(float(f[4]) * 1e6, 1)}
print(json.dumps(out)[1:-1] if out else '"error": "unparsed"')
