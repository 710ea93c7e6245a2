#!/usr/bin/env python3
"""Turn criterion's results (target/criterion/**/new/{benchmark,estimates}.json) into the
markdown tables of docs/BENCHMARKS.md: median throughput in GB/s (10^9 bytes per second) per
group (direction/workload/size) and function, plus the ratios the project tracks.

Usage: python3 scripts/bench-report.py [CRITERION_DIR] > tables.md
"""
import json
import pathlib
import sys
from collections import defaultdict

ORDER = ["memcpy", "pctenc-scalar", "pctenc-sse2", "pctenc-ssse3", "pctenc-avx2", "pctenc-avx512",
         "pctenc-neon", "percent-encoding", "urlencoding", "form_urlencoded"]
WORKLOADS = ["safe", "no-escape", "log", "multilingual", "random"]


def load(root):
    results = defaultdict(dict)  # (direction, size) -> {(workload, function): GB/s}
    for bench in root.glob("**/new/benchmark.json"):
        meta = json.loads(bench.read_text())
        est = json.loads((bench.parent / "estimates.json").read_text())
        group, function = meta["group_id"], meta["function_id"]
        parts = group.split("/")
        if len(parts) != 3 or not meta.get("throughput"):
            continue
        direction, workload, size = parts
        nbytes = list(meta["throughput"].values())[0]
        ns = est["median"]["point_estimate"]
        results[(direction, int(size))][(workload, function)] = nbytes / ns
    return results


def fmt(v):
    return "-" if v is None else (f"{v:.2f}" if v < 10 else f"{v:.1f}")


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "target/criterion")
    results = load(root)
    if not results:
        sys.exit(f"no criterion results under {root}")
    for (direction, size) in sorted(results):
        table = results[(direction, size)]
        functions = [f for f in ORDER if any(k[1] == f for k in table)]
        functions += sorted({k[1] for k in table} - set(functions))
        workloads = [w for w in WORKLOADS if any(k[0] == w for k in table)]
        print(f"\n### {direction}, {size} bytes (GB/s, median)\n")
        print("| input | " + " | ".join(f"`{f}`" for f in functions) + " |")
        print("|---" * (len(functions) + 1) + "|")
        for w in workloads:
            print(f"| {w} | " + " | ".join(fmt(table.get((w, f))) for f in functions) + " |")
        best = [f for f in functions if f.startswith("pctenc-") and f.count("-") == 1 and f != "pctenc-scalar"]
        if best and "percent-encoding" in functions:
            print("\nRatios (backend / `percent-encoding`; backend / `memcpy`):\n")
            for w in workloads:
                pe, mc = table.get((w, "percent-encoding")), table.get((w, "memcpy"))
                cells = []
                for f in best:
                    v = table.get((w, f))
                    if v and pe and mc:
                        cells.append(f"{f[7:]} {v / pe:.1f}x / {v / mc:.2f}x")
                print(f"- {w}: " + ", ".join(cells))


if __name__ == "__main__":
    main()
