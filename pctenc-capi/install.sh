#!/usr/bin/env bash
# Installs libpctenc as C libraries are installed, from a checkout:
#
#   bash pctenc-capi/install.sh                              # into /usr/local
#   bash pctenc-capi/install.sh --prefix /usr --libdir /usr/lib/x86_64-linux-gnu
#   bash pctenc-capi/install.sh --prefix /usr --destdir "$pkgdir"    # a package's staging
#
# What it installs (LIBDIR is PREFIX/lib unless --libdir, INCLUDEDIR PREFIX/include unless
# --includedir; every path under DESTDIR when given, as `make install DESTDIR=` does):
#   INCLUDEDIR/pctenc.h
#   LIBDIR/libpctenc.a
#   LIBDIR/libpctenc.so.VERSION, with the links libpctenc.so.0 (its SONAME, the name a
#     program linked against it loads) and libpctenc.so (the name `-lpctenc` finds)
#   LIBDIR/pkgconfig/pctenc.pc
# It builds the libraries first (cargo build --release -p pctenc-capi) unless --no-build,
# taking them from $CARGO_TARGET_DIR (or target/). On Linux only: the SONAME is an ELF
# field (build.rs sets it).
set -euo pipefail
usage() { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; }

prefix=/usr/local libdir= includedir= destdir=${DESTDIR:-} build=1
while [ $# -gt 0 ]; do
  case $1 in
    --prefix) prefix=${2:?--prefix needs a directory}; shift 2 ;;
    --libdir) libdir=${2:?--libdir needs a directory}; shift 2 ;;
    --includedir) includedir=${2:?--includedir needs a directory}; shift 2 ;;
    --destdir) destdir=${2:?--destdir needs a directory}; shift 2 ;;
    --no-build) build=; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "install.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
for dir in "$prefix" "${libdir:-/}" "${includedir:-/}"; do
  [[ $dir == /* ]] || { echo "install.sh: '$dir' is not an absolute path" >&2; exit 2; }
done
# In pctenc.pc, relative to ${prefix} where they are under it, so the file reads as usual.
pc_libdir=${libdir:-$prefix/lib} pc_includedir=${includedir:-$prefix/include}
libdir=${libdir:-$prefix/lib} includedir=${includedir:-$prefix/include}
[[ $pc_libdir != "$prefix"/* ]] || pc_libdir="\${prefix}${pc_libdir#"$prefix"}"
[[ $pc_includedir != "$prefix"/* ]] || pc_includedir="\${prefix}${pc_includedir#"$prefix"}"

cd "$(dirname "$0")/.."
capi=$PWD/pctenc-capi
version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$capi/Cargo.toml" | head -n 1)
[ "${build:-}" = "" ] || cargo build --release -p pctenc-capi >&2
built=${CARGO_TARGET_DIR:-$PWD/target}/release
for file in libpctenc.a libpctenc.so; do
  [ -f "$built/$file" ] || { echo "install.sh: no $built/$file (build it, or drop --no-build)" >&2; exit 2; }
done
soname=$(readelf -d "$built/libpctenc.so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = "libpctenc.so.${version%%.*}" ] ||
  { echo "install.sh: libpctenc.so's SONAME is '$soname', not libpctenc.so.${version%%.*}" >&2; exit 1; }

lib=$destdir$libdir include=$destdir$includedir
install -d "$lib/pkgconfig" "$include"
install -m 644 "$capi/include/pctenc.h" "$include/pctenc.h"
install -m 644 "$built/libpctenc.a" "$lib/libpctenc.a"
install -m 755 "$built/libpctenc.so" "$lib/libpctenc.so.$version"
ln -sfn "libpctenc.so.$version" "$lib/$soname"
ln -sfn "$soname" "$lib/libpctenc.so"
sed -e "s|@PREFIX@|$prefix|" -e "s|@LIBDIR@|$pc_libdir|" -e "s|@INCLUDEDIR@|$pc_includedir|" \
  -e "s|@VERSION@|$version|" -e '/^# pkg-config file for libpctenc/d' \
  "$capi/pctenc.pc.in" >"$lib/pkgconfig/pctenc.pc"
chmod 644 "$lib/pkgconfig/pctenc.pc"
echo "installed libpctenc $version: $include/pctenc.h, $lib/libpctenc.{a,so,so.0,so.$version}, $lib/pkgconfig/pctenc.pc"
