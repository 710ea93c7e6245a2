#!/usr/bin/env bash
# The check to run after every change, a few minutes on a warm build cache:
#
#   bash scripts/check.sh                 # fmt, then clippy and the tests of what changed
#   bash scripts/check.sh core capi       # ... of the members named
#   bash scripts/check.sh --all           # the whole native suite
#
# What changed is what differs from main's upstream (or from main, or, on main itself, from
# the last commit), committed or not, untracked files included. The members: `core` (the
# library and the CLI: src/, tests/, pctenc-cli/, benches/, examples/, docs/, the README), `capi`,
# `datafusion`, `python`, `web` and `fuzz`. A change to the core checks every member with
# clippy too, since they all build on it, and runs the core's tests.
#
# `--all` runs the native steps of scripts/ci.sh: fmt, clippy, test, docs, capi, datafusion,
# web and python. CI runs those and the rest (emulated CPUs, Miri, sanitizers, fuzzing):
# `bash scripts/ci.sh list`. The first run links target/ into the build cache
# (scripts/cache.sh), which CI on this machine then shares.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=${CARGO_TERM_COLOR:-auto}
start=$SECONDS

# Every run: cheap when this checkout linked target/ last, and otherwise it makes sure that
# pctenc's own crates are compiled again from this checkout.
bash scripts/cache.sh link

members=(core capi datafusion python web fuzz)
if [ "${1:-}" = --all ]; then
  exec bash scripts/ci.sh fmt clippy test arrow docs capi datafusion web python
fi
if [ "${1:-}" = -h ] || [ "${1:-}" = --help ]; then
  sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi

declare -A touched=()
if [ $# -gt 0 ]; then
  for member in "$@"; do
    [[ " ${members[*]} " == *" $member "* ]] || { echo "check.sh: no member \"$member\" (${members[*]})" >&2; exit 2; }
    touched[$member]=1
  done
else
  base=
  for ref in '@{upstream}' origin/main main; do
    base=$(git merge-base HEAD "$ref" 2>/dev/null) && break
  done
  # On main itself, what is not committed yet.
  [ -n "$base" ] || base=HEAD
  changed=$({ git diff --name-only "$base"; git ls-files --others --exclude-standard; } | sort -u)
  while IFS= read -r path; do
    [ -n "$path" ] || continue
    case $path in
      pctenc-capi/*) touched[capi]=1 ;;
      pctenc-datafusion/*) touched[datafusion]=1 ;;
      pctenc-python/*) touched[python]=1 ;;
      web/*) touched[web]=1 ;;
      fuzz/*) touched[fuzz]=1 ;;
      src/* | tests/* | pctenc-cli/* | benches/* | examples/* | docs/* | README.md | Cargo.toml | Cargo.lock | build.rs) touched[core]=1 ;;
    esac
  done <<<"$changed"
fi
echo "check: ${!touched[*]:-nothing to build} (fmt always)"

step() { printf '\n==> %s (%ds)\n' "$*" $((SECONDS - start)); }

step "fmt"
cargo fmt --all --check
(cd fuzz && cargo fmt --check)

# The same arguments and target folders as CI's steps, so that both share one build: the
# DataFusion member builds in lane B's target/b/ (see .ci/run), the fuzz targets in target/fuzz/.
lane_b=$PWD/target/b
clippy_of() {
  case $1 in
    core) cargo clippy --all-targets -- -D warnings ;;
    capi) cargo clippy -p pctenc-capi --all-targets -- -D warnings ;;
    datafusion) CARGO_TARGET_DIR=$lane_b cargo clippy -p pctenc-datafusion --features ballista --all-targets -- -D warnings ;;
    python) cargo clippy -p pctenc-python --all-targets -- -D warnings ;;
    web) cargo clippy -p pctenc-web --all-targets -- -D warnings ;;
    fuzz) (cd fuzz && CARGO_TARGET_DIR=$PWD/../target/fuzz cargo +nightly clippy --all-targets -- -D warnings) ;;
  esac
}
tests_of() {
  case $1 in
    core) cargo test ;;
    capi) bash pctenc-capi/ci.sh ;;
    datafusion) CARGO_TARGET_DIR=$lane_b cargo test --config 'profile.test.package."*".opt-level=0' -p pctenc-datafusion --features ballista ;;
    python) bash scripts/ci.sh python ;;
    web) bash scripts/ci.sh web ;;
    fuzz) FUZZ_SECONDS=${FUZZ_SECONDS:-10} bash scripts/ci.sh fuzz ;;
  esac
}

for member in "${members[@]}"; do
  if [ -n "${touched[$member]:-}" ] || { [ -n "${touched[core]:-}" ] && [ "$member" != fuzz ]; }; then
    step "clippy: $member"
    clippy_of "$member"
  fi
done
for member in "${members[@]}"; do
  if [ -n "${touched[$member]:-}" ]; then
    step "tests: $member"
    tests_of "$member"
  fi
done
step "done"
