#!/usr/bin/env bash
# Benchmarks, then the report: docs/BENCHMARKS.md, docs/bench-*.svg and the figures in
# README.md, from the results kept in benches/results/.
#
#   bash scripts/bench.sh              # the full run, every group: about 50 minutes
#   bash scripts/bench.sh GROUP...     # those groups again (decode: over 15 minutes)
#   bash scripts/bench.sh list         # the groups
#
# A group's run replaces that group's results alone, and records its run (commit, date, CPU)
# in benches/results/runs.json, which the report names in each section: work on one path is
# measured with its group, and the full run is for releases. The groups:
#
#   encode, decode   benches/encode.rs, benches/decode.rs: every backend and peer, 4 sizes
#   short            benches/short.rs: ns per call, 8 to 256 bytes
#   parallel         benches/parallel.rs and scripts/large-inputs.py (the CLI on large files)
#   charset          benches/charset.rs, three rounds
#   capi             pctenc-capi/bench.sh: the C API against the Rust API
#   python           pctenc-python/bench.py and bench_arrow.py (needs `pip install ./pctenc-python`
#                    first, and pyarrow, polars and duckdb for the second)
#   arrow            pctenc-arrow/bench.sh: the Arrow kernels on each array kind, 1 and 2 threads
#   datafusion       pctenc-datafusion/bench.sh: the SQL functions against datafusion-spark
#   nginx            pctenc-nginx/bench.sh: the nginx module against set-misc, under wrk
#   mca              scripts/mca.py: llvm-mca's static estimate of the NEON and AVX2 block
#                    loops, the table in docs/ALGORITHMS.md (a build, no run: any machine)
#
# Criterion options can follow `--`, e.g. `bash scripts/bench.sh encode -- --measurement-time 5`;
# the defaults are `--warm-up-time 1 --measurement-time 2` for the full run and
# `--warm-up-time 0.5 --measurement-time 1.5` for a group alone (groups of 1 MiB and more set
# their own; `short` and `charset` have shorter defaults of their own, which options given
# replace). Run on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."

groups=() opts=()
while [ $# -gt 0 ]; do
  case $1 in
    --) shift && opts=("$@") && break ;;
    list) sed -n '/^#   encode/,/^#   mca/{p;/^#   mca/{n;p}}' "$0" | sed 's/^# \{0,3\}//' && exit 0 ;;
    encode | decode | short | parallel | charset | capi | python | arrow | datafusion | nginx | mca) groups+=("$1") ;;
    -*) opts=("$@") && break ;; # criterion options without `--`, as before groups existed
    *) echo "bench.sh: no group \"$1\" (bash scripts/bench.sh list)" >&2 && exit 2 ;;
  esac
  shift
done
full= given=${#opts[@]}
if [ ${#groups[@]} -eq 0 ]; then
  full=1
  groups=(encode decode parallel short charset capi python arrow)
  [ ${#opts[@]} -gt 0 ] || opts=(--warm-up-time 1 --measurement-time 2)
fi
[ ${#opts[@]} -gt 0 ] || opts=(--warm-up-time 0.5 --measurement-time 1.5)

report() { python3 scripts/bench-report.py "$@"; }
[ -z "$full" ] || report machine

for group in "${groups[@]}"; do
  printf '\n==> %s (%s)\n' "$group" "$(date -u +%H:%M:%S)"
  # (The estimate is no run on this machine: nothing to record.)
  [ "$group" = mca ] || report machine --group "$group" >/dev/null
  case $group in
    encode | decode | parallel)
      rm -rf target/criterion # only this run's results
      cargo bench --bench "$group" -- "${opts[@]}"
      report collect --group "$group"
      if [ "$group" = parallel ]; then
        python3 scripts/large-inputs.py --runs 15 --json benches/results/large-inputs.json
      fi
      ;;
    short)
      # ns per call, many cheap calls: shorter measurements do (about 6 minutes).
      rm -rf target/criterion
      short_opts=(--warm-up-time 0.3 --measurement-time 0.7)
      [ "$given" -eq 0 ] || short_opts=("${opts[@]}")
      cargo bench --bench short -- "${short_opts[@]}"
      report collect-short
      ;;
    charset)
      # Three rounds, whose medians the report takes the median of.
      for round in 1 2 3; do
        rm -rf target/criterion
        charset_opts=(--warm-up-time 0.5 --measurement-time 2)
        [ "$given" -eq 0 ] || charset_opts=("${opts[@]}")
        cargo bench --bench charset -- "${charset_opts[@]}"
        report collect-charset --round "$round"
      done
      ;;
    capi) bash pctenc-capi/bench.sh --json benches/results/capi.json ;;
    python)
      python3 pctenc-python/bench.py --json benches/results/python.json
      python3 pctenc-python/bench_arrow.py --json benches/results/python-arrow.json
      ;;
    arrow) bash pctenc-arrow/bench.sh --json benches/results/arrow.json ;;
    datafusion) bash pctenc-datafusion/bench.sh --json benches/results/datafusion.json ;;
    nginx) bash pctenc-nginx/bench.sh --json benches/results/nginx.json ;;
    mca) python3 scripts/mca.py ;;
  esac
done
# The estimate alone touches no benchmark result: no report to remake.
[ "${groups[*]}" != mca ] || exit 0
report
