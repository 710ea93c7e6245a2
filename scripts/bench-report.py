#!/usr/bin/env python3
"""Generates docs/BENCHMARKS.md, the charts docs/bench-*.svg and the figures between the
`bench-summary` markers of README.md from the results of one benchmark run, which live in
benches/results/ (committed, so that anyone can regenerate and check the report):

- `machine.json`: the machine, recorded when the run starts (`machine`);
- `criterion.json`: the median of each criterion function, collected from
  `target/criterion/**/new/{benchmark,estimates}.json` when the run ends (`collect`);
- `short.json`: the median of each function of `benches/short.rs` (`collect --group short`);
- `charset.json`: rounds of medians of `benches/charset.rs`, appended one per run
  (`collect --group charset`);
- `large-inputs.json`: written by `scripts/large-inputs.py --json`;
- `python.json`: the Python package against `urllib.parse`, written by
  `pctenc-python/bench.py --json` (the page's "Python" section; left out when missing);
- `capi.json`: the C API against the Rust API, written by `pctenc-capi/bench.sh --json`
  (the page's "C API" section; left out when the file is missing);
- `python-arrow.json`: `pctenc.arrow` and `pctenc.polars` against a Python loop, DuckDB and
  Polars' `map_elements`, written by `pctenc-python/bench_arrow.py --json` (the page's "Python
  dataframes" section; left out when missing);
- `arrow.json`: the Arrow kernels (`pctenc-arrow`) on each array kind and on one and two
  threads, written by `pctenc-arrow/bench.sh --json` (the page's "Arrow kernels" section;
  left out when the file is missing);
- `datafusion.json`: the Arrow kernels and SQL functions against `datafusion-spark`, written
  by `pctenc-datafusion/bench.sh --json` (the page's "SQL functions" section; left out when
  the file is missing);
- `nginx.json`: the nginx module against set-misc under wrk, written by
  `pctenc-nginx/bench.sh --json` (the page's "nginx module" section; left out when missing);
- `runs.json`: which run produced each group's figures (commit, date, CPU), written by
  `machine --group GROUP` before the group runs.

`scripts/bench.sh` does the whole run, and `scripts/bench.sh GROUP` one group of it (see
`GROUPS`), whose results replace that group's alone: every section of the report names the
run it comes from. Usage:

    python3 scripts/bench-report.py machine     # record the machine (before a full run)
    python3 scripts/bench-report.py machine --group encode   # record the run of one group
    python3 scripts/bench-report.py collect     # criterion's results -> criterion.json
    python3 scripts/bench-report.py collect --group encode   # ... replacing that group's only
    python3 scripts/bench-report.py             # write the report
    python3 scripts/bench-report.py --check     # fail if the report is not what the results give

The SVG charts are drawn here, without a plotting library: grouped horizontal bars on a log
scale, one group per workload, so that the output is plain, diffable text.
"""

import argparse
import datetime
import html
import json
import math
import os
import pathlib
import platform
import re
import statistics
import subprocess
import sys
from collections import defaultdict

ROOT = pathlib.Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benches" / "results"

BACKENDS = ["avx512", "avx2", "ssse3", "sse2", "neon", "scalar"]  # best first
PEERS = ["percent-encoding", "urlencoding", "form_urlencoded"]
WORKLOADS = {
    "encode": ["safe", "log", "multilingual", "random"],
    "decode": ["no-escape", "log", "multilingual", "random"],
}
WORKLOAD_NOTES = {
    "safe": "letters, digits, `-._~`: nothing to escape",
    "no-escape": "no `%` at all (the `safe` workload, which encodes to itself)",
    "log": "web access-log lines: paths, queries, some UTF-8 (21% of bytes escaped)",
    "multilingual": "Arabic, Greek, Hindi and Japanese articles (95% escaped)",
    "random": "uniform random bytes (74% escaped)",
}
# The project's goals at 64 KiB, per direction: (workload, what, against, factor for the
# best backend, factor for AVX2). `what` is a function suffix ("" for the slice API).
GOALS = {
    "encode": [
        ("safe", "", "memcpy", 0.5, 0.4),
        ("log", "", "percent-encoding", 10, 6),
        ("multilingual", "", "percent-encoding", 20, 12),
        ("random", "", "percent-encoding", 30, 15),
    ],
    "decode": [
        ("no-escape", "", "memcpy", 0.5, None),
        ("multilingual", "", "percent-encoding", 10, None),
        ("log", "", "percent-encoding", 8, None),
        ("log", "-validate", "memcpy", 0.5, None),
        ("multilingual", "-validate", "memcpy", 0.5, None),
    ],
}
GOAL_SIZE = 65536
# The groups `scripts/bench.sh GROUP` runs: what each measures, and the prefixes of its
# criterion groups in criterion.json (the other groups keep their own results files).
GROUPS = {
    "encode": ("encoding, every backend and peer (`benches/encode.rs`)", ("encode/",)),
    "decode": ("decoding, every backend and peer (`benches/decode.rs`)", ("decode/",)),
    "short": ("short strings (`benches/short.rs`, `short.json`)", ()),
    "parallel": ("the parallel paths and the CLI on large inputs (`benches/parallel.rs`, "
                 "`large-inputs.json`)", ("parallel-encode/", "parallel-decode/")),
    "charset": ("legacy encodings (`benches/charset.rs`, `charset.json`)", ()),
    "capi": ("the C API (`pctenc-capi/bench.sh`, `capi.json`)", ()),
    "python": ("the Python package (`pctenc-python/bench.py`, `python.json`; `bench_arrow.py`, "
               "`python-arrow.json`)", ()),
    "arrow": ("the Arrow kernels (`pctenc-arrow/bench.sh`, `arrow.json`)", ()),
    "datafusion": ("the SQL functions (`pctenc-datafusion/bench.sh`, `datafusion.json`)", ()),
    "nginx": ("the nginx module against set-misc (`pctenc-nginx/bench.sh`, `nginx.json`)", ()),
}
# The names, in the tables' heads, of functions whose id says less than a reader needs.
NAMES = {"memcpy-output": "`memcpy` of the output"}

COLORS = {
    "memcpy": "#9e9e9e",
    "pctenc-avx512": "#0b3c8c", "pctenc-avx2": "#1f63c6", "pctenc-ssse3": "#4a8fe0",
    "pctenc-sse2": "#86b6ef", "pctenc-neon": "#1f63c6", "pctenc-scalar": "#c3d9f5",
    "percent-encoding": "#e4572e", "urlencoding": "#f3a712", "form_urlencoded": "#8c4fa8",
}


# ---------------------------------------------------------------------------------------
# Reading the results


def size_label(n):
    for unit, shift in (("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} B"


def collect(root, out, group=None):
    """Criterion's JSON files -> one sorted list of {group, function, bytes, median_ns, ...}.
    With `group`, only that group's records are replaced; the others stay as they were."""
    records = []
    for bench in root.glob("**/new/benchmark.json"):
        meta = json.loads(bench.read_text())
        est = json.loads((bench.parent / "estimates.json").read_text())
        if len(meta["group_id"].split("/")) != 3 or not meta.get("throughput"):
            continue
        median = est["median"]
        records.append({
            "group": meta["group_id"],
            "function": meta["function_id"],
            "bytes": list(meta["throughput"].values())[0],
            "median_ns": round(median["point_estimate"], 3),
            "median_ci_ns": [round(median["confidence_interval"]["lower_bound"], 3),
                             round(median["confidence_interval"]["upper_bound"], 3)],
        })
    if group:
        prefixes = GROUPS[group][1]
        records = [r for r in records if r["group"].startswith(prefixes)]
    if not records:
        sys.exit(f"no criterion results{' of ' + group if group else ''} under {root}")
    if group and out.exists():
        records += [r for r in json.loads(out.read_text()) if not r["group"].startswith(prefixes)]
    records.sort(key=lambda r: (r["group"].split("/")[0], int(r["group"].split("/")[2]),
                                r["group"].split("/")[1], r["function"]))
    out.write_text(json.dumps(records, indent=1) + "\n")
    print(f"{len(records)} results -> {out}")


def collect_short(root, out):
    """Criterion's results of benches/short.rs -> a sorted list of {group, function, median_ns}."""
    records = []
    for bench in root.glob("short-*/*/new/benchmark.json"):
        meta = json.loads(bench.read_text())
        median = json.loads((bench.parent / "estimates.json").read_text())["median"]
        records.append({"group": meta["group_id"], "function": meta["function_id"],
                        "median_ns": round(median["point_estimate"], 3),
                        "median_ci_ns": [round(median["confidence_interval"]["lower_bound"], 3),
                                         round(median["confidence_interval"]["upper_bound"], 3)]})
    if not records:
        sys.exit(f"no results of benches/short.rs under {root}")
    records.sort(key=lambda r: (r["group"].split("/")[0], r["group"].split("/")[1],
                                int(r["group"].split("/")[2]), r["function"]))
    out.write_text(json.dumps(records, indent=1) + "\n")
    print(f"{len(records)} results -> {out}")


def collect_charset(root, out, machine):
    """Criterion's results of benches/charset.rs -> `charset.json`: one round of medians per
    call, appended to the rounds already there unless this is the first (`--round 1`)."""
    records = {}
    for bench in root.glob("charset-*/*/new/benchmark.json"):
        meta = json.loads(bench.read_text())
        median = json.loads((bench.parent / "estimates.json").read_text())["median"]
        records[f"{meta['group_id']}/{meta['function_id']}"] = {
            "bytes": list(meta["throughput"].values())[0], "median_ns": round(median["point_estimate"], 1)}
    if not records:
        sys.exit(f"no results of benches/charset.rs under {root}")
    data = json.loads(out.read_text()) if out.exists() and machine is None else {"rounds": []}
    if machine is not None:
        data["machine"] = machine
    data["rounds"].append(records)
    out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"{len(records)} results, round {len(data['rounds'])} -> {out}")


def charset_machine():
    return {"date": datetime.date.today().isoformat(), "commit": run(["git", "rev-parse", "--short", "HEAD"]),
            "cpu": cpuinfo_field("model name") or platform.processor(),
            "cpu_family_model": f"{cpuinfo_field('cpu family')}/{cpuinfo_field('model')}".strip("/"),
            "rustc": run(["rustc", "-V"])}


def charset_section(data, run=""):
    """Legacy encodings: `encode_in` / `decode_in` against the UTF-8 paths and against
    encoding_rs + percent-encoding, the median of each function's medians over the rounds."""
    if not data:
        return ""
    keys = set().union(*data["rounds"])
    med = {k: statistics.median(r[k]["median_ns"] for r in data["rounds"] if k in r) for k in keys}
    size = {k: next(r[k]["bytes"] for r in data["rounds"] if k in r) for k in keys}
    m = data["machine"]
    rows, failures = [], []
    for op in ("encode", "decode"):
        for workload in ("ascii", "japanese"):
            group = f"charset-{op}/{workload}/65536"
            fns = [f for f in ("pctenc-utf-8", "pctenc-windows-1252", "pctenc-shift_jis",
                               "encoding_rs+percent-encoding") if f"{group}/{f}" in med]
            if not fns:
                continue
            gbs = lambda f: size[f"{group}/{f}"] / med[f"{group}/{f}"]
            cells = [f"{med[f'{group}/{f}'] / 1000:.1f} µs ({gbs(f):.2f})" if f in fns else "-"
                     for f in ("pctenc-utf-8", "pctenc-windows-1252", "pctenc-shift_jis",
                               "encoding_rs+percent-encoding")]
            sjis = f"{group}/pctenc-shift_jis"
            peer = med.get(f"{group}/encoding_rs+percent-encoding")
            speedup = f"{peer / med[sjis]:.2f}x" if peer else "-"
            rows.append(f"| {op} | {workload} | " + " | ".join(cells) + f" | {speedup} |")
            if workload == "ascii":
                base = med[f"{group}/pctenc-utf-8"]
                for f in ("pctenc-windows-1252", "pctenc-shift_jis"):
                    ratio = base / med[f"{group}/{f}"]
                    if ratio < 0.9:
                        failures.append(f"{op} ascii: `{f}` at {ratio:.2f}x the UTF-8 path")
    verdict = ("Met in this run: on ASCII text both legacy encodings run within 10% of the UTF-8 path."
               if not failures else "Not met in this run: " + "; ".join(failures) + ".")
    rounds = len(data["rounds"])
    return f"""
## Legacy character encodings

{run}

`Encoder::encode_in` and `Decoder::decode_in` (feature `encoding`, `benches/charset.rs`) on
64 KiB, measured by `scripts/bench.sh` on {m['date']} ({cpu_name(m)}, commit `{m['commit']}`),
the median of {rounds} rounds of criterion medians. `ascii`: the access-log workload's ASCII
bytes; `japanese`: the Japanese article of `benches/data`, in Shift_JIS. Encoding with
`rfc3986` (`encode_string_in`, into a reused `String`), decoding strict into a new buffer. The
UTF-8 columns are the paths without a charset (`encode_string`, `decode`); the last columns are
what a Rust program does without pctenc: `encoding_rs`'s `encode`, then `percent-encoding`
(and `percent_decode`, then `encoding_rs`'s decoder), checked equal first. Time per call (GB/s
of input):

| | workload | UTF-8 | windows-1252 | Shift_JIS | `encoding_rs` + `percent-encoding` (Shift_JIS) | Shift_JIS speed-up |
|---|---|---:|---:|---:|---:|---:|
{chr(10).join(rows)}

Goal: ASCII text stays on the SIMD paths at their speed (within 10%, this machine's noise
between neighbouring runs). On Japanese text `encoding_rs`'s own conversion takes most of the
time (`perf`: about three quarters of an encode).

{verdict}
"""


def python_arrow_section(data, run=""):
    """`pctenc.arrow` and `pctenc.polars` against a Python loop, DuckDB and Polars'
    `map_elements`, from `python-arrow.json`."""
    if not data:
        return ""
    r = data["median_s"]
    ms = lambda s: f"{s * 1e3:.1f} ms"
    rows = []
    goals = {"python loop": 30, "duckdb": 2}
    failures = []
    for op in ("encode", "decode"):
        ours = r[op]["pctenc.arrow"]
        for name, label in (("python loop", f"a Python loop of `urllib.parse.{'quote' if op == 'encode' else 'unquote'}`"),
                            ("duckdb", f"DuckDB's `url_{op}`"),
                            ("polars map_elements(unquote)", "Polars `map_elements(urllib.parse.unquote)`")):
            if name not in r[op]:
                continue
            ratio = r[op][name] / ours
            goal = goals.get(name)
            verdict = "" if goal is None else (f"{goal}x, met" if ratio >= goal else f"{goal}x, **not met**")
            if goal is not None and ratio < goal:
                failures.append(f"{op} against {name}: {ratio:.1f}x, goal {goal}x")
            rows.append(f"| `{op}` | {label} | {ms(r[op][name])} | {ms(ours)} | {ratio:.1f}x | {verdict} |")
    polars = r["decode"]["polars expression"] / r["decode"]["pctenc.arrow on the Series"]
    if polars > 1.2:
        failures.append(f"the Polars expression at {polars:.2f}x pctenc.arrow, goal 1.2x")
    verdict = "All met in this run." if not failures else "Not met in this run: " + "; ".join(failures) + "."
    v = data["versions"]
    nl = "\n"
    return f"""
## Python dataframes

{run}

`pctenc.arrow` (pctenc-arrow's kernels on Arrow data from Python) and the `pctenc.polars`
expression namespace, measured by `python3 pctenc-python/bench_arrow.py --json
benches/results/python-arrow.json` on {data['date']} ({data['cpu']}, commit `{data['commit']}`,
pyarrow {v['pyarrow']}, Polars {v['polars']}, DuckDB {v['duckdb']}), medians. Input: one column of
{data['rows']:,} access-log values of about 100 bytes ({data['bytes']['encode'] / 1e6:.0f} MB; the
decoders read the `rfc3986` encoding, {data['bytes']['decode'] / 1e6:.0f} MB), every side's output
checked equal first. The Python loop runs over a list of the values made before timing; DuckDB
runs on the same Arrow table and returns Arrow; both pctenc and DuckDB use both cores.

| | against | theirs | `pctenc.arrow` | speed-up | goal |
|---|---|---:|---:|---:|---|
{nl.join(rows)}

`df.select(pl.col("enc").pctenc.decode())` takes {ms(r['decode']['polars expression'])}, against
{ms(r['decode']['pctenc.arrow on the Series'])} for `pctenc.arrow.decode` called on the Series:
{polars:.2f}x (goal: within 1.2x). Both run the same kernels on the Series' `string_view`
data; what the expression adds is `map_batches`' call and the Series built from the result.

{verdict}
"""


def python_section(data, run=""):
    """The Python package (`pctenc-python/`) against `urllib.parse`, from `python.json`."""
    if not data:
        return ""
    # Single calls: no slower than urllib where nothing changes (1-100 B), and 2.5x and 5x
    # with work at 10 and 30 B; the batch and bulk calls: their own goals.
    goals = {" no-op ": 1.0, " work 10 B": 2.5, " work 30 B": 5, "64 KiB": 20, "30 B": 3, "1M strings": 10}
    rows, failures = [], []
    for r in data["results"]:
        goal = next(g for k, g in goals.items() if k in r["name"])
        unit = (lambda ns: f"{ns / 1e6:.1f} ms") if r["pctenc_ns"] > 1e6 else (lambda ns: f"{ns / 1000:.2f} µs")
        met = r["speedup"] >= goal
        if not met:
            failures.append(f"{r['name']}: {r['speedup']:.1f}x, goal {goal}x")
        rows.append(f"| `{r['name']}` | {unit(r['pctenc_ns'])} | {unit(r['urllib_ns'])} | {r['speedup']:.1f}x | "
                    f"{goal}x, {'met' if met else '**not met**'} |")
    verdict = "All met in this run." if not failures else "Not met in this run: " + "; ".join(failures) + "."
    return f"""
## Python

{run}

The `pctenc` Python package (`pctenc-python/`, PyO3, abi3) against CPython's `urllib.parse`,
measured by `python3 pctenc-python/bench.py --json benches/results/python.json` on
{data['date']} ({data['cpu']}, CPython {data['python']}, commit `{data['commit']}`), medians of
{data['repeat']} `timeit` runs, both sides' results checked equal first. 64 KiB: one call on an
access-log mix (paths, queries with spaces and `&`, UTF-8 names; `unquote` reads its `quote`);
30 B: per call, over 1,000 different strings; "no-op" and "work": one call, timed as the
statement `f(arg)`, on a value of that many bytes with nothing to change (a path, a file name)
and with escapes to write or read; `encode_many`: a million strings of 10 to 29 bytes through
`pctenc.encode_many(strings, "python-quote")` against `[quote(s) for s in strings]`.

| call | pctenc | `urllib.parse` | speed-up | goal |
|---|---:|---:|---:|---|
{chr(10).join(rows)}

{verdict}
"""


def short_section(records, run=""):
    """Short strings: ns per call at each size, the ratios to percent-encoding, the goals."""
    if not records:
        return ""
    data = defaultdict(dict)
    for r in records:
        op, kind, size = r["group"].split("/")
        data[(op.removeprefix("short-"), kind, int(size))][r["function"]] = r["median_ns"]
    found = {f[len("pctenc-"):] for t in data.values() for f in t if f.startswith("pctenc-")}
    simd = [b for b in BACKENDS if b in found and b != "scalar"]
    wide = [b for b in ("avx2", "avx512", "neon") if b in simd]
    best = simd[0] if simd else "scalar"
    out = ["## Short strings (`benches/short.rs`)", "", run, "",
           "Nanoseconds per call (median; lower is better), each call on one of 64 different",
           "inputs of the size, cycled. `query`: query-string values (`q=...`-like, about a",
           "quarter of the bytes escaped); `path`: URL paths, a few escapes. Encoding with the",
           "component set (query) or the path set (path); decoding of their encodings, to bytes.",
           "`pctenc-<backend>` is `encode_slice` / `decode_slice` into a reused buffer, `-string`",
           "`encode_string` into a reused `String`, `-cow` the owned `decode`; `percent-encoding`",
           "pushes into a reused `String` / `Vec`, `percent-encoding-cow` allocates as `-cow` does.",
           ""]
    failures = []
    for op in ("encode", "decode"):
        for kind in ("query", "path"):
            sizes = sorted(s for (o, k, s) in data if o == op and k == kind)
            if not sizes:
                continue
            cols = [f"pctenc-{b}" for b in ["scalar"] + simd]
            cols += [c for c in (f"pctenc-{best}-string", f"pctenc-{best}-cow", "percent-encoding",
                                 "percent-encoding-cow") if any(c in data[(op, kind, s)] for s in sizes)]
            out += [f"### {op}, {kind}", "",
                    "| size | " + " | ".join(f"`{c}`" for c in cols)
                    + "".join(f" | `percent-encoding` / `{b}`" for b in wide) + " |",
                    "|---|" + "---:|" * (len(cols) + len(wide))]
            for s in sizes:
                t = data[(op, kind, s)]
                cells = [f"{t[c]:.1f}" if c in t else "-" for c in cols]
                pe = t.get("percent-encoding")
                for b in wide:
                    ours = t.get(f"pctenc-{b}")
                    cells.append(f"{pe / ours:.2f}x" if pe and ours else "-")
                    goal = 2.0 if s == 16 else 3.0 if 32 <= s <= 64 else None
                    if goal and pe and ours and pe / ours < goal:
                        failures.append(f"{op} {kind} {s} B: `{b}` {pe / ours:.2f}x `percent-encoding`, goal {goal:.0f}x")
                scalar = t.get("pctenc-scalar")
                for b in simd:
                    v = t.get(f"pctenc-{b}")
                    if v and scalar and v > scalar * 1.05:
                        failures.append(f"{op} {kind} {s} B: `{b}` {v:.1f} ns, scalar {scalar:.1f} ns")
                if t.get("pctenc-avx2") and t.get("pctenc-avx512") and t["pctenc-avx512"] > t["pctenc-avx2"] * 1.05:
                    failures.append(f"{op} {kind} {s} B: `avx512` {t['pctenc-avx512']:.1f} ns, `avx2` {t['pctenc-avx2']:.1f} ns")
                out.append(f"| {size_label(s)} | " + " | ".join(cells) + " |")
            out.append("")
    out += ["Goals (on AVX2 and AVX-512): at least 2x `percent-encoding` at 16 B and 3x at 32 to",
            "64 B; no SIMD backend more than 5% slower than scalar, and AVX-512 no more than 5%",
            "slower than AVX2, at any size (5%: this machine's noise between neighbouring runs).", ""]
    if failures:
        out += [f"Not met in this run ({len(failures)}):", ""] + [f"- {f}" for f in failures]
    else:
        out.append("All met in this run.")
    return "\n".join(out) + "\n\n"


def load(path):
    """{(kind, workload, size): {function: GB/s}} from criterion.json."""
    results = defaultdict(dict)
    for r in json.loads(path.read_text()):
        kind, workload, size = r["group"].split("/")
        results[(kind, workload, int(size))][r["function"]] = r["bytes"] / r["median_ns"]
    return results


def backends_in(results):
    found = {f[len("pctenc-"):] for table in results.values() for f in table if f.startswith("pctenc-")}
    return [b for b in BACKENDS if b in found]


def sizes_of(results, kind):
    return sorted({s for (k, _, s) in results if k == kind})


def fmt(v):
    if v is None:
        return "-"
    return f"{v:.2f}" if v < 10 else f"{v:.1f}"


def ratio(a, b):
    return f"{a / b:.1f}x" if a and b and a / b >= 10 else (f"{a / b:.2f}x" if a and b else "-")


# ---------------------------------------------------------------------------------------
# The machine


def run(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def cpuinfo_field(name):
    try:
        for line in open("/proc/cpuinfo"):
            if line.split(":")[0].strip() == name:
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def record_machine(results_dir, group=None):
    subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "pctenc"], cwd=ROOT, check=True)
    info = run([str(ROOT / "target" / "release" / "pctenc"), "info"])
    fields = dict(line.split(":", 1) for line in info.splitlines() if ":" in line)
    mem_kib = 0
    try:
        mem_kib = int(next(l.split()[1] for l in open("/proc/meminfo") if l.startswith("MemTotal")))
    except (OSError, StopIteration):
        pass
    machine = {
        "date": datetime.date.today().isoformat(),
        "commit": run(["git", "rev-parse", "--short", "HEAD"]),
        # Uncommitted changes to what is measured (docs and scripts do not count).
        "dirty": bool(run(["git", "status", "--porcelain", "--", "src", "benches", "examples",
                           "Cargo.toml", "Cargo.lock"])),
        "cpu": cpuinfo_field("model name") or platform.processor(),
        "cpu_family_model": f"{cpuinfo_field('cpu family')}/{cpuinfo_field('model')}".strip("/"),
        "cores": os.cpu_count(),
        "memory_gib": round(mem_kib / (1 << 20)),
        "caches": run(["sh", "-c", "lscpu | grep -E '^L[23] ' | sed 's/  */ /g'"]).splitlines(),
        "os": f"{platform.system()} {platform.release()}",
        "rustc": run(["rustc", "-V"]),
        "cpu_features": fields.get("cpu features found", "").strip(),
        "backends": fields.get("backends available", "").strip(),
        "detected": fields.get("backend detected", "").strip(),
    }
    results_dir.mkdir(parents=True, exist_ok=True)
    if group:
        runs_path = results_dir / "runs.json"
        runs = json.loads(runs_path.read_text()) if runs_path.exists() else {}
        runs[group] = machine
        runs_path.write_text(json.dumps(runs, indent=2, sort_keys=True) + "\n")
        print(f"the run of `{group}` -> {runs_path}")
    else:
        (results_dir / "machine.json").write_text(json.dumps(machine, indent=2) + "\n")
        print(json.dumps(machine, indent=2))


def cpu_name(m):
    """The CPU's name, with its microarchitecture when the family/model says it."""
    cpu = m.get("cpu") or "unknown CPU"
    zen = {"25/17": "Zen 4", "25/97": "Zen 4", "25/160": "Zen 4c", "25/1": "Zen 3", "25/33": "Zen 3"}
    arch = zen.get(m.get("cpu_family_model", ""))
    return f"{cpu} ({arch})" if arch else cpu


def machine_section(m):
    cpu = cpu_name(m) + (f", family/model {m['cpu_family_model']}" if m.get("cpu_family_model") else "")
    caches = ", ".join(c.replace(" cache:", "") for c in m.get("caches", []))
    lines = [
        f"- CPU: {cpu}, {m.get('cores')} cores{', ' + caches if caches else ''}; "
        f"{m.get('memory_gib')} GiB of memory. The cores are shared with other work: figures "
        "move by 10-30% between runs, ratios less.",
        f"- Features pctenc uses: {m.get('cpu_features') or '?'}; backends: "
        f"{m.get('backends') or '?'} (detected: `{m.get('detected') or '?'}`).",
        f"- {m.get('os')}, {m.get('rustc')}, release profile, no `target-cpu` flag "
        "(the backends are chosen at run time).",
        f"- pctenc at commit `{m.get('commit')}`{' (with local changes)' if m.get('dirty') else ''}, "
        f"measured on {m.get('date')}.",
    ]
    return "\n".join(lines)


def run_of(group, runs, machine, files):
    """The run that produced `group`'s figures: its entry in runs.json, or, for results older
    than that file, what the results file itself or machine.json (the last full run) says."""
    if group in runs:
        return runs[group]
    own = files.get(group) or {}
    if group == "charset":
        own = own.get("machine", {})
    if group == "parallel":
        own = {**machine, **{k: v for k, v in (own.get("meta") or {}).items() if k == "commit"}}
    if own.get("date") or own.get("cpu"):
        return {k: own.get(k) for k in ("date", "commit", "cpu", "cpu_family_model")}
    return machine if group in ("encode", "decode", "short", "parallel") else {}


def run_line(group, runs, machine, files):
    """One sentence naming the run of a section."""
    r = run_of(group, runs, machine, files)
    if not r:
        return f"*Run: `scripts/bench.sh {group}`; no record of when.*"
    bits = [r.get("date") or "date unknown"]
    if r.get("commit"):
        bits.append(f"commit `{r['commit']}`" + (" with local changes" if r.get("dirty") else ""))
    bits.append(cpu_name(r) if r.get("cpu") else "CPU unknown")
    if r.get("detected"):
        bits.append(f"backend `{r['detected']}`")
    return f"*Run: `scripts/bench.sh {group}`, {', '.join(bits)}.*"


def runs_section(runs, machine, files, present):
    rows = ["| group | what | date | commit | CPU |", "|---|---|---|---|---|"]
    for group, (what, _) in GROUPS.items():
        r = run_of(group, runs, machine, files)
        if group not in present:
            continue
        rows.append(f"| `{group}` | {what} | {r.get('date') or '?'} | "
                    f"{'`' + r['commit'] + '`' if r.get('commit') else '?'} | "
                    f"{cpu_name(r) if r.get('cpu') else '?'} |")
    return "\n".join(rows)


# ---------------------------------------------------------------------------------------
# Tables


def table(rows, columns, cell):
    out = ["| input | " + " | ".join(f"`{c}`" for c in columns) + " |",
           "|---|" + "---:|" * len(columns)]
    for r in rows:
        out.append(f"| {r} | " + " | ".join(cell(r, c) for c in columns) + " |")
    return "\n".join(out)


def throughput_tables(results, kind, columns, title=None, against=()):
    """One table per size: workloads x `columns` ([(function, header)]), GB/s; for each
    (function, reference) in `against` whose reference the size has, a last column with
    their ratio."""
    prefix = "decode" if kind == "validate" else kind
    out = []
    for size in sizes_of(results, prefix):
        groups = {w: results.get((prefix, w, size), {}) for w in WORKLOADS[prefix]}
        rows = [w for w in WORKLOADS[prefix] if groups[w]]
        present = {f for g in groups.values() for f in g}
        cols = [(f, h) for f, h in columns if f in present]
        if not cols:
            continue
        ratios = [(f, ref) for f, ref in against if ref in present]
        out.append(f"#### {title or kind}, {size_label(size)} (GB/s)\n")
        head = "| input | " + " | ".join(h for _, h in cols)
        rule = "|---|" + "---:|" * len(cols)
        for f, ref in ratios:
            head += f" | {f[len('pctenc-'):]} / {NAMES.get(ref, ref)}"
            rule += "---:|"
        out.append(head + " |")
        out.append(rule)
        for w in rows:
            cells = [fmt(groups[w].get(f)) for f, _ in cols]
            cells += [ratio(groups[w].get(f), groups[w].get(ref)) for f, ref in ratios]
            out.append(f"| {w} | " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out)


def summary_rows(results, best):
    """(operation, pctenc best, percent-encoding, ratio) at GOAL_SIZE, for the README."""
    rows = []
    for kind, workload, label in [
        ("encode", "log", "encode an access-log mix (21% escaped)"),
        ("encode", "multilingual", "encode multilingual text (95% escaped)"),
        ("decode", "log", "decode the access-log mix"),
        ("decode", "multilingual", "decode the multilingual text"),
    ]:
        g = results.get((kind, workload, GOAL_SIZE), {})
        ours, pe = g.get(f"pctenc-{best}"), g.get("percent-encoding")
        if ours and pe:
            rows.append((label, ours, pe, ours / pe))
    return rows


def goals_section(results, best):
    out = []
    for kind, goals in GOALS.items():
        # (backend, index of its factor in a goal): AVX2 has goals of its own for encoding.
        columns = [(best, 3)] + ([("avx2", 4)] if best != "avx2" and any(g[4] for g in goals) else [])
        lines = [f"| goal at {size_label(GOAL_SIZE)} | " + " | ".join(f"`{b}`" for b, _ in columns) + " |",
                 "|---|" + "---|" * len(columns)]
        for goal in goals:
            workload, suffix, against, factor, avx2_factor = goal
            g = results.get((kind, workload, GOAL_SIZE), {})
            cells = []
            for backend, i in columns:
                v, ref = g.get(f"pctenc-{backend}{suffix}"), g.get(against)
                if goal[i] is None or not (v and ref):
                    cells.append("-")
                    continue
                got = v / ref
                cells.append((f"{got:.2f}x" if got < 10 else f"{got:.1f}x")
                             + (": met" if got >= goal[i] else ": **not met**"))
            what = "validate" if suffix == "-validate" else kind
            want_text = f"at least {factor}x `{against}`" + (f" (AVX2: {avx2_factor}x)" if avx2_factor else "")
            lines.append(f"| {what} `{workload}`: {want_text} | " + " | ".join(cells) + " |")
        out.append("\n".join(lines))
    return "\n\n".join(out)


# ---------------------------------------------------------------------------------------
# Charts


def svg_bars(path, title, subtitle, groups, series, width=860):
    """Grouped horizontal bars on a log10 scale. `groups`: [(label, {series: GB/s})];
    `series`: the series names in drawing order (those with no value anywhere are left out)."""
    series = [s for s in series if any(values.get(s) for _, values in groups)]
    values = [v for _, vs in groups for s, v in vs.items() if s in series and v]
    if not values:
        # No figure at the chart's size: a run of a group narrowed to other sizes
        # (PCTENC_BENCH_SIZES, a criterion filter).
        return path, None
    # The axis runs from a 1-2-5 step below the smallest value to a power of ten above the
    # largest, with room for its label.
    steps = [m * 10.0 ** k for k in range(-3, 4) for m in (1, 2, 5)]
    lo = max(t for t in steps if t <= min(values) * 0.7)
    hi = 10 ** math.ceil(math.log10(max(values) * 1.6))
    # Legend entries flow left to right and wrap; text widths are estimated (6.5 px a
    # character at this size), which is enough for these labels.
    left = max(60, 16 + max(int(7 * len(label)) for label, _ in groups))
    right, bar, gap = 24, 13, 14
    legend, lx, ly = [], left, 52
    for s in series:
        w = 14 + int(6.5 * len(s)) + 22
        if lx + w > width - right and lx > left:
            lx, ly = left, ly + 18
        legend.append((s, lx, ly))
        lx += w
    top = ly + 24
    plot_w = width - left - right
    present = [[s for s in series if vals.get(s)] for _, vals in groups]
    height = top + sum(len(p) * bar + gap for p in present) + 34

    def x(v):
        return left + plot_w * (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))

    e = html.escape
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
           f'<text x="{left}" y="20" font-size="15" font-weight="bold">{e(title)}</text>',
           f'<text x="{left}" y="37" fill="#555555">{e(subtitle)}</text>']
    for s, lx, ly in legend:
        out.append(f'<rect x="{lx}" y="{ly - 9}" width="10" height="10" fill="{COLORS.get(s, "#333333")}"/>')
        out.append(f'<text x="{lx + 14}" y="{ly}">{e(s)}</text>')
    axis_bottom = height - 30
    decade = 10 ** math.floor(math.log10(lo))
    while decade <= hi * 1.0001:
        for m in (1, 2, 5):
            v = decade * m
            if lo * 0.999 <= v <= hi * 1.001:
                gx = x(v)
                out.append(f'<line x1="{gx:.1f}" y1="{top - 4}" x2="{gx:.1f}" y2="{axis_bottom}" '
                           f'stroke="{"#cccccc" if m == 1 else "#eeeeee"}"/>')
                label = f"{v:g}"
                out.append(f'<text x="{gx:.1f}" y="{axis_bottom + 14}" text-anchor="middle" '
                           f'fill="#555555">{label}</text>')
        decade *= 10
    out.append(f'<text x="{left + plot_w / 2:.0f}" y="{axis_bottom + 28}" text-anchor="middle" '
               f'fill="#555555">GB/s of input (log scale)</text>')
    y = top
    for (label, vals), shown in zip(groups, present):
        group_h = len(shown) * bar
        out.append(f'<text x="{left - 8}" y="{y + group_h / 2 + 4:.0f}" text-anchor="end" '
                   f'font-weight="bold">{e(label)}</text>')
        for s in shown:
            v = vals[s]
            w = max(1.0, x(v) - left)
            out.append(f'<rect x="{left}" y="{y + 1}" width="{w:.1f}" height="{bar - 2}" '
                       f'fill="{COLORS.get(s, "#333333")}"><title>{e(s)}: {fmt(v)} GB/s</title></rect>')
            out.append(f'<text x="{left + w + 4:.1f}" y="{y + bar - 3}" fill="#333333">{fmt(v)}</text>')
            y += bar
        y += gap
    out.append(f'<line x1="{left}" y1="{top - 4}" x2="{left}" y2="{axis_bottom}" stroke="#333333"/>')
    out.append("</svg>")
    return path, "\n".join(out) + "\n"


def charts(results, backends, size):
    best = backends[0]
    ours = [f"pctenc-{b}" for b in backends]
    files = []
    enc = [(w, results.get(("encode", w, size), {})) for w in WORKLOADS["encode"]]
    dec = [(w, results.get(("decode", w, size), {})) for w in WORKLOADS["decode"]]
    files.append(svg_bars("bench-encode.svg", f"Encoding {size_label(size)}, rfc3986 set",
                          "pctenc per backend against memcpy and the crates people use (median, higher is better)",
                          enc, ["memcpy"] + ours + PEERS))
    files.append(svg_bars("bench-decode.svg", f"Decoding {size_label(size)} of rfc3986-encoded input",
                          "strict, to bytes; pctenc per backend against memcpy and the crates people use",
                          dec, ["memcpy"] + ours + PEERS[:2]))
    val = [(w, {f.removesuffix("-validate"): v for f, v in g.items() if f.endswith("-validate") or f == "memcpy"})
           for w, g in dec]
    files.append(svg_bars("bench-validate.svg", f"Validating {size_label(size)} of rfc3986-encoded input",
                          "Encoder::validate per backend (is every byte encoded right for the set?) against memcpy",
                          val, ["memcpy"] + ours))
    head = []
    for kind in ("encode", "decode"):
        for w in ("log", "multilingual"):
            g = results.get((kind, w, size), {})
            head.append((f"{kind} {w}", {f"pctenc-{best}": g.get(f"pctenc-{best}"),
                                          **{p: g.get(p) for p in PEERS}, "memcpy": g.get("memcpy")}))
    files.append(svg_bars("bench-headline.svg", f"pctenc ({best}) against the crates people use, {size_label(size)}",
                          "access-log mix and multilingual text, rfc3986 set; memcpy for scale",
                          head, [f"pctenc-{best}"] + PEERS + ["memcpy"], width=760))
    return files


# ---------------------------------------------------------------------------------------
# Parallel and large inputs


def parallel_section(results):
    sizes = sorted({s for (k, _, s) in results if k == "parallel-encode"})
    if not sizes:
        return "(No `parallel` results in this run.)"
    threads = sorted({f for (k, _, _), t in results.items() if k.startswith("parallel-") for f in t
                      if f.startswith("rayon-") and f != "rayon-1t"})
    many = threads[-1] if threads else None
    lines = [f"| size | encode serial | encode {many} | decode serial | decode {many} |",
             "|---|---:|---:|---:|---:|"]
    pays = {}
    for kind in ("encode", "decode"):
        pays[kind] = None
        for size in reversed(sizes):
            g = results.get((f"parallel-{kind}", "log", size), {})
            if many and g.get(many) and g.get("serial") and g[many] > g["serial"]:
                pays[kind] = size
            else:
                break
    for size in sizes:
        cells = []
        for kind in ("encode", "decode"):
            g = results.get((f"parallel-{kind}", "log", size), {})
            s, p = g.get("serial"), g.get(many)
            cells += [fmt(s), f"{fmt(p)} ({p / s:.2f}x)" if s and p else "-"]
        lines.append(f"| {size_label(size)} | " + " | ".join(cells) + " |")
    src = (ROOT / "src" / "par.rs").read_text()
    thresholds = {k: int(eval(m.group(1).replace("_", ""), {}))
                  for k, m in (("encode", re.search(r"PAR_ENCODE_THRESHOLD: usize = ([\d_ *]+);", src)),
                               ("decode", re.search(r"PAR_DECODE_THRESHOLD: usize = ([\d_ *]+);", src))) if m}
    notes = []
    for kind in ("encode", "decode"):
        t = thresholds.get(kind)
        where = (f"from {size_label(pays[kind])} up" if pays[kind] else "at none of these sizes")
        notes.append(f"{kind} with {many} beats serial {where}; `PAR_{kind.upper()}_THRESHOLD` is "
                     f"{size_label(t) if t else '?'}")
    return ("\n".join(lines) + "\n\nIn this run, " + "; ".join(notes) + ". Below its threshold a "
            "`par_*` call is the serial one. Bandwidth: from about 16 MiB the input and output of the "
            "in-memory paths no longer fit in the cache, and both threads wait on memory; the "
            "writing paths (`par_encode_to`, `feed_to`) keep their output in per-chunk buffers "
            "and scale further, as the CLI figures below show.")


def large_section(data):
    if not data:
        return "(No large-input results in this run: `python3 scripts/large-inputs.py --json " \
               "benches/results/large-inputs.json`.)"
    m = data["meta"]
    out = [f"One run of `scripts/large-inputs.py`: the `log` workload, {m['mib']} MiB, and its "
           f"`rfc3986` encoding ({m['enc_mib']} MiB), written afresh; {m['runs']} runs of each command, "
           f"`-j 1` and `-j 2` taking turns; backend `{m['backend']}`; output to `/dev/null`"
           + (f"; pctenc at commit `{m['commit']}`" if m.get("commit") else "") + ". "
           "GB/s of input, median (best).\n",
           "| command | -j 1 GB/s | -j 2 GB/s | -j 2 / -j 1: medians | bests |",
           "|---|---:|---:|---:|---:|"]
    for row in data["cli"]:
        j1, j2 = row["j1"], row["j2"]
        out.append(f"| `pctenc {row['command']}` | {j1[0]:.2f} ({j1[1]:.2f}) | {j2[0]:.2f} ({j2[1]:.2f}) "
                   f"| {j2[0] / j1[0]:.2f}x | {j2[1] / j1[1]:.2f}x |")
    lines_row = next((r for r in data["cli"] if r["command"] == "encode"), data["cli"][0])
    speedup = lines_row["j2"][0] / lines_row["j1"][0]
    out.append(f"\nGoal: `-j 2` at least 1.7x `-j 1` on the access log: {speedup:.2f}x in line mode "
               f"(the default), {'met' if speedup >= 1.7 else '**not met**'}. The machine's other "
               "tenants slow the runs that need both cores more than the others; the bests show "
               "what two idle cores give.\n")
    out.append("File against memory, one thread: the library's in-memory call (`encode_vec` / "
               "`decode_vec`, best of 5), the one-pass path the CLI runs (`feed_to` into "
               "`io::sink()`), the kernel's part alone (mapping the file and entering its pages "
               "into the page table) and the CLI on the file (best of its runs). A file a program "
               "wrote in large writes sits in the page cache in large folios, which map almost "
               "for free; a file written 4 KiB at a time (the `dd bs=4k` copies) sits in 4 KiB "
               "pages, and mapping those costs about as much as encoding them.\n")
    out.append("| operation | file cached in | library `*_vec` | library `feed_to` | mapping alone "
               "| bound: `feed_to` + mapping | CLI -j 1 on the file | CLI / `*_vec` |")
    out.append("|---|---|---:|---:|---:|---:|---:|---:|")
    for row in data["file"]:
        bound = 1 / (1 / row["feed_to"] + 1 / row["map"])
        out.append(f"| `pctenc {row['command']}` | {row['cached_in']} | {row['vec']:.2f} | "
                   f"{row['feed_to']:.2f} | {row['map']:.1f} | {bound:.2f} | {row['cli']:.2f} | "
                   f"{100 * row['cli'] / row['vec']:.0f}% |")
    folios = [r for r in data["file"] if r["cached_in"] == "large folios"]
    worst = min(folios, key=lambda r: r["cli"] / r["vec"]) if folios else None
    if worst:
        share = worst["cli"] / worst["vec"]
        out.append(f"\nGoal: the CLI on a file at least 80% of the library in memory. For files in "
                   f"large folios the lowest is {100 * share:.0f}% (`{worst['command']}`): "
                   f"{'met' if share >= 0.8 else '**not met**'}. For files in 4 KiB pages the "
                   "mapping alone bounds the CLI: one pass plus the mapping predicts at most "
                   "1 / (1/`feed_to` + 1/mapping) (the bound column), and the CLI's second "
                   "core lifts it past that with `-j 2`. Throughput is GB/s of input.")
    out.append(f"\n`par_encode_vec` on 2 threads, the same file in memory: {data['par_encode_vec_2t']:.2f} GB/s "
               "(against `encode_vec` above: the input and output of 512 MiB go through memory, "
               "which both threads share; the writing paths, which keep their output in cached "
               "buffers, scale better, as the `-j 2` figures show).\n")
    out.append(f"Memory, {m['stream_gib']:g} GiB from a pipe to a pipe (peak resident set of the "
               "pctenc process, GNU time):\n")
    out.append("| command | peak RSS | GB/s |")
    out.append("|---|---:|---:|")
    for row in data["pipe"]:
        out.append(f"| `pctenc {row['command']}` | {row['rss_mib']:.1f} MiB | {row['gbps']:.2f} |")
    peak = max(r["rss_mib"] for r in data["pipe"])
    out.append(f"\nGoal: at most 32 MiB from a pipe: {peak:.1f} MiB, {'met' if peak <= 32 else '**not met**'}. "
               "A mapped file adds up to two 16 MiB segments of page cache to the resident set (the "
               "one worked on and the next, populated ahead) plus at most two windows of output "
               "buffers.")
    return "\n".join(out)


# ---------------------------------------------------------------------------------------
# The document


# The page's prose is wrapped at this width, as the repository's Markdown is, so that a new
# figure changes a short line. A paragraph or list item with a line longer than LONGEST is
# filled again; others are left as the templates wrote them. Table rows, code blocks and
# headings are never wrapped.
WIDTH, LONGEST = 95, 100
# What a wrapped line must not start with, lest Markdown read a list item, a heading, a quote,
# a table row or a code fence there.
BLOCK_START = re.compile(r"([-+*]|\d+[.)]|#+|>|\||```)$")
# A number and its unit stay on one line.
UNIT = re.compile(r"(B|KiB|MiB|GiB|GB/s|ns|s|%)\W*$")
LIST_ITEM = re.compile(r"\s*(?:[-+*]|\d+[.)]) ")


def fill(block):
    """The lines of one paragraph or list item, filled to WIDTH: code spans stay whole, and a
    list item's lines go on under its text."""
    first = block[0]
    indent = first[:len(first) - len(first.lstrip())]
    item = LIST_ITEM.match(first)
    lead = " " * item.end() if item else indent
    text = " ".join(line.strip() for line in block)
    # Words, a code span with its spaces counting as one (plain words if a backtick is
    # unpaired).
    words = re.findall(r"(?:`[^`]*`|[^\s`])+", text)
    if " ".join(words) != " ".join(text.split()):
        words = text.split()
    joined = []
    for word in words:
        if joined and UNIT.match(word) and re.fullmatch(r"[\d.,]+", joined[-1]):
            joined[-1] += " " + word
        else:
            joined.append(word)
    lines = [indent + joined[0]]
    for word in joined[1:]:
        if len(lines[-1]) + 1 + len(word) <= WIDTH or BLOCK_START.match(word):
            lines[-1] += " " + word
        else:
            lines.append(lead + word)
    return lines


def wrap_prose(text):
    """`text` (Markdown) with each paragraph and list item that has a line longer than
    LONGEST filled again (`fill`)."""
    out, block, fenced = [], [], False

    def flush():
        out.extend(fill(block) if any(len(line) > LONGEST for line in block) else block)
        block.clear()

    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            flush()
            out.append(line)
        elif fenced or not line.strip() or line.lstrip()[:1] in ("|", "#", "<", "!"):
            flush()
            out.append(line)
        else:
            if LIST_ITEM.match(line):
                flush()
            block.append(line)
    flush()
    return "\n".join(out)


def report(results, large, machine, backends, capi=None, datafusion=None, short=None, charset=None,
           python=None, runs=None, nginx=None, arrow=None, python_arrow=None):
    best = backends[0]
    runs = runs or {}
    files = {"charset": charset, "capi": capi, "python": python, "datafusion": datafusion, "parallel": large,
             "nginx": nginx, "arrow": arrow}
    present = {"encode", "decode"} | {g for g, d in files.items() if d} | ({"short"} if short else set())
    line = lambda group: run_line(group, runs, machine, files)
    ours = [f"pctenc-{b}" for b in backends]
    def named(functions):
        return [(f, NAMES.get(f, f"`{f}`")) for f in functions]

    peers_enc = named(["memcpy", "memcpy-output"] + ours + PEERS + [f"pctenc-{best}-string"])
    peers_dec = named(["memcpy", "memcpy-output"] + ours + PEERS[:2])
    variants = named(["memcpy", f"pctenc-{best}", f"pctenc-{best}-cow", f"pctenc-{best}-lenient",
                      f"pctenc-{best}-utf8"])
    validate = [("memcpy", "`memcpy`")] + [(f"pctenc-{b}-validate", f"`{b}`") for b in backends]
    versus = [(f"pctenc-{best}", "percent-encoding"), (f"pctenc-{best}", "memcpy-output")]
    measured = {f for g in results.values() for f in g}
    output_bound = """
- `memcpy` of the output copies as many bytes as the operation writes (the encoded or the
  decoded length) where `memcpy` copies as many as it reads: the bound that writing the
  output sets. Both are in GB/s of input like every column, so the last column, the best
  backend over it, is the fraction of that bound reached (1.00: as fast as the copy).""" \
        if "memcpy-output" in measured else ""
    summary = "\n".join(f"| {label} | {fmt(o)} | {fmt(p)} | {r:.0f}x |"
                        for label, o, p, r in summary_rows(results, best))
    workloads = "\n".join(f"  - `{w}`: {WORKLOAD_NOTES[w]}" for w in
                          ["safe", "log", "multilingual", "random", "no-escape"])
    return f"""# Benchmarks

<!-- Generated by scripts/bench-report.py from one run of scripts/bench.sh: edit the script,
     not this file. -->

Throughput of pctenc next to `memcpy` and the crates Rust programs use today
(`percent-encoding`, `urlencoding`, `form_urlencoded`), all measured in the same run on the
same machine. Every figure is the median of criterion's samples, in GB/s (10^9 bytes per
second) of *input*. pctenc's backends are timed one by one on the same input: `pctenc-avx512`
is what a program gets on this CPU, the others what it gets on CPUs without AVX-512.

![Encoding throughput per workload](bench-encode.svg)

![Decoding throughput per workload](bench-decode.svg)

![Validation throughput per workload](bench-validate.svg)

## At a glance ({size_label(GOAL_SIZE)}, `{best}`)

| operation | pctenc (`{best}`) GB/s | `percent-encoding` GB/s | ratio |
|---|---:|---:|---:|
{summary}

{goals_section(results, best)}

## Machine

{machine_section(machine)}

## Runs

`scripts/bench.sh GROUP` measures one group again and replaces its figures alone, so the
sections below may come from different runs, even different machines: each names its own.
The machine above is the last full run's.

{runs_section(runs, machine, files, present)}

## Method

- Encoding uses the `rfc3986` set for pctenc, `percent-encoding` (an `AsciiSet` spelled the
  same) and `urlencoding` (whose set it is); the outputs are checked equal before timing.
  `form_urlencoded` has a set of its own (the form set: `*` kept, `~` escaped, space as `+`),
  checked equal to pctenc's `form`: similar work, not identical.
- `pctenc-<backend>` encodes with `Encoder::encode_slice` (pinned to the backend) into a
  buffer of the exact size, in one pass; `pctenc-{best}-string` is `pctenc::encode_string`
  (count, grow the `String` once, encode) on the detected backend. Peers write into a reused
  `String`, but `urlencoding`, which has no such API and allocates its result.
- Decoding reads each workload's `rfc3986` encoding; throughput counts the encoded bytes
  read. `pctenc-<backend>` is `Decoder::new().engine(..).decode_slice` (strict, bytes) into a
  preallocated buffer; `-cow` is `pctenc::decode` (borrows when there is no `%`), `-lenient`
  is `pctenc::decode_lenient`, `-utf8` is `Decoder::URI_COMPONENT` (strict UTF-8 as well).
  `percent-encoding` is `percent_decode` into a reused `Vec`; `urlencoding` is
  `decode_binary` (a `Cow`). `form_urlencoded` has no byte decoder to compare with (its
  `parse` splits pairs and decodes lossily to strings).
- Validation is `Encoder::validate` with `rfc3986` on the same (valid) encoded input: none of
  the peers offers it.{output_bound}
- Workloads (`benches/common/mod.rs`, deterministic):
{workloads}
- Sizes 64 B, 4 KiB, 64 KiB (in the L2 cache) and 16 MiB (from memory: `memcpy` drops to
  what DRAM gives, and so does everything near it).

## Reproduce

```sh
bash scripts/bench.sh            # everything: about 50 minutes on two cores
bash scripts/bench.sh decode     # one group again (`bash scripts/bench.sh list`): over 15 minutes for decode
```

A group's run replaces that group's results alone and records its run in
`benches/results/runs.json` (see [Runs](#runs)); measure work on one path with its group,
or with a criterion filter, and keep the full run for releases. The full run records the
machine (`python3 scripts/bench-report.py machine`), and for each group its run
(`python3 scripts/bench-report.py machine --group GROUP`), runs
`cargo bench --bench GROUP -- --warm-up-time 1 --measurement-time 2` for `encode`, `decode`
and `parallel`, collects criterion's medians (`python3 scripts/bench-report.py collect --group
GROUP`), runs
`python3 scripts/large-inputs.py --runs 15 --json benches/results/large-inputs.json` (GNU time, Debian
package `time`, is needed), and writes this page, the charts and the README's figures
(`python3 scripts/bench-report.py`). The results it read are in `benches/results/`; CI checks
that this page is what they give (`python3 scripts/bench-report.py --check`). For a quick look
at one size: `PCTENC_BENCH_SIZES=65536 cargo bench --bench encode -- --warm-up-time 1
--measurement-time 2`. Run on an otherwise idle machine.

## `pctenc bench` on your machine

The figures above are ours, from criterion and a checkout. `pctenc bench` measures the
installed binary on any machine in about 5 seconds, with no checkout (`pctenc bench --help`):

```sh
pctenc bench                         # the workloads of this page, every backend, memcpy
pctenc bench access.log --json       # your own file: its lines, then their encoding
pctenc bench --size 64K --seconds 30 # one size, steadier figures
```

How its figures relate to this page's:

- The same work: `pctenc-<backend>` rows here are its backend rows there, by the same calls
  (`Encoder::encode_slice` pinned to the backend, `Decoder::decode_slice` strict to bytes,
  `Encoder::validate`), in GB/s of the operation's input as here (the encoded input for decode
  and validate); its `memcpy` is this page's `memcpy` (a copy of the input), not `memcpy` of
  the output. The peer crates are not in the binary, so they are not in its tables.
- The same inputs: `safe`, `log` and `random` are the bytes criterion measures, generated by
  the same code and seeds; `multilingual` repeats a 2 KiB excerpt of each article where
  criterion repeats the whole articles (the same 64 B input; 93% of bytes escaped against
  95%). Its sizes are 64 B, 4 KiB, 64 KiB and 1 MiB (`--size`); this page's largest is 16 MiB.
- A shorter measurement: criterion warms up and samples each function for seconds, one after
  the other; `pctenc bench` shares its budget among all its measurements and times every way
  of an operation in turn, round after round (at most 15 rounds), which a busy machine slows
  alike. A figure is the median of the rounds, and `±` their median absolute deviation, not
  criterion's confidence interval. The ratios (`vs scalar`, `vs memcpy`) are between ways
  timed in the same rounds. When it warns that the CPU looks busy, run it again on an idle
  machine or with more `--seconds`.
- A check first: before any timing, every backend's output (and with `-j N` the parallel
  path's) must equal the scalar reference's on every input, or it exits with status 1,
  naming the backend and the first offset that differs: a self-test on CPUs CI cannot run,
  such as ARM machines with NEON (CI only emulates them).
- `-j N` adds the library's parallel path (`par_encode_vec`, `par_decode_vec`, with their
  thresholds) on N threads, for the inputs that reach the threshold (256 KiB to encode, 1 MiB
  to decode); the `parallel` group measures these paths without their thresholds, around
  them.
- Its header names pctenc's version and build (a debug build is warned about: its figures
  are far lower), the CPU, its features and the backend chosen. `--json` writes the same as
  JSON Lines, a record per measurement: what bug and speed reports should include.

## All results

### Encoding (`rfc3986`)

{line("encode")}

{throughput_tables(results, "encode", peers_enc, against=versus)}
### Decoding (strict, to bytes)

{line("decode")}

{throughput_tables(results, "decode", peers_dec, against=versus)}
The decoding APIs on the detected backend: the slice API, then the ones that return a `Cow`
(which borrow the input when it has no `%`, hence above `memcpy` on `no-escape`), the
lenient decoder, and strict UTF-8 on top (not for `random`, which is not UTF-8).

{throughput_tables(results, "decode", variants, title="decoding APIs")}
### Validation (`rfc3986`, valid input)

{throughput_tables(results, "validate", validate, title="validate (`Encoder::validate` per backend)")}
At 64 bytes the vector decoders have too little input for a block and its two-byte
look-ahead and run the scalar code behind a dispatch; SSE2, which has no byte shuffle, hands
escape-dense blocks and inputs under 256 bytes to the scalar code, so it follows scalar there.

{short_section(short, line("short"))}## Large inputs: threads, files, pipes

{line("parallel")}

### Where parallel pays (`benches/parallel.rs`)

The in-memory parallel paths (`par_encode_vec`, `par_decode_vec`, without their thresholds)
against the serial ones, on the `log` workload, GB/s of input:

{parallel_section(results)}

### The CLI on a large access log (`scripts/large-inputs.py`)

{large_section(large)}
""" + charset_section(charset, line("charset")) + capi_section(capi, line("capi")) \
        + python_section(python, line("python")) + python_arrow_section(python_arrow, line("python")) \
        + arrow_section(arrow, line("arrow")) \
        + datafusion_section(datafusion, line("datafusion")) \
        + nginx_section(nginx, line("nginx"))


def nginx_section(ng, run=""):
    """The nginx module (`pctenc-nginx/`) against set-misc under wrk, from `nginx.json`."""
    if not ng:
        return ""
    rows = []
    label = {"100": "100 B", "1024": "1 KiB", "65536": "64 KiB"}
    for size, by in ng["results"].items():
        ours, misc, base = by["pctenc"], by["set-misc"], by["baseline"]
        ratio = ours["requests_per_s"] / misc["requests_per_s"]
        goal = "1.5x" if size == "65536" else "1.0x" if size == "100" else ""
        met = "" if not goal else (" met" if ratio >= float(goal[:-1]) else " **not met**")
        rows.append(f"| {label.get(size, size + ' B')} | {ours['requests_per_s']:,.0f} ({ours['p99_ms']:.2f} ms) "
                    f"| {misc['requests_per_s']:,.0f} ({misc['p99_ms']:.2f} ms) "
                    f"| {base['requests_per_s']:,.0f} ({base['p99_ms']:.2f} ms) | {ratio:.2f}x | {goal}{met} |")
    nl = "\n"
    return f"""
## nginx module

{run}

`ngx_http_pctenc_module` (`pctenc-nginx/`) against OpenResty's set-misc (Debian's
`libnginx-mod-http-set-misc`) in nginx {ng['nginx']}, measured by `bash pctenc-nginx/bench.sh
--json benches/results/nginx.json` on {ng['date']} ({ng['cpu']}, {ng['cores']} cores, commit
{ng['commit']}, load average {' '.join(ng['load'])} when it ended): one nginx worker and `wrk -t1
-c16 -d{ng['seconds']}s` on loopback, one run each. Each location decodes one query argument and
encodes it again: `pctenc_decode strict` then `pctenc_encode component`; `set_unescape_uri`
then `set_escape_uri`; and the baseline, `return 200 $arg_v`. The argument is access-log text
(paths, words, non-ASCII), percent-encoded. Requests per second (p99 latency):

| argument | pctenc | set-misc | baseline | pctenc / set-misc | goal |
|---|---:|---:|---:|---:|---|
{nl.join(rows)}

One run on a shared machine: at 100 B and 1 KiB a request is mostly nginx's own work (the
baseline shows how much), so differences there of a few per cent are within its noise.
"""


def arrow_section(ar, run=""):
    """The Arrow kernels (`pctenc-arrow/`) on each array kind, and on one and two threads,
    from `arrow.json`."""
    if not ar:
        return ""
    g = ar["groups"]
    ms = lambda r: f"{r['median_ns'] / 1e6:.1f} ms"
    rate = lambda n, r: f"{n / r['median_ns']:.2f} GB/s"
    kinds = ("utf8", "utf8view", "binary")
    rows = []
    for op, label in (("url_encode", "Spark's `url_encode`"), ("url_decode", "Spark's `url_decode`"),
                      ("encode", "`encode`, `component`"), ("decode", "`decode`, strict")):
        r = g.get(f"arrow/{op}/1M")
        if not r:
            continue
        cells = " | ".join(f"{ms(r[k])} ({rate(r['bytes'], r[k])})" for k in kinds)
        rows.append(f"| {label} | {cells} | {ms(r['memcpy-output'])} |")
    threads = []
    for op in ("url_encode", "url_decode"):
        r = g.get(f"arrow-threads/{op}/4M")
        if not r:
            continue
        one, two = r["1"], r["2"]
        threads.append(f"| `{op}` | {ms(one)} ({rate(r['bytes'], one)}) | {ms(two)} ({rate(r['bytes'], two)}) | "
                       f"{one['median_ns'] / two['median_ns']:.2f}x |")
    nl = "\n"
    return f"""
## Arrow kernels

{run}

The kernels of `pctenc-arrow/` on whole arrays, measured by `bash pctenc-arrow/bench.sh --json
benches/results/arrow.json` on {ar['date']} ({ar['cpu']}, commit {ar['commit']}, load average
{' '.join(ar['load'])} when it ended); criterion, 10 samples, medians. Input: 1 million
access-log values of 95 to 100 bytes (the rows of the SQL functions' benchmark below), as each
array kind; the decoders read the matching encoder's output. Throughput is of input bytes. A
view array's rows are gathered into one buffer first (the kernels work on contiguous values)
and its output's views made over the kernel's buffer; the last column is a copy of the output's
bytes into a new `Vec`, on ordinary pages: what writing a fresh array of that size costs.

| | `Utf8` | `Utf8View` | `Binary` | `memcpy` of the output |
|---|---:|---:|---:|---:|
{nl.join(rows)}

On 4 million rows in a rayon pool of one thread and of two:

| | 1 thread | 2 threads | 2 / 1 |
|---|---:|---:|---:|
{nl.join(threads)}
"""


def datafusion_section(df, run=""):
    """The Arrow kernels and SQL functions (`pctenc-datafusion/`) against `datafusion-spark`,
    from `datafusion.json`."""
    if not df:
        return ""
    g = df["groups"]
    ms = lambda r: r["median_ns"] / 1e6
    rate = lambda n, r: f"{n / r['median_ns']:.2f} GB/s"
    met = lambda ok: "met" if ok else "**not met**"
    rows = []
    for group, label, goal in (("kernel/url_encode/1M", "kernel `url_encode`", 10),
                               ("kernel/url_decode/1M", "kernel `url_decode`", 5),
                               ("sql/url_encode/1M", "SQL `SELECT url_encode(raw) FROM t`", 5),
                               ("sql/url_decode/1M", "SQL `SELECT url_decode(enc) FROM t`", 3)):
        r = g[group]
        ours, spark = r["pctenc"], r["datafusion-spark"]
        ratio = spark["median_ns"] / ours["median_ns"]
        bound = r.get("memcpy-output")
        copy = f"{ms(bound):.1f} ms" if bound else ""
        rows.append(f"| {label} | {ms(ours):.1f} ms ({rate(r['bytes'], ours)}) | {ms(spark):.1f} ms "
                    f"({rate(r['bytes'], spark)}) | {ratio:.1f}x | {goal}x, {met(ratio >= goal)} | {copy} |")
    threads = []
    for group, label in (("threads/url_encode/16M", "`url_encode`"), ("threads/url_decode/16M", "`url_decode`")):
        r = g[group]
        one, two = r["1"], r["2"]
        ratio = one["median_ns"] / two["median_ns"]
        threads.append(f"| {label} | {ms(one):.0f} ms ({rate(r['bytes'], one)}) | {ms(two):.0f} ms "
                       f"({rate(r['bytes'], two)}) | {ratio:.2f}x | 1.6x, {met(ratio >= 1.6)} |")
    nl = "\n"
    return f"""
## SQL functions

{run}

The Arrow kernels and DataFusion functions of `pctenc-datafusion/` against the same functions
of the `datafusion-spark` crate (`url_encode`, `url_decode`: a value at a time through the
`url` crate's `form_urlencoded`, into Arrow builders), measured by `bash
pctenc-datafusion/bench.sh --json benches/results/datafusion.json` on {df['date']} ({df['cpu']},
commit {df['commit']}, load average {' '.join(df['load'])} when it ended); criterion, 10 samples,
medians. Input: 1 million access-log values of 95 to 100 bytes (paths and query strings, some
non-ASCII), one `Utf8` array for the kernels (which use both cores above 256 KiB, as
`datafusion-spark` does not) and a table of 8192-row batches for SQL; `url_decode` reads the
`url_encode` output. Both sides' outputs are checked equal before timing; throughput is of
input bytes. The last column is a copy of the output's bytes into a new `Vec` (`to_vec`, on
ordinary 4 KiB pages): what writing a fresh array of that size costs before any work. The
kernels' outputs of 4 MiB or more ask for transparent huge pages, so that a large kernel call
can take less than that copy; most of what remains of it is the kernel zeroing those pages.

| | pctenc | `datafusion-spark` | pctenc's speed-up | goal | `memcpy` of the output |
|---|---:|---:|---:|---|---:|
{nl.join(rows)}

The kernels on 16 million rows (1.6 GB) in a rayon pool of one thread and of two:

| | 1 thread | 2 threads | 2 / 1 | goal |
|---|---:|---:|---:|---|
{nl.join(threads)}
"""


def capi_section(capi, run=""):
    """The C API (`pctenc-capi/`) against the Rust API, from `capi.json`."""
    if not capi:
        return ""
    w = capi["workloads"]
    def row(name, label):
        r = w[name]
        gbs = lambda ns: f"{r['bytes'] / ns:.2f}"
        return (f"| {label} | {r['rust_ns']:.1f} ({gbs(r['rust_ns'])}) | {r['ffi_ns']:.1f} ({gbs(r['ffi_ns'])}) | "
                f"{r['paired_ratio']:.3f} | {r['paired_diff_ns']:+.1f} | {r['rust_best_ns']:.1f} | {r['c_best_ns']:.1f} |")
    rows = "\n".join([row("encode-64k", "encode 64 KiB"), row("decode-64k", "decode 64 KiB"),
                      row("encode-32", "encode 32 B"), row("decode-32", "decode 32 B")])
    big = ("encode-64k", "decode-64k")
    thr = max(max(w[n]["paired_ratio"], w[n]["c_best_ns"] / w[n]["rust_best_ns"]) - 1 for n in big) * 100
    ovh = max(w[n]["paired_diff_ns"] for n in ("encode-32", "decode-32"))
    ovh_c = max(w[n]["c_best_ns"] - w[n]["rust_best_ns"] for n in ("encode-32", "decode-32"))
    met = lambda ok: "met" if ok else "**not met**"
    return f"""
## C API

{run}

`libpctenc` (`pctenc-capi/`) against the Rust API, measured by `bash pctenc-capi/bench.sh --json
benches/results/capi.json` on {capi['date']} ({capi['cpu']}, backend `{capi['backend']}`, {capi['cc']}),
median of {capi['runs']} runs. Access-log text; encoding with `component` (`pctenc_encode` against
`Encoder::encode_slice`), decoding strict to bytes (`pctenc_decode` against
`Decoder::decode_slice`), into a buffer with room. `examples/bench_rust.rs` times the Rust API and
the C API through the FFI (an `extern "C"` call into another crate, not inlined) in batches that
alternate, and takes the median of the paired ratios and differences, which a busy machine
disturbs least; `bench/bench.c` times the C API from a C program (`cc -O2`, static library) in
a process of its own, and the last two columns compare the fastest batches of the two processes.
Nanoseconds per call (GB/s of input):

| operation | Rust API | C API (FFI) | paired C / Rust | paired C - Rust (ns) | Rust, fastest batch | C from C, fastest batch |
|---|---:|---:|---:|---:|---:|---:|
{rows}

Goals: at 64 KiB, throughput through the C API within 5% of the Rust API: the C API is at most
{thr:.1f}% slower (paired, and fastest batches from C), {met(thr <= 5)}. At 32 bytes, the C API's cost per call within 10 ns of the Rust API's: {ovh:+.1f} ns
through the FFI, {ovh_c:+.1f} ns from C (fastest batches), {met(ovh <= 10 and ovh_c <= 10)}.
"""


def readme_summary(results, backends, machine, runs=None):
    best = backends[0]
    rows = "\n".join(f"| {label} | {fmt(o)} GB/s | {fmt(p)} GB/s | {r:.0f}x |"
                     for label, o, p, r in summary_rows(results, best))
    extra = []
    for kind, w in (("encode", "safe"), ("decode", "no-escape")):
        g = results.get((kind, w, GOAL_SIZE), {})
        if g.get(f"pctenc-{best}") and g.get("memcpy"):
            extra.append(f"{g[f'pctenc-{best}'] / g['memcpy']:.2f}x")
    enc, dec = ((runs or {}).get(g, machine) for g in ("encode", "decode"))
    cpu = cpu_name(enc) + ("" if cpu_name(dec) == cpu_name(enc) else f" (decoding: {cpu_name(dec)})")
    return f"""<!-- bench-summary:start (generated by scripts/bench-report.py) -->
![pctenc against the percent-encoding, urlencoding and form_urlencoded crates](docs/bench-headline.svg)

On one core of an {cpu}, backend `{best}`, {size_label(GOAL_SIZE)} of input, the `rfc3986`
set, median of criterion's samples ([all figures](docs/BENCHMARKS.md)):

| | pctenc | `percent-encoding` crate | |
|---|---:|---:|---:|
{rows}
| encode / decode text with nothing to escape | {' / '.join(extra)} `memcpy` | | |
<!-- bench-summary:end -->"""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", nargs="?",
                    choices=["report", "machine", "collect", "collect-short", "collect-charset"],
                    default="report")
    ap.add_argument("--group", choices=list(GROUPS),
                    help="machine: record the run of this group; collect: replace its results alone")
    ap.add_argument("--round", type=int, default=1,
                    help="collect-charset: the round (1 starts the file afresh, others append)")
    ap.add_argument("--criterion-dir", default=str(ROOT / "target" / "criterion"),
                    help="where `collect` reads criterion's results")
    ap.add_argument("--results", default=str(RESULTS), help="the results directory")
    ap.add_argument("--docs", default=str(ROOT / "docs"))
    ap.add_argument("--readme", default=str(ROOT / "README.md"))
    ap.add_argument("--check", action="store_true", help="fail if the files differ; write nothing")
    args = ap.parse_args()
    results_dir = pathlib.Path(args.results)
    if args.command == "machine":
        return record_machine(results_dir, args.group)
    if args.command == "collect":
        if args.group and not GROUPS[args.group][1]:
            sys.exit(f"the group {args.group} has no criterion results in criterion.json")
        return collect(pathlib.Path(args.criterion_dir), results_dir / "criterion.json", args.group)
    if args.command == "collect-short":
        return collect_short(pathlib.Path(args.criterion_dir), results_dir / "short.json")
    if args.command == "collect-charset":
        machine = charset_machine() if args.round == 1 else None
        return collect_charset(pathlib.Path(args.criterion_dir), results_dir / "charset.json", machine)

    results = load(results_dir / "criterion.json")
    backends = backends_in(results)
    large_path, machine_path = results_dir / "large-inputs.json", results_dir / "machine.json"
    large = json.loads(large_path.read_text()) if large_path.exists() else None
    machine = json.loads(machine_path.read_text()) if machine_path.exists() else {}
    if not machine:
        print(f"warning: no {machine_path}: the machine section will be empty", file=sys.stderr)

    docs = pathlib.Path(args.docs)
    capi_path = results_dir / "capi.json"
    capi = json.loads(capi_path.read_text()) if capi_path.exists() else None
    df_path = results_dir / "datafusion.json"
    arrow_path = results_dir / "arrow.json"
    python_arrow_path = results_dir / "python-arrow.json"
    python_arrow = json.loads(python_arrow_path.read_text()) if python_arrow_path.exists() else None
    arrow = json.loads(arrow_path.read_text()) if arrow_path.exists() else None
    datafusion = json.loads(df_path.read_text()) if df_path.exists() else None
    short_path = results_dir / "short.json"
    short = json.loads(short_path.read_text()) if short_path.exists() else None
    charset_path = results_dir / "charset.json"
    charset = json.loads(charset_path.read_text()) if charset_path.exists() else None
    python_path = results_dir / "python.json"
    python = json.loads(python_path.read_text()) if python_path.exists() else None
    nginx_path = results_dir / "nginx.json"
    nginx = json.loads(nginx_path.read_text()) if nginx_path.exists() else None
    runs_path = results_dir / "runs.json"
    runs = json.loads(runs_path.read_text()) if runs_path.exists() else {}
    outputs = {docs / "BENCHMARKS.md": wrap_prose(report(results, large, machine, backends, capi, datafusion,
                                                         short, charset, python, runs, nginx, arrow,
                                                         python_arrow))}
    for name, svg in charts(results, backends, GOAL_SIZE):
        if svg is None:
            print(f"warning: no results at {size_label(GOAL_SIZE)} for {name}: left as it was", file=sys.stderr)
            continue
        outputs[docs / name] = svg
    readme = pathlib.Path(args.readme)
    text = readme.read_text()
    pattern = re.compile(r"<!-- bench-summary:start.*?<!-- bench-summary:end -->", re.S)
    if not pattern.search(text):
        sys.exit(f"{readme}: no <!-- bench-summary:start --> ... <!-- bench-summary:end --> markers")
    outputs[readme] = pattern.sub(lambda _: readme_summary(results, backends, machine, runs), text)

    stale = []
    for path, content in outputs.items():
        if args.check:
            if not path.exists() or path.read_text() != content:
                stale.append(str(path))
        else:
            path.write_text(content)
            print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    if stale:
        sys.exit("out of date (run python3 scripts/bench-report.py): " + ", ".join(stale))


if __name__ == "__main__":
    main()
