#!/usr/bin/env python3
"""Differential check of the `pctenc` binary against the real implementations.

Oracles: Node's encodeURIComponent / encodeURI / decodeURIComponent / decodeURI / unescape /
URLSearchParams (one `node` process for all cases, JSON in and out) and Python's urllib.parse
quote / quote_plus / unquote_to_bytes / unquote_plus.

unescape reads `%HH` as the Latin-1 code point U+00HH, which is not pctenc's semantics (the
byte 0xHH), so the `--legacy-u` checks run on inputs whose `%HH` escapes are all ASCII (where
the two agree), with `%uHHHH` escapes of every kind (surrogate pairs, lone surrogates, ASCII,
BMP), malformed `%` and `%u`, and raw text. Node turns unescape's result into UTF-8 with each
lone surrogate as U+FFFD (`Buffer.from`), which is what `--lenient --legacy-u` does.

Usage:
    scripts/oracle-check.py [PCTENC_BINARY] [--cases N] [--seed S] [--jobs J] [--alone K] [--no-batch]

Without PCTENC_BINARY the crate is built with `cargo build --release` (into $CARGO_TARGET_DIR,
or target/) and that binary is used.

pctenc is run once per set/mode on batches: `encode --binary` on all cases joined by a sentinel
made only of characters every checked set keeps (so it comes out unchanged and the output can
be split exactly), plus line mode on all cases without CR/LF joined by `\\n`. Decoding uses the
same trick with a sentinel that holds no `%` and no `+` and starts and ends with `\\n`, so no
escape or UTF-8 sequence can straddle it. A batch that fails or does not split into the expected
number of pieces is re-run one process per case. Cases that must make `decode --utf8 strict`
fail always run one process per case. So that start- and end-of-stream behaviour is checked
too, every case of at most 3 bytes and K (`--alone`, default 200) random cases per check also
run in a process of their own. `--no-batch` runs every case in its own process (slower).

Every check prints `name: N passed, M failed` and up to 5 mismatches; the last line is
`oracle-check: N passed, M failed` over all checks. Exit status: 0 all passed, 1 a mismatch,
2 a setup problem (node or a Python feature missing, build failure).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARTICLES = sorted((ROOT / "benches" / "data").glob("article-*.txt"))
URLTESTDATA = Path("/work/shared/conformance/wpt/urltestdata.json")

# Kept by every encode set checked here (letters, digits, `-`, `.`, `_`), no `%`, no `+`.
ENC_SEP = b"-Qz9.SPLIT_7d1e9b4a.Zq8-"
ENC_SEP_CORE = b"SPLIT_7d1e9b4a"
# No `%`, no `+`, starts and ends with a non-hex byte: decoding it gives itself and no escape
# or UTF-8 sequence can straddle it.
DEC_SEP = b"\n~#SPLIT_7d1e9b4a#~\n"
DEC_SEP_CORE = b"SPLIT_7d1e9b4a"
BATCH = 512  # cases per pctenc process in batched mode
MAX_SHOWN = 5


class SetupError(Exception):
    pass


# --------------------------------------------------------------------------------------------
# Oracles
# --------------------------------------------------------------------------------------------

NODE_SCRIPT = r"""
'use strict';
const fail = (m) => { process.stderr.write('oracle-check node: ' + m + '\n'); process.exit(3); };
for (const f of ['encodeURIComponent', 'encodeURI', 'decodeURIComponent', 'decodeURI', 'unescape', 'URLSearchParams'])
  if (typeof globalThis[f] !== 'function') fail('missing ' + f);
// Self-test: the features behave as the checks assume.
if (encodeURIComponent('\u00e9 !*') !== '%C3%A9%20!*') fail('encodeURIComponent self-test');
if (encodeURI('a b#?') !== 'a%20b#?') fail('encodeURI self-test');
if (new URLSearchParams([['a', 'x y*~']]).toString() !== 'a=x+y*%7E') fail('URLSearchParams serializer self-test');
if (new URLSearchParams('a=%zz+%C3').get('a') !== '%zz \ufffd') fail('URLSearchParams parser self-test');
try { decodeURIComponent('%'); fail('decodeURIComponent did not throw'); } catch (e) { if (!(e instanceof URIError)) fail('decodeURIComponent threw ' + e); }
if (decodeURI('%2f%41%23') !== '%2fA%23') fail('decodeURI self-test');
if (unescape('%uD83D%uDE00%u00e9%U0041%41') !== '\ud83d\ude00\u00e9%U0041A') fail('unescape self-test');
if (Buffer.from('\ud800', 'utf8').toString('hex') !== 'efbfbd') fail('Buffer.from lone surrogate self-test');
const chunks = [];
process.stdin.on('data', (c) => chunks.push(c));
process.stdin.on('end', () => {
  const req = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  const wrap = (f) => (s) => {
    try { return { v: f(s) }; } catch (e) { return { e: (e && e.name ? e.name + ': ' + e.message : String(e)) }; }
  };
  const form = (s) => {
    const t = new URLSearchParams([['a', s]]).toString();
    if (!t.startsWith('a=')) throw new Error('serialization lacks a=: ' + t);
    return t.slice(2);
  };
  // Node 20's URLSearchParams parser (lib/internal/url.js parseParams) runs querystring.unescape:
  // decodeURIComponent, and when that throws, a byte-wise unescape that truncates each UTF-16
  // code unit to one byte, so a raw non-ASCII character next to an escape decodeURIComponent
  // rejects comes out wrong (new URLSearchParams('a=%e9\u00e9').get('a') gives two U+FFFD, not
  // U+FFFD + e-acute). The URL Standard UTF-8-encodes the input before percent-decoding, so
  // writing each non-ASCII code point as the escapes of its UTF-8 bytes does not change the
  // standard result; Node is given that form (pctenc still gets the raw input).
  const asciify = (s) => s.replace(/[^\x00-\x7f]/gu, (c) => encodeURIComponent(c));
  let uspRawDiffers = 0, uspRawExample = null;
  const usp = (s) => {
    const v = uspParse(asciify(s));
    const raw = uspParse(s);
    if (raw !== v) { uspRawDiffers++; if (uspRawExample === null) uspRawExample = [s, raw, v]; }
    return v;
  };
  const uspParse = (s) => {
    const p = new URLSearchParams('a=' + s);
    const pairs = [...p];
    if (pairs.length !== 1 || pairs[0][0] !== 'a') throw new Error('not one pair: ' + JSON.stringify(pairs));
    return pairs[0][1];
  };
  const out = {
    node: process.version,
    component: req.enc.map(wrap(encodeURIComponent)),
    uri: req.enc.map(wrap(encodeURI)),
    form: req.enc.map(wrap(form)),
    decodeURIComponent: req.dec.map(wrap(decodeURIComponent)),
    decodeURI: req.dec.map(wrap(decodeURI)),
    unescape: req.unesc.map((s) => {
      const u = unescape(s);
      return { v: Buffer.from(u, 'utf8').toString('hex'), wf: u.isWellFormed() };
    }),
    usp: req.usp.map(wrap(usp)),
  };
  out.uspRawDiffers = uspRawDiffers;
  out.uspRawExample = uspRawExample;
  process.stdout.write(JSON.stringify(out));
});
"""


def run_node(enc: list[str], dec: list[str], usp: list[str], unesc: list[str]) -> dict:
    node = shutil.which("node")
    if node is None:
        raise SetupError("`node` is not on PATH (Node 20 is required for the JS oracles)")
    payload = json.dumps({"enc": enc, "dec": dec, "usp": usp, "unesc": unesc}).encode("ascii")
    proc = subprocess.run([node, "-e", NODE_SCRIPT], input=payload, capture_output=True)
    if proc.returncode != 0:
        raise SetupError(f"node oracle failed (exit {proc.returncode}): {proc.stderr.decode(errors='replace')}")
    res = json.loads(proc.stdout.decode("utf-8"))
    for key, n in (("component", len(enc)), ("uri", len(enc)), ("form", len(enc)),
                   ("decodeURIComponent", len(dec)), ("decodeURI", len(dec)), ("usp", len(usp)),
                   ("unescape", len(unesc))):
        if len(res.get(key, ())) != n:
            raise SetupError(f"node oracle returned {len(res.get(key, ()))} results for {key}, expected {n}")
    return res


def python_selftest() -> None:
    if sys.version_info < (3, 11):
        raise SetupError(f"Python 3.11+ required, this is {sys.version.split()[0]}")
    p = urllib.parse
    for name in ("quote", "quote_plus", "unquote_to_bytes", "unquote_plus"):
        if not callable(getattr(p, name, None)):
            raise SetupError(f"urllib.parse.{name} missing")
    checks = [
        (p.quote(b"\xff a/~", safe=""), "%FF%20a%2F~"),
        (p.quote(b"\xff a/~"), "%FF%20a/~"),
        (p.quote_plus(b"\xff a/~*"), "%FF+a%2F~%2A"),
        (p.unquote_to_bytes(b"%%41%4%zz%c3%A9+"), b"%A%4%zz\xc3\xa9+"),
        (p.unquote_plus("%C0%AF+%e2%82", errors="replace"), "\ufffd\ufffd \ufffd"),
    ]
    for got, want in checks:
        if got != want:
            raise SetupError(f"urllib.parse self-test: got {got!r}, expected {want!r}")


# --------------------------------------------------------------------------------------------
# Running pctenc
# --------------------------------------------------------------------------------------------


Run = tuple[str, int, bytes, bytes]  # (how it ran, exit status, stdout, stderr)


class Pctenc:
    def __init__(self, binary: str, jobs: int, batch: bool, alone: int, seed: int):
        self.binary = binary
        self.pool = ThreadPoolExecutor(max_workers=jobs)
        self.batch = batch
        self.alone = alone
        self.rng = random.Random(seed * 7919 + 1)
        self.processes = 0

    def run(self, args: list[str], data: bytes) -> tuple[int, bytes, bytes]:
        self.processes += 1
        p = subprocess.run([self.binary, *args], input=data, capture_output=True, timeout=120)
        return p.returncode, p.stdout, p.stderr

    def per_case(self, args: list[str], inputs: list[bytes]) -> list[list[Run]]:
        return [[("alone", *r)] for r in self.pool.map(lambda b: self.run(args, b), inputs)]

    def alone_sample(self, inputs: list[bytes]) -> list[int]:
        """Cases that also run in a process of their own in batched mode, so that behaviour at
        the start and end of a stream is checked on them: every case of at most 3 bytes (single
        bytes and characters, the reference inputs) and a seeded random sample of the rest."""
        short_idx = [i for i, b in enumerate(inputs) if len(b) <= 3]
        rest = [i for i, b in enumerate(inputs) if len(b) > 3]
        return short_idx + self.rng.sample(rest, min(self.alone, len(rest)))

    def batched(self, args: list[str], inputs: list[bytes], sep: bytes, core: bytes) -> list[list[Run]]:
        """Runs per case. Cases are joined by `sep` into chunks of BATCH, one process per chunk;
        a chunk that fails or does not split into its cases runs case by case instead."""
        if not self.batch or not inputs:
            return self.per_case(args, inputs)
        for b in inputs:
            if core in b:
                raise SetupError(f"a test input contains the batch separator core {core!r}")

        def chunk_run(chunk: list[bytes]) -> list[list[Run]]:
            rc, out, err = self.run(args, sep.join(chunk))
            if rc == 0 and not err:
                pieces = out.split(sep)
                if len(pieces) == len(chunk):
                    return [[("in a batch", 0, piece, b"")] for piece in pieces]
            return [[("alone (its batch failed or did not split)", *self.run(args, b))] for b in chunk]

        chunks = [inputs[i:i + BATCH] for i in range(0, len(inputs), BATCH)]
        res = [r for rs in self.pool.map(chunk_run, chunks) for r in rs]
        idx = self.alone_sample(inputs)
        for i, r in zip(idx, self.pool.map(lambda i: self.run(args, inputs[i]), idx)):
            res[i].append(("alone", *r))
        return res

    def lines(self, args: list[str], inputs: list[bytes]) -> list[list[Run]]:
        """Line mode: inputs without CR/LF, one per line."""
        for b in inputs:
            assert b"\n" not in b and b"\r" not in b

        def chunk_run(chunk: list[bytes]) -> list[list[Run]]:
            rc, out, err = self.run(args, b"".join(b + b"\n" for b in chunk))
            if rc == 0 and not err and out.endswith(b"\n"):
                pieces = out[:-1].split(b"\n")
                if len(pieces) == len(chunk):
                    return [[("line mode", 0, piece, b"")] for piece in pieces]
            res = []
            for b in chunk:
                rc, out, err = self.run(args, b + b"\n")
                if rc == 0 and out.endswith(b"\n"):
                    out = out[:-1]
                else:
                    out = b"<line mode: output not newline-terminated> " + out
                res.append([("line mode, alone", rc, out, err)])
            return res

        size = BATCH if self.batch else 1
        chunks = [inputs[i:i + size] for i in range(0, len(inputs), size)]
        return [r for rs in self.pool.map(chunk_run, chunks) for r in rs]


# --------------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------------

URL_SPECIALS = "%+&=#?/ ;:@!'()*~$,[]^`{|}\\\"<>"
BOUNDARY_CPS = [0x7F, 0x80, 0xA0, 0xFF, 0x100, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFEFF, 0xFFFD,
                0xFFFE, 0xFFFF, 0x10000, 0x10FFFF, 0x1F600, 0x2028, 0x0300]


def rand_char(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.35:
        return chr(rng.randint(0x20, 0x7E))
    if r < 0.43:
        return rng.choice(URL_SPECIALS)
    if r < 0.50:
        return chr(rng.choice([*range(0x20), 0x7F]))
    if r < 0.60:
        return chr(rng.randint(0x80, 0xFF))
    if r < 0.68:
        cp = rng.randint(0x100, 0xFFFF)
        return chr(cp) if not 0xD800 <= cp <= 0xDFFF else "\u0100"
    if r < 0.80:
        return chr(rng.randint(0x4E00, 0x9FFF))
    if r < 0.90:
        return chr(rng.choice([rng.randint(0x1F300, 0x1FAFF), rng.randint(0x10000, 0x10FFFF)]))
    return chr(rng.choice(BOUNDARY_CPS))


def rand_len(rng: random.Random) -> int:
    r = rng.random()
    if r < 0.05:
        return 0
    if r < 0.80:
        return rng.randint(1, 24)
    if r < 0.97:
        return rng.randint(25, 200)
    return rng.randint(200, 3000)


def rand_string(rng: random.Random) -> str:
    return "".join(rand_char(rng) for _ in range(rand_len(rng)))


def rand_raw_bytes(rng: random.Random) -> bytes:
    out = bytearray()
    for _ in range(rand_len(rng)):
        r = rng.random()
        if r < 0.5:
            out.append(rng.randint(0, 255))
        elif r < 0.8:
            out.append(rng.randint(0x20, 0x7E))
        else:
            out += rand_char(rng).encode("utf-8")
    return bytes(out)


HEX = "0123456789abcdefABCDEF"
INVALID_UTF8 = [
    b"\xc0\xaf", b"\xc0\x80", b"\xc1\xbf", b"\xe0\x80\xaf", b"\xe0\x9f\xbf", b"\xf0\x80\x80\xaf",
    b"\xf0\x8f\xbf\xbf", b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xed\xa0\xbd\xed\xb8\x80",
    b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80", b"\xf7\xbf\xbf\xbf", b"\xf8\x88\x80\x80\x80",
    b"\xfc\x84\x80\x80\x80\x80", b"\xfe", b"\xff", b"\x80", b"\xbf", b"\xc2", b"\xe2\x82",
    b"\xf0\x9f\x98", b"\xe0\xa0", b"\xf4\x8f\xbf", b"\xc2\xc2\xa9", b"\xe2\x28\xa1",
]
VALID_EDGE_UTF8 = [b"\xef\xbb\xbf", b"\xc2\x80", b"\xdf\xbf", b"\xe0\xa0\x80", b"\xed\x9f\xbf",
                   b"\xee\x80\x80", b"\xef\xbf\xbf", b"\xf0\x90\x80\x80", b"\xf4\x8f\xbf\xbf"]


def hexcase(rng: random.Random, s: str) -> str:
    r = rng.random()
    if r < 0.6:
        return s.upper()
    if r < 0.8:
        return s.lower()
    return "".join(c.lower() if rng.random() < 0.5 else c.upper() for c in s)


def pct(rng: random.Random, b: bytes) -> str:
    return "".join(hexcase(rng, f"%{x:02X}") for x in b)


def dec_token(rng: random.Random, raw_bytes: bool) -> str | bytes:
    r = rng.random()
    if r < 0.07:
        return "%"
    if r < 0.14:
        return rng.choice(HEX)
    if r < 0.19:
        return "%" + rng.choice(HEX)
    if r < 0.23:
        return "%" + rng.choice(HEX) + rng.choice("gGzZ%+ -/\u00e9")
    if r < 0.33:
        return pct(rng, bytes([rng.randint(0, 255)]))
    if r < 0.45:
        return pct(rng, rand_char(rng).encode("utf-8"))
    if r < 0.55:
        return pct(rng, rng.choice(INVALID_UTF8))
    if r < 0.59:
        return pct(rng, rng.choice(VALID_EDGE_UTF8))
    if r < 0.65:
        b = chr(rng.randint(0x80, 0x10FFFF) if rng.random() < 0.3 else rng.randint(0x80, 0xFFFF)).encode("utf-8", "surrogatepass")
        return pct(rng, b[: rng.randint(1, len(b) - 1)])
    if r < 0.78:
        return chr(rng.randint(0x20, 0x7E))
    if r < 0.80:
        return chr(rng.choice([*range(0x20), 0x7F]))
    if r < 0.85:
        return "+"
    if r < 0.88:
        return rng.choice(["%2B", "%2b", "%25", "%20", "%00", "%7e", "%7E"])
    if raw_bytes and r < 0.95:
        return bytes([rng.randint(0x80, 0xFF)]) if rng.random() < 0.5 else rng.choice(INVALID_UTF8)
    return rand_char(rng)


def dec_mix(rng: random.Random, raw_bytes: bool = False) -> str | bytes:
    n = rng.randint(0, 12) if rng.random() < 0.9 else rng.randint(13, 80)
    toks = [dec_token(rng, raw_bytes) for _ in range(n)]
    if not raw_bytes:
        return "".join(toks)
    return b"".join(t if isinstance(t, bytes) else t.encode("utf-8") for t in toks)


def u_token(rng: random.Random, clean: bool) -> str:
    """One token of a `--legacy-u` input: `%uHHHH` (surrogates, pairs, ASCII, BMP, either hex
    case), `%HH` of an ASCII byte, raw text, `+`, and (unless `clean`) malformed `%` and `%u`."""
    r = rng.random()
    if r < 0.30:
        u = rng.choice([rng.randint(0xD800, 0xDFFF), rng.randint(0, 0x7F), rng.randint(0, 0xFFFF),
                        rng.choice([0x0, 0x25, 0x2F, 0x5C, 0x75, 0xFFFD, 0xFEFF, 0xFFFF])])
        return "%u" + hexcase(rng, f"{u:04X}")
    if r < 0.42:
        h, lo = rng.randint(0xD800, 0xDBFF), rng.randint(0xDC00, 0xDFFF)
        return (f"%u{h:04X}%u{lo:04x}" if rng.random() < 0.5 else f"%u{h:04x}%u{lo:04X}")
    if r < 0.55:
        return hexcase(rng, f"%{rng.randint(0, 0x7F):02X}")
    if r < 0.75:
        c = rand_char(rng)
        return c.replace("%", "%25") if clean else c
    if r < 0.80 or clean:
        return rng.choice(["+", "u", "D", "0", "%25", "%2575"])
    return rng.choice(["%", "%u", "%u0", "%uD83", "%uz", "%U0041", "%u 041", "%zz", "%4", "%%u0041",
                       "%" + rng.choice(HEX), "%u" + "".join(rng.choice(HEX) for _ in range(rng.randint(0, 3)))])


# A `%HH` escape of a byte above 0x7F, which unescape reads as Latin-1 and pctenc as a byte.
NON_ASCII_ESCAPE = re.compile(r"%[89a-fA-F][0-9a-fA-F]")


def u_mix(rng: random.Random, clean: bool) -> str:
    """A `--legacy-u` input on which unescape and pctenc mean the same: no `%HH` above 0x7F
    (malformed tokens can form one with what follows: such inputs are drawn again)."""
    while True:
        n = rng.randint(0, 10) if rng.random() < 0.9 else rng.randint(11, 60)
        s = "".join(u_token(rng, clean) for _ in range(n))
        if not NON_ASCII_ESCAPE.search(s):
            return s


def url_inputs() -> list[str]:
    if not URLTESTDATA.exists():
        raise SetupError(f"{URLTESTDATA} missing")
    out, seen = [], set()
    for t in json.loads(URLTESTDATA.read_text("utf-8")):
        if isinstance(t, dict) and isinstance(t.get("input"), str):
            s = t["input"]
            try:
                s.encode("utf-8")
            except UnicodeEncodeError:  # lone surrogates: not representable as UTF-8 input
                continue
            if s not in seen:
                seen.add(s)
                out.append(s)
    return out


def articles() -> list[str]:
    if len(ARTICLES) != 4:
        raise SetupError(f"expected 4 benches/data/article-*.txt, found {len(ARTICLES)}")
    return [p.read_text("utf-8") for p in ARTICLES]


# --------------------------------------------------------------------------------------------
# Reporting
# --------------------------------------------------------------------------------------------


def short(x: object, limit: int = 300) -> str:
    r = repr(x)
    if len(r) <= limit:
        return r
    n = len(x) if hasattr(x, "__len__") else "?"
    return r[:limit] + f"... (len {n})"


def first_diff(a: bytes, b: bytes) -> int:
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n


class Check:
    def __init__(self, name: str):
        self.name = name
        self.passed = 0
        self.failed = 0
        self.shown: list[str] = []

    def ok(self) -> None:
        self.passed += 1

    def fail(self, lines: list[str]) -> None:
        self.failed += 1
        if len(self.shown) < MAX_SHOWN:
            self.shown.append("\n".join("    " + ln for ln in lines))

    def report(self) -> None:
        print(f"{self.name}: {self.passed} passed, {self.failed} failed", flush=True)
        for i, s in enumerate(self.shown, 1):
            print(f"  mismatch {i}:\n{s}")


def diff_lines(got: bytes, want: bytes) -> list[str]:
    i = first_diff(got, want)
    lo = max(0, i - 20)
    return [
        f"pctenc: {short(got)}",
        f"oracle: {short(want)}",
        f"first difference at output byte {i}: pctenc {got[lo:i + 30]!r} vs oracle {want[lo:i + 30]!r}",
    ]


# --------------------------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------------------------


def run_lines(args: list[str], r: Run) -> list[str]:
    how, rc, out, err = r
    return [f"pctenc {' '.join(args)} [{how}]: exit {rc}, stderr {short(err, 300)}"]


def check_encode(pc: Pctenc, name: str, set_name: str, inputs: list, oracle: list) -> Check:
    """inputs: str or bytes per case; oracle: {'v': str} | {'e': msg} | str per case."""
    chk = Check(name)
    raw = [s.encode("utf-8") if isinstance(s, str) else s for s in inputs]
    args = ["encode", "--set", set_name]
    res = pc.batched(args + ["--binary"], raw, ENC_SEP, ENC_SEP_CORE)
    line_idx = [i for i, b in enumerate(raw) if b"\n" not in b and b"\r" not in b]
    for i, r in zip(line_idx, pc.lines(args, [raw[i] for i in line_idx])):
        res[i] += r
    for i, (inp, b) in enumerate(zip(inputs, raw)):
        head = [f"input:  {short(inp)}", f"input bytes: {short(b)}"]
        o = oracle[i]
        if isinstance(o, dict):
            if "e" in o:
                chk.fail(head + [f"oracle threw: {o['e']}"])
                continue
            o = o["v"]
        want = o.encode("utf-8")
        problems = []
        for r in res[i]:
            if r[1] != 0 or r[2] != want:
                a = args + (["--binary"] if not r[0].startswith("line") else [])
                problems += run_lines(a, r) + diff_lines(r[2], want)
        if problems:
            chk.fail(head + problems)
        else:
            chk.ok()
    return chk


def check_decode_strict(pc: Pctenc, inputs: list[str], oracle: list[dict], name: str = "6 decode --utf8 strict vs decodeURIComponent",
                        args: list[str] | None = None, fn: str = "decodeURIComponent") -> Check:
    """Decoding that must succeed exactly where the JS function `fn` returns, with its result."""
    chk = Check(name)
    raw = [s.encode("utf-8") for s in inputs]
    args = args or ["decode", "--utf8", "strict"]
    ok_idx = [i for i, o in enumerate(oracle) if "v" in o]
    bad_idx = [i for i, o in enumerate(oracle) if "v" not in o]
    res: dict[int, list[Run]] = {}
    # Inputs decodeURIComponent accepts can share a process (the whole batch must succeed);
    # the ones it rejects each need a process of their own to see pctenc fail.
    res.update(zip(ok_idx, pc.batched(args, [raw[i] for i in ok_idx], DEC_SEP, DEC_SEP_CORE)))
    res.update(zip(bad_idx, pc.per_case(args, [raw[i] for i in bad_idx])))
    for i, s in enumerate(inputs):
        o = oracle[i]
        head = [f"input:  {short(s)}", f"input bytes: {short(raw[i])}"]
        problems = []
        for r in res[i]:
            how, rc, out, err = r
            if "v" in o:
                want = o["v"].encode("utf-8", "surrogatepass")
                if rc != 0:
                    problems += [f"{fn} returned {short(o['v'])}"] + run_lines(args, r)
                elif out != want:
                    problems += run_lines(args, r) + diff_lines(out, want)
            elif rc == 0:
                problems += [f"{fn} threw {o['e']}", f"pctenc [{how}] succeeded with {short(out)}"]
            elif rc != 1 or not err.startswith(b"pctenc:"):
                problems += [f"{fn} threw {o['e']}, pctenc failed abnormally:"] + run_lines(args, r)
        if problems:
            chk.fail(head + problems)
        else:
            chk.ok()
    return chk


def check_decode_bytes(pc: Pctenc, name: str, args: list[str], inputs: list, oracle: list[bytes]) -> Check:
    chk = Check(name)
    raw = [s.encode("utf-8") if isinstance(s, str) else s for s in inputs]
    res = pc.batched(args, raw, DEC_SEP, DEC_SEP_CORE)
    for i, inp in enumerate(inputs):
        want = oracle[i]
        problems = []
        for r in res[i]:
            if r[1] != 0 or r[2] != want:
                problems += run_lines(args, r) + diff_lines(r[2], want)
        if problems:
            chk.fail([f"input:  {short(inp)}", f"input bytes: {short(raw[i])}"] + problems)
        else:
            chk.ok()
    return chk


def js_value(o: dict) -> bytes:
    if "v" not in o:
        return f"<oracle threw {o['e']}>".encode()
    return o["v"].encode("utf-8", "surrogatepass")


# --------------------------------------------------------------------------------------------


def build() -> str:
    cargo = shutil.which("cargo")
    if cargo is None:
        raise SetupError("no pctenc binary given and `cargo` is not on PATH")
    print("building: cargo build --release", flush=True)
    p = subprocess.run([cargo, "build", "--release", "--message-format=json-render-diagnostics"],
                       cwd=ROOT, stdout=subprocess.PIPE)
    if p.returncode != 0:
        raise SetupError(f"cargo build --release failed (exit {p.returncode})")
    exe = None
    for line in p.stdout.decode().splitlines():
        try:
            msg = json.loads(line)
        except json.JSONDecodeError:
            continue
        if msg.get("reason") == "compiler-artifact" and msg.get("target", {}).get("name") == "pctenc" \
                and msg.get("executable"):
            exe = msg["executable"]
    if exe is None:
        target = Path(os.environ.get("CARGO_TARGET_DIR", "target"))
        exe = str((target if target.is_absolute() else ROOT / target) / "release" / "pctenc")
    return exe


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("binary", nargs="?", help="pctenc binary (default: cargo build --release)")
    ap.add_argument("--cases", type=int, default=1000, help="random cases per generator (default 1000)")
    ap.add_argument("--seed", type=int, default=20240601, help="random seed (default 20240601)")
    ap.add_argument("--jobs", type=int, default=max(2, 2 * (os.cpu_count() or 1)), help="parallel pctenc processes")
    ap.add_argument("--no-batch", action="store_true", help="one pctenc process per case (slow)")
    ap.add_argument("--alone", type=int, default=200,
                    help="in batched mode, also run this many random cases per check (plus every case "
                         "of at most 3 bytes) in a process of their own (default 200)")
    a = ap.parse_args()
    t0 = time.monotonic()
    checks: list[Check] = []
    try:
        python_selftest()
        binary = a.binary or build()
        if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
            raise SetupError(f"{binary} is not an executable file")
        pc = Pctenc(binary, a.jobs, not a.no_batch, a.alone, a.seed)
        rc, out, err = pc.run(["encode", "--set", "component"], b"\xc3\xa9 !")
        if rc != 0 or out != b"%C3%A9%20!":
            raise SetupError(f"{binary} does not work: exit {rc}, output {out!r}, stderr {err!r}")
        rng = random.Random(a.seed)
        n = a.cases

        # ---- inputs
        urls = url_inputs()
        arts = articles()
        art_lines = [ln for art in arts for ln in art.splitlines() if ln]
        enc_str = [rand_string(rng) for _ in range(n)]
        enc_str += [chr(i) for i in range(256)]
        enc_str += ["".join(map(chr, range(256))), "".join(chr(i) for i in range(0x20, 0x7F))]
        enc_str += urls + art_lines + arts
        enc_str += ["".join(rand_char(rng) for _ in range(60000)) for _ in range(2)]
        enc_bytes = [s.encode("utf-8") for s in enc_str]
        enc_bytes += [rand_raw_bytes(rng) for _ in range(n)]
        enc_bytes += [bytes([i]) for i in range(256)] + [bytes(range(256)), bytes(range(255, -1, -1)) * 300]

        dec_str = [dec_mix(rng) for _ in range(n)]
        for i in range(n):
            s = enc_str[i]
            r = rng.random()
            q = urllib.parse.quote(s, safe="" if r < 0.5 else "/!'()*~-._")
            dec_str.append(hexcase(rng, q) if rng.random() < 0.3 else q)
        dec_str += [f"%{i:02X}" for i in range(256)] + [f"%{i:02x}" for i in range(256)]
        dec_str += ["%" + chr(i) for i in range(128)] + ["%4" + chr(i) for i in range(128)]
        dec_str += ["%", "%4", "%zz", "%C3", "%FF", "+", "%2b", "%c3%a9", "%%41", "%4%41", "%E2%82",
                    "%C0%AF", "%ED%A0%80", "%F4%90%80%80", "%EF%BB%BFa", "a%", "a%4", ""]
        dec_str += urls
        dec_str += [pct(rng, art.encode("utf-8")) for art in arts]
        dec_str += [urllib.parse.quote(art, safe=" \n/") for art in arts]
        dec_str += ["".join(dec_mix(rng) for _ in range(2000)) for _ in range(2)]
        # Escapes and UTF-8 sequences straddling every read-buffer alignment, and malformed
        # escapes right at power-of-two offsets (streaming carry-over).
        dec_str += ["%E2%82%AC" * 30000, "%e2%82%ac+" * 25000, "%F0%9F%98%80" * 20000]
        for k in (4096, 8192, 16384, 65536, 131072):
            for off in (-3, -2, -1, 0, 1):
                for tail in ("%C3%A9", "%", "%4", "%C3", "%E2%82%AC", "%E2%82"):
                    dec_str.append("a" * (k + off) + tail)
        dec_bytes = [s.encode("utf-8") for s in dec_str] + [dec_mix(rng, raw_bytes=True) for _ in range(n)]
        dec_bytes += [bytes([i]) for i in range(256)]
        usp_str = [s.replace("&", "%26").replace("=", "%3D") for s in dec_str]
        u_clean = [u_mix(rng, True) for _ in range(n)]
        u_all = u_clean + [u_mix(rng, False) for _ in range(n)]
        u_all += ["%uD83D", "%uDE00", "%uD83D%uDE00", "%uD83D%uDE0", "%u", "%u004", "%U0041", "%uD83D%uD83D%uDE00",
                  "%uDBFF%uDFFF", "%u002F%u0000", "%u0025u0041", ""]
        u_all += ["a" * (k + off) + tail for k in (4096, 65536, 262144) for off in (-11, -6, -5, -1, 0, 1)
                  for tail in ("%uD83D%uDE00", "%uD83D", "%u00E9%u0041")]

        t_gen = time.monotonic()
        js = run_node(enc_str, dec_str, usp_str, u_all)
        t_node = time.monotonic()
        print(f"oracles: node {js['node']}, python {sys.version.split()[0]}; binary {binary}", flush=True)
        print(f"inputs: {len(enc_str)} strings + {len(enc_bytes) - len(enc_str)} raw byte strings to encode, "
              f"{len(dec_str)} strings + {len(dec_bytes) - len(dec_str)} raw byte strings to decode, "
              f"{len(u_all)} strings with %u escapes "
              f"(seed {a.seed}, --cases {n})", flush=True)

        if js["uspRawDiffers"]:
            ex = js["uspRawExample"]
            print(f"note: Node's URLSearchParams mis-decodes raw non-ASCII next to a bad escape in "
                  f"{js['uspRawDiffers']} of {len(usp_str)} check-7b inputs (e.g. {short(ex[0], 80)} -> "
                  f"{short(ex[1], 60)}, standard {short(ex[2], 60)}); check 7b gives Node those inputs "
                  f"with non-ASCII pre-escaped (same result under the URL Standard)", flush=True)

        # ---- encode checks
        checks.append(check_encode(pc, "1 encode --set component vs encodeURIComponent", "component", enc_str, js["component"]))
        checks.append(check_encode(pc, "2 encode --set uri vs encodeURI", "uri", enc_str, js["uri"]))
        checks.append(check_encode(pc, "3 encode --set form vs URLSearchParams", "form", enc_str, js["form"]))
        checks.append(check_encode(pc, "4 encode --set rfc3986 vs quote(b, safe='')", "rfc3986", enc_bytes,
                                   [urllib.parse.quote(b, safe="") for b in enc_bytes]))
        checks.append(check_encode(pc, "5a encode --set python-quote vs quote(b)", "python-quote", enc_bytes,
                                   [urllib.parse.quote(b) for b in enc_bytes]))
        checks.append(check_encode(pc, "5b encode --set python-quote-plus vs quote_plus(b)", "python-quote-plus", enc_bytes,
                                   [urllib.parse.quote_plus(b) for b in enc_bytes]))
        # ---- decode checks
        checks.append(check_decode_strict(pc, dec_str, js["decodeURIComponent"]))
        checks.append(check_decode_strict(
            pc, dec_str, js["decodeURI"], "6b decode --keep-encoded uri-reserved --utf8 strict vs decodeURI",
            ["decode", "--keep-encoded", "uri-reserved", "--utf8", "strict"], "decodeURI"))
        checks.append(check_decode_bytes(pc, "7a decode --lenient vs unquote_to_bytes", ["decode", "--lenient"],
                                         dec_bytes, [urllib.parse.unquote_to_bytes(b) for b in dec_bytes]))
        lossy = ["decode", "--lenient", "--plus", "--utf8", "lossy"]
        checks.append(check_decode_bytes(pc, "7b decode --lenient --plus --utf8 lossy vs URLSearchParams", lossy,
                                         usp_str, [js_value(o) for o in js["usp"]]))
        checks.append(check_decode_bytes(pc, "7c decode --lenient --plus --utf8 lossy vs unquote_plus(errors='replace')", lossy,
                                         usp_str, [urllib.parse.unquote_plus(s, errors="replace").encode("utf-8") for s in usp_str]))
        # ---- %uHHHH: unescape (lone surrogates as U+FFFD) vs the lenient decoder; the strict
        # decoder on inputs without malformed `%` must fail exactly when unescape's result is
        # not well-formed UTF-16 (a lone surrogate) and give the same bytes otherwise.
        checks.append(check_decode_bytes(pc, "8a decode --lenient --legacy-u vs unescape", ["decode", "--lenient", "--legacy-u"],
                                         u_all, [bytes.fromhex(o["v"]) for o in js["unescape"]]))
        strict_u = [{"v": bytes.fromhex(o["v"]).decode("utf-8")} if o["wf"] else {"e": "lone surrogate"}
                    for o in js["unescape"][:len(u_clean)]]
        checks.append(check_decode_strict(pc, u_clean, strict_u, "8b decode --legacy-u vs unescape (lone surrogate: error)",
                                          ["decode", "--legacy-u"], "unescape"))
        t_end = time.monotonic()
    except SetupError as e:
        for c in checks:
            c.report()
        print(f"oracle-check: SETUP ERROR: {e}", file=sys.stderr, flush=True)
        print(f"oracle-check: {sum(c.passed for c in checks)} passed, {sum(c.failed for c in checks) + 1} failed")
        return 2

    for c in checks:
        c.report()
    passed = sum(c.passed for c in checks)
    failed = sum(c.failed for c in checks)
    print(f"time: {t_end - t0:.1f}s (build + inputs {t_gen - t0:.1f}s, node {t_node - t_gen:.1f}s, "
          f"pctenc checks {t_end - t_node:.1f}s, {pc.processes} pctenc processes)")
    print(f"oracle-check: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
