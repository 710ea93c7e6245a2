#!/usr/bin/env bash
# CI's checks as named steps, each of which runs alone:
#
#   bash scripts/ci.sh STEP [STEP...]     # e.g. bash scripts/ci.sh clippy miri
#   bash scripts/ci.sh list               # the steps, a line each
#
# `.ci/run` runs them all, in two lanes side by side (its `lanes`); `scripts/check.sh` runs
# the first ones after every change. Every step installs what it needs (`packages`, the one
# list of system packages), works from the repository's root and from a fresh clone, and
# stops a hang at its time limit (`limit`). Each step's time goes to $PCTENC_CI_TIMES (a
# tab-separated file: step, seconds, status) when that is set, and a table of them is
# printed at the end of the command and when a step fails.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

# ---------------------------------------------------------------------------------------
# Helpers

# `limit SECONDS NAME COMMAND...`: runs COMMAND, and fails the step when it takes longer than
# SECONDS, naming it, instead of letting a hang (an emulated fork stuck before exec, a
# sanitizer deadlock) use up CI's time. `timeout` signals COMMAND's whole process group
# (cargo, the test binaries, qemu and the processes they started): TERM, and KILL 30 s later.
# Each limit is a few times the command's normal length on a cold machine.
limit() {
  local seconds=$1 name=$2 status=0
  shift 2
  timeout -k 30 "$seconds" "$@" || status=$?
  if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    echo "\"$name\" exceeded $seconds s: stopped" >&2
    return 1
  fi
  return "$status"
}

# A heading inside a step.
say() { printf -- '-- %s\n' "$*"; }

# `--test NAME` for every test target in tests/ and pctenc-cli/tests/ (a file NAME.rs or a
# folder NAME/ with main.rs) but those named.
tests_but() {
  local path name
  for path in tests/*.rs tests/*/main.rs pctenc-cli/tests/*.rs pctenc-cli/tests/*/main.rs; do
    [ -e "$path" ] || continue
    name=${path#pctenc-cli/} && name=${name#tests/} && name=${name%.rs} && name=${name%/main}
    [[ " $* " == *" $name "* ]] || printf -- '--test\n%s\n' "$name"
  done
}

# The backends this CPU has by the kernel's view (/proc/cpuinfo), independent of pctenc's
# own detection: every test that compares backends fails when one of these did not run.
cpu_backends() {
  local flags expect=sse2
  flags=" $(grep -m1 '^flags' /proc/cpuinfo) "
  [[ $flags == *" ssse3 "* ]] && expect+=",ssse3"
  [[ $flags == *" avx2 "* ]] && expect+=",avx2"
  [[ $flags == *" avx512f "* && $flags == *" avx512bw "* && $flags == *" avx512vbmi "* \
    && $flags == *" avx512_vbmi2 "* && $flags == *" bmi2 "* ]] && expect+=",avx512"
  echo "$expect"
}

# The system packages CI needs, all of them, in one list (Debian's names): qemu and the
# cross toolchain for aarch64; the i686 cross toolchain (to link; gcc-multilib would do too,
# but Debian makes it conflict with the aarch64 one) and the 32-bit loader, libc and
# libgcc_s (to run i686 binaries natively); GNU time for the peak-memory check; util-linux's
# `script` gives the CLI tests a terminal; python3 and its venv module for the scripts and
# the wheel; node for the differential check and the browser tests; pkg-config, a C compiler
# and Valgrind for the C API; Debian's Chromium for the page (no browser download); nginx,
# its module source tree (nginx-dev), set-misc and wrk for the nginx module.
packages=(qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross gcc-i686-linux-gnu libc6-dev-i386-cross
  libc6-i386 lib32gcc-s1 time bsdutils python3 python3-venv nodejs pkg-config gcc valgrind chromium
  nginx nginx-dev libnginx-mod-http-set-misc wrk)
# What shows that each is installed: a command, or a file.
installed_marks=(qemu-aarch64 qemu-x86_64 aarch64-linux-gnu-gcc i686-linux-gnu-gcc /lib/ld-linux.so.2
  /usr/lib32/libgcc_s.so.1 /usr/bin/time script python3 node pkg-config cc valgrind chromium
  nginx /usr/share/nginx/src/configure /usr/lib/nginx/modules/ngx_http_set_misc_module.so wrk)
need_packages() {
  local mark missing=()
  for mark in "${installed_marks[@]}"; do
    if [[ $mark == /* ]]; then [ -e "$mark" ] || missing+=("$mark"); else command -v "$mark" >/dev/null || missing+=("$mark"); fi
  done
  python3 -c 'import ensurepip, venv' 2>/dev/null || missing+=(python3-venv)
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "installing the system packages (missing: ${missing[*]})"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}" >/dev/null
}

need_targets() {
  rustup target add aarch64-unknown-linux-gnu i686-unknown-linux-gnu thumbv7em-none-eabi wasm32-unknown-unknown >/dev/null
}

# Lane B's steps (see .ci/run) build in target/b/, alone too, so that they share one build
# with CI's: cargo locks a target folder while it builds there, and the lanes run together.
lane_b() { export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target/b}; }

# The nightly toolchain, for Miri, the sanitizers and the fuzzers.
need_nightly() {
  rustup toolchain install nightly --profile minimal --component miri,rust-src >/dev/null
}

# ---------------------------------------------------------------------------------------
# The steps. Each `step_NAME` is one step; the comment above it is what `list` prints.

# the system packages, the Rust targets and the nightly toolchain (every other step
# installs what it needs too: this one does it all at once)
step_setup() {
  rustup component add rustfmt clippy >/dev/null 2>&1 || true
  need_targets
  need_packages
  need_nightly
  command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
  cargo --version
  cargo +nightly --version
  qemu-aarch64 --version | head -n 1
  echo "backends the CPU supports: $(cpu_backends)"
}

# format, no merge conflict markers, and no cycle between the library's modules
step_fmt() {
  cargo fmt --all --check
  (cd fuzz && cargo fmt --check)
  if git grep -nE '^(<<<<<<<|>>>>>>>) ' -- ':!*.json'; then echo "merge conflict markers"; return 1; fi
  python3 scripts/module-graph.py
}

# What the library depends on with its default features, the crates every embedder builds:
# anything more is optional (a feature), or is added here on purpose. The command-line
# tool's dependencies belong to pctenc-cli.
library_dependencies=(memchr simdutf8)

# `cargo tree` of the library with its default features, on every target, against
# `library_dependencies`: a new dependency fails, naming itself.
check_library_dependencies() {
  local found want added removed
  found=$(cargo tree -p pctenc -e normal --prefix none --target all --format '{p}' | sed 's/ .*//' | grep -vx pctenc | sort -u)
  want=$(printf '%s\n' "${library_dependencies[@]}" | sort -u)
  added=$(comm -13 <(echo "$want") <(echo "$found") | paste -sd' ' -)
  removed=$(comm -23 <(echo "$want") <(echo "$found") | paste -sd' ' -)
  if [ -n "$added$removed" ]; then
    echo "the library's default dependency tree changed:${added:+ added: $added.}${removed:+ no longer there: $removed.}" >&2
    echo "every program that depends on pctenc builds these: make a new one optional (a feature of" >&2
    echo "pctenc, or a dependency of pctenc-cli if only the tool needs it), or, if every embedder" >&2
    echo "needs it, add it to library_dependencies in scripts/ci.sh" >&2
    return 1
  fi
  say "the library's default dependencies: ${library_dependencies[*]}"
}

# clippy: every target of the library and the CLI, the library's feature matrix, a no_std
# target (thumbv7em-none-eabi) and one without SIMD backends (wasm32); the library's default
# dependency tree is the allowed one
step_clippy() {
  need_targets
  check_library_dependencies
  cargo clippy --all-targets -- -D warnings
  # TARGET FEATURES [--tests]: `-` for the host, `none` for no features.
  local matrix=(
    "- none" "- alloc" "- std --tests" "- rayon --tests" "- encoding" "- std,encoding --tests"
    "thumbv7em-none-eabi none" "thumbv7em-none-eabi alloc" "thumbv7em-none-eabi encoding"
    "wasm32-unknown-unknown std" "wasm32-unknown-unknown std,encoding"
  )
  local row target features extra args
  for row in "${matrix[@]}"; do
    read -r target features extra <<<"$row"
    args=(-p pctenc --lib --no-default-features)
    [ "$features" = none ] || args+=(--features "$features")
    [ "$target" = - ] || args+=(--target "$target")
    [ -z "${extra:-}" ] || args+=("$extra")
    say "cargo clippy ${args[*]}"
    cargo clippy "${args[@]}" -- -D warnings
  done
}

# the README's test command (the library, with the CLI's features, and the CLI), and the
# library's tests with its default features alone
step_test() {
  need_packages
  limit 900 "cargo test" cargo test
  # Without rayon and encoding (the CLI's features, which `cargo test` above unifies into the
  # library): the unit tests, and the tests of what has a path of its own without rayon (the
  # streams' serial pieces; src/encode/stream.rs). The other test files run the same code
  # either way, and clippy's matrix compiles every test without those features
  # (`std --tests`).
  limit 600 "the library with its default features" cargo test -p pctenc --lib --test streaming --test security
}

# pctenc-arrow: its tests, clippy, rustdoc, and its dependencies: Arrow's small crates, never
# `arrow` (with its compute kernels) nor DataFusion, which a program holding arrays would pay
# for without using
step_arrow() {
  local heavy
  heavy=$(cargo tree -p pctenc-arrow -e normal --prefix none --format '{p}' | sed 's/ .*//' \
    | { grep -xE 'arrow|arrow-(arith|cast|compute|ord|select|string)|datafusion.*|parquet' || true; } | sort -u | paste -sd' ' -)
  [ -z "$heavy" ] || { echo "pctenc-arrow depends on $heavy: it must take Arrow's array, buffer and schema crates only" >&2; return 1; }
  limit 900 "pctenc-arrow tests" cargo test -p pctenc-arrow
  cargo clippy -p pctenc-arrow --all-targets -- -D warnings
  RUSTDOCFLAGS="-D warnings" cargo doc --no-deps -p pctenc-arrow
}

# rustdoc warning-free (the doctests, the README and the guides ran in `test`): the library as
# docs.rs builds it, every member's, the CLI's internals; and the benchmark report is what
# benches/results/ gives
step_docs() {
  # As docs.rs builds them (Cargo.toml's package.metadata.docs.rs: every feature, and
  # `--cfg docsrs`, which marks each item with its feature on the nightly rustdoc docs.rs runs).
  need_nightly
  RUSTDOCFLAGS="--cfg docsrs -D warnings" cargo +nightly doc --no-deps --lib -p pctenc --all-features
  # The CLI's binary has `doc = false` (its docs would take the library's path): documented
  # alone, before the workspace's, which then leaves the library's in target/doc/pctenc.
  cargo rustdoc -p pctenc-cli --bin pctenc -- -D warnings
  # The workspace: pctenc-datafusion's rustdoc runs in its own step, on its own build.
  RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --exclude pctenc-datafusion
  python3 scripts/bench-report.py --check
}

# the published crates (pctenc, pctenc-cli, pctenc-arrow) as crates.io would take them: each
# packaged, then built from its package alone (against the others' packages)
step_package() {
  # cargo verifies each package against the others' through a local registry, unpacked into
  # CARGO_HOME under a folder named for the target directory, and reuses an unpacked copy of
  # the same version without looking at its contents: a copy from an earlier run would be
  # built in place of this one's packages. Only our crates, only in those folders (named
  # `-HASH`, where crates.io's are `index.crates.io-HASH`).
  local unpacked
  for unpacked in "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/{pctenc,pctenc-arrow,pctenc-cli}-[0-9]*; do
    [ ! -d "$unpacked" ] || rm -rf "$unpacked"
  done
  limit 1800 "cargo publish --dry-run" cargo publish --dry-run --workspace \
    --exclude pctenc-capi --exclude pctenc-datafusion --exclude pctenc-python --exclude pctenc-web
}

# every SIMD backend this CPU has, pinned against scalar (release, many proptest cases)
step_backends() {
  lane_b
  PCTENC_EXPECT_BACKENDS=$(cpu_backends) PROPTEST_CASES=20000 limit 1200 "backends pinned against scalar" \
    cargo test --release --test encode_backends --test decode_backends --test validate --test parallel -- --nocapture
}

# the benchmarks build
step_bench_build() {
  lane_b
  cargo bench --no-run
}

# the declared minimum Rust (rust-version, 1.89): the library and every member but
# pctenc-datafusion (whose minimum is DataFusion's own) checked with that toolchain
step_msrv() {
  lane_b
  local version packages
  version=$(sed -n 's/^rust-version = "\(.*\)"/\1/p' Cargo.toml)
  packages=$(members_with_rust_version "$version")
  rustup toolchain install "$version" --profile minimal >/dev/null
  say "cargo +$version check $packages"
  # A folder of its own: another compiler's outputs share nothing with the others.
  # shellcheck disable=SC2086 # $packages is words
  CARGO_TARGET_DIR=$CARGO_TARGET_DIR/msrv cargo "+$version" check --locked --all-targets $packages
}

# `-p NAME` for each package of the workspace that declares rust-version VERSION (its own or
# the workspace's, as cargo metadata resolves it); fails if one declares another.
members_with_rust_version() {
  cargo metadata --no-deps --format-version 1 | python3 -c '
import json, sys
want = sys.argv[1]
for package in json.load(sys.stdin)["packages"]:
    declared, name = package["rust_version"], package["name"]
    if declared is None:
        continue
    if declared != want:
        sys.exit("%s declares rust-version %s, not the workspace rust-version %s: CI checks only %s"
                 % (package["manifest_path"], declared, want, want))
    print("-p", name, end=" ")
' "$1"
}

# pctenc-capi: header current, libraries, C tests plain, under ASan/UBSan and Valgrind,
# example, differential test
step_capi() {
  need_packages
  need_nightly
  limit 1200 "C API" bash pctenc-capi/ci.sh
}

# pctenc-datafusion: tests, the Ballista standalone cluster, the SQL example, clippy, docs
step_datafusion() {
  lane_b
  limit 2700 "pctenc-datafusion" bash pctenc-datafusion/ci.sh
}

# Miri: scalar and SSE2 (Stacked Borrows) beside SSSE3 and AVX2 (compiled in with
# -C target-feature, as Miri sees only those), then the parallel chunking (Tree Borrows)
step_miri() {
  lane_b
  need_nightly
  cargo +nightly miri setup >/dev/null
  local package=(-p pctenc --no-default-features --features std) targets=(encode_backends decode_backends validate)
  # Two interpreters side by side, one a core; the second's RUSTFLAGS differ, so it builds in
  # a target directory of its own. Its output waits in a file until the first is done. Each
  # test target has a limit of its own: under SSSE3 and AVX2, encode_backends takes about
  # 310 s and decode_backends 250 s on a quiet Zen 3 core (they sample every block boundary of
  # two backends), and 790 s and 530 s in a full `.ci/run` there, beside lane A's builds.
  local log status=0 name
  log=$(mktemp)
  (
    export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}/miri-avx2 MIRIFLAGS=-Zmiri-disable-isolation \
      RUSTFLAGS="-C target-feature=+avx2,+popcnt" PCTENC_EXPECT_BACKENDS=sse2,ssse3,avx2 PCTENC_TEST_BACKENDS=ssse3,avx2
    for name in "${targets[@]}"; do
      limit 1800 "Miri: SSSE3 and AVX2, $name" cargo +nightly miri test "${package[@]}" --test "$name" || exit 1
    done
  ) >"$log" 2>&1 &
  local avx2=$!
  say "Miri: scalar and SSE2"
  MIRIFLAGS=-Zmiri-disable-isolation PCTENC_EXPECT_BACKENDS=sse2 limit 900 "Miri: scalar and SSE2, the library" \
    cargo +nightly miri test "${package[@]}" --lib || status=1
  for name in "${targets[@]}"; do
    MIRIFLAGS=-Zmiri-disable-isolation PCTENC_EXPECT_BACKENDS=sse2 limit 1500 "Miri: scalar and SSE2, $name" \
      cargo +nightly miri test "${package[@]}" --test "$name" || status=1
  done
  wait "$avx2" || status=1
  say "Miri: SSSE3 and AVX2"
  cat "$log" && rm -f "$log"
  [ "$status" -eq 0 ] || return 1
  # rayon's crossbeam-epoch breaks Stacked Borrows' rules; its pool's threads outlive main.
  say "Miri: the parallel chunking"
  MIRIFLAGS="-Zmiri-disable-isolation -Zmiri-tree-borrows -Zmiri-ignore-leaks" limit 600 "Miri: the parallel chunking" \
    cargo +nightly miri test -p pctenc --no-default-features --features std,rayon --lib par::
}

# 32-bit x86 (i686), natively: clippy and the whole suite, every SIMD backend of this CPU
step_i686() {
  need_packages
  need_targets
  export CARGO_TARGET_I686_UNKNOWN_LINUX_GNU_LINKER=i686-linux-gnu-gcc
  cargo clippy --target i686-unknown-linux-gnu --all-targets -- -D warnings
  PCTENC_EXPECT_BACKENDS=$(cpu_backends) limit 900 "i686" cargo test --target i686-unknown-linux-gnu
}

# The emulated steps run what depends on the architecture or the CPU: detection, the
# kernels' tests (the unit tests, the binaries', the backends pinned against scalar, guard
# pages, security, the specs), the conformance data and re-quoting on the detected backend,
# and the source layout, each tier with its own backend. Left to the native runs (x86-64
# with every backend of its CPU, and i686) and AddressSanitizer: the code above the kernels
# (streams, the parallel chunking, the API's semantics, doctests, the CLI), and the tests
# that take minutes under emulation (iri.rs's every code point on every backend,
# parallel.rs's megabytes).
kernel_tests=(--test encode_backends --test decode_backends --test validate --test guard_pages --test security
  --test decoding --test sets --test conformance --test requote --test layout)

# aarch64 (NEON) under qemu-aarch64: clippy, detection, the kernels' tests and `pctenc bench`
step_aarch64() {
  lane_b
  need_packages
  need_targets
  export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
  export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L /usr/aarch64-linux-gnu"
  cargo clippy --target aarch64-unknown-linux-gnu --all-targets -- -D warnings
  PCTENC_EXPECT_BACKENDS=neon PCTENC_EXPECT_DETECTED=neon limit 900 "aarch64: the kernels' tests" \
    cargo test --release --target aarch64-unknown-linux-gnu --lib --bins "${kernel_tests[@]}"
  # `pctenc bench` as a user on an ARM machine runs it: every backend's answers checked
  # against scalar's on the built-in inputs (status 1 on a difference), then timed with a
  # tiny budget (figures under emulation mean nothing); it must have chosen and run NEON.
  local records
  records=$(limit 600 "aarch64: pctenc bench" cargo run --quiet --release --target aarch64-unknown-linux-gnu \
    -p pctenc-cli -- bench --json --seconds 1 --size 64,4K,64K)
  if ! grep -q '"chosen":"neon"' <<<"$records" || ! grep -q '"backend":"neon"' <<<"$records"; then
    echo "aarch64: pctenc bench did not choose and measure the NEON backend" >&2
    return 1
  fi
}

# the lower x86-64 tiers under qemu-x86_64 -cpu MODEL: detection, and the kernels' tests with
# the tier's backend (the lower backends run on their own tiers, all of them natively)
step_x86_tiers() {
  # 64 random cases a property test (PROPTEST_CASES), not 256 to 512: these backends run
  # 20,000 natively (`backends`), and every length, alignment and byte sweep runs in full
  # here; the tiers prove detection and that each backend needs no more than its tier.
  lane_b
  need_packages
  # Haswell less the features qemu's TCG cannot emulate (which it would otherwise warn about
  # on every process's stderr): AVX2 and BMI2 stay.
  local model_tier model tier
  for model_tier in Haswell,-pcid,-x2apic,-tsc-deadline,-hle,-invpcid,-rtm:avx2 Nehalem:ssse3 qemu64:sse2; do
    model=${model_tier%%:*} tier=${model_tier##*:}
    say "qemu-x86_64 -cpu $model: detection must choose $tier"
    CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER="qemu-x86_64 -cpu $model" PCTENC_EXPECT_DETECTED="$tier" \
      PCTENC_TEST_BACKENDS="$tier" PROPTEST_CASES=${PROPTEST_CASES:-64} limit 600 "qemu-x86_64 -cpu $model: the kernels' tests" \
      cargo test --release --lib --bins "${kernel_tests[@]}"
  done
}

# AddressSanitizer: the suite but the API-semantics tests, std rebuilt instrumented, every
# x86 backend of this CPU
step_asan() {
  need_packages
  need_nightly
  # The kernels' own tests (every length, alignment and byte, the sets), and those of the
  # parallel paths, the streams, IRI, re-quoting and the CLI (its unit tests and
  # pctenc-cli/tests/cli/: memory maps, signal handling) run instrumented; the tests of what
  # the safe API returns (conformance data, examples, form pairs, normalization, the
  # properties) run on every other step and are left out here.
  local asan_tests
  mapfile -t asan_tests < <(tests_but conformance ergonomics examples form normalize properties)
  RUSTFLAGS=-Zsanitizer=address RUSTDOCFLAGS=-Zsanitizer=address PCTENC_SANITIZER=address \
    PCTENC_EXPECT_BACKENDS=$(cpu_backends) limit 1200 "AddressSanitizer" \
    cargo +nightly test -Zbuild-std --target x86_64-unknown-linux-gnu --lib --bins "${asan_tests[@]}"
}

# fuzzing: every target for a bounded time (FUZZ_SECONDS, 30 by default), failing on a finding
step_fuzz() {
  # A folder of its own: fuzz/ is a workspace of its own, built with sanitizer flags, which
  # share nothing with the other builds, and lanes A and B both build beside it.
  export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target/fuzz}
  need_nightly
  FUZZ_SECONDS=${FUZZ_SECONDS:-30} limit 900 "fuzzing" bash scripts/fuzz.sh
}

# the CLI on large inputs: the measuring script on a small file, the 32 MiB peak-memory
# bound from a pipe; the CPython oracle data of tests/charset.rs is what this CPython gives;
# the differential check against Node and Python
step_oracle() {
  need_packages
  cargo build --release --bin pctenc
  python3 scripts/large-inputs.py --mib 16 --stream-gib 0.25 --runs 1 --max-rss-mib 32
  python3 scripts/gen-charset-oracle.py --check
  python3 scripts/oracle-check.py target/release/pctenc --cases 2000
}

# the nginx module (pctenc-nginx/): built against Debian's nginx-dev, tested in a real nginx
# beside set-misc, then once more under Valgrind
step_nginx() {
  lane_b
  need_packages
  local module faults
  module=$(bash pctenc-nginx/build.sh | tail -n 1)
  # The test build whose values can make libpctenc's calls fail (the Faults tests).
  faults=$(PCTENC_NGINX_FAULTS=1 bash pctenc-nginx/build.sh | tail -n 1)
  cargo build --release --bin pctenc
  PCTENC_NGINX_MODULE=$module PCTENC_NGINX_FAULT_MODULE=$faults PCTENC_CLI=$CARGO_TARGET_DIR/release/pctenc \
    PCTENC_NGINX_VALGRIND=1 limit 600 "nginx module tests" python3 pctenc-nginx/t/test_module.py
  # The words of docs/WORDS.md on the same hostile inputs through the CLI, the C API and nginx
  # (Rust and SQL read the same file in their tests, Python in the python step).
  PCTENC_NGINX_MODULE=$module PCTENC_CLI=$CARGO_TARGET_DIR/release/pctenc \
    PCTENC_LIB=$CARGO_TARGET_DIR/release/libpctenc.so \
    limit 300 "words across surfaces" python3 scripts/words-check.py --surfaces cli,c,nginx
}

# the web page (web/): the module's tests and lints, the build, the browser tests in
# headless Chromium
step_web() {
  need_packages
  need_targets
  cargo clippy -p pctenc-web --all-targets -- -D warnings
  cargo clippy -p pctenc-web --target wasm32-unknown-unknown -- -D warnings
  cargo test -p pctenc-web
  bash web/build.sh
  (cd web/tests && npm ci --no-audit --no-fund --loglevel=error)
  WEB_SCREENSHOTS="${CI_OUTPUT_DIR:-target/ci-output}/web-screenshots" limit 300 "browser tests" node web/tests/browser.test.mjs
  # The words of docs/WORDS.md through the page's module, against the cases every surface checks.
  limit 300 "words across surfaces" python3 scripts/words-check.py --surfaces web
}

# Python (pctenc-python): maturin builds the abi3 wheel and the sdist, twine checks both, the
# wheel is installed (not the source tree) and pytest runs from outside the repository
step_python() {
  need_packages
  target/py-venv/bin/python -c '' 2>/dev/null || { rm -rf target/py-venv && python3 -m venv target/py-venv; }
  cargo clippy -p pctenc-python --all-targets -- -D warnings
  # `python -m pip`, not bin/pip: a venv kept in the build cache may come from a clone in
  # another folder, whose path bin/pip's first line names.
  target/py-venv/bin/python -m pip install --quiet --upgrade pip
  # pyarrow, Polars, DuckDB and pandas: pctenc.arrow's and pctenc.polars' tests need them all
  # (PCTENC_REQUIRE_ARROW makes a missing one a failure, not a skip).
  limit 900 "pip install" target/py-venv/bin/python -m pip install --quiet maturin twine \
    pytest hypothesis pyarrow polars duckdb pandas mypy
  # The packages as they would be published: the sdist, and the wheel (abi3, stripped) built
  # from it as `pip install` of the sdist would build it, so that what the sdist leaves out
  # fails here. Its files are touched: cargo would otherwise find the tree's build of the same
  # relative paths fresh, and not compile the sdist's sources.
  local dist=target/wheels/python root=$PWD target_dir unpacked
  target_dir=$(cd "${CARGO_TARGET_DIR:-target}" && pwd -P)
  rm -rf "$dist"
  target/py-venv/bin/maturin sdist -m pctenc-python/Cargo.toml -o "$dist"
  unpacked=$(mktemp -d)
  tar -xzf "$dist"/pctenc-*.tar.gz -C "$unpacked"
  find "$unpacked" -type f -exec touch {} +
  (cd "$unpacked"/pctenc-* && CARGO_TARGET_DIR=$target_dir \
    limit 900 "maturin build (from the sdist)" "$root/target/py-venv/bin/maturin" build --release -o "$root/$dist")
  rm -rf "$unpacked"
  target/py-venv/bin/python -m twine check --strict "$dist"/*
  ls -l "$dist"
  target/py-venv/bin/python -m pip install --quiet --force-reinstall --no-deps "$dist"/pctenc-*.whl
  # The native API's errors are compared with the Rust library's through its CLI.
  cargo build --release --bin pctenc
  # From a folder outside the repository, so that `import pctenc` is the installed wheel.
  local root=$PWD outside
  outside=$(mktemp -d)
  (cd "$outside" && "$root/target/py-venv/bin/python" -c \
    'import pctenc, sys; assert "site-packages" in pctenc.__file__, pctenc.__file__; print("testing", pctenc.__file__)')
  (cd "$outside" && PCTENC_CLI=$root/target/release/pctenc PCTENC_REQUIRE_CLI=1 PCTENC_REQUIRE_ARROW=1 \
    limit 600 "pytest pctenc-python" "$root/target/py-venv/bin/python" -m pytest "$root/pctenc-python" -q -p no:cacheprovider)
  rm -rf "$outside"
  # The words of docs/WORDS.md through pctenc.arrow, against the cases every surface checks.
  limit 300 "words across surfaces" target/py-venv/bin/python scripts/words-check.py --surfaces python
  # The stubs against the module as it runs (names, signatures, defaults), as pydantic-core
  # checks its own.
  limit 300 "stubtest" target/py-venv/bin/python -m mypy.stubtest pctenc
  # The examples in pctenc.arrow's and pctenc.polars' docstrings, on the installed package.
  limit 300 "doctests" target/py-venv/bin/python -m pytest -q -p no:cacheprovider --doctest-modules \
    --pyargs pctenc.arrow pctenc.polars
  # The benchmark scripts run (their figures are in docs/BENCHMARKS.md, from a full run).
  limit 300 "pctenc-python/bench.py" target/py-venv/bin/python pctenc-python/bench.py --quick
  limit 300 "pctenc-python/bench_arrow.py" target/py-venv/bin/python pctenc-python/bench_arrow.py --quick
}

# ---------------------------------------------------------------------------------------
# The dispatcher

steps() { declare -F | sed -n 's/^declare -f step_//p' | tr _ -; }

list() {
  local name
  for name in $(steps); do
    # The comment block right above the function, joined.
    printf '%-12s %s\n' "$name" "$(awk -v f="step_${name//-/_}() {" '
      /^# / { c = c (c ? " " : "") substr($0, 3); next }
      index($0, f) == 1 { print c; exit }
      { c = "" }' "$0")"
  done
}

times_table() {
  local file=$1
  [ -s "$file" ] || return 0
  awk -F'\t' '
    BEGIN { printf "\n%-14s %8s  %s\n", "step", "seconds", "status" }
    { printf "%-14s %8d  %s\n", $1, $2, $3; total += $2 }
    END { printf "%-14s %8d\n", "(sum)", total }' "$file"
}

main() {
  if [ $# -eq 0 ] || [ "$1" = -h ] || [ "$1" = --help ]; then
    sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
    echo
    list
    [ $# -gt 0 ]
    return
  fi
  if [ "$1" = list ]; then list; return; fi
  local name
  for name in "$@"; do
    declare -F "step_${name//-/_}" >/dev/null || { echo "ci.sh: no step \"$name\"; \`bash scripts/ci.sh list\` lists them" >&2; exit 2; }
  done
  local times=${PCTENC_CI_TIMES:-}
  local own=
  [ -n "$times" ] || { times=$(mktemp) && own=1; }
  local start status log
  for name in "$@"; do
    printf '\n==> %s (%s)\n' "$name" "$(date -u +%H:%M:%S)"
    start=$SECONDS
    # In a subshell, with errexit on inside it: not as `( ... ) || status=$?`, where bash
    # would ignore errexit for the whole step. Its output is also kept, to repeat its end
    # for .ci/run ($PCTENC_CI_FAILED) under the table, where the other lane's output does
    # not come between.
    log=$(mktemp)
    set +e
    (
      set -e
      "step_${name//-/_}"
    ) 2>&1 | tee "$log"
    status=${PIPESTATUS[0]}
    set -e
    [ "$status" -ne 0 ] || rm -f "$log"
    printf '%s\t%d\t%s\t%s\n' "$name" $((SECONDS - start)) "$([ "$status" -eq 0 ] && echo ok || echo "FAILED ($status)")" \
      "${PCTENC_CI_LANE:--}" >>"$times"
    if [ "$status" -ne 0 ]; then
      echo "step \"$name\" failed (status $status)" >&2
      if [ -n "${PCTENC_CI_FAILED:-}" ]; then
        { printf '\n==> step "%s" failed (status %d): the end of its output\n' "$name" "$status"
          tail -n 60 "$log"; } >>"$PCTENC_CI_FAILED"
      fi
      rm -f "$log"
      [ -z "$own" ] || { times_table "$times"; rm -f "$times"; }
      exit 1
    fi
  done
  [ -z "$own" ] || { times_table "$times"; rm -f "$times"; }
}

main "$@"
