#!/usr/bin/env python3
"""The same option words, on the same hostile inputs, through every surface of pctenc.

docs/WORDS.md promises one vocabulary: a decoder's words mean the same bytes, and the same
error offsets, in Rust, C, nginx, SQL, Python, the CLI and the page. The cases are pinned in
tests/data/words-cases.tsv (words, input, then the decoded bytes or the error's offset), one
line each, written by the CLI (`--regen`); an encoder's words (a set and its options) on
inputs of every kind in tests/data/words-encode-cases.tsv (words, input, encoded bytes).
Each surface is checked against both files, where it takes such words:

    python3 scripts/words-check.py --surfaces cli,c,nginx   # CI: the nginx step
    python3 scripts/words-check.py --surfaces python        # CI: the python step (venv)
    python3 scripts/words-check.py --surfaces web           # CI: the web step (node, the wasm)
    python3 scripts/words-check.py --regen                  # rewrite the file from the CLI

Rust reads both files in tests/words.rs (the core's parser), SQL the decoders' in
pctenc-datafusion/tests/words.rs (its `percent_encode` takes a set name, not words). Python's
encoder takes a set name and keyword switches, which the check passes for the words; the page
encodes text, so only the inputs that are UTF-8 go through it. A surface that cannot run (no
library, no nginx) fails: a surface asked for is never skipped.

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

# Encoder words: a set, and the options in any order, spelled as a user might.
ENC_WORDS = [
    "component", "rfc3986", "form", "Form Lowercase", "path requote", "query,iri", "component space_as_plus",
    "uri REQUOTE lowercase", "non-alphanumeric", "python-quote-plus", "userinfo iri", "fragment requote iri",
    "special-query lowercase space-as-plus", "c0-control", "go-path", "python-quote requote",
]
# Inputs of every kind: every byte value, escapes whole and broken, UTF-8 and not, controls.
ENC_INPUTS = [
    b"", bytes(range(256)), b"a b+c", b"%41%zz%", b"100% %2f%2F%252e", "caf\u00e9/\u20ac?x=1&y=\U0001f600".encode(),
    b"\xff\xfe\x00\r\n", "\u202e\ufeff~!*'()".encode(), b"/a/../b;c?d#e", b"%E2%82%ac%e2%82",
]
ENC_CASES = os.path.join(ROOT, "tests/data/words-encode-cases.tsv")


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


def load_encode():
    cases = []
    with open(ENC_CASES, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            words, data, want = line.rstrip("\n").split("\t")
            cases.append((words, bytes.fromhex(data), bytes.fromhex(want)))
    return cases


def split_words(words):
    """The words one by one, as the parser separates them (spaces, tabs, newlines, commas)."""
    return words.replace(",", " ").split()


def run_cli_encode(words, data):
    p = subprocess.run([cli_path(), "encode", "--mode", words, "--binary"], input=data, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise RuntimeError(f"pctenc encode --mode {words!r}: status {p.returncode}: {p.stderr!r}")
    return p.stdout


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


def c_library():
    lib = ctypes.CDLL(os.environ.get("PCTENC_LIB", os.path.join(ROOT, "target/release/libpctenc.so")))
    lib.pctenc_decoded_len_max.restype = ctypes.c_size_t
    return lib


def from_words(lib, kind, words):
    """The handle `pctenc_{kind}_from_words` builds from `words`; a refusal is an error."""
    handle, err, why, w = ctypes.c_void_p(), CError(), ctypes.create_string_buffer(512), words.encode()
    st = getattr(lib, f"pctenc_{kind}_from_words")(w, ctypes.c_size_t(len(w)), ctypes.byref(handle), why,
                                                   ctypes.c_size_t(512), ctypes.byref(err))
    if st != 0:
        raise RuntimeError(f"pctenc_{kind}_from_words({words!r}): {why.value!r}")
    return handle


def c_surface():
    lib = c_library()

    def run(words, data):
        dec = from_words(lib, "decoder", words)
        err = CError()
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


def c_encode_surface():
    lib = c_library()

    def run(words, data):
        enc = from_words(lib, "encoder", words)
        err = CError()
        try:
            size = ctypes.c_size_t(0)
            # With no room, pctenc_encode says how much it needs.
            st = lib.pctenc_encode(enc, data, ctypes.c_size_t(len(data)), None, ctypes.c_size_t(0),
                                   ctypes.byref(size), None)
            if st not in (0, 2):
                raise RuntimeError(f"pctenc_encode (size): status {st}")
            out = ctypes.create_string_buffer(max(size.value, 1))
            written = ctypes.c_size_t(0)
            st = lib.pctenc_encode(enc, data, ctypes.c_size_t(len(data)), out, size, ctypes.byref(written),
                                   ctypes.byref(err))
            if st != 0:
                raise RuntimeError(f"pctenc_encode: status {st}")
            return out.raw[:written.value]
        finally:
            lib.pctenc_encoder_free(enc)
    return run


def python_encode_surface():
    import pyarrow as pa
    import pctenc.arrow
    switches = {"space_as_plus": "space_as_plus", "lowercase": "lowercase", "requote": "keep_escapes", "iri": "iri"}

    def run(words, data):
        # Python's encoder takes a set name and keyword switches: the words (each case's
        # start with its set) become those.
        parts = split_words(words)
        kwargs = {switches[w.lower().replace("-", "_")]: True for w in parts[1:]}
        out = pctenc.arrow.encode(pa.array([data], pa.binary()), parts[0], **kwargs).to_pylist()[0]
        return out.encode() if isinstance(out, str) else out
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
        parts = split_words(words)
        locs.append(f"location = /w/{i} {{ pctenc_on_error pass; pctenc_decode $raw lenient $arg_v; "
                    f"pctenc_decode $out {parts[0]} $raw {' '.join(parts[1:])}; "
                    f"add_header X-Error $pctenc_error always; return 200 $out; }}")
    for i, words in enumerate(ENC_WORDS):
        parts = split_words(words)
        locs.append(f"location = /e/{i} {{ pctenc_decode $raw lenient $arg_v; "
                    f"pctenc_encode $out {parts[0]} $raw {' '.join(parts[1:])}; return 200 $out; }}")
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

    def run_encode(words, data):
        conn.request("GET", f"/e/{ENC_WORDS.index(words)}?v=" + "".join(f"%{b:02X}" for b in data))
        r = conn.getresponse()
        body = r.read()
        if r.status != 200:
            raise RuntimeError(f"nginx: status {r.status}")
        return body

    def stop():
        conn.close()
        subprocess.run(["nginx", "-p", prefix, "-c", conf, "-s", "quit"], check=True)
        for _ in range(200):
            if not os.path.exists(os.path.join(prefix, "nginx.pid")):
                break
            time.sleep(0.05)
        shutil.rmtree(prefix, ignore_errors=True)
    return run, run_encode, stop


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
const out = cases.map(([op, words, hex]) => {
  const w = new TextEncoder().encode(words), data = Buffer.from(hex, "hex");
  let status;
  const wp = put(w);
  if (op === "decode") {
    const dp = put(data);
    status = wasm.pe_decode(dp, data.length, wp, w.length);
    wasm.pe_free(dp, data.length);
  } else {
    // The page encodes text: its UTF-16 units (the case's input is UTF-8).
    const text = data.toString("utf8"), units = text.length;
    const up = wasm.pe_alloc(2 * units);
    const view = new Uint16Array(wasm.memory.buffer, up, units);
    for (let i = 0; i < units; i++) view[i] = text.charCodeAt(i);
    status = wasm.pe_encode(up, units, wp, w.length);
    wasm.pe_free(up, 2 * units);
  }
  wasm.pe_free(wp, w.length);
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


def web_surface(cases, encode_cases):
    """(run, run_encode, text_only): the page's module on `cases` (decoding) and on the
    `encode_cases` whose input is UTF-8 (the page encodes text), run at once under Node."""
    wasm = os.environ.get("PCTENC_WASM", os.path.join(ROOT, "web/dist/pctenc_web.wasm"))
    if not os.path.exists(wasm):
        raise RuntimeError(f"{wasm}: not built (bash web/build.sh)")
    import json

    def utf8(data):
        try:
            data.decode("utf-8")
            return True
        except UnicodeDecodeError:
            return False
    texts = [(w, d, want) for w, d, want in encode_cases if utf8(d)]
    jobs = [["decode", w, d.hex()] for w, d, _ in cases] + [["encode", w, d.hex()] for w, d, _ in texts]
    p = subprocess.run(["node", "--input-type=module", "-e", WEB_RUNNER, wasm], check=True, stdout=subprocess.PIPE,
                       input=json.dumps(jobs).encode())
    results = {}
    for (op, words, hexdata), (status, text, offset) in zip(jobs, json.loads(p.stdout)):
        data = bytes.fromhex(hexdata)
        if op == "encode":
            if status != 0:
                raise RuntimeError(f"web: pe_encode({words!r}) failed: {bytes.fromhex(text)!r}")
            results[(op, words, data)] = bytes.fromhex(text)
        elif status == 0:
            # Bytes mode (no `utf8=strict`, no `lossy`) shows its output; the others write UTF-8.
            w = words.lower()
            shown = "lossy" not in w and "utf8=strict" not in w
            results[(op, words, data)] = ("ok", unshow(bytes.fromhex(text)) if shown else bytes.fromhex(text))
        else:
            results[(op, words, data)] = ("err", offset)
    return (lambda words, data: results[("decode", words, data)],
            lambda words, data: results[("encode", words, data)], texts)


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
    lines = ["# words<TAB>input (hex)<TAB>encoded bytes (hex). "
             "Written by scripts/words-check.py --regen (the CLI); read by every surface."]
    for words in ENC_WORDS:
        for data in ENC_INPUTS:
            lines.append(f"{words}\t{data.hex()}\t{run_cli_encode(words, data).hex()}")
    with open(ENC_CASES, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{ENC_CASES}: {len(lines) - 1} cases")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--surfaces", default="cli,c,nginx")
    ap.add_argument("--regen", action="store_true")
    args = ap.parse_args()
    if args.regen:
        return regen()
    cases, encode_cases = load(), load_encode()
    assert len(cases) == len(WORDS) * len(INPUTS), "tests/data/words-cases.tsv is stale: run --regen"
    assert len(encode_cases) == len(ENC_WORDS) * len(ENC_INPUTS), \
        "tests/data/words-encode-cases.tsv is stale: run --regen"
    failures = 0
    for surface in args.surfaces.split(","):
        stop = None
        # (decoding, encoding, the encoding cases it takes)
        if surface == "cli":
            run, run_encode, encodes = run_cli, run_cli_encode, encode_cases
        elif surface == "c":
            run, run_encode, encodes = c_surface(), c_encode_surface(), encode_cases
        elif surface == "python":
            run, run_encode, encodes = python_surface(), python_encode_surface(), encode_cases
        elif surface == "web":
            run, run_encode, encodes = web_surface(cases, encode_cases)
        elif surface == "nginx":
            run, run_encode, stop = nginx_surface(os.environ["PCTENC_NGINX_MODULE"])
            encodes = encode_cases
        else:
            sys.exit(f"unknown surface {surface}")
        bad = 0
        try:
            for words, data, want in cases:
                got = run(words, data)
                if got != want:
                    bad += 1
                    print(f"{surface}: {words!r} on {data!r}: got {got!r}, want {want!r}", file=sys.stderr)
            for words, data, want in encodes:
                got = run_encode(words, data)
                if got != want:
                    bad += 1
                    print(f"{surface}: encode {words!r} on {data!r}: got {got!r}, want {want!r}", file=sys.stderr)
        finally:
            if stop:
                stop()
        print(f"words-check: {surface}: {len(cases)} decoding cases, {len(encodes)} encoding cases, {bad} different")
        failures += bad
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
