#!/usr/bin/env bash
# CI for the C API (libpctenc, pctenc.h), called by .ci/run; runs alone too, from anywhere:
#   bash pctenc-capi/ci.sh
# The header is current; the libraries build; the C tests pass against libpctenc.a and
# libpctenc.so, under AddressSanitizer and UndefinedBehaviorSanitizer, and under Valgrind;
# the example and the README's program give their expected output; install.sh installs
# the header, the libraries with their SONAME links and pctenc.pc, into a staging folder and
# a temporary prefix, where the README's program builds with pkg-config alone; the
# differential test against the Rust API passes.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
capi=$root/pctenc-capi
export CARGO_TERM_COLOR=never
step() { printf '\n==> capi: %s\n' "$*"; }
cc=${CC:-cc}
cflags=(-std=c11 -O1 -g -Wall -Wextra -Werror -I"$capi/include")
# What the Rust standard library in libpctenc.a needs (`rustc --print native-static-libs`).
static_libs=(-lpthread -ldl -lm)

step "cbindgen, and the checked-in header is the one src/ gives"
cbindgen_version=0.29.4
if [ "$(cbindgen --version 2>/dev/null)" != "cbindgen $cbindgen_version" ]; then
  cargo install cbindgen --locked --version "$cbindgen_version"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$capi" && cbindgen --quiet --config cbindgen.toml --crate pctenc-capi --output "$work/pctenc.h")
if ! diff -u "$capi/include/pctenc.h" "$work/pctenc.h"; then
  echo "pctenc-capi/include/pctenc.h is stale: run, in pctenc-capi/," >&2
  echo "  cbindgen --config cbindgen.toml --crate pctenc-capi --output include/pctenc.h" >&2
  exit 1
fi

# The header stands alone in C99 and C11, pedantic, and in C++ (its extern "C" block).
for std in c99 c11; do
  $cc -std=$std -Wall -Wextra -pedantic -Werror -fsyntax-only -x c "$capi/include/pctenc.h"
done
${CXX:-c++} -std=c++11 -Wall -Wextra -pedantic -Werror -fsyntax-only -x c++ "$capi/include/pctenc.h"

step "format and clippy"
cargo fmt -p pctenc-capi --check
cargo clippy -p pctenc-capi --all-targets -- -D warnings

step "libpctenc.a and libpctenc.so (release)"
cargo build --release -p pctenc-capi
lib=$root/target/release
ls -l "$lib/libpctenc.a" "$lib/libpctenc.so"
# The shared library's SONAME, what programs linked against it ask for at run time; the
# README's install step links that name to the file.
# (grep reads all of it: `grep -q` would stop at the match and, under pipefail, fail the
# pipeline whenever the writer was still writing and got SIGPIPE.)
readelf -d "$lib/libpctenc.so" | grep 'Library soname: \[libpctenc.so.0\]' >/dev/null
ln -sf libpctenc.so "$lib/libpctenc.so.0"
# Every exported function is declared in the header, and the other way round.
nm -D --defined-only "$lib/libpctenc.so" | awk '$2 == "T" && $3 ~ /^pctenc_/ {print $3}' | sort >"$work/exported"
grep -oE '\bpctenc_[a-z_]+\(' "$capi/include/pctenc.h" | tr -d '(' | sort -u >"$work/declared"
diff -u "$work/declared" "$work/exported"

step "C tests against the static library"
for t in capi stream; do
  $cc "${cflags[@]}" "$capi/tests/$t.c" "$lib/libpctenc.a" "${static_libs[@]}" -o "$work/$t-static"
  "$work/$t-static"
done

step "out of memory in pctenc_form_parse: a status, not an abort (static and shared, plain)"
# Plain only: ASan and Valgrind reserve memory of their own that an address-space limit breaks.
$cc "${cflags[@]}" "$capi/tests/oom.c" "$lib/libpctenc.a" "${static_libs[@]}" -o "$work/oom-static"
"$work/oom-static"
$cc "${cflags[@]}" "$capi/tests/oom.c" -L"$lib" -lpctenc -Wl,-rpath,"$lib" -o "$work/oom-shared"
"$work/oom-shared"

step "out of memory when building handles and streams: a status, not an abort (static, plain)"
# Every allocation of libpctenc.a goes through the test's wrappers, which fail on request.
$cc "${cflags[@]}" "$capi/tests/oom_handles.c" "$lib/libpctenc.a" \
  -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=posix_memalign,--wrap=aligned_alloc \
  "${static_libs[@]}" -o "$work/oom-handles"
"$work/oom-handles"

step "C tests against the shared library"
$cc "${cflags[@]}" "$capi/tests/capi.c" -L"$lib" -lpctenc -Wl,-rpath,"$lib" -o "$work/capi-shared"
ldd "$work/capi-shared" | grep -F "libpctenc.so.0 => $lib/libpctenc.so.0" >/dev/null
"$work/capi-shared"

# The C side is instrumented (the tests, and every check of what they get back); the Rust
# code in libpctenc.a is the ordinary release build and is not. ASan still replaces malloc
# and free for both, so leaks and double frees of handles show, and intercepts memcpy. A
# write past a C buffer from Rust code is caught by the canaries the tests check after every
# short capacity, by the next step (Rust code instrumented), and by Valgrind, which sees
# every instruction.
step "C tests under AddressSanitizer and UndefinedBehaviorSanitizer (C side instrumented)"
for t in capi stream; do
  $cc "${cflags[@]}" -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
    "$capi/tests/$t.c" "$lib/libpctenc.a" "${static_libs[@]}" -o "$work/$t-asan"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 "$work/$t-asan"
done

step "C tests under AddressSanitizer with pctenc's Rust code instrumented too (nightly)"
# -Zsanitizer=address instruments pctenc and pctenc-capi (the Rust standard library is not
# rebuilt: its own code is not instrumented, but ASan intercepts its memcpy and malloc).
cargo +nightly --version >/dev/null 2>&1 || rustup toolchain install nightly --profile minimal >/dev/null
host=$(rustc -vV | sed -n 's/^host: //p')
RUSTFLAGS=-Zsanitizer=address cargo +nightly build --release -p pctenc-capi --lib --target "$host"
for t in capi stream; do
  $cc "${cflags[@]}" -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
    "$capi/tests/$t.c" "$root/target/$host/release/libpctenc.a" "${static_libs[@]}" -o "$work/$t-asan-rust"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 "$work/$t-asan-rust"
done

step "C tests under Valgrind (memcheck: the Rust side too)"
if ! command -v valgrind >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null
fi
# A check that cannot run fails the step instead of passing unseen.
command -v valgrind >/dev/null || { echo "valgrind is not installed and could not be installed"; exit 1; }
valgrind --quiet --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite \
  "$work/capi-static"
# The streams' differential on 4 inputs (60 elsewhere): every cut of each still runs.
valgrind --quiet --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite \
  "$work/stream-static" 4

step "the example (examples/proxy.c): the output in examples/proxy.expected"
$cc "${cflags[@]}" "$capi/examples/proxy.c" "$lib/libpctenc.a" "${static_libs[@]}" -o "$work/proxy"
"$work/proxy" >"$work/proxy.out"
diff -u "$capi/examples/proxy.expected" "$work/proxy.out"

step "the README's C program and cc lines, and pkg-config"
# The program is the ```c block of README.md's "C API" section; its output the ```text block
# after it.
awk '/^## C API/ {s = 1} s && /^```c$/ {p = 1; next} p && /^```$/ {exit} p' "$root/README.md" >"$work/hello.c"
awk '/^## C API/ {s = 1} s && /^```c$/ {c = 1} c && /^```text$/ {p = 1; next} p && /^```$/ {exit} p' \
  "$root/README.md" >"$work/hello.expected"
[ -s "$work/hello.c" ] && [ -s "$work/hello.expected" ]
# The issue asks for a ten-line program; it builds with every warning as an error.
[ "$(wc -l <"$work/hello.c")" -le 10 ]
$cc "${cflags[@]}" "$work/hello.c" "$lib/libpctenc.a" "${static_libs[@]}" -o "$work/hello-strict"
"$work/hello-strict" | diff -u "$work/hello.expected" -
(
  cd "$root"
  # The exact lines of the README, from the root of a checkout.
  cc -I pctenc-capi/include "$work/hello.c" target/release/libpctenc.a -lpthread -ldl -lm -o "$work/hello"
  "$work/hello" | diff -u "$work/hello.expected" -
  cc -I pctenc-capi/include "$work/hello.c" -L target/release -lpctenc -Wl,-rpath,"$PWD/target/release" -o "$work/hello"
  "$work/hello" | diff -u "$work/hello.expected" -
)
# From C++: the same program, the header's extern "C" linkage.
${CXX:-c++} -std=c++11 -Wall -Wextra -Werror -I "$capi/include" -x c++ "$work/hello.c" -x none \
  "$lib/libpctenc.a" "${static_libs[@]}" -o "$work/hello-cpp"
"$work/hello-cpp" | diff -u "$work/hello.expected" -
step "install.sh: a package's staging folder (--destdir) holds the files and links"
version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$capi/Cargo.toml")
bash "$capi/install.sh" --no-build --prefix /usr --libdir /usr/lib/x86_64-linux-gnu --destdir "$work/stage"
(cd "$work/stage" && find . \( -type f -o -type l \) -printf '%p %l\n' | LC_ALL=C sort) >"$work/staged"
LC_ALL=C sort >"$work/staged.expected" <<END
./usr/include/pctenc.h 
./usr/lib/x86_64-linux-gnu/libpctenc.a 
./usr/lib/x86_64-linux-gnu/libpctenc.so libpctenc.so.0
./usr/lib/x86_64-linux-gnu/libpctenc.so.$version 
./usr/lib/x86_64-linux-gnu/libpctenc.so.0 libpctenc.so.$version
./usr/lib/x86_64-linux-gnu/pkgconfig/pctenc.pc 
END
diff -u "$work/staged.expected" "$work/staged"
grep -x 'prefix=/usr' "$work/stage/usr/lib/x86_64-linux-gnu/pkgconfig/pctenc.pc" >/dev/null
grep -xF 'libdir=${prefix}/lib/x86_64-linux-gnu' "$work/stage/usr/lib/x86_64-linux-gnu/pkgconfig/pctenc.pc" >/dev/null

step "install.sh into a temporary prefix, and the README's program built with pkg-config alone"
# A prefix with the shared and static libraries, as install.sh leaves it, and one where
# only the static library is installed.
for kind in shared static; do
  prefix=$work/prefix-$kind
  bash "$capi/install.sh" --no-build --prefix "$prefix"
  [ "$kind" = shared ] || rm "$prefix"/lib/libpctenc.so*
  export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
  [ "$(pkg-config --modversion pctenc)" = "$version" ]
  if [ "$kind" = shared ]; then
    # shellcheck disable=SC2046
    cc "$work/hello.c" $(pkg-config --cflags --libs pctenc) -Wl,-rpath,"$prefix/lib" -o "$work/hello-pc"
    # It loads the installed library by its SONAME.
    ldd "$work/hello-pc" | grep -F "libpctenc.so.0 => $prefix/lib/libpctenc.so.0" >/dev/null
  else
    # shellcheck disable=SC2046
    cc "$work/hello.c" $(pkg-config --static --cflags --libs pctenc) -o "$work/hello-pc"
    # And fully static: no shared library at all at run time.
    # shellcheck disable=SC2046
    cc -static "$work/hello.c" $(pkg-config --static --cflags --libs pctenc) -o "$work/hello-pc-static" 2>"$work/static.log" ||
      { cat "$work/static.log"; exit 1; }
    readelf -d "$work/hello-pc-static" | grep 'There is no dynamic section' >/dev/null
    "$work/hello-pc-static" | diff -u "$work/hello.expected" -
  fi
  "$work/hello-pc" | diff -u "$work/hello.expected" -
  echo "pkg-config ($kind): ok"
done

step "differential test: the C entry points against the Rust API (release, many cases)"
PROPTEST_CASES=${PROPTEST_CASES:-2000} cargo test --release -p pctenc-capi

step "done"
