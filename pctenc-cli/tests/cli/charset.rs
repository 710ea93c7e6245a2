//! `--charset` on `encode`, `decode` and `check`; `decode --explain`; `pctenc charsets`.

use super::run::{fails, fails_all, ok};

#[cfg(target_os = "linux")]
use super::run::{command, spawn_lock};

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

/// Lines longer than a read are converted as whole lines are: where the reads cut them
/// changes neither the output nor the place of an error.
#[test]
fn charset_lines_across_reads() {
    use pctenc::charset::Charset;
    use pctenc::{Decoder, Encoder, Utf8Mode, sets};

    let tokens = [
        "検索", "a", "%4", "1", "%", "%41", " ", "\u{2603}", "é", "~", "\\", "¥", "+", "ワ", "%E", "\u{203e}",
    ];
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut line = String::new();
    while line.len() < 600_000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        line.push_str(tokens[(state % tokens.len() as u64) as usize]);
    }
    for label in ["sjis", "iso-2022-jp", "utf-8", "euc-kr", "gb18030", "big5"] {
        let charset = Charset::for_label(label).unwrap();
        for keep in [false, true] {
            let mut args = vec!["encode", "--charset", label];
            if keep {
                args.push("--keep-escapes");
            }
            let encoder = Encoder::new(sets::RFC3986).keep_escapes(keep);
            let want = format!("{}\n", encoder.encode_in(&line, charset));
            let got = ok(&args, format!("{line}\n").as_bytes());
            assert!(got == want.as_bytes(), "{args:?}");
        }
        // And back.
        let encoded = Encoder::new(sets::RFC3986).encode_in(&line, charset).into_owned();
        let want = Decoder::new().utf8(Utf8Mode::Strict).decode_in(&encoded, charset).unwrap().into_owned();
        let got = ok(&["decode", "--charset", label], format!("{encoded}\r\n").as_bytes());
        assert!(got == [&want[..], b"\r\n"].concat(), "{label}");
    }
    // Errors far into a long line.
    let long = format!("ok\n{}%82%20\n", "%8C%9F".repeat(200_000));
    let (code, msg) = fails(&["decode", "--charset", "sjis"], long.as_bytes());
    assert_eq!((code, msg.as_str()), (1, "pctenc: <stdin>:2:1200001: offset 1200003: not valid Shift_JIS"));
    // A line bad for the set is reported for the set, even when its text goes bad in the
    // charset reads before.
    let long = format!("%82%20{}a b\n", "%8C%9F".repeat(100_000));
    let (code, msg) = fails(&["check", "--charset", "sjis"], long.as_bytes());
    assert_eq!(code, 1);
    assert!(msg.starts_with("pctenc: <stdin>:1:600008: offset 600007: byte 0x20"), "{msg}");
    let long = [b"ok\n".as_slice(), "検".repeat(200_000).as_bytes(), b"\xFF\n"].concat();
    let (code, msg) = fails(&["encode", "--charset", "sjis"], &long);
    assert_eq!(
        (code, msg.as_str()),
        (1, "pctenc: <stdin>:2:600001: offset 600003: not valid UTF-8 (--charset converts UTF-8 text)")
    );
}

/// What [`streamed`] saw.
#[cfg(target_os = "linux")]
struct Streamed {
    status: std::process::ExitStatus,
    /// Bytes written to stdout, and the first MiB of them.
    written: usize,
    stdout: Vec<u8>,
    stderr: String,
    /// The child's peak resident memory (`VmHWM`), as last seen while it ran.
    peak_kib: u64,
}

/// Runs pctenc with `args`, standard input a pipe to which a thread writes `head`, `count`
/// times `block`, then `tail` (never all in this process's memory), standard output drained
/// and counted by another.
#[cfg(target_os = "linux")]
fn streamed(args: &[&str], head: &[u8], block: &[u8], count: usize, tail: &[u8]) -> Streamed {
    use std::io::{Read, Write};
    use std::process::Stdio;

    // Held until the writer has closed the child's stdin (see `run`).
    let lock = spawn_lock();
    let mut child = command()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let (head, block, tail) = (head.to_vec(), block.to_vec(), tail.to_vec());
    let writer = std::thread::spawn(move || {
        // A child that fails stops reading: its status says why.
        let _ = (|| {
            stdin.write_all(&head)?;
            for _ in 0..count {
                stdin.write_all(&block)?;
            }
            stdin.write_all(&tail)
        })();
    });
    let mut stdout = child.stdout.take().unwrap();
    // The high-water mark of the child's memory, read from /proc while it runs: `wait4`'s
    // `ru_maxrss` would count the memory of this process, which the child was forked from.
    let running = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let pid = child.id();
    let sampler = {
        let running = running.clone();
        std::thread::spawn(move || {
            let mut peak = 0u64;
            while running.load(std::sync::atomic::Ordering::Relaxed) {
                if let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status"))
                    && let Some(hwm) = status.lines().find_map(|l| l.strip_prefix("VmHWM:"))
                {
                    peak = peak.max(hwm.trim().trim_end_matches(" kB").trim().parse().unwrap());
                }
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            peak
        })
    };
    let reader = std::thread::spawn(move || {
        let (mut written, mut kept, mut buf) = (0usize, Vec::new(), vec![0u8; 1 << 20]);
        loop {
            let n = stdout.read(&mut buf).unwrap();
            if n == 0 {
                return (written, kept);
            }
            written += n;
            let room = (1usize << 20).saturating_sub(kept.len()).min(n);
            kept.extend_from_slice(&buf[..room]);
        }
    });
    let mut stderr = child.stderr.take().unwrap();
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        stderr.read_to_string(&mut text).unwrap();
        text
    });
    writer.join().unwrap();
    drop(lock);
    // Its output ends when it exits.
    let (written, stdout) = reader.join().unwrap();
    let stderr = errors.join().unwrap();
    running.store(false, std::sync::atomic::Ordering::Relaxed);
    let peak_kib = sampler.join().unwrap();
    Streamed { status: child.wait().unwrap(), written, stdout, stderr, peak_kib }
}

/// `--charset` and `decode --explain` read a line of any length in pieces: 256 MiB on one
/// line, through a pipe, keep pctenc's memory bounded, and the output is what the same text
/// gives in short lines.
#[cfg(target_os = "linux")]
#[test]
fn charset_lines_stream_with_bounded_memory() {
    const MIB: usize = 1 << 20;
    let cases: [(&[&str], &str, &str, usize); 5] = [
        (&["encode", "--charset", "sjis"], "", "検索 ワード/ab", 256),
        (&["encode", "--charset", "utf-8"], "", "検索 ワード/ab", 256),
        (&["decode", "--charset", "sjis"], "", "%8C%9F%8D%F5+%83%8F%81%5B%83hab", 256),
        (&["check", "--charset", "sjis"], "", "%8C%9F%8D%F5%83%8F%81%5B%83hab", 256),
        (&["decode", "--explain"], "%E9", "%C3%A9ab", 128),
    ];
    let bounded =
        std::env::var_os("PCTENC_SANITIZER").is_none() && std::env::var_os("PCTENC_CLI_RUNNER").is_none();
    for (args, head, block, mib) in cases {
        // Whole blocks in `mib` MiB, written a MiB at a time.
        let per_mib = MIB / block.len();
        let count = per_mib * mib;
        let started = std::time::Instant::now();
        let run = streamed(args, head.as_bytes(), block.repeat(per_mib).as_bytes(), mib, b"\n");
        eprintln!(
            "peak RSS of `pctenc {}` over one line of {mib} MiB: {} KiB in {:.1} s",
            args.join(" "),
            run.peak_kib,
            started.elapsed().as_secs_f64()
        );
        assert!(run.status.success(), "{args:?}: {}", run.stderr);
        assert_eq!(run.stderr, "", "{args:?}");
        // The output of the long line is that of its blocks one by one.
        let one = ok(args, format!("{head}{block}\n").as_bytes());
        match args[0] {
            "check" => assert_eq!(run.written, 0),
            "decode" if args[1] == "--explain" => {
                let text = String::from_utf8(run.stdout.clone()).unwrap();
                assert!(
                    text.starts_with("<stdin>:1:1: not UTF-8 from here on (byte 0 of the decoded line)"),
                    "{text}"
                );
                assert!(text.ends_with("1 of 1 lines not UTF-8\n"), "{text}");
            }
            _ => {
                let unit = ok(args, block.as_bytes());
                assert_eq!(run.written, unit.len() * count + 1, "{args:?}");
                assert_eq!(run.stdout[..unit.len()], unit[..], "{args:?}");
                assert_eq!(&one[..unit.len()], &unit[..], "{args:?}");
            }
        }
        if bounded {
            assert!(run.peak_kib > 0 && run.peak_kib < 64 * 1024, "{args:?}: peak RSS {} KiB", run.peak_kib);
        }
    }
    if !bounded {
        eprintln!("under a sanitizer or an emulator: the 64 MiB bound is not checked");
    }
}
