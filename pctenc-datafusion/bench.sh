#!/usr/bin/env bash
# pctenc's kernels and SQL functions against datafusion-spark's url_encode and url_decode, and
# the kernels on one thread and on two (benches/kernels.rs, criterion), in one run:
#
#   bash pctenc-datafusion/bench.sh                                         # print the figures
#   bash pctenc-datafusion/bench.sh --json benches/results/datafusion.json  # and record them
#
# Then `python3 scripts/bench-report.py` puts the recorded figures in docs/BENCHMARKS.md.
# The bench profile adds debug info in this workspace (the root's `[profile.bench]`); it is
# turned off here so that the dependencies are the release build `cargo build --release` makes.
set -euo pipefail
cd "$(dirname "$0")/.."
json=
if [ "${1:-}" = --json ]; then json=$2; fi
rm -rf target/criterion/kernel_* target/criterion/sql_* target/criterion/threads_*
CARGO_PROFILE_BENCH_DEBUG=0 cargo bench -p pctenc-datafusion --bench kernels
python3 - "$json" <<'PY'
import datetime, json, pathlib, subprocess, sys
out = sys.argv[1]
results = {}
for bench in sorted(pathlib.Path("target/criterion").glob("*/*/new/benchmark.json")):
    meta = json.loads(bench.read_text())
    group = meta["group_id"]
    if not group.startswith(("kernel/", "sql/", "threads/")):
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
if out:
    pathlib.Path(out).write_text(json.dumps(record, indent=2) + "\n")
    print("wrote", out)
PY
