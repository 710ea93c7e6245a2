#!/usr/bin/env bash
# pctenc's kernels and SQL functions against datafusion-spark's url_encode and url_decode, and
# the kernels on one thread and on two (benches/kernels.rs, criterion), in one run:
#
#   bash pctenc-datafusion/bench.sh                                         # print the figures
#   bash pctenc-datafusion/bench.sh --json benches/results/datafusion.json  # and record them
#
# Then `python3 scripts/bench-report.py` puts the recorded figures in docs/BENCHMARKS.md.
# The bench profile adds debug info in this workspace (the root's `[profile.bench]`); it is
# turned off here so that the dependencies are the release build `cargo build --release` makes.
set -euo pipefail
cd "$(dirname "$0")/.."
json=
if [ "${1:-}" = --json ]; then json=$2; fi
rm -rf target/criterion/kernel_* target/criterion/sql_* target/criterion/threads_*
CARGO_PROFILE_BENCH_DEBUG=0 cargo bench -p pctenc-datafusion --bench kernels
python3 scripts/criterion-json.py --prefix kernel/ --prefix sql/ --prefix threads/ ${json:+--json "$json"}
