#!/usr/bin/env python3
"""pctenc.arrow and pctenc.polars against what a Python user would otherwise run, in one run,
on one column of access-log values of about 100 bytes (1 million; 100,000 with --quick):

- a Python loop of urllib.parse.quote(v, safe="") / unquote(v) over the column's values (a
  list of str, made before timing: the loop alone is timed);
- DuckDB's url_encode / url_decode on the same Arrow table, through duckdb's Python API,
  results fetched as Arrow;
- the Polars expression (``pl.col("u").pctenc.decode()``) against pctenc.arrow called on the
  Series directly, and Polars' ``map_elements(urllib.parse.unquote)``.

Every side's output is checked equal to pctenc's first (``rfc3986`` is the set of both
``quote(v, safe="")`` and DuckDB's url_encode). Medians of repeated runs.

    python3 pctenc-python/bench_arrow.py [--json benches/results/python-arrow.json] [--quick]
"""
import argparse
import datetime
import json
import platform
import random
import statistics
import subprocess
import time
import urllib.parse as up

import duckdb
import polars as pl
import pyarrow as pa

import pctenc.arrow
import pctenc.polars  # noqa: F401  (the expression namespace)

PATHS = ["/search", "/products/shoes/running", "/api/v2/users", "/static/app.js", "/blog/2024/café-crème"]
QUERIES = ["red shoes size 42", "Jürgen Björk", "a&b=c", "東京 hotel", "100% cotton", "q"]


def rows(n, rng):
    """Paths and query strings, some non-ASCII, cut to at most 100 bytes at a character."""
    out = []
    for i in range(n):
        s = (f"{rng.choice(PATHS)}?q={rng.choice(QUERIES)}&page={i % 50}&sort=desc"
             f"&session={rng.getrandbits(64):016x}&ref=https://example.com/x")
        out.append(s.encode()[:100].decode("utf-8", "ignore"))
    return out


def median_s(fn, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ap.add_argument("--quick", action="store_true", help="100,000 rows, fewer repetitions (for CI)")
    args = ap.parse_args()
    n = 100_000 if args.quick else 1_000_000
    # The machine is shared: more runs make the medians steadier (the Polars ratio moved by
    # 0.4 between runs of five).
    repeat = 3 if args.quick else 11
    rng = random.Random(2026)
    raw = rows(n, rng)
    raw_col = pa.array(raw)
    enc_col = pctenc.arrow.encode(raw_col, "rfc3986")
    enc = enc_col.to_pylist()
    table = pa.table({"raw": raw_col, "enc": enc_col})
    con = duckdb.connect()
    con.register("t", table)
    df = pl.from_arrow(table)
    series = df["enc"]

    # Every side gives pctenc's output.
    assert [up.quote(v, safe="") for v in raw] == enc
    assert [up.unquote(v) for v in enc] == raw
    assert con.sql("SELECT url_encode(raw) AS u FROM t").arrow().read_all()["u"].to_pylist() == enc
    assert con.sql("SELECT url_decode(enc) AS u FROM t").arrow().read_all()["u"].to_pylist() == raw
    assert pctenc.arrow.decode(enc_col).to_pylist() == raw
    assert df.select(pl.col("enc").pctenc.decode())["enc"].to_list() == raw

    sides = {
        "encode": {
            "pctenc.arrow": lambda: pctenc.arrow.encode(raw_col, "rfc3986"),
            "python loop": lambda: [up.quote(v, safe="") for v in raw],
            "duckdb": lambda: con.sql("SELECT url_encode(raw) FROM t").arrow().read_all(),
        },
        "decode": {
            "pctenc.arrow": lambda: pctenc.arrow.decode(enc_col),
            "python loop": lambda: [up.unquote(v) for v in enc],
            "duckdb": lambda: con.sql("SELECT url_decode(enc) FROM t").arrow().read_all(),
            "polars expression": lambda: df.select(pl.col("enc").pctenc.decode()),
            "pctenc.arrow on the Series": lambda: pctenc.arrow.decode(series),
            "polars map_elements(unquote)": lambda: df.select(
                pl.col("enc").map_elements(up.unquote, return_dtype=pl.String)),
        },
    }
    results = {}
    for op, fns in sides.items():
        results[op] = {name: median_s(fn, repeat) for name, fn in fns.items()}
    nbytes = {"encode": sum(len(v.encode()) for v in raw), "decode": sum(len(v) for v in enc)}

    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
               platform.processor())
    for op, r in results.items():
        ours = r["pctenc.arrow"]
        print(f"{op} ({n:,} rows, {nbytes[op] / 1e6:.0f} MB)")
        for name, s in r.items():
            print(f"  {name:30s} {s * 1e3:9.1f} ms   {s / ours:6.1f}x pctenc.arrow")
    polars_ratio = results["decode"]["polars expression"] / results["decode"]["pctenc.arrow on the Series"]
    print(f"Polars expression / pctenc.arrow on the Series: {polars_ratio:.2f}")
    if args.json:
        doc = {
            "date": datetime.date.today().isoformat(),
            "cpu": cpu,
            "load": open("/proc/loadavg").read().split()[:3],
            "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                     text=True).stdout.strip(),
            "rows": n,
            "bytes": nbytes,
            "versions": {"pyarrow": pa.__version__, "polars": pl.__version__, "duckdb": duckdb.__version__},
            "median_s": results,
        }
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
