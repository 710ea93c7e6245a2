#!/usr/bin/env bash
# The C API against the Rust API, side by side: 64 KiB throughput and the per-call cost at
# 32 bytes, encoding (`component`) and decoding (strict) access-log text.
#
#   bash pctenc-capi/bench.sh                                   # print the figures
#   bash pctenc-capi/bench.sh --json benches/results/capi.json  # and record them for the report
#
# examples/bench_rust.rs writes the inputs, then times the Rust API and the C API called
# through the FFI in alternating batches (the paired ratio and difference are the figures
# that count on a busy machine); bench/bench.c times the C API from C on the same inputs. Each
# runs RUNS times (default 3); the report takes the median of the runs. Then
# `python3 scripts/bench-report.py` puts the recorded figures in docs/BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
json=
if [ "${1:-}" = --json ]; then json=$2; fi
runs=${RUNS:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cargo build --release --quiet -p pctenc-capi --lib --example bench_rust
${CC:-cc} -O2 -std=c11 -Wall -Wextra -Werror -I pctenc-capi/include pctenc-capi/bench/bench.c \
  target/release/libpctenc.a -lpthread -ldl -lm -o "$work/bench"
for _ in $(seq "$runs"); do
  target/release/examples/bench_rust "$work" >>"$work/results.tsv"
  "$work/bench" "$work" >>"$work/results.tsv"
done
cc --version | head -n 1 >"$work/cc"

python3 - "$work" "$json" <<'PY'
import datetime, json, pathlib, statistics, subprocess, sys
work, out = pathlib.Path(sys.argv[1]), sys.argv[2]
rows = {}
for line in (work / "results.tsv").read_text().splitlines():
    side, name, size, ns, *more = line.split("\t")
    r = rows.setdefault(name, {"bytes": int(size)})
    r.setdefault(side, []).append(float(ns))
    if side == "ffi":
        r.setdefault("ratio", []).append(float(more[0]))
        r.setdefault("diff", []).append(float(more[1]))
    else:
        r.setdefault(side + "_best", []).append(float(more[0]))
med = statistics.median
backend = subprocess.run(["target/release/examples/bench_rust", "--backend"], capture_output=True, text=True).stdout.strip()
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "unknown CPU")
result = {
    "date": datetime.date.today().isoformat(),
    "cpu": cpu,
    "backend": backend,
    "cc": (work / "cc").read_text().strip(),
    "runs": len(next(iter(rows.values()))["rust"]),
    "workloads": {
        name: {
            "bytes": r["bytes"],
            "rust_ns": round(med(r["rust"]), 2),
            "ffi_ns": round(med(r["ffi"]), 2),
            "c_ns": round(med(r["c"]), 2),
            "paired_ratio": round(med(r["ratio"]), 4),
            "paired_diff_ns": round(med(r["diff"]), 2),
            "rust_best_ns": round(min(r["rust_best"]), 2),
            "c_best_ns": round(min(r["c_best"]), 2),
        }
        for name, r in rows.items()
    },
}
print(f"{cpu}, backend {backend}, median of {result['runs']} runs")
print(f"{'workload':<12} {'Rust API':>12} {'C API (FFI)':>12} {'FFI/Rust':>9} {'FFI-Rust':>9} {'Rust best':>12} {'C from C best':>14}")
for name, w in result["workloads"].items():
    print(f"{name:<12} {w['rust_ns']:>10.1f}ns {w['ffi_ns']:>10.1f}ns {w['paired_ratio']:>9.3f} {w['paired_diff_ns']:>7.1f}ns"
          f" {w['rust_best_ns']:>10.1f}ns {w['c_best_ns']:>12.1f}ns")
if out:
    pathlib.Path(out).write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {out}")
PY
