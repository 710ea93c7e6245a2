//! Conformance with the test suites of the systems whose sets and decoders pctenc matches:
//!
//! - web-platform-tests (`tests/data/wpt/`, BSD 3-Clause, see `tests/data/wpt/LICENSE`):
//!   `percent-encoding.json` and the path, query, fragment and userinfo cases of
//!   `setters_tests.json`, against the WHATWG sets;
//! - Go's `net/url` (`tests/data/go-net-url/`, BSD-style, see its `LICENSE`): the tables
//!   `unescapeTests`, `queryEscapeTests` and `pathEscapeTests` of `url_test.go`, against sets
//!   built from Go's `shouldEscape` and the strict byte decoder;
//! - CPython (`tests/data/cpython/`, PSF licence, see its `LICENSE`): the `QuotingTests` and
//!   `UnquotingTests` of `Lib/test/test_urllib.py`, against sets built from `quote`'s rules and
//!   the lenient decoders.
//!
//! The data is read from files inside the repository only. Every case runs on the engine
//! detection picks and on the scalar engine. Each test prints how many cases it checked and
//! how many it excluded, and why; a failure names the source, the case, the expected and the
//! actual output.

use std::collections::BTreeMap;

use pctenc::{DecodeErrorKind, Decoder, Encoder, Engine, Set, Utf8Mode, sets};
use serde_json::Value;

/// The JSON file `tests/data/{name}`.
fn load(name: &str) -> Value {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path} is not JSON: {e}"))
}

/// The string field `key` of a JSON object.
fn field<'a>(case: &'a Value, key: &str) -> &'a str {
    case[key].as_str().unwrap_or_else(|| panic!("no string {key:?} in {case}"))
}

/// The engines every case runs on: the one detection picks, and the portable one.
fn engines() -> Vec<Engine> {
    let mut all = vec![Engine::detect()];
    if Engine::detect() != Engine::scalar() {
        all.push(Engine::scalar());
    }
    all
}

/// Bytes as a readable literal: a Rust string when they are UTF-8, escaped bytes otherwise.
fn show(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => format!("{s:?}"),
        Err(_) => format!("b\"{}\"", bytes.escape_ascii()),
    }
}

/// A decoding result with the error as `(offset, kind)`.
type Outcome = Result<Vec<u8>, (usize, DecodeErrorKind)>;

fn show_outcome(outcome: &Outcome) -> String {
    match outcome {
        Ok(bytes) => show(bytes),
        Err((offset, kind)) => format!("error at offset {offset}: {kind:?}"),
    }
}

/// The checks of one source: what was compared, what was left out and why, what failed.
struct Report {
    source: String,
    checked: usize,
    excluded: BTreeMap<String, usize>,
    failures: Vec<String>,
}

impl Report {
    fn new(source: impl Into<String>) -> Report {
        Report { source: source.into(), checked: 0, excluded: BTreeMap::new(), failures: Vec::new() }
    }

    fn exclude(&mut self, why: &str) {
        *self.excluded.entry(why.to_owned()).or_default() += 1;
    }

    fn fail(&mut self, case: &str, engine: Engine, input: &[u8], want: &str, got: &str) {
        let backend = engine.backend();
        self.failures.push(format!(
            "{}: {case}: input {}: expected {want}, got {got} (engine {backend})",
            self.source,
            show(input)
        ));
    }

    /// Checks that `prefix` followed by `input` encoded with `set` is `want`, on every engine.
    fn encode(&mut self, case: &str, input: &[u8], set: Set, prefix: &str, want: &str) {
        self.checked += 1;
        for engine in engines() {
            let got = format!("{prefix}{}", Encoder::new(set).engine(engine).encode(input));
            if got != want {
                self.fail(case, engine, input, &format!("{want:?}"), &format!("{got:?}"));
            }
        }
    }

    /// Checks that decoding `input` with `dec` gives `want`, on every engine.
    fn decode(&mut self, case: &str, input: &[u8], dec: Decoder, want: &Outcome) {
        self.checked += 1;
        for engine in engines() {
            let got: Outcome =
                dec.engine(engine).decode(input).map(|c| c.into_owned()).map_err(|e| (e.offset(), e.kind()));
            if got != *want {
                self.fail(case, engine, input, &show_outcome(want), &show_outcome(&got));
            }
        }
    }

    /// Prints the counts, and returns what went wrong: the failures, or fewer than `min` cases
    /// checked (the number this data gives: a test that silently checks nothing must not
    /// pass).
    fn summary(self, min: usize) -> Option<String> {
        let excluded: usize = self.excluded.values().sum();
        let mut counts = format!("{}: {} cases checked, {excluded} excluded", self.source, self.checked);
        for (why, n) in &self.excluded {
            counts.push_str(&format!("\n  excluded {n}: {why}"));
        }
        // One print, so that tests running in parallel do not mix their lines.
        println!("{counts}");
        if !self.failures.is_empty() {
            Some(format!("{}: {} failures:\n{}", self.source, self.failures.len(), self.failures.join("\n")))
        } else if self.checked < min {
            Some(format!("{}: only {} cases checked, expected at least {min}", self.source, self.checked))
        } else {
            None
        }
    }

    /// [`summary`](Report::summary), failing the test when something went wrong.
    fn finish(self, min: usize) {
        if let Some(problem) = self.summary(min) {
            panic!("{problem}");
        }
    }
}

// ---------------------------------------------------------------------------------------
// web-platform-tests

/// The URL parser removes every ASCII tab and newline from its input before anything else
/// (URL Standard, basic URL parser). The `href` of a page and the pathname, search and hash
/// setters go through it; the username and password setters do not.
fn without_tab_newline(s: &str) -> String {
    s.chars().filter(|&c| !matches!(c, '\t' | '\n' | '\r')).collect()
}

/// url/percent-encoding.window.js puts each input into
/// `<a href="https://doesnotmatter.invalid/?{input}#{input}">` (resources/percent-encoding.py)
/// in a page of each legacy encoding, and asserts `a.hash == "#" + output["utf-8"]`: the
/// fragment is percent-encoded from UTF-8 whatever the page's encoding, with the fragment
/// percent-encode set (the query, asserted against the other encodings' outputs, is the
/// "percent-encode after encoding" part, which pctenc does not do). So `output["utf-8"]` is
/// the input encoded with `sets::FRAGMENT`.
#[test]
fn wpt_percent_encoding() {
    let data = load("wpt/percent-encoding.json");
    let mut report = Report::new("wpt percent-encoding.json");
    for case in data.as_array().expect("a list of cases") {
        // Comments are strings between the cases.
        if case.is_string() {
            continue;
        }
        let input = without_tab_newline(field(case, "input"));
        let want = field(&case["output"], "utf-8");
        report.encode(
            &format!("input {:?} (fragment)", field(case, "input")),
            input.as_bytes(),
            sets::FRAGMENT,
            "",
            want,
        );
    }
    report.finish(7);
}

const SPECIAL_SCHEMES: [&str; 6] = ["ftp", "file", "http", "https", "ws", "wss"];

/// A dot segment of a path: removed or resolved by the URL parser, never encoded.
fn is_dot_segment(segment: &str) -> bool {
    let s = segment.to_ascii_lowercase();
    matches!(s.as_str(), "." | "%2e" | ".." | ".%2e" | "%2e." | "%2e%2e")
}

/// A Windows drive letter (`C:` or `C|`), which file URLs treat specially.
fn is_windows_drive_letter(segment: &str) -> bool {
    let b = segment.as_bytes();
    b.len() == 2 && b[0].is_ascii_alphabetic() && matches!(b[1], b':' | b'|')
}

/// Why a case of a setters group is not one of "encode one component": `None` when it is.
///
/// `scheme` and `rest` are the parts of the case's `href` around the first `:`; `value` is the
/// new value as the setter's parser sees it (tabs and newlines already removed for pathname,
/// search and hash; the leading `?` or `#` already stripped for search and hash).
fn setter_exclusion(group: &str, scheme: &str, rest: &str, value: &str) -> Option<&'static str> {
    let special = SPECIAL_SCHEMES.contains(&scheme);
    match group {
        "pathname" => {
            if !special && !rest.starts_with('/') {
                return Some("pathname: opaque path (the setter does nothing)");
            }
            if value.is_empty() {
                return Some(
                    "pathname: empty value (what is left depends on the scheme and the host: path start state)",
                );
            }
            if special && value.contains('\\') {
                return Some("pathname: backslash in a special URL (a segment separator, not encoded)");
            }
            let segments = || value.split(|c| c == '/' || (special && c == '\\'));
            if segments().any(is_dot_segment) {
                return Some("pathname: dot segments (removed or resolved, not encoded)");
            }
            if scheme == "file" && segments().any(is_windows_drive_letter) {
                return Some("pathname: Windows drive letter in a file URL");
            }
            None
        }
        "search" | "hash" => {
            // An empty value removes the component (and may strip trailing spaces of an
            // opaque path); `?` or `#` alone leaves it empty, and the getter returns "".
            value.is_empty().then_some("search/hash: empty value (nothing encoded; the getter returns \"\")")
        }
        "username" | "password" => {
            // "Cannot have a username/password/port": no host, an empty host, or a file URL.
            if scheme == "file" {
                return Some(
                    "username/password: file URL (cannot have credentials: the setter does nothing)",
                );
            }
            let Some(after) = rest.strip_prefix("//") else {
                return Some("username/password: no host (cannot have credentials: the setter does nothing)");
            };
            let end =
                after.find(|c| matches!(c, '/' | '?' | '#') || (special && c == '\\')).unwrap_or(after.len());
            let authority = &after[..end];
            let host_port = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
            if host_port.split(':').next().unwrap_or("").is_empty() {
                return Some(
                    "username/password: empty host (cannot have credentials: the setter does nothing)",
                );
            }
            value.is_empty().then_some("username/password: empty value (nothing to encode)")
        }
        _ => unreachable!("group {group}"),
    }
}

/// url/resources/setters_tests.json, the groups that set one component: each checked case is
/// `url[group] = new_value` followed by `url[group] == expected[group]`, where the setter runs
/// the URL parser on the value from the state of that component, which percent-encodes it:
///
/// - pathname: path state; each segment with the path percent-encode set, `/` between them;
///   the path start state consumes one leading `/`, and the getter writes `/` before each
///   segment: `expected == "/" + PATH(value without one leading "/")`;
/// - search: one leading `?` stripped, query state: the special-query set for special schemes,
///   the query set for the others; the getter adds `?`: `expected == "?" + QUERY(value)`;
/// - hash: one leading `#` stripped, fragment state: `expected == "#" + FRAGMENT(value)`;
/// - username, password: the value with the userinfo set, as is: `expected == USERINFO(value)`.
///
/// The cases where more than encoding happens are excluded by [`setter_exclusion`], and counted.
#[test]
fn wpt_setters() {
    let data = load("wpt/setters_tests.json");
    // The number of cases of each group that this data checks.
    let groups = [("pathname", 17), ("search", 8), ("hash", 20), ("username", 5), ("password", 5)];
    let mut problems = Vec::new();
    for (group, min) in groups {
        let mut report = Report::new(format!("wpt setters_tests.json {group}"));
        for case in data[group].as_array().unwrap_or_else(|| panic!("no group {group}")) {
            let href = field(case, "href");
            let new_value = field(case, "new_value");
            let want = field(&case["expected"], group);
            let (scheme, rest) = href.split_once(':').expect("an absolute URL");
            let special = SPECIAL_SCHEMES.contains(&scheme);
            let value = match group {
                "pathname" => without_tab_newline(new_value),
                "search" => {
                    let v = without_tab_newline(new_value);
                    v.strip_prefix('?').unwrap_or(&v).to_owned()
                }
                "hash" => {
                    let v = without_tab_newline(new_value);
                    v.strip_prefix('#').unwrap_or(&v).to_owned()
                }
                _ => new_value.to_owned(),
            };
            if let Some(why) = setter_exclusion(group, scheme, rest, &value) {
                report.exclude(why);
                continue;
            }
            let name = format!("<{href}>.{group} = {new_value:?}");
            match group {
                "pathname" => {
                    let segments = value.strip_prefix('/').unwrap_or(&value);
                    report.encode(&name, segments.as_bytes(), sets::PATH, "/", want);
                }
                "search" => {
                    let set = if special { sets::SPECIAL_QUERY } else { sets::QUERY };
                    report.encode(&name, value.as_bytes(), set, "?", want);
                }
                "hash" => report.encode(&name, value.as_bytes(), sets::FRAGMENT, "#", want),
                _ => report.encode(&name, value.as_bytes(), sets::USERINFO, "", want),
            }
        }
        problems.extend(report.summary(min));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

// ---------------------------------------------------------------------------------------
// Go net/url

/// The set of Go's `shouldEscape(c, mode)` (src/net/url/url.go) for the two modes of
/// `QueryEscape` (encodeQueryComponent) and `PathEscape` (encodePathSegment), rule by rule:
/// letters and digits are kept; `-_.~` (RFC 3986 §2.3 unreserved) are kept; of the reserved
/// `$&+,/:;=?@` (§2.2), a query component escapes all, a path segment escapes only `/;,?`;
/// everything else is escaped, and so is every byte from 0x80. `QueryEscape` writes a space
/// as `+`.
fn go_set(path_segment: bool) -> Set {
    let mut set = Set::EMPTY;
    for b in 0..128u8 {
        let escape = if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            false
        } else if b"$&+,/:;=?@".contains(&b) {
            !path_segment || b"/;,?".contains(&b)
        } else {
            true
        };
        if escape {
            set = set.add(b);
        }
    }
    set.with_space_as_plus(!path_segment)
}

/// Go's `EscapeError(s)` names the text of the bad escape: the `%` and up to two bytes after
/// it. Its offset is that of the first `%` where that text starts and no escape does.
fn go_error_offset(input: &[u8], text: &str) -> usize {
    let valid_escape = |i: usize| {
        input.len() > i + 2 && input[i + 1].is_ascii_hexdigit() && input[i + 2].is_ascii_hexdigit()
    };
    (0..input.len())
        .find(|&i| input[i..].starts_with(text.as_bytes()) && !valid_escape(i))
        .unwrap_or_else(|| panic!("EscapeError({text:?}) does not name a bad escape of {}", show(input)))
}

/// The expected result of an unescape table entry on `input`: `out`, or the error that Go's
/// comment on the entry describes, at the bad `%`.
fn go_expected(case: &Value, input: &[u8], out: &str) -> Outcome {
    match case["err"].as_str() {
        None => Ok(out.as_bytes().to_vec()),
        Some(text) => {
            let kind = match field(case, "comment") {
                "not enough characters after %" => DecodeErrorKind::TruncatedEscape,
                "invalid hex digits" => DecodeErrorKind::InvalidEscape,
                other => panic!("unknown comment {other:?}"),
            };
            Err((go_error_offset(input, text), kind))
        }
    }
}

#[test]
fn go_net_url() {
    let data = load("go-net-url/url_test.json");
    let mut report = Report::new("Go net/url url_test.go");

    let query_escape = go_set(false);
    let path_escape = go_set(true);
    // The named sets are Go's.
    assert_eq!(Set::by_name("go-query"), Some(query_escape));
    assert_eq!(sets::PYTHON_QUOTE_PLUS, query_escape);
    assert_eq!(sets::GO_PATH, path_escape);
    // Go decodes to bytes, with no UTF-8 check; a malformed `%` is an error.
    let query_unescape = Decoder::new().plus_as_space(true).utf8(Utf8Mode::Bytes);
    let path_unescape = Decoder::new().utf8(Utf8Mode::Bytes);

    let table = |name: &str| data[name].as_array().unwrap_or_else(|| panic!("no table {name}")).clone();

    // TestQueryEscape and TestPathEscape: the escape, then the unescape of it gives the input.
    for (name, set, dec, escape, unescape) in [
        ("queryEscapeTests", query_escape, query_unescape, "QueryEscape", "QueryUnescape"),
        ("pathEscapeTests", path_escape, path_unescape, "PathEscape", "PathUnescape"),
    ] {
        for (i, case) in table(name).iter().enumerate() {
            let (input, out) = (field(case, "in"), field(case, "out"));
            report.encode(&format!("{name}[{i}] {escape}({input:?})"), input.as_bytes(), set, "", out);
            let roundtrip = Ok(input.as_bytes().to_vec());
            report.decode(&format!("{name}[{i}] {unescape}({out:?})"), out.as_bytes(), dec, &roundtrip);
        }
    }

    // TestUnescape: QueryUnescape of each entry; PathUnescape of it with `+` written `%20`
    // (same result) and, when that succeeds, of the entry itself, where each `+` stays a `+`.
    for (i, case) in table("unescapeTests").iter().enumerate() {
        let (input, out) = (field(case, "in"), field(case, "out"));
        let name = |f: &str, arg: &str| format!("unescapeTests[{i}] {f}({arg:?})");
        let want = go_expected(case, input.as_bytes(), out);
        report.decode(&name("QueryUnescape", input), input.as_bytes(), query_unescape, &want);
        let (mut path_in, mut path_out) = (input.to_owned(), out.to_owned());
        if input.contains('+') {
            path_in = input.replace('+', "%20");
            let want = go_expected(case, path_in.as_bytes(), out);
            report.decode(&name("PathUnescape", &path_in), path_in.as_bytes(), path_unescape, &want);
            if case["err"].is_null() {
                // Go takes the expected output from QueryUnescape(in with `+` as "XXX"), with
                // "XXX" back to `+`. Without a `%`, QueryUnescape returns its input unchanged.
                let marked = input.replace('+', "XXX");
                if marked.contains('%') {
                    report.exclude("an expected output Go computes with QueryUnescape of a derived input");
                    continue;
                }
                (path_in, path_out) = (input.to_owned(), marked.replace("XXX", "+"));
            }
        }
        let want = go_expected(case, path_in.as_bytes(), &path_out);
        report.decode(&name("PathUnescape", &path_in), path_in.as_bytes(), path_unescape, &want);
    }

    // 5 + 7 escapes and their round trips, 13 query and 14 path unescapes.
    report.finish(2 * (5 + 7) + 13 + 14);
}

// ---------------------------------------------------------------------------------------
// CPython urllib.parse

/// The set of Python's `quote(s, safe)` (Lib/urllib/parse.py): a byte is kept when it is in
/// `_ALWAYS_SAFE` (letters, digits and `_.-~`) or among the ASCII bytes of `safe`
/// (`quote_from_bytes` drops the others), every other byte is written `%XX` in uppercase hex.
/// `quote_plus` writes a space as `+` (it quotes with `safe + ' '` and replaces the spaces).
fn python_set(safe: &str, plus: bool) -> Set {
    let mut keep = b"_.-~".to_vec();
    keep.extend(safe.bytes().filter(u8::is_ascii));
    Set::keeping(&keep).with_space_as_plus(plus)
}

/// Python's `hexescape(char)` of test_urllib.py: `%` and two uppercase hex digits.
fn hexescape(b: u8) -> String {
    format!("%{b:02X}")
}

/// `unquote` decodes malformed escapes as they are and the result as UTF-8 with
/// `errors="replace"` (one U+FFFD per maximal invalid subsequence, DECODING.md);
/// `unquote_plus` first turns `+` into a space; `unquote_to_bytes` returns the bytes.
fn python_decoder(function: &str) -> Decoder {
    let lenient = Decoder::new().lenient(true);
    match function {
        "unquote" => lenient.utf8(Utf8Mode::Lossy),
        "unquote_plus" => lenient.plus_as_space(true).utf8(Utf8Mode::Lossy),
        "unquote_to_bytes" => lenient.utf8(Utf8Mode::Bytes),
        other => panic!("no decoder for {other}"),
    }
}

fn bytes_of(case: &Value, key: &str) -> Vec<u8> {
    case[key]
        .as_array()
        .unwrap_or_else(|| panic!("no list {key:?} in {case}"))
        .iter()
        .map(|b| b.as_u64().and_then(|b| u8::try_from(b).ok()).expect("a byte value"))
        .collect()
}

#[test]
fn cpython_urllib() {
    let data = load("cpython/test_urllib.json");
    let mut report = Report::new("CPython test_urllib.py");

    // The named sets are the defaults: quote(s) keeps `/`, quote(s, safe="") is RFC 3986
    // unreserved, quote_plus(s).
    assert_eq!(python_set("/", false), sets::PYTHON_QUOTE);
    assert_eq!(python_set("", false), sets::RFC3986);
    assert_eq!(python_set("", true), sets::PYTHON_QUOTE_PLUS);

    for case in data["cases"].as_array().expect("a list of cases") {
        if let Some(why) = case.get("excluded") {
            report.exclude(why.as_str().expect("the reason is a string"));
            continue;
        }
        let function = field(case, "function");
        let name = format!("{}: {}", field(case, "test"), field(case, "python"));
        // A str argument is UTF-8 encoded first (the default encoding); bytes are used as is.
        let input = match case.get("input") {
            Some(s) => s.as_str().expect("input is a str").as_bytes().to_vec(),
            None => bytes_of(case, "input_bytes"),
        };
        match function {
            "quote" | "quote_from_bytes" | "quote_plus" => {
                let plus = function == "quote_plus";
                let default_safe = if plus { "" } else { "/" };
                let safe = case.get("safe").map_or(default_safe, |s| s.as_str().expect("safe is a str"));
                if plus && safe.contains('+') {
                    // Python keeps that `+` raw beside the `+`s that stand for spaces, so its
                    // output does not decode back; a set that writes a space as `+` escapes `+`.
                    report.exclude("quote_plus with `+` in safe: a raw `+` would read as a space");
                    continue;
                }
                report.encode(&name, &input, python_set(safe, plus), "", field(case, "expect"));
            }
            _ => {
                let want = match case.get("expect") {
                    Some(s) => s.as_str().expect("expect is a str").as_bytes().to_vec(),
                    None => bytes_of(case, "expect_bytes"),
                };
                report.decode(&name, &input, python_decoder(function), &Ok(want));
            }
        }
    }

    // QuotingTests.test_default_quoting: every C0 control, `<>#%"{}|\^[]`` and DEL is quoted
    // by quote() and quote_plus() as hexescape(char).
    let should_quote: Vec<u8> = (0..32).chain(br#"<>#%"{}|\^[]`"#.iter().copied()).chain([127]).collect();
    for &b in &should_quote {
        let c = char::from(b);
        report.encode(
            &format!("test_default_quoting: quote({c:?})"),
            &[b],
            python_set("/", false),
            "",
            &hexescape(b),
        );
        report.encode(
            &format!("test_default_quoting: quote_plus({c:?})"),
            &[b],
            python_set("", true),
            "",
            &hexescape(b),
        );
    }

    // UnquotingTests.test_unquoting: unquote() and unquote_plus() of hexescape(chr(num)) is
    // chr(num) for every ASCII num, and unquote() of all of them together leaves one `%`.
    let mut escape_string = String::new();
    for num in 0..128u8 {
        let given = hexescape(num);
        for function in ["unquote", "unquote_plus"] {
            let name = format!("test_unquoting: {function}({given:?})");
            report.decode(&name, given.as_bytes(), python_decoder(function), &Ok(vec![num]));
        }
        escape_string.push_str(&given);
    }
    report.checked += 1;
    for engine in engines() {
        let result: Outcome = python_decoder("unquote")
            .engine(engine)
            .decode(&escape_string)
            .map(|c| c.into_owned())
            .map_err(|e| (e.offset(), e.kind()));
        let percents = result.as_ref().map(|r| r.iter().filter(|&&b| b == b'%').count());
        if percents != Ok(1) {
            let got = format!("{percents:?} `%` in {}", show_outcome(&result));
            report.fail(
                "test_unquoting: unquote(escape_string).count('%')",
                engine,
                escape_string.as_bytes(),
                "1",
                &got,
            );
        }
    }

    // 42 literal cases, 2 per should_quote char, 2 per ASCII char and the escape string.
    report.finish(42 + 2 * should_quote.len() + 2 * 128 + 1);
}
