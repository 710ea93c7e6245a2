#!/usr/bin/env python3
"""Collects criterion's medians of the groups that start with the given prefixes into one
record: the date, the CPU, the load average, the commit, and for each group its throughput
in bytes and each function's median with its confidence interval. The members' bench.sh
scripts (`pctenc-arrow`, `pctenc-datafusion`) write their results files with it, which
`scripts/bench-report.py` reads:

    python3 scripts/criterion-json.py --prefix kernel/ --prefix sql/ --json benches/results/datafusion.json
"""

import argparse
import datetime
import json
import pathlib
import subprocess

parser = argparse.ArgumentParser()
parser.add_argument("--prefix", action="append", required=True, help="a criterion group id prefix")
parser.add_argument("--json", help="write the record here (else only print the medians)")
parser.add_argument("--criterion-dir", default="target/criterion")
args = parser.parse_args()

results = {}
for bench in sorted(pathlib.Path(args.criterion_dir).glob("*/*/new/benchmark.json")):
    meta = json.loads(bench.read_text())
    group = meta["group_id"]
    if not group.startswith(tuple(args.prefix)):
        continue
    est = json.loads((bench.parent / "estimates.json").read_text())
    who = meta["function_id"] or meta["value_str"]
    r = results.setdefault(group, {"bytes": meta["throughput"]["Bytes"]})
    r[who] = {"median_ns": est["median"]["point_estimate"],
              "low_ns": est["median"]["confidence_interval"]["lower_bound"],
              "high_ns": est["median"]["confidence_interval"]["upper_bound"]}
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
record = {"date": datetime.date.today().isoformat(), "cpu": cpu,
          "load": open("/proc/loadavg").read().split()[:3],
          "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip(),
          "groups": results}
for group, r in results.items():
    sides = {k: v for k, v in r.items() if k != "bytes"}
    print(group, "  ".join(f"{k} {v['median_ns'] / 1e6:.1f} ms" for k, v in sides.items()))
if args.json:
    pathlib.Path(args.json).write_text(json.dumps(record, indent=2) + "\n")
    print("wrote", args.json)
