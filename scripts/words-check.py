#!/usr/bin/env python3
"""The same option words, on the same hostile inputs, through every surface of pctenc.

docs/WORDS.md promises one vocabulary: a decoder's words mean the same bytes, and the same
error offsets, in Rust, C, nginx, SQL, Python, the CLI and the page. The cases are pinned in
tests/data/words-cases.tsv (words, input, then the decoded bytes or the error's offset), one
line each, written by the CLI (`--regen`). Each surface is checked against that file:

    python3 scripts/words-check.py --surfaces cli,c,nginx   # CI: the nginx step
    python3 scripts/words-check.py --surfaces python        # CI: the python step (venv)
    python3 scripts/words-check.py --surfaces web           # CI: the web step (node, the wasm)
    python3 scripts/words-check.py --regen                  # rewrite the file from the CLI

Rust reads the file in tests/words.rs (the core's parser), SQL in
pctenc-datafusion/tests/words.rs. A surface that cannot run (no library, no nginx) fails: a
surface asked for is never skipped.

Environment: PCTENC_CLI (default target/release/pctenc), PCTENC_LIB (default
target/release/libpctenc.so), PCTENC_NGINX_MODULE (the built module), PCTENC_WASM (the page's
module; default web/dist/pctenc_web.wasm, which web/build.sh writes).
"""
import argparse
import ctypes
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import http.client

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = os.path.join(ROOT, "tests/data/words-cases.tsv")

# Decoder words, each spelled as a user might (case, `-`, commas).
WORDS = [
    "strict", "lenient", "plus", "lossy", "Lenient,Lossy", "utf8=strict", "UTF8=Lossy", "utf8=bytes",
    "strict lossy", "lenient plus utf8=lossy", "legacy_u", "lenient legacy-u", "legacy_u utf8=strict",
    "reject_nul", "reject_controls", "reject_crlf", "reject_slashes", "reject_all", "lenient reject_all",
    "reject_slashes utf8=strict", "reject_slashes lossy", "keep_encoded=uri_reserved",
    "keep_encoded=path reject_all", "plus keep_encoded=form",
]
# Hostile inputs: truncated and invalid escapes, overlong and surrogate UTF-8, NUL, CR/LF,
# controls, DEL, slashes, %u escapes, raw bytes that are not UTF-8, `+`.
INPUTS = [
    b"", b"%", b"%4", b"100%", b"%zz", b"a%4g", b"%41%2f%2F%5c", b"%C0%AF", b"%E0%80%AF", b"%ED%A0%80",
    b"caf%E9", b"caf%C3%A9", b"%F4%90%80%80", b"%00", b"a%0d%0aSet-Cookie:x", b"%0b%1b%7f", b"%09",
    b"%u00e9%uD83D%uDE00", b"%uD800x", b"%u00", b"%u00zz", b"a+b%2B", b"\xff\xfe%41", b"..%2f..%5c",
    b"%252e%252e", b"%e2%82", b"%e2%82%ac", b"%3B%2C%23%3f", b"x%7E%7e",
]


def load():
    cases = []
    with open(CASES, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            words, data, want = line.rstrip("\n").split("\t")
            kind, value = want.split(":", 1)
            cases.append((words, bytes.fromhex(data), (kind, bytes.fromhex(value) if kind == "ok" else int(value))))
    return cases


def cli_path():
    return os.environ.get("PCTENC_CLI", os.path.join(ROOT, "target/release/pctenc"))


def run_cli(words, data):
    p = subprocess.run([cli_path(), "decode", "--mode", words], input=data, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if p.returncode == 0:
        return ("ok", p.stdout)
    m = re.search(r"offset (\d+): ", p.stderr.decode(errors="replace"))
    if p.returncode != 1 or m is None:
        raise RuntimeError(f"pctenc decode --mode {words!r}: status {p.returncode}: {p.stderr!r}")
    return ("err", int(m.group(1)))


class CError(ctypes.Structure):
    _fields_ = [("status", ctypes.c_int), ("kind", ctypes.c_int), ("offset", ctypes.c_size_t),
                ("byte", ctypes.c_uint8)]


def c_surface():
    lib = ctypes.CDLL(os.environ.get("PCTENC_LIB", os.path.join(ROOT, "target/release/libpctenc.so")))
    lib.pctenc_decoded_len_max.restype = ctypes.c_size_t

    def run(words, data):
        dec = ctypes.c_void_p()
        err = CError()
        why = ctypes.create_string_buffer(512)
        w = words.encode()
        st = lib.pctenc_decoder_from_words(w, ctypes.c_size_t(len(w)), ctypes.byref(dec), why, ctypes.c_size_t(512),
                                           ctypes.byref(err))
        if st != 0:
            raise RuntimeError(f"pctenc_decoder_from_words({words!r}): {why.value!r}")
        try:
            cap = lib.pctenc_decoded_len_max(dec, ctypes.c_size_t(len(data)))
            out = ctypes.create_string_buffer(max(cap, 1))
            written = ctypes.c_size_t(0)
            st = lib.pctenc_decode(dec, data, ctypes.c_size_t(len(data)), out, ctypes.c_size_t(cap),
                                   ctypes.byref(written), ctypes.byref(err))
            if st == 0:
                return ("ok", out.raw[:written.value])
            if st == 1:
                return ("err", err.offset)
            raise RuntimeError(f"pctenc_decode: status {st}")
        finally:
            lib.pctenc_decoder_free(dec)
    return run


def python_surface():
    import pyarrow as pa
    import pctenc
    import pctenc.arrow

    def run(words, data):
        try:
            out = pctenc.arrow.decode(pa.array([data], pa.binary()), mode=words).to_pylist()[0]
            return ("ok", out)
        except pctenc.DecodeError as e:
            return ("err", e.offset)
    return run


def nginx_surface(module):
    """nginx with one location per words: the value comes escaped byte by byte in `v`, a
    lenient step turns it back into the bytes, then the words decode it; an error passes and
    $pctenc_error's offset is read from a header."""
    prefix = tempfile.mkdtemp(prefix="pctenc-words-")
    os.mkdir(os.path.join(prefix, "tmp"))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    locs = []
    for i, words in enumerate(WORDS):
        parts = words.replace(",", " ").split()
        locs.append(f"location = /w/{i} {{ pctenc_on_error pass; pctenc_decode $raw lenient $arg_v; "
                    f"pctenc_decode $out {parts[0]} $raw {' '.join(parts[1:])}; "
                    f"add_header X-Error $pctenc_error always; return 200 $out; }}")
    temp = " ".join(f"{k}_temp_path {prefix}/tmp;" for k in ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"])
    conf = os.path.join(prefix, "nginx.conf")
    with open(conf, "w") as f:
        f.write(f"load_module {module};\npid {prefix}/nginx.pid;\nerror_log {prefix}/error.log;\n"
                f"events {{ worker_connections 16; }}\nhttp {{ access_log off; {temp} "
                f"default_type application/octet-stream;\n server {{ listen 127.0.0.1:{port};\n  "
                + "\n  ".join(locs) + "\n }\n}\n")
    subprocess.run(["nginx", "-p", prefix, "-c", conf], check=True)
    deadline = time.time() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if time.time() > deadline:
                raise
            time.sleep(0.05)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def run(words, data):
        conn.request("GET", f"/w/{WORDS.index(words)}?v=" + "".join(f"%{b:02X}" for b in data))
        r = conn.getresponse()
        body, error = r.read(), r.getheader("X-Error", "")
        if r.status != 200:
            raise RuntimeError(f"nginx: status {r.status}")
        if error:
            m = re.search(r" at offset (\d+)$", error)
            return ("err", int(m.group(1)))
        return ("ok", body)

    def stop():
        conn.close()
        subprocess.run(["nginx", "-p", prefix, "-c", conf, "-s", "quit"], check=True)
        for _ in range(200):
            if not os.path.exists(os.path.join(prefix, "nginx.pid")):
                break
            time.sleep(0.05)
        shutil.rmtree(prefix, ignore_errors=True)
    return run, stop


# The page's module under Node: each case through its `pe_decode` export, which takes the
# words as the page passes them and the input as bytes. Its output in bytes mode shows bytes
# that are not UTF-8 as `\xHH` and a backslash as `\\` (web/src/lib.rs, `show_bytes`).
WEB_RUNNER = r"""
import { readFileSync } from "node:fs";
const wasm = (await WebAssembly.instantiate(readFileSync(process.argv[1]), {})).instance.exports;
const cases = JSON.parse(readFileSync(0, "utf8"));
const put = (bytes) => {
  const ptr = wasm.pe_alloc(bytes.length);
  new Uint8Array(wasm.memory.buffer, ptr, bytes.length).set(bytes);
  return ptr;
};
const out = cases.map(([words, hex]) => {
  const w = new TextEncoder().encode(words), data = Buffer.from(hex, "hex");
  const wp = put(w), dp = put(data);
  const status = wasm.pe_decode(dp, data.length, wp, w.length);
  wasm.pe_free(wp, w.length);
  wasm.pe_free(dp, data.length);
  const text = Buffer.from(new Uint8Array(wasm.memory.buffer, wasm.pe_out_ptr(), wasm.pe_out_len())).toString("hex");
  return [status, text, wasm.pe_error_offset()];
});
process.stdout.write(JSON.stringify(out));
"""


def unshow(text):
    """The bytes that web/src/lib.rs's `show_bytes` showed as `text` (UTF-8 bytes)."""
    out, i = bytearray(), 0
    while i < len(text):
        if text[i:i + 2] == b"\\\\":
            out += b"\\"
            i += 2
        elif text[i:i + 2] == b"\\x":
            out.append(int(text[i + 2:i + 4], 16))
            i += 4
        else:
            out.append(text[i])
            i += 1
    return bytes(out)


def web_surface(cases):
    wasm = os.environ.get("PCTENC_WASM", os.path.join(ROOT, "web/dist/pctenc_web.wasm"))
    if not os.path.exists(wasm):
        raise RuntimeError(f"{wasm}: not built (bash web/build.sh)")
    import json
    p = subprocess.run(["node", "--input-type=module", "-e", WEB_RUNNER, wasm], check=True, stdout=subprocess.PIPE,
                       input=json.dumps([[w, d.hex()] for w, d, _ in cases]).encode())
    results = {}
    for (words, data, _), (status, text, offset) in zip(cases, json.loads(p.stdout)):
        if status == 0:
            # Bytes mode (no `utf8=strict`, no `lossy`) shows its output; the others write UTF-8.
            w = words.lower()
            shown = "lossy" not in w and "utf8=strict" not in w
            results[(words, data)] = ("ok", unshow(bytes.fromhex(text)) if shown else bytes.fromhex(text))
        else:
            results[(words, data)] = ("err", offset)
    return lambda words, data: results[(words, data)]


def regen():
    lines = ["# words<TAB>input (hex)<TAB>ok:decoded bytes (hex) | err:offset. "
             "Written by scripts/words-check.py --regen (the CLI); read by every surface."]
    for words in WORDS:
        for data in INPUTS:
            kind, value = run_cli(words, data)
            lines.append(f"{words}\t{data.hex()}\t{kind}:{value.hex() if kind == 'ok' else value}")
    with open(CASES, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{CASES}: {len(lines) - 1} cases")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--surfaces", default="cli,c,nginx")
    ap.add_argument("--regen", action="store_true")
    args = ap.parse_args()
    if args.regen:
        return regen()
    cases = load()
    assert len(cases) == len(WORDS) * len(INPUTS), "tests/data/words-cases.tsv is stale: run --regen"
    failures = 0
    for surface in args.surfaces.split(","):
        stop = None
        if surface == "cli":
            run = run_cli
        elif surface == "c":
            run = c_surface()
        elif surface == "python":
            run = python_surface()
        elif surface == "web":
            run = web_surface(cases)
        elif surface == "nginx":
            run, stop = nginx_surface(os.environ["PCTENC_NGINX_MODULE"])
        else:
            sys.exit(f"unknown surface {surface}")
        bad = 0
        try:
            for words, data, want in cases:
                got = run(words, data)
                if got != want:
                    bad += 1
                    print(f"{surface}: {words!r} on {data!r}: got {got!r}, want {want!r}", file=sys.stderr)
        finally:
            if stop:
                stop()
        print(f"words-check: {surface}: {len(cases)} cases, {bad} different")
        failures += bad
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
