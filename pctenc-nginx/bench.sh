#!/usr/bin/env bash
# The nginx module against set-misc, in a real nginx under wrk, on loopback: three locations
# that each decode one query argument and encode it again (pctenc_decode strict then
# pctenc_encode component; set_unescape_uri then set_escape_uri; and `return 200` of the raw
# argument, the baseline), for arguments of 100 B, 1 KiB and 64 KiB. One nginx worker and one
# wrk thread, each with a core of its own on a two-core machine. Each size runs in ROUNDS
# rounds, the three locations one after another in an order that turns each round, and each
# location's figure is its median: on a shared machine one wrk run of a few seconds varies by
# a fifth or more. Prints a table; with `--json FILE` writes the figures there
# (scripts/bench.sh nginx: benches/results/nginx.json).
#
#   bash pctenc-nginx/bench.sh [--json FILE] [--seconds N] [--rounds N]
set -euo pipefail
cd "$(dirname "$0")/.."
json= seconds=3 rounds=5
while [ $# -gt 0 ]; do
  case $1 in
    --json) json=$2 && shift 2 ;;
    --seconds) seconds=$2 && shift 2 ;;
    --rounds) rounds=$2 && shift 2 ;;
    *) echo "bench.sh: unknown argument $1" >&2 && exit 2 ;;
  esac
done
command -v wrk >/dev/null || { echo "bench.sh: wrk is not installed (apt-get install wrk)" >&2; exit 2; }
module=$(bash pctenc-nginx/build.sh | tail -n 1)
prefix=$(mktemp -d)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$prefix/tmp"
cat >"$prefix/nginx.conf" <<EOF
load_module $module;
load_module /usr/lib/nginx/modules/ndk_http_module.so;
load_module /usr/lib/nginx/modules/ngx_http_set_misc_module.so;
worker_processes 1;
pid $prefix/nginx.pid;
error_log $prefix/error.log warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path $prefix/tmp; proxy_temp_path $prefix/tmp; fastcgi_temp_path $prefix/tmp;
  uwsgi_temp_path $prefix/tmp; scgi_temp_path $prefix/tmp;
  large_client_header_buffers 4 256k;
  default_type text/plain;
  server {
    listen 127.0.0.1:$port backlog=1024;
    location = /pctenc { pctenc_decode \$d strict \$arg_v; pctenc_encode \$e component \$d; return 200 \$e; }
    location = /set-misc { set_unescape_uri \$d \$arg_v; set_escape_uri \$e \$d; return 200 \$e; }
    location = /baseline { return 200 \$arg_v; }
  }
}
EOF
nginx -p "$prefix" -c "$prefix/nginx.conf"
trap 'nginx -p "$prefix" -c "$prefix/nginx.conf" -s quit 2>/dev/null; sleep 0.5; rm -rf "$prefix"' EXIT
sleep 0.5

# An access-log-like argument of about SIZE bytes once encoded: paths, words, non-ASCII.
argument() {
  python3 - "$1" <<'EOF'
import random, sys, urllib.parse
size = int(sys.argv[1])
rng = random.Random(42)
words = ["search", "café", "Jürgen", "東京", "a b", "x=1&y=2", "/api/v1/items", "naïve", "😀", "100%"]
out = ""
while len(out) < size:
    out += urllib.parse.quote(rng.choice(words) + " ", safe="")
print(out[:size].rstrip("%0123456789ABCDEF") or "a")
EOF
}

results=$(mktemp)
locations=(pctenc set-misc baseline)
for size in 100 1024 65536; do
  arg=$(argument "$size")
  # Each location's answer first: decoding and encoding give the argument back.
  for location in pctenc set-misc; do
    curl -sf "http://127.0.0.1:$port/$location?v=$arg" -o "$prefix/out" && cmp -s "$prefix/out" <(printf '%s' "$arg") ||
      echo "note: /$location's answer differs from the argument at $size B" >&2
  done
  for ((round = 0; round < rounds; round++)); do
    for ((i = 0; i < ${#locations[@]}; i++)); do
      location=${locations[$(((i + round) % ${#locations[@]}))]}
      out=$(wrk -t1 -c16 -d"${seconds}s" --latency "http://127.0.0.1:$port/$location?v=$arg")
      rps=$(awk '/^Requests\/sec:/ {print $2}' <<<"$out")
      p99=$(awk '$1 == "99%" {print $2}' <<<"$out")
      printf '%s\t%s\t%s\t%s\n' "$size" "$location" "$rps" "$p99" | tee -a "$results"
    done
  done
done

python3 - "$results" "${json:-}" "$(nginx -v 2>&1 | sed 's/.*nginx\///')" "$seconds" "$rounds" <<'EOF'
import json, re, statistics, subprocess, sys, datetime
rows = [line.split("\t") for line in open(sys.argv[1]).read().splitlines()]
def ms(text):
    value, unit = re.match(r"([\d.]+)(us|ms|s)", text).groups()
    return float(value) * {"us": 1e-3, "ms": 1, "s": 1e3}[unit]
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
data = {
    "date": datetime.date.today().isoformat(), "cpu": cpu, "cores": len(re.findall(r"^processor", open("/proc/cpuinfo").read(), re.M)),
    "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], stdout=subprocess.PIPE, text=True).stdout.strip(),
    "nginx": sys.argv[3], "seconds": int(sys.argv[4]), "rounds": int(sys.argv[5]),
    "load": open("/proc/loadavg").read().split()[:3], "results": {},
}
runs = {}
for size, location, rps, p99 in rows:
    runs.setdefault(size, {}).setdefault(location, []).append((float(rps), ms(p99)))
for size, by in runs.items():
    for location, rs in by.items():
        data["results"].setdefault(size, {})[location] = {
            "requests_per_s": statistics.median(r for r, _ in rs), "p99_ms": statistics.median(p for _, p in rs),
            "runs": [r for r, _ in rs]}
print(f"{'size':>6} {'location':10} {'req/s':>10} {'p99 ms':>8}")
for size, by in data["results"].items():
    for location, r in by.items():
        print(f"{size:>6} {location:10} {r['requests_per_s']:>10.0f} {r['p99_ms']:>8.2f}")
    print(f"{size:>6} pctenc / set-misc: {by['pctenc']['requests_per_s'] / by['set-misc']['requests_per_s']:.2f}x")
if sys.argv[2]:
    with open(sys.argv[2], "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
EOF
rm -f "$results"
