#!/usr/bin/env bash
# The build cache: compiled dependencies kept between runs on one machine, so that CI and a
# developer's builds on that machine start warm. `target/` (and `fuzz/target/`) become links
# into an entry of the cache, one entry per toolchain and lock file:
#
#   bash scripts/cache.sh link      # ./target and fuzz/target -> the entry for this checkout
#   bash scripts/cache.sh seal      # after a run: checksums of the entry, eviction
#   bash scripts/cache.sh status    # the entries, their sizes, and where target/ points
#   bash scripts/cache.sh unlink    # ./target and fuzz/target back to plain folders (empty)
#   bash scripts/cache.sh clear     # removes every entry
#
# The cache lives in $PCTENC_CACHE_DIR (default ~/.cache/pctenc). An entry's name is a hash
# of `rustc -vV` of the stable and nightly toolchains and of the third-party packages of
# Cargo.lock and fuzz/Cargo.lock:
# a new toolchain or a dependency change starts a new entry, and the old ones are evicted,
# least recently used first, once all of them are over $PCTENC_CACHE_GIB (default 40) GiB.
#
# A cache never changes a result:
# - pctenc's own crates are always compiled from the checkout: `link`, when another checkout
#   used the entry last, and `seal` remove what cargo recorded of their builds (see
#   `forget_own`), so only dependencies are ever reused. One checkout uses an entry at a
#   time: after building in another, `bash scripts/cache.sh link` again (scripts/check.sh
#   does it on every run);
# - `seal` records a checksum of every file of the entry; `link` checks them, and drops an
#   entry where a file changed without being written again (a disk error, a file cut short)
#   or one that was left open by a run that was stopped, instead of trusting it;
# - with less than $PCTENC_CACHE_MIN_FREE_GIB (default 10) GiB free on the cache's disk, older
#   entries are evicted, and if that is not enough, the cache is not used at all;
# - PCTENC_CACHE=off (or an empty cache) is a cold run: CI passes either way.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
cache=${PCTENC_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pctenc}
max_gib=${PCTENC_CACHE_GIB:-40}
min_free_gib=${PCTENC_CACHE_MIN_FREE_GIB:-10}

log() { echo "cache: $*" >&2; }

key() {
  {
    rustc +stable -vV 2>/dev/null || rustc -vV
    rustc +nightly -vV 2>/dev/null || echo "no nightly"
    # The lock files' third-party packages, those with a `source`: the workspace's own
    # (pctenc, its members, the fuzz crate) are rebuilt from the checkout anyway, so adding a
    # member or a dependency edge of one does not start a cold entry.
    cat Cargo.lock fuzz/Cargo.lock 2>/dev/null | awk -v RS= '/\nsource = /'
  } | sha256sum | cut -c1-16
}

# Free GiB on the cache's disk.
free_gib() { df -P -k "$cache" | awk 'NR == 2 { print int($4 / 1048576) }'; }

# Entries, least recently used first.
entries_lru() {
  local entry
  for entry in "$cache"/target-*; do
    [ -d "$entry" ] || continue
    printf '%s %s\n' "$(cat "$entry/.cache/used" 2>/dev/null || echo 0)" "$entry"
  done | sort -n | cut -d' ' -f2-
}

drop_entry() {
  log "dropping $(basename "$1"): $2"
  rm -rf "$1"
}

# A process's start time (clock ticks after boot): with its pid, who opened an entry.
started() { awk '{ print $22 }' "/proc/$1/stat" 2>/dev/null || true; }

# Forgets what cargo built of pctenc's own crates (every package of the workspace and of
# fuzz/ is named pctenc*): their fingerprints, outputs and build scripts' outputs, and rustc's
# incremental state. cargo decides that a crate is up to date when no source file is newer
# than its last build, which is only true of the checkout that built it, and not always
# checked: Miri's test "binaries" (JSON files naming the dependencies by absolute path) record
# no source file at all. Without its fingerprint, a crate is compiled again from the checkout
# at hand. Dependencies keep theirs. Both of cargo's layouts: `.fingerprint/PKG-HASH/` and
# `build/PKG-HASH/` (stable), `build/PKG/HASH/{fingerprint,out}` (nightly's new build-dir).
forget_own() {
  find "$1" -type d \( -path '*/.fingerprint/pctenc*' -o -path '*/build/pctenc*' -o -path '*/incremental/pctenc*' \) \
    -prune -exec rm -rf {} +
}

# Points `link` at `dest`: a link into the cache, or back to a plain folder.
point() {
  local link=$1 dest=$2
  if [ -L "$link" ]; then
    rm "$link"
  elif [ -e "$link" ]; then
    # A plain folder of build output: cargo rebuilds what it held, in the cache.
    rm -rf "$link"
  fi
  [ -z "$dest" ] || ln -s "$dest" "$link"
}

cmd_link() {
  if [ "${PCTENC_CACHE:-on}" = off ]; then
    log "PCTENC_CACHE=off: target/ is a plain folder"
    [ -L target ] && point target ""
    [ -L fuzz/target ] && point fuzz/target ""
    return 0
  fi
  mkdir -p "$cache"
  local entry
  entry=$cache/target-$(key)
  # Linked already, by this checkout, and not left to another since: nothing to do.
  if [ -L target ] && [ "$(readlink target)" = "$entry" ] && [ -d "$entry" ] \
    && [ "$(cat "$entry/.cache/checkout" 2>/dev/null)" = "$root" ] \
    && [ "$(cat "$entry/.cache/state" 2>/dev/null)" = "open developer" ] && [ -z "${PCTENC_CACHE_OWNER:-}" ]; then
    date +%s >"$entry/.cache/used"
    return 0
  fi
  # Room on the disk first: evict the least recently used entries but this one.
  local other
  for other in $(entries_lru); do
    [ "$(free_gib)" -lt "$min_free_gib" ] || break
    [ "$other" = "$entry" ] || drop_entry "$other" "less than $min_free_gib GiB free on the disk"
  done
  if [ "$(free_gib)" -lt "$min_free_gib" ]; then
    [ -d "$entry" ] && drop_entry "$entry" "less than $min_free_gib GiB free on the disk"
    log "less than $min_free_gib GiB free: not using the cache"
    [ -L target ] && point target ""
    [ -L fuzz/target ] && point fuzz/target ""
    return 0
  fi
  if [ -d "$entry" ]; then
    local state
    state=$(cat "$entry/.cache/state" 2>/dev/null || echo missing)
    case $state in
      sealed | "open developer") ;;
      open\ *)
        # Opened by a run that is gone (pid and start time no longer match): it may have been
        # stopped while a file was half written.
        local pid start
        read -r _ pid start <<<"$state"
        if [ "$(started "$pid")" != "$start" ]; then
          drop_entry "$entry" "the run that opened it (pid $pid) ended without sealing it"
        fi
        ;;
      *) drop_entry "$entry" "no record of its state" ;;
    esac
    # The files as `seal` left them (see scripts/cache-manifest.py).
    local problem
    if [ -d "$entry" ] && [ -e "$entry/.cache/manifest" ] && ! problem=$(python3 scripts/cache-manifest.py check "$entry"); then
      drop_entry "$entry" "$problem"
    fi
  fi
  if [ -d "$entry" ]; then
    forget_own "$entry"
    log "warm: $entry ($(du -sh "$entry" | cut -f1))"
  else
    log "cold: $entry"
    mkdir -p "$entry/.cache" "$entry/fuzz"
  fi
  # CI says whose it is (PCTENC_CACHE_OWNER, the pid of the run); otherwise a developer's.
  if [ -n "${PCTENC_CACHE_OWNER:-}" ]; then
    echo "open $PCTENC_CACHE_OWNER $(started "$PCTENC_CACHE_OWNER")" >"$entry/.cache/state"
  else
    echo "open developer" >"$entry/.cache/state"
  fi
  date +%s >"$entry/.cache/used"
  echo "$root" >"$entry/.cache/checkout"
  mkdir -p "$entry/fuzz"
  point target "$entry"
  point fuzz/target "$entry/fuzz"
}

cmd_seal() {
  [ -L target ] || { log "target/ is not in the cache: nothing to seal"; return 0; }
  local entry
  entry=$(readlink target)
  [ -d "$entry/.cache" ] || { log "$entry is not a cache entry"; return 1; }
  date +%s >"$entry/.cache/used"
  # What this checkout built of pctenc is for this checkout alone.
  forget_own "$entry"
  echo sealed >"$entry/.cache/checkout"
  local start=$SECONDS files
  files=$(python3 scripts/cache-manifest.py write "$entry")
  echo sealed >"$entry/.cache/state"
  log "sealed $(basename "$entry"): $files files, $(du -sh "$entry" | cut -f1), checksums in $((SECONDS - start)) s"
  # The size cap: the least recently used entries go first; this one last.
  local total other
  for other in $(entries_lru); do
    total=$(du -s -k "$cache" | awk '{ print int($1 / 1048576) }')
    [ "$total" -gt "$max_gib" ] || break
    [ "$other" = "$entry" ] && continue
    drop_entry "$other" "the cache is over $max_gib GiB"
  done
  total=$(du -s -k "$cache" | awk '{ print int($1 / 1048576) }')
  if [ "$total" -gt "$max_gib" ]; then
    drop_entry "$entry" "it alone is over $max_gib GiB"
    point target ""
    point fuzz/target ""
  fi
}

cmd_status() {
  echo "cache: $cache (cap $max_gib GiB, $( [ -d "$cache" ] && free_gib || echo '?') GiB free)"
  local entry
  for entry in $(entries_lru); do
    printf '  %s  %s  %s  last used %s\n' "$(basename "$entry")" "$(du -sh "$entry" | cut -f1)" \
      "$(cat "$entry/.cache/state" 2>/dev/null || echo '?')" "$(date -d "@$(cat "$entry/.cache/used" 2>/dev/null || echo 0)" '+%F %T')"
  done
  echo "this checkout's key: target-$(key)"
  if [ -L target ]; then echo "target -> $(readlink target)"; else echo "target is a plain folder"; fi
}

case ${1:-} in
  link) cmd_link ;;
  seal) cmd_seal ;;
  status) cmd_status ;;
  unlink) point target "" && point fuzz/target "" ;;
  clear) point target "" && point fuzz/target "" && rm -rf "$cache" && log "cleared $cache" ;;
  *) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
