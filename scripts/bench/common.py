"""What the collector (`collect.py`) and the renderer (`render.py`, `sections.py`) of the
benchmark report share: where the results live, the backends, peers, workloads and goals the
page is laid out by, the groups `scripts/bench.sh GROUP` runs, and the small helpers that
format figures, sizes, tables and CPU names.

A new backend goes into `BACKENDS` (best first), which orders the tables and, with `COLORS`,
colours the charts.
"""

import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
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
# Formatting


def size_label(n):
    for unit, shift in (("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} B"


def fmt(v):
    if v is None:
        return "-"
    return f"{v:.2f}" if v < 10 else f"{v:.1f}"


def ratio(a, b):
    return f"{a / b:.1f}x" if a and b and a / b >= 10 else (f"{a / b:.2f}x" if a and b else "-")


def table(rows, columns, cell):
    out = ["| input | " + " | ".join(f"`{c}`" for c in columns) + " |",
           "|---|" + "---:|" * len(columns)]
    for r in rows:
        out.append(f"| {r} | " + " | ".join(cell(r, c) for c in columns) + " |")
    return "\n".join(out)


def cpu_name(m):
    """The CPU's name, with its microarchitecture when the family/model says it."""
    cpu = m.get("cpu") or "unknown CPU"
    zen = {"25/17": "Zen 4", "25/97": "Zen 4", "25/160": "Zen 4c", "25/1": "Zen 3", "25/33": "Zen 3"}
    arch = zen.get(m.get("cpu_family_model", ""))
    return f"{cpu} ({arch})" if arch else cpu
