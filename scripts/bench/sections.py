"""The sections of docs/BENCHMARKS.md drawn from the results files beside `criterion.json`:
short strings (`short.json`), legacy encodings (`charset.json`), the Python package
(`python.json`, `python-arrow.json`), the parallel paths and the CLI on large inputs
(`criterion.json`'s parallel groups, `large-inputs.json`), and the members: the C API
(`capi.json`), the Arrow kernels (`arrow.json`), the SQL functions (`datafusion.json`) and
the nginx module (`nginx.json`).

Each function returns Markdown and `render.report` puts them in order. Most take the parsed
file (None when it is missing, which leaves the section out) and the sentence naming its run;
`parallel_section` takes criterion's results (`render.load`), `large_section` the parsed
`large-inputs.json`.
"""

import re
import statistics
from collections import defaultdict

from .common import BACKENDS, ROOT, cpu_name, fmt, size_label


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
# The members


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
    # Files from before --rounds hold one run per location.
    count = ng.get("rounds", 1)
    rounds = "one run each" if count == 1 else (
        f"{count} rounds, the locations in an order that turns each round, the median of each")
    spread = ""
    if count > 1:
        low = min(min(r["runs"]) / max(r["runs"]) for by in ng["results"].values() for r in by.values())
        spread = f" (the slowest run of a location was {low:.0%} of its fastest)"
    return f"""
## nginx module

{run}

`ngx_http_pctenc_module` (`pctenc-nginx/`) against OpenResty's set-misc (Debian's
`libnginx-mod-http-set-misc`) in nginx {ng['nginx']}, measured by `bash pctenc-nginx/bench.sh
--json benches/results/nginx.json` on {ng['date']} ({ng['cpu']}, {ng['cores']} cores, commit
{ng['commit']}, load average {' '.join(ng['load'])} when it ended): one nginx worker and `wrk -t1
-c16 -d{ng['seconds']}s` on loopback, {rounds}. Each location decodes one query argument and
encodes it again: `pctenc_decode strict` then `pctenc_encode component`; `set_unescape_uri`
then `set_escape_uri`; and the baseline, `return 200 $arg_v`. The argument is access-log text
(paths, words, non-ASCII), percent-encoded. Requests per second (p99 latency){spread}:

| argument | pctenc | set-misc | baseline | pctenc / set-misc | goal |
|---|---:|---:|---:|---:|---|
{nl.join(rows)}

On a shared machine: at 100 B and 1 KiB a request is mostly nginx's own work (the baseline
shows how much), so differences there of a few per cent are within its noise.
"""
