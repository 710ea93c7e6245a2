"""The cases of pctenc-nginx/t/*.t: each a configuration, a request and the response expected,
in the block format of Test::Nginx (the format of set-misc's and headers-more's t/*.t), run
in a real nginx started for the case.

    === TEST 3: a bad escape ends the request with 400
    --- config
        location = /t {
            pctenc_decode $out strict $arg_v;
            return 200 $out;
        }
    --- request
    GET /t?v=caf%zz
    --- error_code: 400
    --- error_log
    pctenc_decode $out: invalid percent-escape: `%` not followed by two hex digits at offset 3

Sections (a value on the `---` line, or the lines under it up to the next `---` or `===`):
- `main_config`, `http_config`, `config`: configuration at the top level (after the modules
  are loaded: this module, then set-misc and its NDK), in `http`, in the test `server`;
- `request`: the request line, `METHOD URI` (sent as HTTP/1.1, the URI's bytes as written);
  `more_headers`: `Name: value` lines sent with it;
- `error_code`: the status expected (200 when not given);
- `response_body`: the body expected, byte for byte. Its lines end with a newline, as in
  Test::Nginx; `--- response_body chomp` drops the last one. `response_body_like`: a regular
  expression the body must match (searched, Python's `re`);
- `response_headers`: `Name: value` lines the response must have (`Name:` alone: absent);
- `error_log`: lines each of which must appear in the error log (plain text, not regular
  expressions; the log is at `info` level); `no_error_log`: lines none of which may;
- `must_die`: `nginx -t` must refuse the configuration. `config` is then one directive,
  written inside `location / { }`, and the runner checks that the message names the
  configuration file and the directive's line; `error_log` holds what the message must say.

A value's bytes are its text's UTF-8. In `request`, `\\xHH` stands for the byte HH, a
printable ASCII one (http.client refuses others in a request line: send raw bytes escaped).

The parser is strict, so that a case cannot pass by checking less than it says: a line that
starts with `---` or `===` and is not a section or a case's title, a section given twice in
one case, a modifier other than `chomp`, a case without a request, or a `must_die` case with a
request or a response is an error.
"""
import http.client
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time

SETMISC = ["/usr/lib/nginx/modules/ndk_http_module.so", "/usr/lib/nginx/modules/ngx_http_set_misc_module.so"]
# (section, modifier) pairs a `--- section modifier` line may have.
MODIFIERS = {("response_body", "chomp")}
SECTIONS = {"main_config", "http_config", "config", "request", "more_headers", "error_code",
            "response_body", "response_body_like", "response_headers", "error_log", "no_error_log",
            "must_die"}


class Case:
    def __init__(self, path, line, title):
        self.path, self.line, self.title = path, line, title
        self.sections = {}
        self.modifiers = {}

    def __str__(self):
        return f"{os.path.basename(self.path)}:{self.line}: {self.title}"

    def get(self, name, default=""):
        return self.sections.get(name, default)


def parse(path):
    """The cases of one .t file, in order."""
    cases, case, section, lines = [], None, None, []

    def close():
        if case is not None and section is not None:
            text = "\n".join(lines)
            # A block's value is its lines, each with its newline; blank lines at the end are
            # the gap before the next section.
            case.sections[section] = text.rstrip("\n") + "\n" if text.strip() else ""

    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f.read().splitlines(), 1):
            if line.startswith("==="):
                if not re.match(r"=== TEST \d+: \S", line):
                    raise ValueError(f"{path}:{number}: not a case's title: {line}")
                close()
                section, lines = None, []
                case = Case(path, number, re.sub(r"^=== TEST \d+: ", "", line))
                cases.append(case)
            elif line.startswith("---") and case is not None:
                close()
                m = re.match(r"--- (\w+)(?::\s*(.*)|\s+(\w+))?$", line)
                if not m or m.group(1) not in SECTIONS:
                    raise ValueError(f"{path}:{number}: not a section: {line}")
                if m.group(1) in case.sections:
                    raise ValueError(f"{path}:{number}: `{m.group(1)}` again in one case")
                if m.group(3) is not None and (m.group(1), m.group(3)) not in MODIFIERS:
                    raise ValueError(f"{path}:{number}: `{m.group(3)}` is no modifier of `{m.group(1)}`")
                section, lines = m.group(1), []
                if m.group(2) is not None:
                    case.sections[section] = m.group(2).strip()
                    section = None
                elif m.group(3) is not None:
                    case.modifiers[section] = m.group(3)
            elif section is not None:
                lines.append(line)
            elif line.startswith("#"):
                pass  # a comment, between cases or under a case's title
            elif line.strip() and case is not None:
                raise ValueError(f"{path}:{number}: a line outside any section: {line}")
        close()
    for c in cases:
        if "must_die" in c.sections:
            extra = sorted(set(c.sections) - {"must_die", "config", "error_log", "main_config", "http_config"})
            if extra:
                raise ValueError(f"{c}: a must_die case has no request or response: {', '.join(extra)}")
            if len([line for line in c.get("config").splitlines() if line.strip()]) != 1:
                raise ValueError(f"{c}: a must_die case's config is one directive")
        elif "request" not in c.sections:
            raise ValueError(f"{c}: no request")
    return cases


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def header_lines(text):
    out = []
    for line in text.splitlines():
        if line.strip():
            name, _, value = line.partition(":")
            out.append((name.strip(), value.strip()))
    return out


def request_target(text):
    method, _, uri = text.strip().partition(" ")
    # `\xHH` for a byte the file cannot hold as text; latin-1 so that http.client sends each
    # byte as it is.
    uri = re.sub(r"\\x([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), uri)
    return method, uri


class Ran:
    """What a case left: the configuration's path and text, and the error log."""

    def __init__(self, conf, conf_text, log):
        self.conf, self.conf_text, self.log = conf, conf_text, log


def run(case, module, test):
    """Runs `case` in an nginx with `module` loaded; `test` is the unittest.TestCase that
    asserts. Returns a Ran."""
    prefix = tempfile.mkdtemp(prefix="pctenc-nginx-case-")
    try:
        os.mkdir(os.path.join(prefix, "tmp"))
        port = free_port()
        loads = "\n".join(f"load_module {m};" for m in [module] + SETMISC)
        temp = " ".join(f"{k}_temp_path {prefix}/tmp;" for k in ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"])
        head = (f"{loads}\npid {prefix}/nginx.pid;\nerror_log {prefix}/error.log info;\n"
                f"{case.get('main_config')}\nevents {{ worker_connections 64; }}\n"
                f"http {{\n  access_log off;\n  {temp}\n  default_type text/plain;\n"
                f"{case.get('http_config')}\n  server {{\n    listen 127.0.0.1:{port};\n    server_name localhost;\n")
        if "must_die" in case.sections:
            directive = case.get("config").strip()
            line = head.count("\n") + 2
            conf_text = head + f"    location / {{\n      {directive}\n    }}\n  }}\n}}\n"
        else:
            conf_text = head + case.get("config") + "  }\n}\n"
        conf = os.path.join(prefix, "nginx.conf")
        with open(conf, "w") as f:
            f.write(conf_text)
        error_log = os.path.join(prefix, "error.log")

        if "must_die" in case.sections:
            p = subprocess.run(["nginx", "-t", "-p", prefix, "-c", conf], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            test.assertNotEqual(p.returncode, 0, f"{case}: nginx -t accepted it")
            test.assertIn(f"in {conf}:{line}", p.stdout, str(case))
            for want in case.get("error_log").splitlines():
                if want.strip():
                    test.assertIn(want.strip(), p.stdout, str(case))
            return Ran(conf, conf_text, p.stdout)

        p = subprocess.run(["nginx", "-p", prefix, "-c", conf], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        test.assertEqual(p.returncode, 0, f"{case}: nginx did not start: {p.stdout}")
        try:
            deadline = time.time() + 10
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if time.time() > deadline:
                        raise
                    time.sleep(0.02)
            method, uri = request_target(case.get("request"))
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            try:
                conn.putrequest(method, uri, skip_accept_encoding=True)
                for name, value in header_lines(case.get("more_headers")):
                    conn.putheader(name, value)
                conn.endheaders()
                r = conn.getresponse()
                status, body, headers = r.status, r.read(), r.getheaders()
            finally:
                conn.close()
        finally:
            subprocess.run(["nginx", "-p", prefix, "-c", conf, "-s", "quit"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            for _ in range(200):
                if not os.path.exists(os.path.join(prefix, "nginx.pid")):
                    break
                time.sleep(0.02)
        with open(error_log, errors="replace") as f:
            log = f.read()

        test.assertEqual(status, int(case.get("error_code") or 200), f"{case}: status; body {body!r}")
        if "response_body" in case.sections:
            want = case.get("response_body")
            if case.modifiers.get("response_body") == "chomp":
                want = want[:-1] if want.endswith("\n") else want
            test.assertEqual(body, want.encode(), str(case))
        if "response_body_like" in case.sections:
            test.assertRegex(body.decode("utf-8", "replace"), case.get("response_body_like").strip(), str(case))
        have = {name.lower(): value for name, value in headers}
        for name, value in header_lines(case.get("response_headers")):
            if value:
                test.assertEqual(have.get(name.lower()), value, f"{case}: header {name}")
            else:
                test.assertNotIn(name.lower(), have, f"{case}: header {name}")
        for want in case.get("error_log").splitlines():
            if want.strip():
                test.assertIn(want.strip(), log, str(case))
        for unwanted in case.get("no_error_log").splitlines():
            if unwanted.strip():
                test.assertNotIn(unwanted.strip(), log, str(case))
        return Ran(conf, conf_text, log)
    finally:
        shutil.rmtree(prefix, ignore_errors=True)
