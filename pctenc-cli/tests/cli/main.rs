//! The `pctenc` binary: exit codes, line mode, `--binary`, `-o` atomicity, streaming.

mod bench;
mod charset;
mod generate;
mod messages;
mod output;
mod run;
mod threads;

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use run::{command, fails, fails_all, ok, output_of, pctenc, spawn_lock};

#[test]
fn readme_examples() {
    assert_eq!(ok(&["encode"], b"a b\n"), b"a%20b\n");
    assert_eq!(
        ok(&["encode", "--set", "component"], "Jürgen & Björk\n".as_bytes()),
        b"J%C3%BCrgen%20%26%20Bj%C3%B6rk\n"
    );
    assert_eq!(ok(&["decode"], b"J%C3%BCrgen%20%26%20Bj%C3%B6rk\n"), "Jürgen & Björk\n".as_bytes());
}

#[test]
fn line_mode_keeps_line_endings() {
    assert_eq!(ok(&["encode"], b"a b\r\nc d\ne\rf\r"), b"a%20b\r\nc%20d\ne%0Df%0D");
    assert_eq!(ok(&["encode"], b"no newline"), b"no%20newline");
    assert_eq!(ok(&["encode"], b"\n\n"), b"\n\n");
    assert_eq!(ok(&["encode"], b""), b"");
}

#[test]
fn binary_mode_encodes_every_byte() {
    assert_eq!(ok(&["encode", "--binary"], b"a b\r\n"), b"a%20b%0D%0A");
    let all: Vec<u8> = (0..=255).collect();
    let want = pctenc::encode(&all, &pctenc::sets::RFC3986);
    assert_eq!(ok(&["encode", "--binary"], &all), want.as_bytes());
    assert_eq!(ok(&["decode"], want.as_bytes()), all);
}

#[test]
fn encode_options() {
    assert_eq!(ok(&["encode", "--set", "form"], b"a b&c*~\n"), b"a+b%26c*%7E\n");
    assert_eq!(ok(&["encode", "--set", "uri-component", "--lowercase"], "é/\n".as_bytes()), b"%c3%a9%2f\n");
    assert_eq!(ok(&["encode", "--keep", "/", "--escape", "~"], b"a/b~\n"), b"a/b%7E\n");
    assert_eq!(ok(&["encode", "--space-as-plus"], b"a b+\n"), b"a+b%2B\n");
    assert_eq!(
        ok(&["encode", "--iri", "--set", "component"], b"caf\xC3\xA9 \xFF\n"),
        "café%20%FF\n".as_bytes()
    );
    // `--iri` keeps RFC 3987's `ucschar` raw, and escapes C1 controls, bidi formatting
    // characters, private use and noncharacters.
    assert_eq!(
        ok(
            &["encode", "--iri", "--set", "component"],
            "é\u{9B}\u{85}\u{202E}\u{E000}\u{FFFF}😀\n".as_bytes()
        ),
        "é%C2%9B%C2%85%E2%80%AE%EE%80%80%EF%BF%BF😀\n".as_bytes()
    );
    // Every bidi control (Unicode's Bidi_Control: the Arabic letter mark too) is escaped.
    assert_eq!(
        ok(&["encode", "--iri"], "\u{627}\u{61C}\u{200E}\u{2066}\n".as_bytes()),
        "\u{627}%D8%9C%E2%80%8E%E2%81%A6\n".as_bytes()
    );
}

/// `--space-as-plus` escapes `+` with every set, so `decode --plus` gives the input back
/// (`%` too, with the sets that escape it).
#[test]
fn space_as_plus_round_trips_with_every_set() {
    assert_eq!(ok(&["encode", "--set", "uri", "--space-as-plus"], b"a+b c\n"), b"a%2Bb+c\n");
    for named in pctenc::sets::NAMED {
        let input: &[u8] = if named.set.contains(b'%') { b"1+1 = 2 %41+\n" } else { b"1+1 = 2 +\n" };
        let encoded = ok(&["encode", "--set", named.name, "--space-as-plus"], input);
        assert!(!encoded.contains(&b' '), "{}: {encoded:?}", named.name);
        assert_eq!(ok(&["decode", "--plus"], &encoded), input, "{}: {encoded:?}", named.name);
    }
}

#[test]
fn decode_options() {
    assert_eq!(ok(&["decode", "--plus"], b"a+b%2B\n"), b"a b+\n");
    assert_eq!(ok(&["decode", "--lenient"], b"100% %41%zz\n"), b"100% A%zz\n");
    assert_eq!(ok(&["decode", "--lenient", "--utf8", "lossy"], b"%C0%AF!"), "\u{FFFD}\u{FFFD}!".as_bytes());
    assert_eq!(ok(&["decode"], b"%FF"), b"\xFF");
}

/// `--mode WORDS` is the flags in the core's words (docs/WORDS.md): the same bytes, and
/// `lossy` is UTF-8 only; a clash of words is a usage error naming both.
#[test]
fn mode_words() {
    let input = b"a+b%zz%C0%AF!";
    assert_eq!(
        ok(&["decode", "--mode", "lenient plus lossy"], input),
        ok(&["decode", "--lenient", "--plus", "--utf8", "lossy"], input)
    );
    let (code, msg) = fails(&["decode", "--mode", "Lossy"], input);
    assert_eq!(code, 1);
    assert_eq!(
        msg,
        "pctenc: <stdin>:1:4: offset 3: invalid percent-escape: `%` not followed by two hex digits"
    );
    assert_eq!(
        ok(&["decode", "--mode", "reject_all,keep_encoded=uri-reserved"], b"%2F%41"),
        ok(&["decode", "--reject", "all", "--keep-encoded", "uri-reserved"], b"%2F%41")
    );
    let (code, msg) = fails_all(&["decode", "--mode", "utf8=strict utf8=lossy"], b"");
    assert_eq!(code, 2);
    assert!(msg.contains("`utf8=lossy` contradicts `utf8=strict` (word at offset 12)"), "{msg}");
    let (code, msg) = fails_all(&["decode", "--mode", "plus", "--plus"], b"");
    assert_eq!(code, 2);
    assert!(msg.contains("cannot be used with"), "{msg}");

    assert_eq!(ok(&["encode", "--mode", "form lowercase"], "a b/é\n".as_bytes()), b"a+b%2f%c3%a9\n");
    assert_eq!(
        ok(&["encode", "--mode", "path requote iri"], "a %41%é\n".as_bytes()),
        ok(&["encode", "--set", "path", "--keep-escapes", "--iri"], "a %41%é\n".as_bytes())
    );
    let (code, msg) = fails_all(&["encode", "--mode", "form form"], b"");
    assert_eq!(code, 2);
    assert!(msg.contains("`form` repeats `form`"), "{msg}");
    let (code, _) = fails_all(&["encode", "--mode", "form", "--set", "path"], b"");
    assert_eq!(code, 2);
}

#[test]
fn decode_errors_name_input_line_column_and_offset() {
    let (code, msg) = fails(&["decode"], b"ok\nstill ok\nbad %zz here\n");
    assert_eq!(code, 1);
    assert_eq!(
        msg,
        "pctenc: <stdin>:3:5: offset 16: invalid percent-escape: `%` not followed by two hex digits"
    );

    let (code, msg) = fails(&["decode"], b"line\n100%");
    assert_eq!(code, 1);
    assert_eq!(msg, "pctenc: <stdin>:2:4: offset 8: truncated percent-escape: `%` needs two hex digits");

    let (code, msg) = fails(&["decode", "--utf8", "strict"], b"a\n\nxy%E2%82!");
    assert_eq!(code, 1);
    assert_eq!(msg, "pctenc: <stdin>:3:3: offset 5: decoded bytes are not valid UTF-8");
}

#[test]
fn decode_keep_encoded() {
    let args = ["decode", "--keep-encoded", "uri-reserved"];
    assert_eq!(ok(&args, b"a%2fb%3F%41%C3%A9%20+\n"), "a%2fb%3FAé +\n".as_bytes());
    assert_eq!(ok(&["decode", "--keep-encoded", "decodeURI"], b"%23%2523"), b"%23%23");
    // A named set keeps the escapes of every byte it escapes, non-ASCII included.
    assert_eq!(ok(&["decode", "--keep-encoded", "rfc3986"], b"%7e%41%2F%C3%a9"), b"~A%2F%C3%a9");
    assert_eq!(ok(&["decode", "--keep-encoded", "component"], b"%21%2A%2F%20"), b"!*%2F%20");
    // As decodeURI: strict UTF-8 around kept escapes, offsets in the input.
    let (code, msg) =
        fails(&["decode", "--keep-encoded", "uri-reserved", "--utf8", "strict"], b"ok\n%2F%C3%2F");
    assert_eq!(code, 1);
    assert_eq!(msg, "pctenc: <stdin>:2:4: offset 6: decoded bytes are not valid UTF-8");
}

#[test]
fn decode_legacy_u() {
    assert_eq!(ok(&["decode", "--legacy-u"], b"%u00e9t%u00E9 %uD83D%uDE00%41\n"), "été 😀A\n".as_bytes());
    assert_eq!(
        ok(&["decode", "--legacy-u", "--lenient"], b"%uD83D!%U0041%u12"),
        "\u{FFFD}!%U0041%u12".as_bytes()
    );
    assert_eq!(ok(&["decode", "--lenient"], b"%u0041"), b"%u0041");
    let (code, msg) = fails(&["decode", "--legacy-u"], b"ab\ncd%uDE00%uD83D");
    assert_eq!(code, 1);
    assert_eq!(
        msg,
        "pctenc: <stdin>:2:3: offset 5: lone surrogate: `%u` escape of half a UTF-16 surrogate pair"
    );
    let (_, msg) = fails(&["decode", "--legacy-u"], b"%u00");
    assert_eq!(msg, "pctenc: <stdin>:1:1: offset 0: truncated `%u` escape: `%u` needs four hex digits");
    let (code, msg) = fails(
        &["decode", "--legacy-u"],
        b"ok
%u0041%u00z1
",
    );
    assert_eq!(code, 1);
    assert_eq!(
        msg,
        "pctenc: <stdin>:2:7: offset 9: invalid `%u` escape: `%u` not followed by four hex digits"
    );
    // Without `--legacy-u`, `%u` is a `%` without two hex digits.
    let (_, msg) = fails(&["decode"], b"%u0041");
    assert_eq!(
        msg,
        "pctenc: <stdin>:1:1: offset 0: invalid percent-escape: `%` not followed by two hex digits"
    );
}

#[test]
fn decode_reject() {
    let (code, msg) = fails(&["decode", "--reject", "nul,slashes"], b"/a/b\n/c%2Fd\n");
    assert_eq!(code, 1);
    assert_eq!(msg, "pctenc: <stdin>:2:3: offset 7: rejected byte: escape decodes to 0x2F ('/')");
    let (_, msg) = fails(&["decode", "--reject", "crlf", "--reject", "nul"], b"a%00");
    assert_eq!(msg, "pctenc: <stdin>:1:2: offset 1: rejected byte: escape decodes to 0x00");
    let (_, msg) = fails(&["decode", "--reject", "controls", "--lenient"], b"%zz%7f");
    assert_eq!(msg, "pctenc: <stdin>:1:4: offset 3: rejected byte: escape decodes to 0x7F");
    let (_, msg) = fails(&["decode", "--reject", "all", "--legacy-u"], b"%u005C");
    assert_eq!(msg, "pctenc: <stdin>:1:1: offset 0: rejected byte: escape decodes to 0x5C ('\\')");
    // Raw bytes pass; decoding happens once.
    assert_eq!(ok(&["decode", "--reject", "all"], b"/a\\b\t%252F%20\n"), b"/a\\b\t%2F \n");
    // Kept escapes are not decoded, so not rejected.
    let args = ["decode", "--keep-encoded", "uri-reserved", "--reject", "slashes"];
    assert_eq!(ok(&args, b"a%2Fb%2f\n"), b"a%2Fb%2f\n");
    let (_, msg) = fails(&args, b"a%2Fb%5c");
    assert_eq!(msg, "pctenc: <stdin>:1:6: offset 5: rejected byte: escape decodes to 0x5C ('\\')");
}

#[test]
fn decode_options_across_read_chunks() {
    // The CLI reads 256 KiB at a time: a surrogate pair, a kept escape and a rejected one on
    // every position around the boundary.
    const CHUNK: usize = 256 * 1024;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("in.txt");
    let file = path.to_str().unwrap();
    for before in CHUNK - 13..=CHUNK + 1 {
        let mut input = b"x\n".repeat(before / 2);
        input.resize(before, b'y');
        input.extend_from_slice(b"%uD83D%uDE00%2F");
        std::fs::write(&path, &input).unwrap();
        let mut want = input[..before].to_vec();
        want.extend_from_slice("😀%2F".as_bytes());
        assert_eq!(
            ok(&["decode", "--legacy-u", "--keep-encoded", "uri-reserved", file], b""),
            want,
            "{before}"
        );
        let (code, msg) = fails(&["decode", "--legacy-u", "--reject", "slashes", file], b"");
        assert_eq!(code, 1);
        let line = before / 2 + 1;
        let column = before - 2 * (before / 2) + 13;
        assert_eq!(
            msg,
            format!(
                "pctenc: {file}:{line}:{column}: offset {}: rejected byte: escape decodes to 0x2F ('/')",
                before + 12
            ),
        );
        // A high surrogate left alone at the end.
        std::fs::write(&path, &input[..before + 6]).unwrap();
        let (_, msg) = fails(&["decode", "--legacy-u", file], b"");
        assert!(
            msg.ends_with(&format!(
                "offset {before}: lone surrogate: `%u` escape of half a UTF-16 surrogate pair"
            )),
            "{msg}"
        );
    }
}

#[test]
fn usage_errors_exit_2_with_clap_message() {
    for args in [
        &["encode", "--set", "nope"][..],
        &["encode", "--bogus"],
        &["decode", "--utf8", "maybe"],
        &["frobnicate"],
        &["encode", "--keep", "é"],
        &["decode", "--keep-encoded", "nope"],
        &["decode", "--reject", "nul,bogus"],
    ] {
        let (code, msg) = fails_all(args, b"");
        assert_eq!(code, 2, "{args:?}: {msg}");
        assert!(msg.starts_with("pctenc: "), "{msg}");
        // Clap's message, whole, ends with where to look for help (`--keep é` is pctenc's own).
        if args.get(1) != Some(&"--keep") {
            assert!(msg.ends_with("For more information, try '--help'.\n"), "{msg}");
        }
    }
    let (_, msg) = fails_all(&["encode", "--set", "nope"], b"");
    assert!(msg.contains("nope") && msg.contains("component"), "{msg}");
    let (_, msg) = fails_all(&["decode", "--keep-encoded", "nope"], b"");
    assert!(msg.contains("nope") && msg.contains("uri-reserved") && msg.contains("component"), "{msg}");
}

#[test]
fn io_errors_name_the_file() {
    let (code, msg) = fails(&["encode", "/nonexistent/input.txt"], b"");
    assert_eq!(code, 2);
    assert!(msg.starts_with("pctenc: /nonexistent/input.txt: "), "{msg}");
}

#[test]
fn files_are_processed_in_order_with_stdin_as_dash() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.txt"), dir.path().join("b.txt"));
    std::fs::write(&a, "a a\n").unwrap();
    std::fs::write(&b, "b b\n").unwrap();
    let out = ok(&["encode", a.to_str().unwrap(), "-", b.to_str().unwrap()], b"s s\n");
    assert_eq!(out, b"a%20a\ns%20s\nb%20b\n");
    // Decode errors name the file they are in.
    std::fs::write(&b, "fine\nbad%").unwrap();
    let (code, msg) = fails(&["decode", a.to_str().unwrap(), b.to_str().unwrap()], b"");
    assert_eq!(code, 1);
    assert!(
        msg.ends_with("b.txt:2:4: offset 8: truncated percent-escape: `%` needs two hex digits"),
        "{msg}"
    );
}

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    names
}

#[test]
fn output_file_is_replaced_only_on_success() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.txt");
    let out_arg = out.to_str().unwrap();

    ok(&["encode", "-o", out_arg], b"a b\n");
    assert_eq!(std::fs::read(&out).unwrap(), b"a%20b\n");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&out).unwrap().permissions().mode() & 0o777, 0o644);
    }

    // A failing run leaves the old file as it was and no temporary file behind.
    let big_then_bad: Vec<u8> = b"%41".repeat(500_000).into_iter().chain(*b"%zz").collect();
    let (code, _) = fails(&["decode", "-o", out_arg], &big_then_bad);
    assert_eq!(code, 1);
    assert_eq!(std::fs::read(&out).unwrap(), b"a%20b\n");
    assert_eq!(entries(dir.path()), ["out.txt"]);

    // So does a missing input, and a failure that never created the file leaves none.
    let fresh = dir.path().join("fresh.txt");
    let (code, _) = fails(&["encode", "-o", fresh.to_str().unwrap(), "/nonexistent"], b"");
    assert_eq!(code, 2);
    assert_eq!(entries(dir.path()), ["out.txt"]);

    // An output directory that does not exist is an error naming the output.
    let (code, msg) = fails(&["encode", "-o", "/nonexistent/dir/out.txt"], b"x");
    assert_eq!(code, 2);
    assert!(msg.contains("/nonexistent/dir/out.txt"), "{msg}");
}

#[test]
fn sets_lists_every_set() {
    let out = String::from_utf8(ok(&["sets"], b"")).unwrap();
    for named in pctenc::sets::NAMED {
        let line = out.lines().find(|l| l.split_whitespace().next() == Some(named.name)).unwrap();
        let kept: String = named.set.kept_punctuation().map(char::from).collect();
        assert!(line.contains(kept.trim_start()), "{line}");
    }
}

/// A large input streams through a pipe with bounded memory, and output starts before the
/// input ends.
#[cfg(target_os = "linux")]
#[test]
fn stdin_streams_with_bounded_memory() {
    // Held until the writer has closed the child's stdin (see `run`).
    let lock = spawn_lock();
    let mut child =
        command().args(["encode", "--binary"]).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    const TOTAL: usize = 64 << 20;
    let writer = std::thread::spawn(move || {
        let block: Vec<u8> = (0..1 << 20).map(|i| b"ab cd/ef"[i % 8]).collect();
        for _ in 0..TOTAL >> 20 {
            stdin.write_all(&block).unwrap();
        }
    });
    let mut received = 0usize;
    let mut peak_kib = 0u64;
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = stdout.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        received += n;
        if let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status"))
            && let Some(hwm) = status.lines().find_map(|l| l.strip_prefix("VmHWM:"))
        {
            peak_kib = peak_kib.max(hwm.trim().trim_end_matches(" kB").trim().parse().unwrap());
        }
    }
    writer.join().unwrap();
    drop(lock);
    assert!(child.wait().unwrap().success());
    // 8 input bytes ("ab cd/ef") encode to 12.
    assert_eq!(received, TOTAL / 8 * 12);
    eprintln!("peak RSS of `pctenc encode --binary` over {} MiB: {} KiB", TOTAL >> 20, peak_kib);
    // AddressSanitizer keeps freed memory in quarantine and adds shadow memory: its run
    // (`PCTENC_SANITIZER` set by `.ci/run`) checks accesses here, the other runs the bound.
    if std::env::var_os("PCTENC_SANITIZER").is_some() {
        eprintln!("PCTENC_SANITIZER is set: the 32 MiB bound is not checked in this run");
        return;
    }
    assert!(peak_kib > 0 && peak_kib < 32 * 1024, "peak RSS {peak_kib} KiB");
}

#[test]
fn every_backend_gives_the_same_output() {
    let input: Vec<u8> = "Jürgen & Björk, 100% /path?q=中文 ~\n".repeat(50).into_bytes();
    let want = ok(&["encode", "--set", "component"], &input);
    let mut ran = Vec::new();
    for backend in pctenc::Backend::ALL {
        if !backend.is_available() {
            let (code, msg) = fails(&["encode", "--backend", backend.name()], b"");
            assert_eq!(code, 2, "{msg}");
            assert!(msg.contains("not available"), "{msg}");
            continue;
        }
        assert_eq!(ok(&["encode", "--set", "component", "--backend", backend.name()], &input), want);
        assert_eq!(ok(&["--backend", backend.name(), "check", "--set", "component"], &want), b"");
        ran.push(backend.name());
    }
    eprintln!("CLI backends run: {ran:?}");
    let (code, _) = fails_all(&["encode", "--backend", "mmx"], b"");
    assert_eq!(code, 2);
}

#[test]
fn info_names_the_chosen_backend() {
    let out = String::from_utf8(ok(&["info"], b"")).unwrap();
    let detected = pctenc::Backend::detect().name();
    assert!(out.lines().any(|l| l.starts_with("backend chosen:") && l.ends_with(detected)), "{out}");
    let out = String::from_utf8(ok(&["info", "--backend", "scalar"], b"")).unwrap();
    assert!(out.lines().any(|l| l.starts_with("backend chosen:") && l.ends_with(" scalar")), "{out}");
    let out = String::from_utf8(ok(&["info", "-j", "3"], b"")).unwrap();
    assert!(out.lines().any(|l| l == "threads:             3"), "{out}");
    let (code, msg) = fails_all(&["encode", "-j", "0"], b"");
    assert_eq!(code, 2, "{msg}");
}

/// Runs a command that may fail; returns (status, stderr lines).
fn run_lines(args: &[&str], stdin: &[u8]) -> (i32, Vec<String>) {
    let out = pctenc(args, stdin);
    let stderr = String::from_utf8(out.stderr).unwrap();
    (out.status.code().unwrap(), stderr.lines().map(String::from).collect())
}

#[test]
fn check_reports_every_invalid_line() {
    assert_eq!(run_lines(&["check", "--set", "component"], b"a%20b\r\nok%2F\n\nJ%C3%BCrgen"), (0, vec![]));
    let (code, lines) = run_lines(&["check", "--set", "component"], b"a%20b\nbad line\r\nok%2F\n100%\n%zz\n");
    assert_eq!(code, 1);
    assert_eq!(
        lines,
        [
            "pctenc: <stdin>:2:4: offset 9: byte 0x20 (' ') must be percent-encoded",
            "pctenc: <stdin>:4:4: offset 25: truncated percent-escape: `%` needs two hex digits",
            "pctenc: <stdin>:5:1: offset 27: invalid percent-escape: `%` not followed by two hex digits",
        ]
    );
    // Form: `+` is a space; IRI: raw UTF-8 is fine, broken UTF-8 is not.
    assert_eq!(run_lines(&["check", "--set", "form"], b"a+b%2B\n"), (0, vec![]));
    assert_eq!(run_lines(&["check", "--iri"], "café\n".as_bytes()), (0, vec![]));
    let (code, lines) = run_lines(&["check", "--iri"], b"caf\xE9\n");
    assert_eq!((code, lines.len()), (1, 1));
    assert!(lines[0].starts_with("pctenc: <stdin>:1:4: offset 3: byte 0xe9"), "{lines:?}");
    // Outside RFC 3987's `ucschar`, or bidi formatting: must be escaped.
    let (code, lines) = run_lines(&["check", "--iri"], "ok\ncafé\u{202E}\n".as_bytes());
    assert_eq!((code, lines.len()), (1, 1));
    assert!(lines[0].starts_with("pctenc: <stdin>:2:6: offset 8: byte 0xe2"), "{lines:?}");
}

/// Lines longer than the CLI's read size, with escapes, UTF-8 and `\r\n` split across reads,
/// are judged as a whole, with exact offsets.
#[test]
fn check_long_lines_across_reads() {
    const READ: usize = 256 * 1024;
    for shift in 0..4 {
        // An escape, then a two-byte UTF-8 character, then `\r\n`, each around a read border.
        let mut line = vec![b'a'; READ - 1 - shift];
        line.extend_from_slice(b"%41");
        line.extend(std::iter::repeat_n(b'b', READ - 4));
        line.extend_from_slice("é".as_bytes());
        line.extend_from_slice(b"\r\n");
        let mut input = line.clone();
        input.extend_from_slice(&line);
        assert_eq!(run_lines(&["check", "--iri"], &input), (0, vec![]), "shift {shift}");
        // A bad byte far into the second line.
        let at = line.len() + READ + 7;
        input[at] = b' ';
        let (code, lines) = run_lines(&["check", "--iri"], &input);
        assert_eq!(code, 1);
        let want =
            format!("pctenc: <stdin>:2:{}: offset {at}: byte 0x20 (' ') must be percent-encoded", READ + 8);
        assert_eq!(lines, [want]);
    }
}

/// The CLI's read size: the first read of a file ends exactly here.
const READ: usize = 256 * 1024;

/// Runs `args` on `input` twice, from a file (mapped: all of it at once) and from a pipe
/// (reads of at most `READ` bytes, cut wherever the pipe gives out), and returns the output,
/// the same both ways.
fn ok_file_and_pipe(args: &[&str], input: &[u8]) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("in");
    std::fs::write(&path, input).unwrap();
    let mut with_file = args.to_vec();
    with_file.push(path.to_str().unwrap());
    let from_file = ok(&with_file, b"");
    assert_eq!(ok(args, input), from_file, "{args:?}: pipe and file differ");
    from_file
}

/// A UTF-8 character cut by a read stays whole with --iri: raw, not escaped.
#[test]
fn encode_iri_across_reads() {
    let iri = pctenc::Encoder::new(pctenc::sets::RFC3986.with_iri(true));
    for shift in 1..4 {
        let mut line = vec![b'a'; READ - shift];
        line.extend_from_slice("é€😀 x".as_bytes());
        let mut want = iri.encode(&line).into_owned().into_bytes();
        assert!(want.ends_with("é€😀%20x".as_bytes()));
        line.push(b'\n');
        want.push(b'\n');
        assert_eq!(ok_file_and_pipe(&["encode", "--iri"], &line), want, "shift {shift}");
        want.truncate(want.len() - 1);
        want.extend_from_slice(b"%0A");
        assert_eq!(ok_file_and_pipe(&["encode", "--iri", "--binary"], &line), want, "shift {shift}");
    }
}

#[test]
fn normalize_examples() {
    assert_eq!(ok(&["normalize"], b"a%7e%2fb%c3%a9\n"), b"a~%2Fb%C3%A9\n");
    // Reserved escapes, stray `%`s, raw bytes and line endings pass through.
    assert_eq!(ok(&["normalize"], b"100% %2f\r\n\xFF %41%zz\n%%34%7E"), b"100% %2F\r\n\xFF A%zz\n%%34~");
    assert_eq!(ok(&["normalize"], b"no newline %7e"), b"no newline ~");
    assert_eq!(ok(&["normalize"], b""), b"");

    // Files in order, `-` for stdin; -o replaced only on success.
    let dir = tempfile::tempdir().unwrap();
    let (a, out) = (dir.path().join("a.txt"), dir.path().join("out.txt"));
    std::fs::write(&a, "%7e%\n").unwrap();
    let (a, out_arg) = (a.to_str().unwrap(), out.to_str().unwrap());
    assert_eq!(ok(&["normalize", a, "-", a], b"%41"), b"~%\nA~%\n");
    // An escape never spans two inputs: the `%` ending one file stays a `%`.
    assert_eq!(ok(&["normalize", a, a], b""), b"~%\n~%\n");
    ok(&["normalize", "-o", out_arg, a], b"");
    assert_eq!(std::fs::read(&out).unwrap(), b"~%\n");
    let (code, msg) = fails(&["normalize", "-o", out_arg, a, "/nonexistent/in.txt"], b"");
    assert_eq!(code, 2);
    assert!(msg.starts_with("pctenc: /nonexistent/in.txt: "), "{msg}");
    assert_eq!(std::fs::read(&out).unwrap(), b"~%\n");
    assert_eq!(entries(dir.path()), ["a.txt", "out.txt"]);

    // Usage errors.
    for args in [&["normalize", "--set", "path"][..], &["normalize", "--lowercase"]] {
        let (code, msg) = fails_all(args, b"");
        assert_eq!(code, 2, "{args:?}: {msg}");
    }
}

/// Escapes cut by a read, and the context an escape looks back at (a stray `%` before it),
/// cut at every place around the end of the first read.
#[test]
fn normalize_across_reads() {
    let tail = b"%%7e%4%31%c3%a9%%34%2f\n%7E";
    for shift in 1..=10 {
        let mut input = vec![b'a'; READ - shift];
        input.extend_from_slice(tail);
        let want = pctenc::normalize(&input);
        assert!(want.ends_with(b"%~%4%31%C3%A9%%34%2F\n~"), "{}", want[READ - 20..].escape_ascii());
        assert_eq!(ok_file_and_pipe(&["normalize"], &input), &want[..], "shift {shift}");
    }
}

#[test]
fn encode_keep_escapes() {
    let requote = |args: &[&str], input: &[u8]| {
        let mut args = args.to_vec();
        args.insert(0, "encode");
        args.push("--keep-escapes");
        ok(&args, input)
    };
    assert_eq!(requote(&["--set", "component"], b"100% %41 %zz\n"), b"100%25%20%41%20%25zz\n");
    // Without the flag, every `%` is encoded.
    assert_eq!(ok(&["encode", "--set", "component"], b"100% %41\n"), b"100%25%20%2541\n");
    // Case kept; a set that keeps `%`; line endings; a `%` at the end of a line is stray.
    assert_eq!(requote(&[], b"%c3%A9 x%\r\n%4\n"), b"%c3%A9%20x%25\r\n%254\n");
    assert_eq!(requote(&["--set", "path"], b"/50%/a b%2f\n"), b"/50%25/a%20b%2f\n");
    assert_eq!(requote(&["--lowercase"], b"%C3%A9/\n"), b"%C3%A9%2f\n");
    // --binary, --keep, --escape, form's `+`, IRI.
    assert_eq!(requote(&["--binary"], b"%41%\n"), b"%41%25%0A");
    assert_eq!(requote(&["--keep", "/", "--escape", "~"], b"/a%2F~%\n"), b"/a%2F%7E%25\n");
    assert_eq!(requote(&["--set", "form"], b"a+b c%2B\n"), b"a+b+c%2B\n");
    assert_eq!(
        requote(&["--iri", "--set", "component"], "é%C3%A9 \u{FF}%\n".as_bytes()),
        "é%C3%A9%20ÿ%25\n".as_bytes()
    );
}

/// A `%`, `%H` or `%HH` cut by a read is still one escape, in line and binary mode.
#[test]
fn encode_keep_escapes_across_reads() {
    let enc = pctenc::Encoder::new(pctenc::sets::RFC3986).keep_escapes(true);
    let tail = b"%41%4%%e9 %\r\n%2";
    for shift in 1..=8 {
        let mut input = vec![b'a'; READ - shift];
        input.extend_from_slice(tail);
        let (line, next) = input.split_at(READ - shift + 11);
        let mut want = enc.encode(line).into_owned().into_bytes();
        assert!(want.ends_with(b"%41%254%25%e9%20%25"), "{}", String::from_utf8_lossy(&want[READ - 30..]));
        want.extend_from_slice(b"\r\n%252");
        assert_eq!(ok_file_and_pipe(&["encode", "--keep-escapes"], &input), want, "shift {shift}");
        assert_eq!(next, b"\r\n%2");
        let binary = enc.encode(&input).into_owned().into_bytes();
        assert!(binary.ends_with(b"%25%0D%0A%252"));
        assert_eq!(
            ok_file_and_pipe(&["encode", "--keep-escapes", "--binary"], &input),
            binary,
            "shift {shift}"
        );
    }
}

/// Log-like text of at least `len` bytes, cut at a line end: escapes valid and not, UTF-8,
/// `\r\n` and (once, far in) a lone `\r`, `+` and `%` at every kind of place.
fn big_text(len: usize) -> Vec<u8> {
    let lines: [&[u8]; 8] = [
        b"GET /search?q=caf%C3%A9+au+lait&x=100% HTTP/1.1\n",
        "203.0.113.9 - - [30/Nov/2026] \"GET /\u{65e5}\u{672c}/\u{1F600} HTTP/2\" 200\r\n".as_bytes(),
        b"%%41 %4 %zz %2F%2f / \\ ~ -._\n",
        b"\xC3\xA9\xFF\xC3 broken UTF-8\n",
        b"plain-ascii-line-without-anything-to-escape\n",
        b"\n",
        b"a b+c=d&e;f,g:h@i$j'k(l)m*n!o\n",
        "Gr\u{fc}\u{df}e aus K\u{f6}ln, \u{3b1}\u{3b2}\u{3b3} \u{645}\u{631}\u{62d}\u{628}\u{627}\n"
            .as_bytes(),
    ];
    let mut text = Vec::with_capacity(len + 256);
    let mut state = 0x1234_5678u64;
    let mut lone_cr = false;
    while text.len() < len {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        text.extend_from_slice(lines[(state % lines.len() as u64) as usize]);
        if text.len() > len / 2 && !lone_cr {
            // Line mode encodes the run of lines around it line by line.
            text.extend_from_slice(b"a lone\rcarriage return\n");
            lone_cr = true;
        }
    }
    text
}

/// More than one mapped segment (16 MiB), with many parallel chunks: every thread count gives
/// the same output, the same as from a pipe and as the library's.
#[test]
fn large_files_give_the_same_output_for_every_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let text = big_text(17 << 20);
    let path = dir.path().join("big.log");
    std::fs::write(&path, &text).unwrap();
    let file = path.to_str().unwrap();
    for args in [
        &["encode"][..],
        &["encode", "--binary"],
        &["encode", "--set", "path", "--iri", "--keep-escapes"],
        &["decode", "--lenient", "--plus"],
    ] {
        let j1 = ok(&[args, &["-j", "1", file]].concat(), b"");
        for threads in ["2", "3"] {
            assert!(ok(&[args, &["-j", threads, file]].concat(), b"") == j1, "{args:?} -j {threads}");
        }
        assert!(ok(args, &text) == j1, "{args:?}: pipe and file differ");
        if args == ["encode", "--binary"] {
            assert!(j1 == pctenc::encode(&text, &pctenc::sets::RFC3986).as_bytes());
        }
    }
}

/// A decoding error far into a large mapped file is placed on its line and column, whatever
/// the number of threads; nothing is written to `-o`.
#[test]
fn large_file_errors_name_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    // Each line encoded on its own: the line breaks stay.
    let raw = big_text(17 << 20);
    let lines: Vec<String> = raw
        .split(|&b| b == b'\n')
        .map(|l| pctenc::encode(l, &pctenc::sets::COMPONENT).into_owned())
        .collect();
    let mut text = lines.join("\n").into_bytes();
    let at = text.len() - 1000;
    let at = at + text[at..].iter().position(|&b| b == b'%').unwrap();
    text[at + 1] = b'z';
    let line = text[..at].iter().filter(|&&b| b == b'\n').count() + 1;
    let column = at - text[..at].iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1) + 1;
    let path = dir.path().join("bad.enc");
    std::fs::write(&path, &text).unwrap();
    let out = dir.path().join("out");
    for threads in ["1", "2"] {
        let (code, msg) =
            fails(&["decode", "-j", threads, path.to_str().unwrap(), "-o", out.to_str().unwrap()], b"");
        assert_eq!(code, 1);
        let want = format!("bad.enc:{line}:{column}: offset {at}: ");
        assert!(msg.contains(&want), "{msg} (want {want})");
        assert!(!out.exists(), "a failed run left output");
    }
}

/// The progress bar: never when stderr is not a terminal, even for a large file; shown on a
/// terminal (a pseudo-terminal from `script`), unless --no-progress.
#[test]
fn progress_bar_only_on_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big");
    std::fs::write(&path, vec![b'a'; 65 << 20]).unwrap();
    let out = dir.path().join("out");
    let (file, target) = (path.to_str().unwrap(), out.to_str().unwrap());
    let quiet = pctenc(&["encode", "--binary", file, "-o", target], b"");
    assert!(quiet.status.success());
    assert!(quiet.stderr.is_empty(), "stderr redirected, yet: {:?}", String::from_utf8_lossy(&quiet.stderr));
    if output_of(Command::new("script").arg("--version")).is_err() {
        panic!("`script` (util-linux) is needed to give pctenc a terminal");
    }
    let runner = std::env::var("PCTENC_CLI_RUNNER").unwrap_or_default();
    let exe = env!("CARGO_BIN_EXE_pctenc");
    let on_tty = |extra: &str| -> String {
        let line = format!("{runner} {exe} encode --binary {extra} {file} -o {target}");
        let out = output_of(Command::new("script").args(["-qefc", &line, "/dev/null"])).unwrap();
        assert!(out.status.success(), "{line}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let shown = on_tty("");
    assert!(shown.contains("MiB"), "no progress bar on a terminal: {shown:?}");
    let hidden = on_tty("--no-progress");
    assert!(!hidden.contains("MiB"), "--no-progress, yet: {hidden:?}");
}

/// Files that say they are regular but have no size (`/proc`) or cannot be mapped (`/sys`)
/// are read as streams.
#[cfg(target_os = "linux")]
#[test]
fn files_without_a_size_are_read() {
    let version = std::fs::read("/proc/version").unwrap();
    let want = ok(&["encode", "--binary"], &version);
    assert!(!want.is_empty());
    assert_eq!(ok(&["encode", "--binary", "/proc/version"], b""), want);
    let thp = "/sys/kernel/mm/transparent_hugepage/enabled";
    if let Ok(contents) = std::fs::read(thp) {
        assert_eq!(ok(&["encode", "--binary", thp], b""), ok(&["encode", "--binary"], &contents));
    }
}

/// On a 32-bit target the line of an error gigabytes into a file is counted a mapped segment
/// at a time: everything before the error mapped at once does not fit in the address space.
/// (The file is 2.5 GiB of a hole, which takes no disk space; the output goes to /dev/null.)
#[cfg(all(target_pointer_width = "32", target_os = "linux"))]
#[test]
fn errors_gigabytes_into_a_file_are_placed_on_32_bit() {
    use std::io::{Seek, SeekFrom};

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("holes");
    let zeros: u64 = 5 << 29;
    let mut file = std::fs::File::create(&path).unwrap();
    file.seek(SeekFrom::Start(zeros)).unwrap();
    file.write_all(b"\n%zz\n").unwrap();
    drop(file);
    let name = path.to_str().unwrap();
    let child = {
        let _lock = spawn_lock();
        command()
            .args(["decode", name])
            .stdin(Stdio::null())
            .stdout(std::fs::File::options().write(true).open("/dev/null").unwrap())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8(run::without_emulator_warnings(out.stderr)).unwrap();
    assert_eq!(
        stderr.trim_end(),
        format!(
            "pctenc: {name}:2:1: offset {}: invalid percent-escape: `%` not followed by two hex digits",
            zeros + 1
        )
    );
    assert_eq!(out.status.code(), Some(1));
}

/// After a decode error standard output holds the decoding of every byte before the bad
/// escape (`decode`), or every line before the bad one (`decode --charset`): the same through
/// a mapped file as through a pipe, with one thread or two, with the same status and message.
#[test]
fn output_before_a_decode_error_is_the_same_on_every_path() {
    let dir = tempfile::tempdir().unwrap();
    // An error in the second mapped segment (16 MiB), inside a parallel piece.
    let mut big = b"%41".repeat((17 << 20) / 3 + 33);
    let bad_at = big.len();
    big.extend_from_slice(b"%zz\n");
    big.extend_from_slice(&b"%41".repeat(1000));
    // The same with --utf8 strict (the serial path), the error just after a sequence's start.
    let mut text = b"%C3%A9".repeat((17 << 20) / 6 + 11);
    let text_at = text.len();
    text.extend_from_slice(b"%C3%zz\n%C3%A9");
    let cases: [(&[&str], &[u8], Vec<u8>); 8] = [
        (&["decode"], b"ok\nab%zz\n", b"ok\nab".to_vec()),
        (&["decode"], b"ok\nabc%", b"ok\nabc".to_vec()),
        (&["decode"], b"ok\nab%4", b"ok\nab".to_vec()),
        (&["decode", "--utf8", "strict"], b"abc%C3%zz", b"abc".to_vec()),
        (&["decode", "--charset", "sjis"], b"ok\nab%zz\n", b"ok\n".to_vec()),
        (&["decode"], &big, vec![b'A'; bad_at / 3]),
        (&["decode", "--utf8", "strict"], &text, "\u{e9}".repeat(text_at / 6).into_bytes()),
        (
            &["decode", "--utf8", "lossy"],
            &text,
            "\u{e9}".repeat(text_at / 6).chars().chain(['\u{FFFD}']).collect::<String>().into_bytes(),
        ),
    ];
    let path = dir.path().join("in");
    let file = path.to_str().unwrap();
    for (args, input, want) in cases {
        std::fs::write(&path, input).unwrap();
        let mut first: Option<(Option<i32>, String)> = None;
        for j in ["1", "2"] {
            for through_file in [true, false] {
                let mut run: Vec<&str> = args.to_vec();
                run.extend(["-j", j]);
                let out = if through_file {
                    run.push(file);
                    pctenc(&run, b"")
                } else {
                    pctenc(&run, input)
                };
                let stderr = String::from_utf8(out.stderr).unwrap().replace(file, "<stdin>");
                assert!(
                    out.stdout == want,
                    "{run:?}: {} bytes out, {} expected; {stderr}",
                    out.stdout.len(),
                    want.len()
                );
                let seen = (out.status.code(), stderr);
                assert_eq!(seen.0, Some(1), "{run:?}: {}", seen.1);
                match &first {
                    None => first = Some(seen),
                    Some(first) => assert_eq!(&seen, first, "{run:?}"),
                }
            }
        }
    }
}
