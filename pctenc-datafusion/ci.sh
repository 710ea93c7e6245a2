#!/usr/bin/env bash
# pctenc-datafusion's part of CI (.ci/run calls it from the repository's root): format,
# clippy, the tests (the Ballista standalone test included), the example SQL binary on small
# Parquet, CSV and NDJSON files, the docs, and the benchmarks' build.
#
# Everything builds with the `ballista` feature and optimized dependencies: `cargo test
# --release` builds the dependencies with the `release` profile, and so does `cargo bench`
# once the `bench` profile equals `release` (the root's `[profile.bench]` adds debug info,
# which would rebuild every dependency: CARGO_PROFILE_BENCH_DEBUG=0 below). DataFusion and
# Ballista are thus compiled once in full, and once in check mode (clippy and rustdoc share it).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
start=$SECONDS
step() { printf '\n==> pctenc-datafusion: %s (%ds)\n' "$*" $((SECONDS - start)); }
pkg=(-p pctenc-datafusion --features ballista)

step "format"
cargo fmt -p pctenc-datafusion --check

step "tests, the Ballista standalone test included (release: the bench profile)"
cargo test --release "${pkg[@]}"

step "the example SQL binary on Parquet, CSV and NDJSON files"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf 'path,status\n/caf%%C3%%A9?q=a+b,200\n/r%%C3%%A9sum%%C3%%A9.pdf,404\n/100%%,500\n' > "$dir/access.csv"
printf '{"path":"/a%%20b"}\n{"path":"/%%E6%%9D%%B1"}\n' > "$dir/access.ndjson"
sql() { cargo run --quiet --release "${pkg[@]}" --example sql -- "$@"; }
sql "COPY (SELECT * FROM '$dir/access.csv') TO '$dir/access.parquet'" >/dev/null
out=$(sql "SELECT try_url_decode(path) AS path, status FROM '$dir/access.parquet' ORDER BY status")
echo "$out"
for want in '/café?q=a b' '/résumé.pdf' '| 500'; do
  grep -qF -- "$want" <<<"$out" || { echo "the SQL example's output lacks $want"; exit 1; }
done
out=$(sql --table "logs=$dir/access.ndjson" "SELECT percent_decode(path) AS p, percent_validate(path, 'path') AS ok FROM logs")
echo "$out"
grep -qF '/東' <<<"$out" || { echo "the SQL example's NDJSON output lacks /東"; exit 1; }
# A failing query: status 1, and the message names the row and offset.
if err=$(sql "SELECT url_decode(path) FROM '$dir/access.csv'" 2>&1); then echo "url_decode of /100% succeeded"; exit 1; fi
grep -qF 'CANNOT_DECODE_URL' <<<"$err" && grep -qF '(row 2, offset 4)' <<<"$err" || { echo "unexpected error: $err"; exit 1; }

step "clippy and rustdoc (check builds, shared)"
cargo clippy --release "${pkg[@]}" --all-targets -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --release "${pkg[@]}" --no-deps

step "benchmarks build"
CARGO_PROFILE_BENCH_DEBUG=0 cargo bench --no-run "${pkg[@]}"

step "done"
