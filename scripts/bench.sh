#!/usr/bin/env bash
# One full benchmark run, then the report: docs/BENCHMARKS.md, docs/bench-*.svg and the
# figures in README.md, from the results kept in benches/results/ (the C API's figures from
# pctenc-capi/bench.sh).
#
#   bash scripts/bench.sh              # about 40 minutes on two cores; run on an idle machine
#
# Criterion options can follow, e.g. `bash scripts/bench.sh --measurement-time 5`; the default
# is `--warm-up-time 1 --measurement-time 2` (groups of 1 MiB and more set their own).
set -euo pipefail
cd "$(dirname "$0")/.."

opts=("$@")
[ ${#opts[@]} -gt 0 ] || opts=(--warm-up-time 1 --measurement-time 2)

python3 scripts/bench-report.py machine
rm -rf target/criterion   # only this run's results
cargo bench --bench encode --bench decode --bench parallel -- "${opts[@]}"
python3 scripts/bench-report.py collect
# Short strings: ns per call, many cheap calls, so shorter measurements do (about 6 minutes).
cargo bench --bench short -- --warm-up-time 0.3 --measurement-time 0.7
python3 scripts/bench-report.py collect-short
# Legacy encodings: three rounds, whose medians the report takes the median of.
for round in 1 2 3; do
  rm -rf target/criterion/charset-*
  cargo bench --bench charset -- --warm-up-time 0.5 --measurement-time 2
  python3 scripts/bench-report.py collect-charset --round "$round"
done
python3 scripts/large-inputs.py --runs 15 --json benches/results/large-inputs.json
bash pctenc-capi/bench.sh --json benches/results/capi.json
# The Python package against urllib.parse (needs `pip install ./pctenc-python` first).
python3 pctenc-python/bench.py --json benches/results/python.json
python3 scripts/bench-report.py
