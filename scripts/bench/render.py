"""The renderer of the benchmark report: from the results in `benches/results/` (see
`scripts/bench-report.py` for the files), docs/BENCHMARKS.md, the charts docs/bench-*.svg and
the README's block between the `bench-summary` markers.

`outputs` returns each file's new text; the caller writes or compares them. The page's
sections on other results files than `criterion.json` are in `sections.py`.

The SVG charts are drawn here, without a plotting library: grouped horizontal bars on a log
scale, one group per workload, so that the output is plain, diffable text.
"""

import html
import json
import math
import re
import sys
from collections import defaultdict

from .common import (BACKENDS, COLORS, GOAL_SIZE, GOALS, GROUPS, NAMES, PEERS, WORKLOAD_NOTES,
                     WORKLOADS, cpu_name, fmt, ratio, size_label)
from .sections import (arrow_section, capi_section, charset_section, datafusion_section,
                       large_section, nginx_section, parallel_section, python_arrow_section,
                       python_section, short_section)


# ---------------------------------------------------------------------------------------
# Reading the results


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


# ---------------------------------------------------------------------------------------
# The machine and the runs


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
# The document


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


def readme_summary(results, backends, machine, runs=None):
    best = backends[0]
    # The tier most servers run, beside the best, from the same run: what a CPU without
    # AVX-512 gets (the same CPU, the backend pinned).
    tiers = [best] + (["avx2"] if best != "avx2" and "avx2" in backends else [])
    pe = {label: p for label, _, p, _ in summary_rows(results, best)}
    by_tier = [{label: o for label, o, _, _ in summary_rows(results, tier)} for tier in tiers]
    rows = "\n".join(
        f"| {label} | " + " | ".join(f"{fmt(t[label])} GB/s ({t[label] / p:.0f}x)" for t in by_tier)
        + f" | {fmt(p)} GB/s |"
        for label, p in pe.items() if all(label in t for t in by_tier))
    extra = []
    for kind, w in (("encode", "safe"), ("decode", "no-escape")):
        g = results.get((kind, w, GOAL_SIZE), {})
        if g.get(f"pctenc-{best}") and g.get("memcpy"):
            extra.append(f"{g[f'pctenc-{best}'] / g['memcpy']:.2f}x")
    enc, dec = ((runs or {}).get(g, machine) for g in ("encode", "decode"))
    cpu = cpu_name(enc) + ("" if cpu_name(dec) == cpu_name(enc) else f" (decoding: {cpu_name(dec)})")
    heads = " | ".join(f"pctenc `{t}`" for t in tiers)
    which = (f"backend `{best}`" if len(tiers) == 1 else
             f"backend `{best}`, and\n`avx2` pinned in the same run: what a CPU without AVX-512 runs "
             f"(AMD Zen 2 and 3, Intel\nclient parts)")
    when = f" (run of {enc['date']}, commit `{enc['commit']}`)" if enc.get("date") and enc.get("commit") else ""
    return f"""<!-- bench-summary:start (generated by scripts/bench-report.py) -->
![pctenc against the percent-encoding, urlencoding and form_urlencoded crates](docs/bench-headline.svg)

On one core of an {cpu}{when}, {which}; {size_label(GOAL_SIZE)} of input, the `rfc3986` set,
median of criterion's samples ([all figures](docs/BENCHMARKS.md)):

| | {heads} | `percent-encoding` crate |
|---|{"---:|" * len(tiers)}---:|
{rows}
| encode / decode text with nothing to escape | {' / '.join(extra)} `memcpy` |{" |" * len(tiers)}
<!-- bench-summary:end -->"""


# ---------------------------------------------------------------------------------------
# The outputs


def outputs(results_dir, docs, readme):
    """{path: the text it should hold}: docs/BENCHMARKS.md, the charts, and `readme` with its
    `bench-summary` block replaced, all from the results in `results_dir`."""
    def optional(name):
        path = results_dir / name
        return json.loads(path.read_text()) if path.exists() else None

    results = load(results_dir / "criterion.json")
    backends = backends_in(results)
    machine_path = results_dir / "machine.json"
    machine = json.loads(machine_path.read_text()) if machine_path.exists() else {}
    if not machine:
        print(f"warning: no {machine_path}: the machine section will be empty", file=sys.stderr)
    runs = optional("runs.json") or {}
    out = {docs / "BENCHMARKS.md": report(
        results, optional("large-inputs.json"), machine, backends, optional("capi.json"),
        optional("datafusion.json"), optional("short.json"), optional("charset.json"),
        optional("python.json"), runs, optional("nginx.json"), optional("arrow.json"),
        optional("python-arrow.json"))}
    for name, svg in charts(results, backends, GOAL_SIZE):
        if svg is None:
            print(f"warning: no results at {size_label(GOAL_SIZE)} for {name}: left as it was", file=sys.stderr)
            continue
        out[docs / name] = svg
    text = readme.read_text()
    pattern = re.compile(r"<!-- bench-summary:start.*?<!-- bench-summary:end -->", re.S)
    if not pattern.search(text):
        sys.exit(f"{readme}: no <!-- bench-summary:start --> ... <!-- bench-summary:end --> markers")
    out[readme] = pattern.sub(lambda _: readme_summary(results, backends, machine, runs), text)
    return out
