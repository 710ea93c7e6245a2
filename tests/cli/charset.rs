//! `--charset` on `encode`, `decode` and `check`; `decode --explain`; `pctenc charsets`.

use super::run::{fails, fails_all, ok};

#[test]
fn encode_in_a_legacy_encoding() {
    assert_eq!(
        ok(&["encode", "--charset", "sjis", "--set", "form"], "検索 ワード\n".as_bytes()),
        b"%8C%9F%8D%F5+%83%8F%81%5B%83h\n"
    );
    // Each line on its own, line endings kept, what the encoding lacks as `&#N;`.
    assert_eq!(
        ok(&["encode", "--charset", "CP1252", "--set", "special-query"], "Fußball\r\n☃\nlast".as_bytes()),
        b"Fu%DFball\r\n%26%239731%3B\nlast"
    );
    // ISO-2022-JP returns to ASCII at the end of every line.
    assert_eq!(
        ok(&["encode", "--charset", "iso-2022-jp"], "あ\nい\n".as_bytes()),
        b"%1B%24B%24%22%1B%28B\n%1B%24B%24%24%1B%28B\n"
    );
    // The options still apply.
    assert_eq!(
        ok(&["encode", "--charset", "euc-kr", "--lowercase", "--keep-escapes"], "%41한\n".as_bytes()),
        b"%41%c7%d1\n"
    );
    // UTF-16 encodes as UTF-8, as in forms.
    assert_eq!(ok(&["encode", "--charset", "utf-16le"], "é\n".as_bytes()), b"%C3%A9\n");
    assert_eq!(ok(&["encode", "--charset", "big5"], b""), b"");
}

#[test]
fn encode_charset_needs_utf8_text() {
    let (code, msg) = fails(&["encode", "--charset", "sjis"], b"ok\nab\xFFc\n");
    assert_eq!(code, 1);
    assert_eq!(msg, "pctenc: <stdin>:2:3: offset 5: not valid UTF-8 (--charset converts UTF-8 text)");
    let (code, msg) = fails_all(&["encode", "--charset", "sjis", "--binary"], b"x");
    assert_eq!(code, 2);
    assert!(msg.contains("--binary"), "{msg}");
}

#[test]
fn decode_from_a_legacy_encoding() {
    let input = b"q=%8C%9F%8D%F5+%83%8F%81%5B%83h\nplain\r\n";
    assert_eq!(
        ok(&["decode", "--charset", "shift_jis", "--plus"], input),
        "q=検索 ワード\nplain\r\n".as_bytes()
    );
    // Strict by default: the error names the line, the column of the `%` and the offset.
    let (code, msg) = fails(&["decode", "--charset", "sjis"], b"ok\nab%82%20\n");
    assert_eq!(code, 1);
    assert_eq!(msg, "pctenc: <stdin>:2:3: offset 5: not valid Shift_JIS");
    // Escape errors are the decoder's, placed the same way.
    let (code, msg) = fails(&["decode", "--charset", "sjis"], b"ok\n%8C%9F%zz\n");
    assert_eq!(code, 1);
    assert_eq!(
        msg,
        "pctenc: <stdin>:2:7: offset 9: invalid percent-escape: `%` not followed by two hex digits"
    );
    // Lossy, and bytes (no conversion).
    assert_eq!(
        ok(&["decode", "--charset", "sjis", "--utf8", "lossy"], b"ab%82%20\n"),
        "ab\u{FFFD} \n".as_bytes()
    );
    assert_eq!(ok(&["decode", "--charset", "sjis", "--utf8", "bytes"], b"ab%82%20\n"), b"ab\x82 \n");
    // Every byte value through a single-byte encoding.
    let all: String = (0..=255u8).map(|b| format!("%{b:02X}")).collect();
    let text = ok(&["decode", "--charset", "windows-1252"], all.as_bytes());
    assert_eq!(
        text,
        pctenc::charset::Charset::WINDOWS_1252
            .encoding()
            .decode_without_bom_handling(&pctenc::decode(&all).unwrap())
            .0
            .as_bytes()
    );
}

#[test]
fn unknown_labels_are_usage_errors() {
    for cmd in ["encode", "decode", "check"] {
        let (code, msg) = fails_all(&[cmd, "--charset", "shift-jiss"], b"");
        assert_eq!(code, 2, "{cmd}");
        assert!(msg.contains("'shift-jiss'") && msg.contains("did you mean `shift_jis`?"), "{cmd}: {msg}");
    }
    let (code, msg) = fails_all(&["decode", "--charset", "sjis", "--explain"], b"");
    assert_eq!(code, 2);
    assert!(msg.contains("cannot be used with"), "{msg}");
    // Options on single bytes do not mix with characters of several bytes.
    for option in [&["--legacy-u"][..], &["--keep-encoded", "path"], &["--reject", "slashes"]] {
        let (code, msg) = fails_all(&[&["decode", "--charset", "sjis"][..], option].concat(), b"%95%5C\n");
        assert_eq!(code, 2, "{option:?}");
        assert!(msg.contains("cannot be used with"), "{option:?}: {msg}");
    }
    // --iri is about UTF-8 text.
    for cmd in ["encode", "check"] {
        let (code, msg) = fails(&[cmd, "--iri", "--charset", "sjis"], "ä\n".as_bytes());
        assert_eq!(code, 2, "{cmd}");
        assert!(msg.contains("--iri keeps UTF-8 text raw, and with --charset Shift_JIS"), "{cmd}: {msg}");
    }
    assert_eq!(ok(&["encode", "--iri", "--charset", "utf-8"], "ä b\n".as_bytes()), "ä%20b\n".as_bytes());
}

#[test]
fn check_with_a_charset() {
    let (code, msg) = fails(&["check", "--charset", "sjis"], b"%8C%9F\n%8C%9F%8D\nok\n");
    assert_eq!(code, 1);
    assert_eq!(msg, "pctenc: <stdin>:2:7: offset 13: decodes to bytes that are not valid Shift_JIS");
    ok(&["check", "--charset", "sjis"], b"%8C%9F\nok\n");
    // UTF-8 is a charset too: check that escapes decode to UTF-8.
    let (code, msg) = fails(&["check", "--charset", "utf-8"], b"%C3%A9\n%C3\n");
    assert_eq!(code, 1);
    assert_eq!(msg, "pctenc: <stdin>:2:1: offset 7: decodes to bytes that are not valid UTF-8");
    // A line bad for the set is reported once, for the set.
    let (code, msg) = fails(&["check", "--charset", "sjis"], b"a b%82\n");
    assert_eq!(code, 1);
    assert!(msg.contains("2:1") || msg.contains("1:2"), "{msg}");
    // Long lines across reads.
    let long = format!("{}%82\n", "%8C%9F".repeat(200_000));
    let (code, msg) = fails(&["check", "--charset", "sjis"], long.as_bytes());
    assert_eq!(code, 1);
    assert!(
        msg.ends_with(&format!("offset {}: decodes to bytes that are not valid Shift_JIS", 1_200_000)),
        "{msg}"
    );
}

#[test]
fn explain_lists_readings() {
    let out = ok(&["decode", "--explain"], b"Fu%DFball\nok\n%8C%9F%8D%F5\n%1B[2J%82\n");
    let out = String::from_utf8(out).unwrap();
    // The column is the input's: the `%` of `%DF`, byte 3 of the line.
    assert!(out.contains("<stdin>:1:3: not UTF-8 from here on (byte 2 of the decoded line)"), "{out}");
    assert!(out.contains("<stdin>:3:1: not UTF-8"), "{out}");
    assert!(out.contains("<stdin>:4:7: not UTF-8"), "{out}");
    assert!(out.contains("  windows-1252   Fußball\n"), "{out}");
    assert!(out.contains("  Shift_JIS      検索\n"), "{out}");
    assert!(!out.contains("<stdin>:2:"), "{out}");
    // Control characters never reach the terminal raw.
    assert!(!out.contains('\u{1b}') && out.contains("\\u{1b}[2J"), "{out}");
    assert!(out.ends_with("3 of 4 lines not UTF-8\n"), "{out}");
    let (code, _) = fails(&["decode", "--explain"], b"%zz\n");
    assert_eq!(code, 1);
    // A raw byte that is not UTF-8 is named where it stands, after escapes that decode to
    // several bytes each.
    let out = String::from_utf8(ok(&["decode", "--explain"], b"%C3%A9 \xE9t\xE9\n")).unwrap();
    assert!(out.contains("<stdin>:1:8: not UTF-8 from here on (byte 3 of the decoded line)"), "{out}");
}

#[test]
fn charsets_lists_every_encoding() {
    let out = String::from_utf8(ok(&["charsets"], b"")).unwrap();
    for charset in pctenc::charset::Charset::all() {
        let line = out.lines().find(|l| l.split_whitespace().next() == Some(charset.name())).unwrap();
        for label in charset.labels() {
            assert!(line.contains(label), "{line}");
        }
    }
    assert_eq!(out.lines().filter(|l| !l.is_empty()).count(), 1 + 40 + 2);
}

#[cfg(unix)]
#[test]
fn charset_output_to_a_full_disk() {
    let (code, msg) = fails(&["encode", "--charset", "sjis", "-o", "/dev/full"], "検索\n".as_bytes());
    assert_eq!(code, 2, "{msg}");
    assert!(msg.starts_with("pctenc: /dev/full: "), "{msg}");
}

#[test]
fn charset_failures_leave_no_output_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.txt");
    let input: Vec<u8> = b"%8C%9F\n".repeat(100_000).into_iter().chain(*b"%82%20\n").collect();
    let (code, _) = fails(&["decode", "--charset", "sjis", "-o", out.to_str().unwrap()], &input);
    assert_eq!(code, 1);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    ok(&["decode", "--charset", "sjis", "-o", out.to_str().unwrap()], b"%8C%9F\n");
    assert_eq!(std::fs::read(&out).unwrap(), "検\n".as_bytes());
}

/// A long line is explained by a window around where it stops being UTF-8, not shown whole
/// under every encoding: the place is still exact, and what was left out is counted.
#[test]
fn explain_shows_a_window_of_a_long_line() {
    // 1 MiB of `a`, `%E9` (not UTF-8 alone), 1 MiB of `b`: 2 MiB decoded.
    let mut input = vec![b'a'; 1 << 20];
    input.extend_from_slice(b"%E9");
    input.extend(std::iter::repeat_n(b'b', 1 << 20));
    input.extend_from_slice(b"\nok\n");
    let out = String::from_utf8(ok(&["decode", "--explain"], &input)).unwrap();
    assert!(out.len() < 16 << 10, "{} bytes of explanation", out.len());
    assert!(
        out.starts_with(
            "<stdin>:1:1048577: not UTF-8 from here on (byte 1048576 of the decoded line); reads as:\n"
        ),
        "{}",
        &out[..out.len().min(400)]
    );
    // 40 decoded bytes either side: 1,048,576 - 40 left out before; of the 1,048,576 after
    // the bad byte, 39 shown.
    let want = format!(
        "\n  windows-1252   [1,048,536 bytes before] {}é{} [1,048,537 bytes after]\n",
        "a".repeat(40),
        "b".repeat(39)
    );
    assert!(out.contains(&want), "{out}");
    assert!(out.ends_with("1 of 2 lines not UTF-8\n"), "{out}");
    // Near the start of a line: nothing is left out before.
    let mut input = b"x%E9".to_vec();
    input.extend(std::iter::repeat_n(b'b', 100));
    let out = String::from_utf8(ok(&["decode", "--explain"], &input)).unwrap();
    let want = format!("\n  windows-1252   x\u{e9}{} [61 bytes after]\n", "b".repeat(39));
    assert!(out.contains(&want), "{out}");
}
