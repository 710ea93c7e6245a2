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

This file is the command line alone. The work is in `scripts/bench/`: `collect.py` records
the machine and collects criterion's results (`machine`, `collect*`), `render.py` writes the
page, the charts and the README's block from them, with the sections on the other results
files in `sections.py`; `common.py` holds what both sides share.
"""

import argparse
import pathlib
import sys

from bench import collect, render
from bench.common import GROUPS, RESULTS, ROOT


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
        return collect.record_machine(results_dir, args.group)
    if args.command == "collect":
        if args.group and not GROUPS[args.group][1]:
            sys.exit(f"the group {args.group} has no criterion results in criterion.json")
        return collect.collect(pathlib.Path(args.criterion_dir), results_dir / "criterion.json", args.group)
    if args.command == "collect-short":
        return collect.collect_short(pathlib.Path(args.criterion_dir), results_dir / "short.json")
    if args.command == "collect-charset":
        machine = collect.charset_machine() if args.round == 1 else None
        return collect.collect_charset(pathlib.Path(args.criterion_dir), results_dir / "charset.json", machine)

    outputs = render.outputs(results_dir, pathlib.Path(args.docs), pathlib.Path(args.readme))
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
