#!/usr/bin/env bash
# The Arrow kernels on 1 million access-log values in Utf8, Utf8View and Binary arrays, beside
# a copy of the output, and on 4 million rows with one thread and two (benches/kernels.rs,
# criterion), in one run:
#
#   bash pctenc-arrow/bench.sh                                    # print the figures
#   bash pctenc-arrow/bench.sh --json benches/results/arrow.json  # and record them
#
# Then `python3 scripts/bench-report.py` puts the recorded figures in docs/BENCHMARKS.md. The
# bench profile's debug info (the root's `[profile.bench]`) is turned off, as for
# pctenc-datafusion's benchmark, so that both measure the same build of the kernels.
set -euo pipefail
cd "$(dirname "$0")/.."
json=
if [ "${1:-}" = --json ]; then json=$2; fi
rm -rf target/criterion/arrow_* target/criterion/arrow-threads_*
CARGO_PROFILE_BENCH_DEBUG=0 cargo bench -p pctenc-arrow --bench kernels
python3 scripts/criterion-json.py --prefix arrow/ --prefix arrow-threads/ ${json:+--json "$json"}
