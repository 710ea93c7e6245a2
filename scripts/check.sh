#!/usr/bin/env bash
# The check to run after every change, a few minutes on a warm build cache:
#
#   bash scripts/check.sh                 # fmt, then clippy and the tests of what changed
#   bash scripts/check.sh core capi       # ... of the members named
#   bash scripts/check.sh --plan [...]    # the members and commands it would run, none run
#   bash scripts/check.sh --all           # the whole native suite
#
# What changed is what differs from main's upstream (or from main, or, on main itself, from
# the last commit), committed or not, untracked files included. The members are the
# workspace's packages, as `cargo metadata` lists them, each named after its package without
# `pctenc-` (`core` is the library, whose folders are src/, tests/, benches/, examples/,
# docs/ and the root's files), and those cargo does not build: `nginx` (pctenc-nginx/) and
# `fuzz` (a workspace of its own). A file belongs to the member whose folder holds it. A
# change to the core checks every cargo member with clippy too, since they all build on it,
# and runs the tests of the core and of the CLI (`cargo test`, the default members).
#
# `--all` runs the native steps of scripts/ci.sh: fmt, clippy, test, arrow, docs, capi,
# datafusion, nginx, web and python. CI runs those and the rest (emulated CPUs, Miri,
# sanitizers, fuzzing): `bash scripts/ci.sh list`. The first run links target/ into the
# build cache (scripts/cache.sh), which CI on this machine then shares.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=${CARGO_TERM_COLOR:-auto}
start=$SECONDS

if [ "${1:-}" = -h ] || [ "${1:-}" = --help ]; then
  sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
plan=
if [ "${1:-}" = --plan ]; then
  plan=1
  shift
fi
if [ "${1:-}" = --all ]; then
  [ -z "$plan" ] || { echo "bash scripts/ci.sh fmt clippy test arrow docs capi datafusion nginx web python"; exit 0; }
  bash scripts/cache.sh link
  exec bash scripts/ci.sh fmt clippy test arrow docs capi datafusion nginx web python
fi

# The members: NAME, its folder, and for a cargo package its package name ("-" for none).
declare -A dir_of=() package_of=()
members=()
while IFS=$'\t' read -r name dir package; do
  members+=("$name")
  dir_of[$name]=$dir
  package_of[$name]=$package
done < <(
  cargo metadata --no-deps --format-version 1 | python3 -c '
import json, os, sys
meta = json.load(sys.stdin)
root = meta["workspace_root"]
for package in sorted(meta["packages"], key=lambda p: p["manifest_path"]):
    folder = os.path.relpath(os.path.dirname(package["manifest_path"]), root)
    name = package["name"]
    short = "core" if folder == "." else name.removeprefix("pctenc-")
    print(short, folder, name, sep="\t")
'
  printf 'nginx\tpctenc-nginx\t-\n'
  printf 'fuzz\tfuzz\t-\n'
)

declare -A touched=()
if [ $# -gt 0 ]; then
  for member in "$@"; do
    [ -n "${dir_of[$member]:-}" ] || { echo "check.sh: no member \"$member\" (${members[*]})" >&2; exit 2; }
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
    owner=
    for member in "${members[@]}"; do
      [ "${dir_of[$member]}" != . ] || continue
      if [[ $path == "${dir_of[$member]}"/* ]]; then owner=$member; fi
    done
    if [ -z "$owner" ]; then
      case $path in
        src/* | tests/* | benches/* | examples/* | docs/* | README.md | Cargo.toml | Cargo.lock | build.rs) owner=core ;;
      esac
    fi
    [ -z "$owner" ] || touched[$owner]=1
  done <<<"$changed"
fi
names=("${!touched[@]}")
echo "check: ${names[*]:-nothing to build} (fmt always)"

step() { printf '\n==> %s (%ds)\n' "$*" $((SECONDS - start)); }

# The same arguments and target folders as CI's steps, so that both share one build: the
# DataFusion member builds in lane B's target/b/ (see .ci/run), the fuzz targets in target/fuzz/.
# A member without a case of its own is checked as any cargo package: clippy and `cargo test`
# with `-p`.
lane_b=$PWD/target/b
clippy_of() {
  case $1 in
    core) echo cargo clippy --all-targets -- -D warnings ;;
    datafusion) echo CARGO_TARGET_DIR="$lane_b" cargo clippy -p pctenc-datafusion --features ballista --all-targets -- -D warnings ;;
    fuzz) echo "(cd fuzz && CARGO_TARGET_DIR=$PWD/target/fuzz cargo +nightly clippy --all-targets -- -D warnings)" ;;
    nginx) ;;
    *) echo cargo clippy -p "${package_of[$1]}" --all-targets -- -D warnings ;;
  esac
}
tests_of() {
  case $1 in
    core) echo cargo test ;;
    capi) echo bash pctenc-capi/ci.sh ;;
    arrow | nginx | python | web) echo bash scripts/ci.sh "$1" ;;
    datafusion) echo CARGO_TARGET_DIR="$lane_b" cargo test --config "'profile.test.package.\"*\".opt-level=0'" -p pctenc-datafusion --features ballista ;;
    fuzz) echo FUZZ_SECONDS="${FUZZ_SECONDS:-10}" bash scripts/ci.sh fuzz ;;
    *) echo cargo test -p "${package_of[$1]}" ;;
  esac
}

commands=("fmt"$'\t'"cargo fmt --all --check && (cd fuzz && cargo fmt --check)")
for member in "${members[@]}"; do
  if [ -n "${touched[$member]:-}" ] || { [ -n "${touched[core]:-}" ] && [ "${package_of[$member]}" != - ]; }; then
    command=$(clippy_of "$member")
    [ -z "$command" ] || commands+=("clippy: $member"$'\t'"$command")
  fi
done
for member in "${members[@]}"; do
  if [ -n "${touched[$member]:-}" ]; then
    commands+=("tests: $member"$'\t'"$(tests_of "$member")")
  fi
done

if [ -n "$plan" ]; then
  printf '%s\n' "${commands[@]}" | sed 's/\t/: /'
  exit 0
fi

# Every run: cheap when this checkout linked target/ last, and otherwise it makes sure that
# pctenc's own crates are compiled again from this checkout.
bash scripts/cache.sh link
for entry in "${commands[@]}"; do
  step "${entry%%$'\t'*}"
  eval "${entry#*$'\t'}"
done
step "done"
