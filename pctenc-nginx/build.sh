#!/usr/bin/env bash
# Builds ngx_http_pctenc_module.so, the dynamic module, for the nginx installed from Debian's
# or Ubuntu's packages: libpctenc.a (cargo, release), then the module against the nginx
# source tree that `nginx-dev` ships (/usr/share/nginx/src, configured with the packaged
# nginx's flags, so that the module is binary-compatible with it). Prints the module's path
# as its last line.
#
#   bash pctenc-nginx/build.sh            # needs: nginx-dev, a C compiler, cargo
#   PCTENC_NGINX_FAULTS=1 bash pctenc-nginx/build.sh    # the test build whose VALUEs can make
#                                                        # libpctenc's calls fail (t/, Faults),
#                                                        # in target/nginx-module-faults
#   NGINX_SRC=/path/to/nginx-1.x bash pctenc-nginx/build.sh   # any source tree, configured
#                                                             # with the flags of the nginx
#                                                             # that will load the module
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
src=${NGINX_SRC:-/usr/share/nginx/src}
[ -x "$src/configure" ] || { echo "build.sh: no nginx source tree at $src (install nginx-dev, or set NGINX_SRC)" >&2; exit 2; }

cargo build --release -p pctenc-capi >&2
target=${CARGO_TARGET_DIR:-$root/target}
lib=$target/release

# configure writes objs/ into the tree: work on a copy.
build=$target/nginx-module
[ "${PCTENC_NGINX_FAULTS:-}" != 1 ] || build=$target/nginx-module-faults
rm -rf "$build"
mkdir -p "$build"
cp -a "$src/." "$build/src"
flags=()
if [ -f "$src/conf_flags" ]; then
  # Debian's file holds `NGX_CONF_FLAGS=( ... )`: the packaged nginx's configure flags.
  # shellcheck disable=SC1091
  . "$src/conf_flags"
  flags=("${NGX_CONF_FLAGS[@]}")
fi
(
  cd "$build/src"
  PCTENC_LIB=$lib PCTENC_INCLUDE=$root/pctenc-capi/include \
    ./configure "${flags[@]}" --add-dynamic-module="$root/pctenc-nginx" >"$build/configure.log" 2>&1 ||
    { cat "$build/configure.log" >&2; exit 1; }
  make -f objs/Makefile modules >"$build/make.log" 2>&1 || { cat "$build/make.log" >&2; exit 1; }
)
echo "$build/src/objs/ngx_http_pctenc_module.so"
