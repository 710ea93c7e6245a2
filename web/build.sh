#!/usr/bin/env bash
# Builds the online encoder into web/dist/: pctenc_web.wasm (cargo, wasm32-unknown-unknown,
# release) and the page's static files. Prints the module's size.
#
#   bash web/build.sh                      # then: python3 -m http.server -d web/dist
set -euo pipefail
cd "$(dirname "$0")/.."
rustup target add wasm32-unknown-unknown >/dev/null 2>&1 || true
cargo build -p pctenc-web --target wasm32-unknown-unknown --release
target=${CARGO_TARGET_DIR:-target}
rm -rf web/dist
mkdir -p web/dist
cp web/static/index.html web/static/style.css web/static/app.js web/static/pctenc.js web/static/worker.js web/dist/
cp "$target/wasm32-unknown-unknown/release/pctenc_web.wasm" web/dist/
size=$(wc -c < web/dist/pctenc_web.wasm)
# Whole KiB, rounded to the nearest (as the READMEs give it).
echo "web/dist: pctenc_web.wasm is $size bytes ($(((size + 512) / 1024)) KiB)"
