#!/usr/bin/env python3
"""pctenc's drop-ins against urllib.parse, in one run: quote, unquote, quote_plus and
unquote_plus on 64 KiB of an access-log mix and on 30-byte strings; each of the six drop-ins
in single short calls (1 to 100 bytes) with nothing to change and with work to do; and
encode_many on a million short strings against a list comprehension over urllib.parse.quote. Medians of
repeated timeit runs; both sides' results are checked equal first.

    python3 pctenc-python/bench.py [--json benches/results/python.json] [--quick]
"""
import argparse
import datetime
import json
import platform
import random
import statistics
import subprocess
import sys
import timeit
import urllib.parse as up

import pctenc

WORDS = ["rust", "simd", "percent", "encoding", "café", "naïve", "Jürgen", "Björk", "東京", "서울", "Москва",
         "price=10€", "a&b", "100%", "C++", "path/to", "x y", "über", "smörgåsbord", "中文", "emoji😀"]
AGENTS = ["Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36",
          "curl/8.5.0", "python-requests/2.31.0"]


def log_text(size, rng):
    """Access-log lines: paths, raw queries with spaces and `&`, UTF-8 names, user agents."""
    out = []
    n = 0
    while n < size:
        w = [rng.choice(WORDS) for _ in range(3)]
        line = (f"203.0.113.{rng.randrange(256)} - - [03/Dec/2026:10:{rng.randrange(60):02d}:00 +0000] "
                f"\"GET /{w[0]}/{w[1]}?q={w[2]} {w[0]}&page={rng.randrange(100)}&lang=fr HTTP/1.1\" 200 "
                f"{rng.randrange(99999)} \"{rng.choice(AGENTS)}\"\n")
        out.append(line)
        n += len(line.encode())
    text = "".join(out).encode()[:size].decode("utf-8", "ignore")
    return text


def median_ns(fn, number, repeat):
    times = timeit.repeat(fn, number=number, repeat=repeat)
    return statistics.median(times) / number * 1e9


def call_ns(f, arg, number, repeat):
    """The median time of one call `f(arg)`, the call compiled as a statement (no lambda)."""
    timer = timeit.Timer("f(arg)", globals={"f": f, "arg": arg})
    return statistics.median(timer.repeat(repeat=repeat, number=number)) / number * 1e9


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ap.add_argument("--quick", action="store_true", help="fewer repetitions (for CI)")
    args = ap.parse_args()
    rng = random.Random(2026)
    repeat = 3 if args.quick else 7
    big = log_text(64 << 10, rng)
    big_enc = up.quote(big)
    big_plus = up.quote_plus(big)
    shorts = [log_text(200, rng)[:30] for _ in range(1000)]
    shorts_enc = [up.quote(s) for s in shorts]
    shorts_plus = [up.quote_plus(s) for s in shorts]
    results = []

    def pair(name, ours, theirs, arg, number):
        assert ours(arg) == theirs(arg), name
        o = median_ns(lambda: ours(arg), number, repeat)
        t = median_ns(lambda: theirs(arg), number, repeat)
        results.append({"name": name, "pctenc_ns": round(o, 1), "urllib_ns": round(t, 1), "speedup": round(t / o, 2)})
        print(f"{name:28} pctenc {o:12.1f} ns  urllib {t:12.1f} ns  {t / o:6.1f}x", flush=True)

    for fname, data in [("quote", big), ("unquote", big_enc), ("quote_plus", big), ("unquote_plus", big_plus)]:
        pair(f"{fname} 64 KiB", getattr(pctenc, fname), getattr(up, fname), data, 20)

    def per_call(fname, items):
        ours, theirs = getattr(pctenc, fname), getattr(up, fname)
        return (lambda _: [ours(s) for s in items]), (lambda _: [theirs(s) for s in items])

    for fname, items in [("quote", shorts), ("unquote", shorts_enc), ("quote_plus", shorts), ("unquote_plus", shorts_plus)]:
        ours, theirs = per_call(fname, items)
        assert ours(0) == theirs(0)
        o = median_ns(lambda: ours(0), 5, repeat) / len(items)
        t = median_ns(lambda: theirs(0), 5, repeat) / len(items)
        results.append({"name": f"{fname} 30 B", "pctenc_ns": round(o, 1), "urllib_ns": round(t, 1), "speedup": round(t / o, 2)})
        print(f"{fname + ' 30 B':28} pctenc {o:12.1f} ns  urllib {t:12.1f} ns  {t / o:6.1f}x", flush=True)

    # Single short calls, as most real calls are: each drop-in on values with nothing to change
    # (CPython often returns the argument itself there) and on values that need work.
    no_op = {
        "quote": lambda n: ("/products/" * 10)[:n],
        "quote_plus": lambda n: ("products-1" * 10)[:n],
        "quote_from_bytes": lambda n: (b"/products/" * 10)[:n],
        "unquote": lambda n: ("/static/app.js" * 8)[:n],
        "unquote_plus": lambda n: ("/static/app.js" * 8)[:n],
        "unquote_to_bytes": lambda n: ("/static/app.js" * 8)[:n],
    }
    work = {
        "quote": lambda n: ("a b/é?x=1&" * 10)[:n],
        "quote_plus": lambda n: ("a b/é?x=1&" * 10)[:n],
        "quote_from_bytes": lambda n: ("a b/é?x=1&" * 10).encode()[:n],
        "unquote": lambda n: ("a%20b%2Fc%C3%A9" * 8)[:n],
        "unquote_plus": lambda n: ("a+b%2Fc%C3%A9+" * 8)[:n],
        "unquote_to_bytes": lambda n: ("a%20b%2Fc%C3%A9" * 8)[:n],
    }
    calls = 20_000 if args.quick else 200_000
    for kind, inputs, sizes in [("no-op", no_op, [1, 10, 30, 100]), ("work", work, [10, 30])]:
        for fname, make in inputs.items():
            for n in sizes:
                arg = make(n)
                ours, theirs = getattr(pctenc, fname), getattr(up, fname)
                assert ours(arg) == theirs(arg), (fname, arg)
                o = call_ns(ours, arg, calls, repeat)
                t = call_ns(theirs, arg, calls, repeat)
                name = f"{fname} {kind} {n} B"
                results.append({"name": name, "pctenc_ns": round(o, 1), "urllib_ns": round(t, 1), "speedup": round(t / o, 2)})
                print(f"{name:28} pctenc {o:12.1f} ns  urllib {t:12.1f} ns  {t / o:6.1f}x", flush=True)

    million = [s[: 10 + i % 20] for i, s in zip(range(1_000_000), __import__("itertools").cycle(shorts))]
    assert pctenc.encode_many(million[:1000], "python-quote") == [up.quote(s) for s in million[:1000]]
    o = median_ns(lambda: pctenc.encode_many(million, "python-quote"), 1, repeat)
    t = median_ns(lambda: [up.quote(s) for s in million], 1, max(3, repeat // 2))
    results.append({"name": "encode_many 1M strings", "pctenc_ns": round(o, 1), "urllib_ns": round(t, 1), "speedup": round(t / o, 2)})
    print(f"{'encode_many 1M strings':28} pctenc {o / 1e6:9.1f} ms  urllib {t / 1e6:9.1f} ms  {t / o:6.1f}x", flush=True)

    if args.json:
        doc = {
            "date": datetime.date.today().isoformat(),
            "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip(),
            "cpu": next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.processor()),
            "python": sys.version.split()[0],
            "repeat": repeat,
            "results": results,
        }
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
