#!/usr/bin/env bash
# Builds every fuzz target of fuzz/ and runs each for FUZZ_SECONDS seconds (default 30), as
# many at a time as there are cores (FUZZ_JOBS),
# from the seeds in fuzz/seeds/<target> and the local corpus fuzz/corpus/<target> (kept
# between runs, not committed). Fails at the first finding: cargo fuzz exits non-zero, the
# input is saved in fuzz/artifacts/<target>/, and the end of the fuzzer's log is printed.
# libFuzzer replays the corpus before its clock starts: with a large local corpus (the
# `parallel` target's inputs are slow), a run lasts longer than FUZZ_SECONDS; a fresh clone
# starts from the seeds alone.
#
# Needs the nightly toolchain (for the sanitizer and coverage flags); installs cargo-fuzz
# when it is missing.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
seconds=${FUZZ_SECONDS:-30}

if ! cargo +nightly --version >/dev/null 2>&1; then
  echo "fuzz.sh: the nightly toolchain is needed (rustup toolchain install nightly)" >&2
  exit 1
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  echo "==> installing cargo-fuzz"
  cargo install cargo-fuzz --locked
fi

# `-a`: debug assertions and overflow checks on, in pctenc too (it checks its own invariants
# with debug_assert!). Build and runs must use the same flags, or each run rebuilds.
flags=(-a)
echo "==> building the fuzz targets"
cargo +nightly fuzz build "${flags[@]}"

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
# A libFuzzer run uses one core: FUZZ_JOBS targets (default: one per core) run at a time,
# each for the full FUZZ_SECONDS.
jobs=${FUZZ_JOBS:-$(nproc)}
if ! [[ $jobs =~ ^[1-9][0-9]*$ ]]; then
  echo "fuzz.sh: FUZZ_JOBS must be a positive number, not \"$jobs\"" >&2
  exit 2
fi
# A failing `cargo fuzz list` inside the `for` below would go unseen: list first.
targets=$(cargo +nightly fuzz list)
if [ -z "$targets" ]; then
  echo "fuzz.sh: cargo fuzz list gave no target" >&2
  exit 1
fi
run_target() {
  local target=$1 seeds=()
  mkdir -p "corpus/$target"
  [ -d "seeds/$target" ] && seeds=("seeds/$target")
  # -timeout: an input that runs for 2 minutes is a finding (a hang) too. The slowest real
  # ones take about 15 s: 2 MiB of invalid UTF-8 through an IRI set in the `parallel` target.
  cargo +nightly fuzz run "${flags[@]}" "$target" "corpus/$target" "${seeds[@]}" -- \
    -max_total_time="$seconds" -timeout=120 -print_final_stats=1 >"$logs/$target.log" 2>&1
}
# Reports a finished target: its figures, or the end of its log and the failure.
report() {
  local target=$1 status=$2
  if [ "$status" -ne 0 ]; then
    tail -n 80 "$logs/$target.log"
    echo "fuzz.sh: $target found a problem; the input is in fuzz/artifacts/$target/" >&2
    return 1
  fi
  echo "==> $target ran ${seconds}s"
  grep -E '^(stat::number_of_executed_units|stat::average_exec_per_sec|Done )' "$logs/$target.log" || true
}
declare -A running=()
failed=0
# Waits for one running target and reports it.
reap() {
  local pid status=0 target
  wait -n -p pid "${!running[@]}" || status=$?
  target=${running[$pid]}
  unset "running[$pid]"
  report "$target" "$status" || failed=1
}
for target in $targets; do
  while [ "${#running[@]}" -ge "$jobs" ]; do reap; done
  [ "$failed" -eq 0 ] || break
  echo "==> fuzzing $target for ${seconds}s"
  run_target "$target" &
  running[$!]=$target
done
while [ "${#running[@]}" -gt 0 ]; do reap; done
[ "$failed" -eq 0 ] || exit 1
echo "==> every fuzz target ran ${seconds}s without a finding"
