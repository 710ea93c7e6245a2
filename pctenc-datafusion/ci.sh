#!/usr/bin/env bash
# pctenc-datafusion's part of CI (.ci/run calls it from the repository's root): format,
# the tests (the Ballista standalone test included), the example SQL binary on small Parquet,
# CSV and NDJSON files, clippy (benchmarks included) and the docs.
#
# DataFusion and Ballista are compiled once in full and once in check mode, which clippy and
# rustdoc share. Everything therefore uses the same features (`ballista`, and the
# dev-dependencies': a build without them unifies other features of DataFusion's crates and
# compiles them again) and the `test` profile: `cargo test` compiles the examples with it,
# and `cargo run --profile test` runs the `sql` example from that build. The workspace's
# `test` profile has no debug info for dependencies, which halves DataFusion's build.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
start=$SECONDS
step() { printf '\n==> pctenc-datafusion: %s (%ds)\n' "$*" $((SECONDS - start)); }
pkg=(-p pctenc-datafusion --features ballista)
# The `test` profile's opt-level 1 is for pctenc's own tests; DataFusion, Ballista and the
# other dependencies are built at opt-level 0 here, which compiles them in much less time,
# while pctenc and this crate (workspace members) keep opt-level 1. Every command that
# builds in the `test` profile passes it, so that they share one build.
opt0=(--config 'profile.test.package."*".opt-level=0')

step "format"
cargo fmt -p pctenc-datafusion --check

step "tests, the Ballista standalone test included"
cargo test "${opt0[@]}" "${pkg[@]}"

step "the example SQL binary on Parquet, CSV and NDJSON files"
dir=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  # `timeout` passes the signal on; the executor takes a moment to stop.
  [ ${#pids[@]} -eq 0 ] || wait "${pids[@]}" 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT
printf 'path,status\n/caf%%C3%%A9?q=a+b,200\n/r%%C3%%A9sum%%C3%%A9.pdf,404\n/100%%,500\n' > "$dir/access.csv"
printf '{"path":"/a%%20b"}\n{"path":"/%%E6%%9D%%B1"}\n' > "$dir/access.ndjson"
sql() { cargo run --quiet "${opt0[@]}" --profile test "${pkg[@]}" --example sql -- "$@"; }
sql "COPY (SELECT * FROM '$dir/access.csv') TO '$dir/access.parquet'" >/dev/null
out=$(sql "SELECT try_url_decode(path) AS path, status FROM '$dir/access.parquet' ORDER BY status")
echo "$out"
for want in '/café?q=a b' '/résumé.pdf' '| 500'; do
  grep -qF -- "$want" <<<"$out" || { echo "the SQL example's output lacks $want"; exit 1; }
done
out=$(sql --table "logs=$dir/access.ndjson" "SELECT percent_decode(path) AS p, percent_validate(path, 'path') AS ok FROM logs")
echo "$out"
grep -qF '/東' <<<"$out" || { echo "the SQL example's NDJSON output lacks /東"; exit 1; }
# Failing queries: status 1 for a value url_decode rejects (the message names the row and
# offset), 2 for a missing file and for an unknown set name.
expect_status() {
  local want=$1 text=$2 status=0 err
  shift 2
  err=$(sql "$@" 2>&1) || status=$?
  [ "$status" -eq "$want" ] && grep -qF -- "$text" <<<"$err" \
    || { echo "sql $*: status $status (want $want), output: $err"; exit 1; }
}
expect_status 1 '(batch row 2, offset 4)' "SELECT url_decode(path) FROM '$dir/access.csv'"
expect_status 1 'CANNOT_DECODE_URL' "SELECT url_decode(path) FROM '$dir/access.csv'"
expect_status 2 'missing.parquet' "SELECT * FROM '$dir/missing.parquet'"
expect_status 2 'unknown set `bogus`' "SELECT percent_encode(path, 'bogus') FROM '$dir/access.csv'"
expect_status 2 '`lenient` contradicts `strict`' "SELECT percent_decode(path, 'strict,lenient') FROM '$dir/access.csv'"
expect_status 2 'Connection refused' --ballista df://127.0.0.1:1 "SELECT 1"
out=$(sql "SHOW FUNCTIONS LIKE 'url%'")
grep -qF 'url_decode' <<<"$out" || { echo "SHOW FUNCTIONS lacks url_decode: $out"; exit 1; }

step "the Ballista examples on loopback: no executor, then a cluster as the README starts it"
# The binaries `cargo test` built (the `test` profile writes to debug/), each run under
# `timeout`, and killed at the end.
bin="${CARGO_TARGET_DIR:-target}/debug/examples"
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_port() {
  for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return; sleep 0.3; done
  echo "nothing listens on 127.0.0.1:$1"; cat "$dir"/*.log; exit 1
}
sport=$(free_port)
timeout 300 "$bin/ballista-scheduler" "127.0.0.1:$sport" 2>"$dir/scheduler.log" &
pids+=($!)
wait_port "$sport"
# No executor: `--timeout` ends the wait with status 2, and the message names the cause.
status=0
err=$(timeout 60 "$bin/sql" --ballista "df://127.0.0.1:$sport" --timeout 5 "SELECT 1" 2>&1) || status=$?
echo "$err"
[ "$status" -eq 2 ] && grep -qF 'the scheduler has no executor' <<<"$err" \
  || { echo "sql --timeout 5 with no executor: status $status (want 2, saying it has no executor)"; exit 1; }
grep -qF 'sql: waiting: the Ballista scheduler' <<<"$err" || { echo "no notice while waiting"; exit 1; }
# The loopback cluster as the README starts it: the executor registers under 127.0.0.1, the
# host the scheduler and this client reach it by, and the query runs.
out=$("$bin/ballista-executor" --help)
grep -qF 'reach this executor' <<<"$out" || { echo "ballista-executor --help lacks EXTERNAL_HOST: $out"; exit 1; }
eport=$(free_port)
timeout 300 "$bin/ballista-executor" "127.0.0.1:$sport" "127.0.0.1:$eport" 127.0.0.1 2>"$dir/executor.log" &
pids+=($!)
out=$(timeout 120 "$bin/sql" --ballista "df://127.0.0.1:$sport" --timeout 60 "SELECT url_decode('caf%C3%A9') AS word") \
  || { echo "the loopback cluster did not answer"; cat "$dir"/*.log; exit 1; }
echo "$out"
grep -qF 'café' <<<"$out" || { echo "the loopback cluster's output lacks café"; exit 1; }

step "clippy, the benchmarks included, and rustdoc (check builds, shared)"
cargo clippy "${pkg[@]}" --all-targets -- -D warnings
# `--examples` as well as `--lib`: the examples' dev-dependencies then unify the same
# features as clippy's `--all-targets`, so rustdoc reuses clippy's check build.
RUSTDOCFLAGS="-D warnings" cargo doc "${pkg[@]}" --no-deps --lib --examples

step "done"
