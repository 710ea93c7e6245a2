#!/usr/bin/env python3
"""ngx_http_pctenc_module in a real nginx (Debian's package), on loopback, in a temporary prefix.

The cases of t/*.t (class Cases): each a configuration, a request and the response expected,
in Test::Nginx's block format (t/nginx_cases.py runs them), each in an nginx of its own.

Against the CLI (class Module): each directive's output is compared with the `pctenc` CLI on
the same bytes: every byte value, random UTF-8 with escapes (broken ones too), 64 KiB values,
empty values; strict errors with `pass` and `empty` give the CLI's kind and offset; nothing
carries over between requests on one keep-alive connection. set-misc's set_escape_uri and
set_unescape_uri run beside it on the same requests: where they agree by design the outputs
are equal, and each difference is pinned here (and listed in pctenc-nginx/README.md).

    python3 pctenc-nginx/t/test_module.py            # builds the module and the CLI first
    python3 pctenc-nginx/t/test_module.py Cases      # the t/*.t cases alone
    PCTENC_NGINX_VALGRIND=1 python3 pctenc-nginx/t/test_module.py Valgrind

Faults: the test build (PCTENC_NGINX_FAULTS=1 build.sh), whose values can make libpctenc's
calls fail, for the paths no real input reaches.

Environment: PCTENC_NGINX_MODULE (the built .so; default: run pctenc-nginx/build.sh),
PCTENC_NGINX_FAULT_MODULE (the test build; default: run build.sh with PCTENC_NGINX_FAULTS=1),
PCTENC_CLI (default target/release/pctenc, built when missing).
"""
import glob
import http.client
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import nginx_cases  # noqa: E402 (t/ is not a package)
SETMISC = ["/usr/lib/nginx/modules/ndk_http_module.so", "/usr/lib/nginx/modules/ngx_http_set_misc_module.so"]
SETS = ["rfc3986", "component", "uri", "form", "fragment", "query", "special-query", "path", "userinfo",
        "c0-control", "python-quote", "python-quote-plus", "go-path", "non-alphanumeric"]
# Encoder options: the module's word and the CLI's flag.
ENCODE_OPTIONS = [("space_as_plus", "--space-as-plus"), ("lowercase", "--lowercase"),
                  ("requote", "--keep-escapes"), ("iri", "--iri")]
# Decoder configurations: (name, the module's arguments after VALUE's place, the CLI's flags).
DECODERS = [
    ("strict", "strict", [], []),
    ("lenient", "lenient", [], ["--lenient"]),
    ("plus", "plus", [], ["--plus"]),
    # `lossy` is UTF-8 only (docs/WORDS.md): escapes stay strict.
    ("lossy", "lossy", [], ["--utf8", "lossy"]),
    ("strict-utf8", "strict", ["utf8=strict"], ["--utf8", "strict"]),
    ("lenient-lossy", "lenient", ["utf8=lossy"], ["--lenient", "--utf8", "lossy"]),
    ("plus-utf8", "plus", ["utf8=strict"], ["--plus", "--utf8", "strict"]),
    ("rejects", "strict", ["reject_nul", "reject_slashes", "reject_crlf"], ["--reject", "nul,slashes,crlf"]),
    ("lenient-rejects", "lenient", ["plus", "reject_nul", "reject_slashes", "reject_crlf"],
     ["--lenient", "--plus", "--reject", "nul,slashes,crlf"]),
    ("controls", "strict", ["reject_controls", "reject_slashes"], ["--reject", "controls,slashes"]),
    ("legacy-u", "lenient", ["legacy_u", "utf8=lossy"], ["--lenient", "--legacy-u", "--utf8", "lossy"]),
    ("keep", "strict", ["keep_encoded=uri_reserved", "reject_all"],
     ["--keep-encoded", "uri-reserved", "--reject", "all"]),
    ("words", "Lenient,PLUS", ["UTF8=Strict"], ["--lenient", "--plus", "--utf8", "strict"]),
]


def build():
    """The module's path: PCTENC_NGINX_MODULE, or what build.sh prints last."""
    if os.environ.get("PCTENC_NGINX_MODULE"):
        return os.environ["PCTENC_NGINX_MODULE"]
    out = subprocess.run(["bash", os.path.join(ROOT, "pctenc-nginx/build.sh")], check=True, stdout=subprocess.PIPE,
                         text=True).stdout
    return out.strip().splitlines()[-1]


def cli():
    path = os.environ.get("PCTENC_CLI", os.path.join(ROOT, "target/release/pctenc"))
    if not os.path.exists(path):
        subprocess.run(["cargo", "build", "--release", "--bin", "pctenc"], cwd=ROOT, check=True)
    return path


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def transport(data):
    """`data` as a query value that pctenc_decode's lenient transport step turns back into it."""
    return "".join(f"%{b:02X}" for b in data)


def locations():
    """Every location of the test server."""
    out = []
    # The value to work on comes in `v`, every byte escaped; `lenient` decodes it back.
    take = "pctenc_decode $raw lenient $arg_v;"
    for name in SETS:
        for i in range(len(ENCODE_OPTIONS) + 2):
            opts = [] if i == 0 else [o for o, _ in ENCODE_OPTIONS] if i == 1 else [ENCODE_OPTIONS[i - 2][0]]
            out.append(f"location = /e/{name}/{i} {{ {take} pctenc_encode $out {name} $raw {' '.join(opts)}; "
                       f"return 200 $out; }}")
        out.append(f"location = /v/{name} {{ {take} pctenc_validate $out {name} $raw; return 200 $out; }}")
    for name, mode, opts, _ in DECODERS:
        for on_error in ["400", "pass", "empty"]:
            out.append(f"location = /d/{name}/{on_error} {{ pctenc_on_error {on_error}; {take} "
                       f"pctenc_decode $out {mode} $raw {' '.join(opts)}; "
                       f"add_header X-Error $pctenc_error always; return 200 $out; }}")
    out.append(f"location = /n {{ {take} pctenc_normalize $out $raw; return 200 $out; }}")
    # set-misc beside pctenc, on the same bytes.
    out.append(f"location = /sm/escape {{ {take} set_escape_uri $out $raw; return 200 $out; }}")
    out.append(f"location = /sm/unescape {{ {take} set_unescape_uri $out $raw; return 200 $out; }}")
    # The raw argument, as it is in the request line (set-misc's usual input).
    out.append("location = /raw/pctenc { pctenc_decode $out strict $arg_v; return 200 $out; }")
    return out


def readme_example():
    """The ```nginx block after the README's marker comment."""
    with open(os.path.join(ROOT, "pctenc-nginx/README.md")) as f:
        text = f.read()
    after = text.split("<!-- the example: pctenc-nginx/t/test_module.py runs this block -->", 1)[1]
    return after.split("```nginx\n", 1)[1].split("```", 1)[0]


def config(prefix, port, module, extra="", backend_port=None):
    loads = "\n".join(f"load_module {m};" for m in [module] + SETMISC)
    temp = " ".join(f"{k}_temp_path {prefix}/tmp;" for k in ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"])
    body = "\n    ".join(locations())
    return f"""{loads}
pid {prefix}/nginx.pid;
error_log {prefix}/error.log info;
{extra}
events {{ worker_connections 64; }}
http {{
  access_log off;
  {temp}
  large_client_header_buffers 4 512k;
  default_type application/octet-stream;
  upstream backend {{ server 127.0.0.1:{backend_port}; }}
  server {{
    listen 127.0.0.1:{backend_port};
    location / {{ return 200 "backend got $request_uri"; }}
  }}
  server {{
    listen 127.0.0.1:{port};
    {body}
    {readme_example()}
  }}
}}
"""


class Nginx:
    """nginx with the test configuration, started on a free port in a temporary prefix."""

    def __init__(self, module, valgrind=False):
        self.prefix = tempfile.mkdtemp(prefix="pctenc-nginx-")
        os.mkdir(os.path.join(self.prefix, "tmp"))
        self.port = free_port()
        extra = "master_process off;\ndaemon off;" if valgrind else ""
        self.conf = os.path.join(self.prefix, "nginx.conf")
        with open(self.conf, "w") as f:
            f.write(config(self.prefix, self.port, module, extra, free_port()))
        cmd = ["nginx", "-p", self.prefix, "-c", self.conf]
        self.valgrind_log = os.path.join(self.prefix, "valgrind.log")
        if valgrind:
            # --keep-debuginfo: nginx unloads the module before the leak check, which would
            # otherwise show its frames as ???.
            cmd = ["valgrind", "--leak-check=full", "--keep-debuginfo=yes", f"--log-file={self.valgrind_log}"] + cmd
            self.proc = subprocess.Popen(cmd)
        else:
            subprocess.run(cmd, check=True)
            self.proc = None
        deadline = time.time() + (60 if valgrind else 10)
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                if time.time() > deadline:
                    raise RuntimeError("nginx did not start: " + self.error_log())
                time.sleep(0.05)

    def error_log(self):
        try:
            with open(os.path.join(self.prefix, "error.log"), errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def stop(self):
        if self.proc is not None:
            self.proc.send_signal(signal.SIGQUIT)
            status = self.proc.wait(timeout=120)
        else:
            subprocess.run(["nginx", "-p", self.prefix, "-c", self.conf, "-s", "quit"], check=True)
            for _ in range(200):
                if not os.path.exists(os.path.join(self.prefix, "nginx.pid")):
                    break
                time.sleep(0.05)
            status = 0
        return status

    def connection(self):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)


def get(conn, path, value=None):
    """(status, body, X-Error header) of GET path?v=value (value: bytes, sent escaped)."""
    url = path if value is None else f"{path}?v={transport(value)}"
    conn.request("GET", url)
    r = conn.getresponse()
    return r.status, r.read(), r.getheader("X-Error", "")


def run_cli(pctenc, args, data):
    p = subprocess.run([pctenc] + args, input=data, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def samples(seed=1):
    """Inputs: every byte value at once, each byte alone, escapes of each byte, random UTF-8 with
    escapes broken and whole, and empty."""
    rng = random.Random(seed)
    out = [bytes(range(256)), b"", b"%", b"%4", b"%zz", b"100%", b"a+b c", b"%2F%2f%5C%00%0D%0A",
           "café/ü?q=1&x=€ 😀".encode(), b"%C3%A9%E2%82", b"%ED%A0%80", b"\xff\xfe", b"%u00E9"]
    out += [bytes([b]) for b in range(256)]
    out += [f"%{b:02X}".encode() for b in range(0, 256, 7)]
    pieces = ["a", "/", "%", "%4", "%41", "%2f", "%zz", "%C3%A9", "%E2%82%AC", "+", " ", "é", "€", "😀", "\u202e",
              "%00", "%0D%0A", "\\", "?", "#", "~", "%7e"]
    for _ in range(40):
        out.append("".join(rng.choice(pieces) for _ in range(rng.randrange(1, 30))).encode())
    return out


class Module(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.module = build()
        cls.pctenc = cli()
        cls.nginx = Nginx(cls.module)
        cls.conn = cls.nginx.connection()

    @classmethod
    def tearDownClass(cls):
        cls.conn.close()
        cls.nginx.stop()
        shutil.rmtree(cls.nginx.prefix, ignore_errors=True)

    def test_encode_equals_the_cli(self):
        checked = 0
        for data in samples():
            for name in SETS:
                for i in range(len(ENCODE_OPTIONS) + 2):
                    flags = [] if i == 0 else [f for _, f in ENCODE_OPTIONS] if i == 1 else [ENCODE_OPTIONS[i - 2][1]]
                    if data not in (bytes(range(256)), b"%zz", "café/ü?q=1&x=€ 😀".encode()) and i > 1:
                        continue  # each option alone on a few inputs; all of them on every input
                    status, body, _ = get(self.conn, f"/e/{name}/{i}", data)
                    code, want, err = run_cli(self.pctenc, ["encode", "--binary", "--set", name] + flags, data)
                    self.assertEqual((code, err), (0, ""))
                    self.assertEqual((status, body), (200, want), (name, flags, data))
                    checked += 1
        self.assertGreater(checked, 14 * 2 * 300)

    def test_decode_equals_the_cli(self):
        for data in samples():
            for name, _, _, flags in DECODERS:
                code, want, err = run_cli(self.pctenc, ["decode"] + flags, data)
                for on_error in ["400", "pass", "empty"]:
                    status, body, error = get(self.conn, f"/d/{name}/{on_error}", data)
                    what = (name, on_error, data)
                    if code == 0:
                        self.assertEqual((status, body, error), (200, want, ""), what)
                        continue
                    # The CLI's error: "pctenc: <stdin>:L:C: offset N: message".
                    self.assertEqual(code, 1, err)
                    m = re.search(r"offset (\d+): (.*)$", err.strip())
                    self.assertIsNotNone(m, err)
                    if on_error == "400":
                        self.assertEqual(status, 400, what)
                    else:
                        self.assertEqual(status, 200, what)
                        self.assertEqual(body, data if on_error == "pass" else b"", what)
                        self.assertTrue(error.endswith(f" at offset {m.group(1)}"), (error, err))
                        # The variable, then the same kind: the message's words before its first colon.
                        self.assertTrue(error.startswith("$out: "), error)
                        kind = error[len("$out: "):].rsplit(" at offset ", 1)[0].split(":")[0]
                        self.assertEqual(kind, m.group(2).split(":")[0], (error, err))

    def test_normalize_and_validate_equal_the_cli(self):
        for data in samples():
            status, body, _ = get(self.conn, "/n", data)
            code, want, err = run_cli(self.pctenc, ["normalize"], data)
            self.assertEqual((code, err), (0, ""))
            self.assertEqual((status, body), (200, want), data)
            for name in SETS:
                status, body, _ = get(self.conn, f"/v/{name}", data)
                if b"\n" in data or b"\r" in data:
                    # The CLI checks line by line; every set escapes CR and LF.
                    self.assertEqual((status, body), (200, b"0"), (name, data))
                    continue
                code, _, _ = run_cli(self.pctenc, ["check", "--set", name], data)
                self.assertEqual((status, body), (200, b"1" if code == 0 else b"0"), (name, data, code))

    def test_nothing_carries_over_on_keep_alive(self):
        conn = self.nginx.connection()
        try:
            self.assertEqual(get(conn, "/d/strict/pass", b"%zz")[2].endswith("at offset 0"), True)
            self.assertEqual(get(conn, "/d/strict/pass", b"ok"), (200, b"ok", ""))
            self.assertEqual(get(conn, "/d/strict/400", b"%zz")[0], 400)
            self.assertEqual(get(conn, "/d/strict/pass", b"%41"), (200, b"A", ""))
        finally:
            conn.close()

    def test_large_and_empty_values(self):
        rng = random.Random(7)
        big = bytes(rng.randrange(256) for _ in range(64 * 1024))
        for name in ["component", "path"]:
            status, body, _ = get(self.conn, f"/e/{name}/0", big)
            self.assertEqual((status, body), (200, run_cli(self.pctenc, ["encode", "--binary", "--set", name], big)[1]))
        text = "".join(rng.choice(["a", "%41", "é", "%C3%A9", "/", "+"]) for _ in range(20000)).encode()[:65536]
        status, body, _ = get(self.conn, "/d/plus/400", text)
        self.assertEqual((status, body), (200, run_cli(self.pctenc, ["decode", "--plus"], text)[1]))
        self.assertEqual(get(self.conn, "/e/component/0", b""), (200, b"", ""))
        self.assertEqual(get(self.conn, "/d/strict/400", b""), (200, b"", ""))
        # The error log names the variable and the offset of a strict error.
        self.assertEqual(get(self.conn, "/d/strict/400", b"caf%zz")[0], 400)
        self.assertRegex(self.nginx.error_log(), r"pctenc_decode \$out: invalid percent-escape: .* at offset 3")

    def test_readme_example(self):
        """The README's location in front of a backend that echoes the request line."""
        def fetch(path):
            self.conn.request("GET", path)
            r = self.conn.getresponse()
            return r.status, r.read()
        self.assertEqual(fetch("/app/a%7eb/caf%c3%a9?x=%2F"), (200, b"backend got /app/a~b/caf%C3%A9?x=%2F"))
        self.assertEqual(fetch("/app/plain/path"), (200, b"backend got /app/plain/path"))
        for bad in ["/app/a%2fb", "/app/a%5Cb", "/app/x/%2e%2e/y", "/app/x/%2E/y", "/app/a%zz", "/app/a%0d%0a",
                    "/app/a%00", "/app/caf%e9", "/app/a%0b", "/app/a%1b", "/app/a%7f",
                    # Backslash traversal, Tomcat's `..;/`, double encoding, overlong `/`.
                    "/app/..\\secret", "/app/.%2e\\x", "/app/x/..;/secret", "/app/%252e%252e/secret",
                    "/app/%C0%AF",
                    # A dot segment before an escaped `?`, `#` or space, which a backend that
                    # decodes once more splits or trims at.
                    "/app/%2e%2e%3f/x", "/app/%2e%2e%23/x", "/app/..%20/x", "/app/x/.%3F/y"]:
            status, body = fetch(bad)
            self.assertNotIn(b"backend got", body, bad)
            self.assertEqual(status, 400, bad)
        # Out of /app/ once nginx resolves it: another location answers, the backend never sees it.
        status, body = fetch("/app/%2e%2e/secret")
        self.assertNotEqual(status, 200)
        self.assertNotIn(b"backend got", body)

    def test_set_misc_side_by_side(self):
        """set_escape_uri keeps ten characters more than pctenc's `rfc3986` set (!$'()*,@`|),
        and five more than `component` ($,@`|). set_unescape_uri equals strict decoding with
        `+` as a space, in bytes, wherever the input's escapes are valid; a `%` that starts
        no escape it drops, with a truncated escape at the end, where pctenc's strict mode
        refuses the input at the `%` and its lenient mode copies it."""
        set_misc_keeps = "!$'()*,@`|"
        for data in samples():
            _, misc, _ = get(self.conn, "/sm/escape", data)
            _, want, _ = run_cli(self.pctenc, ["encode", "--binary", "--set", "rfc3986", "--keep", set_misc_keeps], data)
            self.assertEqual(misc, want, data)
            _, misc, _ = get(self.conn, "/sm/unescape", data)
            code, strict_plus, _ = run_cli(self.pctenc, ["decode", "--plus"], data)
            if code == 0:
                self.assertEqual(misc, strict_plus, data)
        # Each byte alone: where the two escapes differ, it is one of those ten characters.
        for b in range(256):
            _, misc, _ = get(self.conn, "/sm/escape", bytes([b]))
            _, rfc, _ = get(self.conn, "/e/rfc3986/0", bytes([b]))
            self.assertEqual(misc != rfc, chr(b) in set_misc_keeps, b)
        # What set_unescape_uri does with bad escapes: drops the `%`, or a truncated tail.
        for data, misc in [(b"a%zz+b", b"azz b"), (b"100%", b"100"), (b"a%4", b"a"), (b"%u00e9", b"u00e9")]:
            self.assertEqual(get(self.conn, "/sm/unescape", data)[1], misc, data)
            self.assertEqual(get(self.conn, "/d/strict/400", data)[0], 400, data)
            self.assertEqual(get(self.conn, "/d/lenient/400", data)[1], data, data)
        status, body, error = get(self.conn, "/d/strict/pass", b"a%zz+b")
        self.assertEqual((status, body), (200, b"a%zz+b"))
        self.assertTrue(error.endswith("at offset 1"), error)


class Cases(unittest.TestCase):
    """The cases of t/*.t, each a configuration, a request and the response expected (the
    format of Test::Nginx, described in t/nginx_cases.py), each in an nginx of its own."""

    def test_cases(self):
        module = build()
        files = sorted(glob.glob(os.path.join(HERE, "*.t")))
        self.assertGreater(len(files), 0)
        ran = 0
        for path in files:
            for case in nginx_cases.parse(path):
                with self.subTest(str(case)):
                    nginx_cases.run(case, module, self)
                    ran += 1
        self.assertGreater(ran, 50)


class Faults(unittest.TestCase):
    """What no real input reaches: libpctenc returning a status the module does not expect, or
    reporting more bytes written than it was given. The test build (PCTENC_NGINX_FAULTS=1,
    ngx_http_pctenc_fault) makes a VALUE of `fault:CALL=N` do that; each must end the request
    with 500 and log an alert naming the directive's variable, file and line, the call and the
    status by name."""

    def test_unexpected_statuses(self):
        module = os.environ.get("PCTENC_NGINX_FAULT_MODULE") or subprocess.run(
            ["bash", os.path.join(ROOT, "pctenc-nginx/build.sh")], check=True, stdout=subprocess.PIPE, text=True,
            env=dict(os.environ, PCTENC_NGINX_FAULTS="1")).stdout.strip().splitlines()[-1]
        steps = {"validate": "pctenc_validate $out component $arg_v;",
                 "encode": "pctenc_encode $out component $arg_v;",
                 "decode": "pctenc_decode $out strict $arg_v;",
                 "normalize": "pctenc_normalize $out $arg_v;"}
        cases = [
            ("validate", "validate=4", "pctenc_validate $out in {conf}:{line}: pctenc_validate: internal error"),
            ("validate", "validate=3", "pctenc_validate $out in {conf}:{line}: pctenc_validate: bad argument"),
            ("encode", "encode-size=5", "pctenc_encode $out in {conf}:{line}: pctenc_encode (size): out of memory"),
            ("encode", "encode=6", "pctenc_encode $out in {conf}:{line}: pctenc_encode: stopped by the callback"),
            ("encode", "encode=2", "pctenc_encode $out in {conf}:{line}: pctenc_encode: output buffer too small"),
            ("encode", "encode=overrun", "pctenc_encode $out in {conf}:{line}: {over} bytes written in {size}"),
            ("decode", "decode=4", "pctenc_decode $out in {conf}:{line}: pctenc_decode: internal error"),
            ("decode", "decode=99", "pctenc_decode $out in {conf}:{line}: pctenc_decode: "),
            ("decode", "decode=overrun", "pctenc_decode $out in {conf}:{line}: {over} bytes written in {size}"),
            ("normalize", "normalize=5", "pctenc_normalize $out in {conf}:{line}: pctenc_normalize: out of memory"),
            ("normalize", "normalize=overrun", "pctenc_normalize $out in {conf}:{line}: {over} bytes written in {size}"),
        ]
        for op, fault, message in cases:
            with self.subTest(fault):
                value = f"fault:{fault}"
                case = nginx_cases.Case(__file__, 0, fault)
                case.sections = {"config": f"    location = /t {{\n        {steps[op]}\n        return 200 \"[$out]\";\n"
                                           f"    }}\n",
                                 "request": f"GET /t?v={value}", "error_code": "500"}
                ran = nginx_cases.run(case, module, self)
                # The directive's own line in the configuration nginx read.
                line = ran.conf_text.splitlines().index(f"        {steps[op]}") + 1
                # What the call was given: the encoded length (component keeps these), or the
                # value's length.
                size = len(urllib.parse.quote(value, safe="-_.!~*'()")) if op == "encode" else len(value)
                want = message.format(conf=ran.conf, line=line, over=size + 1, size=size)
                self.assertIn("[alert]", ran.log)
                self.assertIn(want, ran.log)
                self.assertNotIn("could not be evaluated", ran.log)
                self.assertNotIn("no memory", ran.log)


class Exports(unittest.TestCase):
    """The .so exports nginx's entry points only: nginx loads modules with RTLD_GLOBAL, so an
    exported pctenc_* (or Rust std) symbol could be interposed by another module, a second
    libpctenc or LD_PRELOAD, or interpose theirs."""

    def test_only_nginx_entry_points(self):
        module = build()
        def symbols(*flags):
            out = subprocess.run(["nm", "-D", *flags, module], check=True, stdout=subprocess.PIPE, text=True).stdout
            return sorted(line.split()[-1] for line in out.splitlines() if line.strip())
        self.assertEqual(symbols("--defined-only"), ["ngx_module_names", "ngx_module_order", "ngx_modules"])
        # The calls into libpctenc bind inside the module: none goes through the dynamic linker.
        self.assertEqual([s for s in symbols("--undefined-only") if "pctenc" in s or s.startswith("_ZN")], [])
        # The test build's fault hook is not in it.
        local = subprocess.run(["nm", module], check=True, stdout=subprocess.PIPE, text=True).stdout
        self.assertIn("ngx_http_pctenc_code", local)
        self.assertNotIn("ngx_http_pctenc_fault", local)


class Valgrind(unittest.TestCase):
    """The test requests once more with nginx under Valgrind (one process): no invalid read or
    write, nothing definitely lost. Run when PCTENC_NGINX_VALGRIND=1."""

    @unittest.skipUnless(os.environ.get("PCTENC_NGINX_VALGRIND") == "1", "PCTENC_NGINX_VALGRIND=1 runs it")
    def test_under_valgrind(self):
        module = build()
        nginx = Nginx(module, valgrind=True)
        conn = nginx.connection()
        try:
            for data in samples()[:80]:
                for path in ["/e/component/1", "/e/path/0", "/d/strict/400", "/d/lossy/pass", "/d/rejects/empty",
                             "/n", "/v/query", "/sm/escape", "/sm/unescape"]:
                    get(conn, path, data)
            get(conn, "/e/component/0", bytes(range(256)) * 256)
        finally:
            conn.close()
            status = nginx.stop()
        with open(nginx.valgrind_log) as f:
            report = f.read()
        self.assertEqual(status, 0, report[-4000:])
        for error in ["Invalid read", "Invalid write", "Invalid free", "uninitialised", "Conditional jump",
                      "overlap"]:
            self.assertNotIn(error, report)
        # nginx itself leaves a few blocks at exit (its environment, PCRE's compile context):
        # none may come from the module or libpctenc.
        records = re.split(r"\n==\d+== \n", report)
        ours = [r for r in records if " lost in loss record " in r and re.search(r"pctenc|ngx_http_pctenc", r)]
        self.assertEqual(ours, [], "\n".join(ours))
        self.assertIn("ngx_http_pctenc_code", subprocess.run(["nm", module], stdout=subprocess.PIPE, text=True).stdout)
        shutil.rmtree(nginx.prefix, ignore_errors=True)


if __name__ == "__main__":
    unittest.main(verbosity=2)
