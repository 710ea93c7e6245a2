//! The CLI's messages, exit statuses, options and standard input: what a user sees.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::process::Stdio;

use crate::run::{command, fails_all, ok, output_of, pctenc, pctenc_with, spawn_lock};

/// A temporary directory holding a file `name` with `contents`; returns both.
fn file_with(name: &str, contents: &[u8]) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, contents).unwrap();
    (dir, path)
}

/// Runs `args` with standard input the open file `stdin` (its offset shared with the
/// caller's descriptor); returns (status, stdout).
fn with_stdin_file(args: &[&str], stdin: &File) -> (i32, Vec<u8>) {
    let out = pctenc_with(args, Stdio::from(stdin.try_clone().unwrap()), Stdio::piped(), Stdio::piped());
    assert!(out.stderr.is_empty(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    (out.status.code().unwrap(), out.stdout)
}

/// Standard input that is a regular file is read once, from its offset on, and left at its
/// end, as a `read()` loop leaves it: `pctenc encode - - < f` prints `f` once, and whatever
/// reads the descriptor next sees the end of the file. Every command alike.
#[test]
fn stdin_file_offset_is_left_at_the_end() {
    let (_dir, path) = file_with("in", b"a b\nc%41\n");
    let file = File::open(&path).unwrap();
    assert_eq!(with_stdin_file(&["encode", "-", "-"], &file), (0, b"a%20b\nc%2541\n".to_vec()));
    let mut file = File::open(&path).unwrap();
    assert_eq!(with_stdin_file(&["decode", "-", "-"], &file), (0, b"a b\ncA\n".to_vec()));
    assert_eq!(file.stream_position().unwrap(), 9);

    let expected: [(&[&str], &[u8]); 4] = [
        (&["encode"], b"b\nc%2541\n"),
        (&["decode"], b"b\ncA\n"),
        (&["normalize"], b"b\ncA\n"),
        (&["check", "--keep", " "], b""),
    ];
    for (args, want) in expected {
        for start in [0u64, 2] {
            let mut file = File::open(&path).unwrap();
            file.seek(SeekFrom::Start(start)).unwrap();
            let (code, out) = with_stdin_file(args, &file);
            if start == 2 {
                assert_eq!((code, &out[..]), (0, want), "{args:?} from offset {start}");
            }
            assert_eq!(
                file.stream_position().unwrap(),
                9,
                "{args:?} from offset {start}: offset not at the end"
            );
            let mut rest = Vec::new();
            file.read_to_end(&mut rest).unwrap();
            assert!(rest.is_empty(), "{args:?}");
        }
    }
}

/// Standard error on a full device or a closed pipe: no panic (status 101), and the status
/// is the one the data and the command line call for (`check`, whose reports are its output,
/// ends by SIGPIPE on a closed pipe).
#[cfg(unix)]
#[test]
fn unwritable_stderr_never_panics() {
    let (_dir, bad) = file_with("bad.txt", b"a b\nc d\n%zz\n");
    let bad = bad.to_str().unwrap();
    let cases: [(&[&str], i32); 5] = [
        (&["check", bad], 1),
        (&["decode", bad], 1),
        (&["encode", "/nonexistent/input"], 2),
        (&["decode", "--utf8", "strct"], 2),
        (&["check", bad, "/nonexistent/input"], 2),
    ];
    for (args, want) in cases {
        let full = File::options().write(true).open("/dev/full").unwrap();
        let out = pctenc_with(args, Stdio::null(), Stdio::null(), Stdio::from(full));
        assert_eq!(out.status.code(), Some(want), "{args:?} with stderr on /dev/full");

        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = pctenc_with(args, Stdio::null(), Stdio::null(), Stdio::from(writer));
        if args[0] == "check" {
            // `check`'s reports are its output: it ends by SIGPIPE, as the other commands do
            // on a closed standard output.
            use std::os::unix::process::ExitStatusExt;
            assert_eq!(out.status.signal(), Some(libc::SIGPIPE), "{args:?} with stderr a closed pipe");
        } else {
            assert_eq!(out.status.code(), Some(want), "{args:?} with stderr a closed pipe");
        }
    }
}

/// Usage errors show clap's whole message: the possible values, the tip, the usage line.
#[test]
fn usage_errors_keep_the_whole_message() {
    let (code, msg) = fails_all(&["decode", "--utf8", "strct"], b"");
    assert_eq!(code, 2);
    assert!(msg.starts_with("pctenc: invalid value 'strct' for '--utf8 <MODE>'\n"), "{msg}");
    assert!(msg.contains("[possible values: bytes, strict, lossy]"), "{msg}");
    assert!(msg.contains("a similar value exists: 'strict'"), "{msg}");
    let (code, msg) = fails_all(&["decode", "--reject", "foo"], b"");
    assert_eq!(code, 2);
    assert!(msg.contains("[possible values: nul, controls, crlf, slashes, all]"), "{msg}");
    let (code, msg) = fails_all(&["encode", "--lowercse"], b"");
    assert_eq!(code, 2);
    assert!(msg.contains("a similar argument exists: '--lowercase'"), "{msg}");
    assert!(msg.contains("Usage: pctenc encode"), "{msg}");
}

/// An unknown set or backend name suggests the nearest known one.
#[test]
fn unknown_names_suggest_the_nearest() {
    for (args, near) in [
        (&["encode", "--set", "compnent"][..], "component"),
        (&["check", "--set", "Fragmnt"], "fragment"),
        (&["decode", "--keep-encoded", "uri-reservd"], "uri-reserved"),
        (&["decode", "--keep-encoded", "pth"], "path"),
        (&["encode", "--backend", "scalr"], "scalar"),
    ] {
        let (code, msg) = fails_all(args, b"");
        assert_eq!(code, 2, "{args:?}");
        assert!(msg.contains(&format!("did you mean `{near}`?")), "{args:?}: {msg}");
        assert!(msg.contains("known "), "{args:?}: {msg}");
    }
    let (_, msg) = fails_all(&["encode", "--set", "zzzzzzzz"], b"");
    assert!(!msg.contains("did you mean"), "{msg}");
}

/// 0 success, 1 invalid data, 2 usage or I/O error: the same for every command.
#[test]
fn exit_statuses_follow_grep() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing");
    let missing = missing.to_str().unwrap();
    for cmd in ["encode", "decode", "normalize", "check"] {
        let (code, msg) = fails_all(&[cmd, missing], b"");
        assert_eq!(code, 2, "{cmd}: {msg}");
        assert_eq!(msg, format!("pctenc: {missing}: No such file or directory (os error 2)\n"));
        let (code, _) = fails_all(&[cmd, "--no-such-option"], b"");
        assert_eq!(code, 2, "{cmd}");
    }
    let unwritable = dir.path().join("no/such/dir/out");
    for cmd in ["encode", "decode", "normalize"] {
        let (code, _) = fails_all(&[cmd, "-o", unwritable.to_str().unwrap()], b"x");
        assert_eq!(code, 2, "{cmd}");
    }
    assert_eq!(fails_all(&["decode"], b"%zz").0, 1);
    assert_eq!(fails_all(&["decode", "--utf8", "strict"], b"%FF").0, 1);
    assert_eq!(fails_all(&["check"], b"a b").0, 1);
}

/// Every `--help` states the exit statuses, and only those the command can give: `sets`,
/// `info` and `normalize` find no input invalid, so never exit 1.
#[test]
fn help_states_the_exit_statuses() {
    for cmd in
        [&[][..], &["encode"], &["decode"], &["check"], &["normalize"], &["sets"], &["info"], &["bench"]]
    {
        let args: Vec<&str> = cmd.iter().copied().chain(["--help"]).collect();
        let help = String::from_utf8(ok(&args, b"")).unwrap();
        assert!(help.contains("Exit status: 0 "), "{args:?}: {help}");
        assert!(help.contains("2 usage"), "{args:?}: {help}");
        let gives_1 = help.contains("; 1 ");
        assert_eq!(
            gives_1,
            !matches!(cmd, [c] if ["normalize", "sets", "info"].contains(c)),
            "{args:?}: {help}"
        );
        assert!(
            help.contains("decode error") == matches!(cmd, [] | ["encode"] | ["decode"]),
            "{args:?}: {help}"
        );
    }
    let check = String::from_utf8(ok(&["check", "--help"], b"")).unwrap();
    assert!(check.contains("With -q: 1 as soon as a bad line"), "{check}");
}

/// `check` goes through every input even when one cannot be read, reports each, and exits 2.
#[test]
fn check_reports_every_unreadable_input_and_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let (good, bad, missing) = (dir.path().join("good"), dir.path().join("bad"), dir.path().join("missing"));
    std::fs::write(&good, b"fine\n").unwrap();
    std::fs::write(&bad, b"x y\n").unwrap();
    let [good, bad, missing, dir_name] =
        [&good, &bad, &missing, &dir.path().to_path_buf()].map(|p| p.to_str().unwrap().to_string());
    let (code, msg) = fails_all(&["check", &missing, &bad, &dir_name, &good], b"");
    assert_eq!(code, 2, "{msg}");
    let lines: Vec<&str> = msg.lines().collect();
    assert_eq!(lines.len(), 3, "{msg}");
    assert_eq!(lines[0], format!("pctenc: {missing}: No such file or directory (os error 2)"));
    assert_eq!(lines[1], format!("pctenc: {bad}:1:2: offset 1: byte 0x20 (' ') must be percent-encoded"));
    assert!(lines[2].starts_with(&format!("pctenc: {dir_name}: ")), "{msg}");
    let (code, msg) = fails_all(&["check", &good, &missing, &good], b"");
    assert_eq!((code, msg.lines().count()), (2, 1), "{msg}");
    assert_eq!(ok(&["check", &good, &good], b""), b"");
}

/// Every command goes on past an input that cannot be read, as `check` and `cat` do: each is
/// reported, standard output has the other inputs' output, the status is 2 (even after a
/// decode error in a later input), and a `-o` file is left as it was.
#[test]
fn every_command_goes_on_past_unreadable_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let (first, third, missing, out) = (path("first"), path("third"), path("missing"), path("out"));
    let dir_name = dir.path().to_str().unwrap().to_string();
    let cases: [(&[&str], &str, &str, &str); 6] = [
        (&["encode"], "a b\n", "c d\n", "a%20b\nc%20d\n"),
        (&["encode", "--charset", "sjis"], "a b\n", "c d\n", "a%20b\nc%20d\n"),
        (&["decode"], "a%20b\n", "c%20d\n", "a b\nc d\n"),
        (&["decode", "--charset", "sjis"], "a%20b\n", "c%20d\n", "a b\nc d\n"),
        (&["decode", "--explain"], "%FF\n", "ok\n", "first:1:1: not UTF-8"),
        (&["normalize"], "%7e\n", "%2f\n", "~\n%2F\n"),
    ];
    for (args, first_text, third_text, want) in cases {
        std::fs::write(&first, first_text).unwrap();
        std::fs::write(&third, third_text).unwrap();
        let run: Vec<&str> = args.iter().copied().chain([&*first, &*missing, &*dir_name, &*third]).collect();
        let output = pctenc(&run, b"");
        let stdout = String::from_utf8(output.stdout).unwrap();
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        if args == ["decode", "--explain"] {
            assert!(stdout.contains(want) && stdout.ends_with("1 of 2 lines not UTF-8\n"), "{stdout}");
        } else {
            assert_eq!(stdout, want, "{args:?}");
        }
        let lines: Vec<&str> = stderr.lines().collect();
        assert_eq!(lines.len(), 2, "{args:?}: {stderr}");
        assert_eq!(lines[0], format!("pctenc: {missing}: No such file or directory (os error 2)"));
        assert!(lines[1].starts_with(&format!("pctenc: {dir_name}: ")), "{stderr}");
        // `-o`: the run failed, so the file is left as it was, with no temporary file.
        std::fs::write(&out, "old\n").unwrap();
        let run: Vec<&str> = args.iter().copied().chain(["-o", &*out, &*first, &*missing, &*third]).collect();
        let output = pctenc(&run, b"");
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert_eq!(std::fs::read(&out).unwrap(), b"old\n", "{args:?}");
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["first", "out", "third"], "{args:?}");
    }
    // A decode error after a skipped input: both reported, status 2.
    std::fs::write(&third, "ok\n%zz\n").unwrap();
    let output = pctenc(&["decode", &missing, &third], b"");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 2, "{stderr}");
    assert!(stderr.lines().nth(1).unwrap().contains("third:2:1: offset 3: "), "{stderr}");
}

/// `check`'s reports are its output: once its standard error is a closed pipe
/// (`pctenc check big 2>&1 | head -1`), it stops reading and ends by SIGPIPE, as a closed
/// standard output ends the other commands, instead of reading on and failing to write
/// every bad line.
#[cfg(unix)]
#[test]
fn check_stops_when_its_reports_are_not_read() {
    use std::io::Write;
    use std::os::unix::process::ExitStatusExt;
    // Held while the child's stdin is open here (see `run`).
    let _lock = spawn_lock();
    let mut child = command()
        .arg("check")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    // Lines of 1 KiB, each bad, fed for as long as pctenc reads them, up to 256 MiB.
    const CAP: usize = 256 << 20;
    let writer = std::thread::spawn(move || {
        let mut line = b"a b".to_vec();
        line.resize(1023, b'x');
        line.push(b'\n');
        let block = line.repeat(256);
        let mut written = 0;
        while written < CAP && stdin.write_all(&block).is_ok() {
            written += block.len();
        }
        written
    });
    let mut first = [0u8; 10];
    stderr.read_exact(&mut first).unwrap();
    assert_eq!(&first, b"pctenc: <s");
    drop(stderr);
    let written = writer.join().unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(libc::SIGPIPE), "{status:?}");
    assert!(written < CAP / 4, "pctenc read {} MiB after its stderr was closed", written >> 20);
}

/// Where clap's own message would mislead, one that says what is wrong: an empty `-o` path
/// (not "a value is required"), a negative number (not a tip to pass it after `--`, which
/// would make it a file name), an option of another command (not that tip either).
#[test]
fn usage_errors_say_what_is_wrong() {
    let (code, msg) = fails_all(&["encode", "-o", ""], b"a");
    assert_eq!(code, 2, "{msg}");
    assert!(
        msg.starts_with("pctenc: invalid value '' for '--output <OUT>': the output path is empty"),
        "{msg}"
    );
    for args in [
        &["check", "--max-errors", "-1"][..],
        &["check", "--max-errors", "0"],
        &["encode", "-j", "-1"],
        &["decode", "--threads", "-3"],
        &["-j", "-2", "encode"],
    ] {
        let (code, msg) = fails_all(args, b"");
        assert_eq!(code, 2, "{args:?}: {msg}");
        assert!(msg.contains(": N must be 1 or more"), "{args:?}: {msg}");
        assert!(!msg.contains("-- -"), "{args:?}: {msg}");
    }
    let (code, msg) = fails_all(&["decode", "--iri", "f"], b"");
    assert_eq!(code, 2, "{msg}");
    assert!(
        msg.starts_with(
            "pctenc: --iri is an option of `encode` and `check`, not of `decode`: decode copies raw text as it is"
        ),
        "{msg}"
    );
    assert!(!msg.contains("-- --iri"), "{msg}");
    let (code, msg) = fails_all(&["-j", "2", "check", "--lenient"], b"");
    assert_eq!(code, 2, "{msg}");
    assert!(msg.starts_with("pctenc: --lenient is an option of `decode`, not of `check`\n"), "{msg}");
    // A typo keeps clap's suggestion.
    let (code, msg) = fails_all(&["decode", "--lenent"], b"");
    assert_eq!(code, 2, "{msg}");
    assert!(msg.contains("--lenient"), "{msg}");
}

/// Each diagnostic line is one write: on a pipe in packet mode (`O_DIRECT`), every read
/// returns what one write wrote, so each read must be exactly one whole line.
#[cfg(target_os = "linux")]
#[test]
fn check_writes_each_line_at_once() {
    use std::os::fd::{FromRawFd, OwnedFd};
    // Held from the pipe's creation until the child is spawned, which closes the write end
    // here: no other child may inherit it (see `run`).
    let lock = spawn_lock();
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe2 writes.
    assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_DIRECT | libc::O_CLOEXEC) }, 0);
    // SAFETY: pipe2 succeeded, so both descriptors are open and owned by nobody else.
    let (reader, writer) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    let input = b"a b\n".repeat(2000);
    let (_dir, path) = file_with("bad", &input);
    let mut child = command()
        .args(["check", path.to_str().unwrap()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::from(writer))
        .spawn()
        .unwrap();
    drop(lock);
    let mut reader = File::from(reader);
    let mut buf = vec![0u8; 65536];
    let mut lines = 0;
    loop {
        let n = reader.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        let packet = String::from_utf8_lossy(&buf[..n]);
        if packet.contains("warning:") && std::env::var_os("PCTENC_CLI_RUNNER").is_some() {
            continue;
        }
        lines += 1;
        let want = format!("pctenc: {}:{lines}:2: offset {}: byte 0x20", path.display(), 4 * (lines - 1) + 1);
        assert!(packet.starts_with(&want), "write {lines} is not one whole line: {packet:?}");
        assert!(packet.ends_with("must be percent-encoded\n"), "write {lines}: {packet:?}");
        assert_eq!(packet.matches('\n').count(), 1, "{packet:?}");
    }
    assert_eq!(child.wait().unwrap().code(), Some(1));
    assert_eq!(lines, 2000);
}

/// `check --max-errors N` stops reading an input after N bad lines in it and goes on with
/// the next, as grep's `-m` does; `-q` reports none and stops at the first bad line, opening
/// no later input, as `grep -q` does: exit 1 once a bad line is found, whatever the order of
/// the inputs.
#[test]
fn check_max_errors_and_quiet() {
    let input = b"a b\nok\nc d\ne f\ng h\n";
    let (code, msg) = fails_all(&["check", "--max-errors", "2"], input);
    assert_eq!(code, 1);
    let lines: Vec<&str> = msg.lines().collect();
    assert_eq!(lines.len(), 2, "{msg}");
    assert!(lines[0].starts_with("pctenc: <stdin>:1:2: ") && lines[1].starts_with("pctenc: <stdin>:3:2: "));
    assert_eq!(fails_all(&["check", "--max-errors", "9"], input).1.lines().count(), 4);

    // The limit counts in each input, and every input is read.
    let dir = tempfile::tempdir().unwrap();
    let (bad, good) = (dir.path().join("bad"), dir.path().join("good"));
    std::fs::write(&bad, input).unwrap();
    std::fs::write(&good, b"a%20b\n").unwrap();
    let (bad, good) = (bad.to_str().unwrap(), good.to_str().unwrap());
    let (code, msg) = fails_all(&["check", "--max-errors", "2", bad, bad], b"");
    let lines: Vec<&str> = msg.lines().collect();
    assert_eq!((code, lines.len()), (1, 4), "{msg}");
    for (line, at) in lines.iter().zip([1, 3, 1, 3]) {
        assert!(line.starts_with(&format!("pctenc: {bad}:{at}:2: ")), "{msg}");
    }
    let (code, msg) = fails_all(&["check", "--max-errors", "1", bad, "/nonexistent", bad], b"");
    let lines: Vec<&str> = msg.lines().collect();
    assert_eq!((code, lines.len()), (2, 3), "{msg}");
    assert!(lines[1].starts_with("pctenc: /nonexistent: No such file"), "{msg}");
    assert!(lines[2].starts_with(&format!("pctenc: {bad}:1:2: ")), "{msg}");

    for quiet in ["-q", "--quiet"] {
        let out = pctenc(&["check", quiet], input);
        assert_eq!(out.status.code(), Some(1));
        assert!(out.stderr.is_empty(), "{:?}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(ok(&["check", quiet], b"a%20b\n"), b"");
    }
    // -q stops at the first bad line: an input after it is not opened, so not reported.
    let out = pctenc(&["check", "-q", good, bad, "/nonexistent"], b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stderr.is_empty(), "{:?}", String::from_utf8_lossy(&out.stderr));
    // One before it that cannot be read is reported; the status is still 1: a bad line was
    // found, in whichever order the inputs come.
    let (code, msg) = fails_all(&["check", "-q", "/nonexistent", bad], b"");
    assert_eq!((code, msg.lines().count()), (1, 1), "{msg}");
    assert!(msg.starts_with("pctenc: /nonexistent: No such file"), "{msg}");
    // No bad line, and an input that cannot be read: 2.
    let (code, msg) = fails_all(&["check", "-q", good, "/nonexistent", good], b"");
    assert_eq!((code, msg.lines().count()), (2, 1), "{msg}");

    assert_eq!(fails_all(&["check", "--max-errors", "0"], b"").0, 2);
    assert_eq!(fails_all(&["check", "--max-errors", "x"], b"").0, 2);
}

/// When `check` stops reading a standard input that is a regular file early (`-q`,
/// `--max-errors`), it leaves the offset just after the bad line that reached the limit, as
/// grep leaves it with `-m`: `{ pctenc check --max-errors 1; cat; } < file` shows the rest.
/// Reading to its end, it leaves the offset at the end.
#[test]
fn check_stopping_early_leaves_stdin_after_the_last_line() {
    let long = [b"a b".as_slice(), &b"x".repeat(600 * 1024), b"\nnext\n"].concat();
    let cases: [(&[u8], u64, &[&str], u64); 8] = [
        (b"ok\na b\nc d\n", 0, &["--max-errors", "1"], 7),
        (b"ok\na b\nc d\n", 0, &["-q"], 7),
        (b"ok\na b\r\nc d\n", 0, &["--max-errors", "1"], 8),
        (b"ok\na b\nc d\nlast\n", 0, &["--max-errors", "2"], 11),
        (b"ok\na b\nc d\nlast\n", 3, &["--max-errors", "1"], 7),
        (b"ok\na b", 0, &["--max-errors", "1"], 6),
        (&long, 0, &["--max-errors", "1"], long.len() as u64 - 5),
        (b"ok\na b\nc d\nlast\n", 0, &["--max-errors", "3"], 16),
    ];
    for (contents, start, options, want) in cases {
        let (_dir, path) = file_with("in", contents);
        let mut file = File::open(&path).unwrap();
        file.seek(SeekFrom::Start(start)).unwrap();
        let args: Vec<&str> = ["check"].iter().chain(options).copied().collect();
        let out = pctenc_with(&args, Stdio::from(file.try_clone().unwrap()), Stdio::null(), Stdio::null());
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert_eq!(file.stream_position().unwrap(), want, "{args:?} from offset {start}");
    }
}

/// File names are escaped in every message: no control character, escape sequence or
/// invalid UTF-8 from a name reaches the terminal.
#[cfg(unix)]
#[test]
fn file_names_in_messages_are_escaped() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let raw: &[u8] = b"x\n\x1b[2J\t\\\x7f\xff\xe2\x80\xae\xc2\x9b.txt";
    let escaped = r"x\n\x1b[2J\t\\\x7f\xff\u{202e}\u{9b}.txt";
    std::fs::write(dir.path().join(OsStr::from_bytes(raw)), b"a b\n%zz\n").unwrap();
    let missing = [b"gone-".as_slice(), raw].concat();
    let name = OsStr::from_bytes(raw);
    let run = |args: &[&OsStr]| {
        let out = output_of(command().args(args).current_dir(dir.path())).unwrap();
        (out.status.code().unwrap(), crate::run::without_emulator_warnings(out.stderr))
    };
    let os = |s: &'static str| OsStr::new(s);
    let cases: [(&[&OsStr], i32, String); 4] = [
        (&[os("check"), name], 1, format!("pctenc: {escaped}:1:2: offset 1: ")),
        (&[os("decode"), name], 1, format!("pctenc: {escaped}:2:1: offset 4: ")),
        (&[os("encode"), OsStr::from_bytes(&missing)], 2, format!("pctenc: gone-{escaped}: No such file")),
        (&[os("normalize"), OsStr::from_bytes(&missing)], 2, format!("pctenc: gone-{escaped}: No such file")),
    ];
    for (args, status, want) in cases {
        let (code, stderr) = run(args);
        assert_eq!(code, status, "{args:?}");
        let text = String::from_utf8(stderr).expect("stderr is UTF-8");
        assert!(text.starts_with(&want), "{args:?}: {text:?}, want {want:?}");
        for line in text.lines() {
            assert!(line.starts_with(&format!("pctenc: {escaped}")) || line.starts_with("pctenc: gone-"));
            assert!(!line.contains(|c: char| c.is_control() || c == '\u{202e}'), "{args:?}: {text:?}");
        }
    }
}

/// The long options a `--help` lists.
fn options_of(help: &str) -> Vec<String> {
    let mut names: Vec<String> = help
        .lines()
        .filter(|l| l.trim_start().starts_with('-'))
        .flat_map(|l| l.split_whitespace().take(2))
        .filter_map(|w| w.strip_prefix("--"))
        .map(|w| w.trim_end_matches(',').to_string())
        .collect();
    names.sort();
    names
}

/// Each command's `--help` lists the options it uses, and only those, described for it.
#[test]
fn each_command_lists_its_own_options() {
    let set = ["set", "keep", "escape", "space-as-plus", "iri"];
    let expected: [(&str, &[&str]); 8] = [
        (
            "encode",
            &[
                &set[..],
                &[
                    "mode",
                    "lowercase",
                    "binary",
                    "keep-escapes",
                    "charset",
                    "backend",
                    "threads",
                    "no-progress",
                    "output",
                ],
            ]
            .concat(),
        ),
        (
            "decode",
            &[
                "mode",
                "lenient",
                "plus",
                "utf8",
                "charset",
                "explain",
                "keep-encoded",
                "legacy-u",
                "reject",
                "threads",
                "no-progress",
                "output",
            ],
        ),
        ("check", &[&set[..], &["backend", "max-errors", "quiet", "charset"]].concat()),
        ("normalize", &["output"]),
        ("sets", &[]),
        ("charsets", &[]),
        ("info", &["backend", "threads"]),
        ("bench", &["set", "size", "seconds", "binary", "json", "threads"]),
    ];
    for (cmd, options) in expected {
        let help = String::from_utf8(ok(&[cmd, "--help"], b"")).unwrap();
        let mut want: Vec<String> = options.iter().map(|o| o.to_string()).chain(["help".into()]).collect();
        want.sort();
        assert_eq!(options_of(&help), want, "pctenc {cmd} --help:\n{help}");
    }
    let check = String::from_utf8(ok(&["check", "--help"], b"")).unwrap();
    for wrong in ["memory-mapped", "Write a space", "Threads", "progress"] {
        assert!(!check.contains(wrong), "check --help says {wrong:?}:\n{check}");
    }
    assert!(check.contains("A space must be written as `+`"), "{check}");
    // --iri allows what `encode --iri` keeps raw, not any valid UTF-8.
    assert!(!check.contains("valid non-ASCII UTF-8 raw"), "{check}");
    let iri = check.lines().find(|l| l.trim_start().starts_with("--iri ")).expect("--iri in check --help");
    assert!(iri.contains("`encode --iri` keeps raw (RFC 3987's ucschar, less bidi formatting"), "{iri}");
    assert!(iri.contains("C1 controls, private use, noncharacters"), "{iri}");
    let top = String::from_utf8(ok(&["--help"], b"")).unwrap();
    assert_eq!(options_of(&top), ["help", "version"], "{top}");

    // The options before the command name, as earlier versions took them, still work.
    assert_eq!(ok(&["-j", "2", "encode"], b"a b\n"), b"a%20b\n");
    assert_eq!(ok(&["--no-progress", "decode"], b"a%20b\n"), b"a b\n");
    let info = String::from_utf8(ok(&["--backend", "scalar", "-j", "3", "info"], b"")).unwrap();
    assert!(
        info.contains("backend chosen:      scalar") && info.contains("threads:             3"),
        "{info}"
    );
    assert_eq!(fails_all(&["-j", "4", "info", "-j", "3"], b"").0, 2);
    assert_eq!(fails_all(&["check", "-j", "2"], b"").0, 2);
}

/// Options that contradict each other are usage errors that say why.
#[test]
fn contradictory_options_are_refused() {
    for (args, why) in [
        (&["encode", "--keep", "/a", "--escape", "a~"][..], "'a' is in both --keep and --escape"),
        (&["check", "--keep", "~", "--escape", "~"], "'~' is in both --keep and --escape"),
        (&["encode", "--keep", "%"], "the output could not be decoded"),
        (&["encode", "--keep", "/%", "--keep-escapes"], "cannot keep '%'"),
        (&["check", "--keep", "%"], "cannot keep '%'"),
        (&["encode", "--keep", " ", "--space-as-plus"], "--keep ' ' contradicts writing a space as `+`"),
        (&["encode", "--keep", " ", "--set", "form"], "--keep ' ' contradicts writing a space as `+`"),
        (&["encode", "--keep", "+", "--space-as-plus"], "--keep '+' contradicts writing a space as `+`"),
        (&["check", "--keep", "+", "--set", "FORM"], "--keep '+' contradicts writing a space as `+`"),
    ] {
        let (code, msg) = fails_all(args, b"a\n");
        assert_eq!(code, 2, "{args:?}");
        assert!(msg.starts_with("pctenc: ") && msg.contains(why), "{args:?}: {msg}");
    }
    assert_eq!(ok(&["encode", "--keep", " ", "--escape", "~"], b"a b~\n"), b"a b%7E\n");
}

/// Names in option values are case-insensitive, whichever option takes them.
#[test]
fn option_values_ignore_case() {
    let pairs: [(&[&str], &[&str], &[u8]); 6] = [
        (&["decode", "--utf8", "STRICT"], &["decode", "--utf8", "strict"], b"%C3%A9\n"),
        (&["decode", "--utf8", "Lossy", "--lenient"], &["decode", "--utf8", "lossy", "--lenient"], b"%FF\n"),
        (&["decode", "--reject", "NUL,Slashes"], &["decode", "--reject", "nul,slashes"], b"%41\n"),
        (&["encode", "--set", "FORM"], &["encode", "--set", "form"], b"a b\n"),
        (&["encode", "--backend", "SCALAR"], &["encode", "--backend", "scalar"], b"a b\n"),
        (
            &["decode", "--keep-encoded", "URI-RESERVED"],
            &["decode", "--keep-encoded", "uri-reserved"],
            b"%2F%41\n",
        ),
    ];
    for (upper, lower, input) in pairs {
        assert_eq!(ok(upper, input), ok(lower, input), "{upper:?}");
    }
    assert_eq!(fails_all(&["decode", "--reject", "NUL"], b"%00").0, 1);
    assert_eq!(fails_all(&["decode", "--utf8", "STRICT"], b"%FF").0, 1);
}

/// `--help` and `--version` that cannot be written are an I/O error (status 2, one line
/// on stderr), as `ls --help >/dev/full` is; a closed pipe ends pctenc by SIGPIPE, as every
/// other closed output does.
#[cfg(unix)]
#[test]
fn unwritable_help_is_a_write_error() {
    use std::os::unix::process::ExitStatusExt;
    for args in [&["--help"][..], &["--version"], &["encode", "--help"], &["check", "-h"], &["help", "sets"]]
    {
        let full = File::options().write(true).open("/dev/full").unwrap();
        let out = pctenc_with(args, Stdio::null(), Stdio::from(full), Stdio::piped());
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.starts_with("pctenc: write error: No space left on device"), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");

        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = pctenc_with(args, Stdio::null(), Stdio::from(writer), Stdio::piped());
        assert_eq!(out.status.signal(), Some(libc::SIGPIPE), "{args:?}: {:?}", out.status);
        assert!(out.stderr.is_empty(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

/// Usage errors escape the values of the command line as file names are escaped: no
/// newline, ESC, C1 control or bidi formatting character of a value reaches the terminal,
/// and clap's message keeps its own line breaks.
#[test]
fn usage_errors_escape_values() {
    let cases: [(&[&str], &str); 6] = [
        (&["encode", "--set", "a\nb"], "invalid value 'a\\nb' for '--set <NAME>': unknown set"),
        (&["decode", "--utf8", "\u{9b}[2J"], "invalid value '\\u{9b}[2J' for '--utf8 <MODE>'"),
        (&["decode", "--reject", "nul,\x1b[2J"], "invalid value '\\x1b[2J' for '--reject <CLASSES>'"),
        (&["encode", "--\x1b[2J"], "unexpected argument '--\\x1b[2J' found"),
        (&["check", "--set", "a\u{202e}b\u{7f}"], "invalid value 'a\\u{202e}b\\x7f' for '--set <NAME>'"),
        (&["info", "-j", "\r5"], "invalid value '\\r5' for '--threads <N>'"),
    ];
    for (args, want) in cases {
        let (code, msg) = fails_all(args, b"");
        assert_eq!(code, 2, "{args:?}");
        let first = msg.lines().next().unwrap();
        assert!(first.starts_with(&format!("pctenc: {want}")), "{args:?}: {msg:?}");
        assert!(msg.contains("For more information, try '--help'."), "{args:?}: {msg:?}");
        assert!(!msg.contains(|c: char| c.is_control() && c != '\n' || c == '\u{202e}'), "{args:?}: {msg:?}");
    }
    // The tip for an unknown argument quotes it escaped too.
    let (_, msg) = fails_all(&["encode", "--\x1b[2J"], b"");
    assert!(msg.contains("tip: to pass '--\\x1b[2J' as a value, use '-- --\\x1b[2J'"), "{msg:?}");
}

/// `--backend`, `-j` and `--no-progress` before the command name are usage errors with a
/// reason when the command does not use them, or when they are given after it too.
#[test]
fn leading_options_are_never_ignored() {
    let cases: [(&[&str], &str); 7] = [
        (&["-j", "2", "check"], "-j/--threads is given before the command name, but `check` does not use it"),
        (
            &["--no-progress", "sets"],
            "--no-progress is given before the command name, but `sets` does not use it",
        ),
        (
            &["--backend", "scalar", "decode"],
            "--backend is given before the command name, but `decode` does not use it",
        ),
        (&["-j", "2", "normalize"], "`normalize` does not use it"),
        (&["--no-progress", "info"], "`info` does not use it"),
        (
            &["--backend", "scalar", "info", "--backend", "avx2"],
            "--backend is given both before and after the command name `info`: give it once",
        ),
        (
            &["-j", "2", "encode", "-j", "3"],
            "-j/--threads is given both before and after the command name `encode`",
        ),
    ];
    for (args, why) in cases {
        let (code, msg) = fails_all(args, b"");
        assert_eq!(code, 2, "{args:?}");
        assert!(msg.starts_with("pctenc: ") && msg.contains(why), "{args:?}: {msg}");
    }
    assert_eq!(fails_all(&["--no-progress", "decode", "--no-progress"], b"").0, 2);
    assert_eq!(ok(&["--backend", "scalar", "check"], b"a%20b\n"), b"");
}

/// Non-ASCII characters in `--keep` and `--escape` get a message that fits what `--iri` does.
#[test]
fn non_ascii_keep_and_escape_say_what_iri_does() {
    let cases: [(&[&str], &str); 4] = [
        (&["encode", "--keep", "é"], "--keep takes ASCII characters only (use --iri to keep non-ASCII text)"),
        (
            &["encode", "--iri", "--keep", "é"],
            "--iri already keeps raw the non-ASCII characters an IRI may hold",
        ),
        (&["encode", "--escape", "é"], "without --iri every non-ASCII character is escaped already"),
        (&["check", "--iri", "--escape", "é"], "leave out --iri to escape them all"),
    ];
    for (args, why) in cases {
        let (code, msg) = fails_all(args, b"");
        assert_eq!(code, 2, "{args:?}");
        assert!(msg.contains(why), "{args:?}: {msg}");
        let wrong = if args.contains(&"--iri") { "use --iri" } else { "--iri keeps raw" };
        assert!(!msg.contains(wrong), "{args:?}: {msg}");
    }
}

/// `check` counts offsets in 64 bits: on a 32-bit target, a bad line more than 4 GiB into
/// one input is placed right (no overflow, no panic). The file is a hole of 4 GiB and a page
/// (NUL bytes, which take no disk space), so its first line is bad from its first byte.
#[cfg(all(target_pointer_width = "32", target_os = "linux"))]
#[test]
fn check_places_errors_gigabytes_into_a_file_on_32_bit() {
    use std::io::Write;

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("holes");
    let zeros: u64 = (1 << 32) + 4096;
    let mut file = File::create(&path).unwrap();
    file.seek(SeekFrom::Start(zeros)).unwrap();
    file.write_all(b"\na b\n").unwrap();
    drop(file);
    let name = path.to_str().unwrap();
    let out = pctenc_with(&["check", name], Stdio::null(), Stdio::null(), Stdio::piped());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(
        stderr,
        format!(
            "pctenc: {name}:1:1: offset 0: byte 0x00 must be percent-encoded\n\
             pctenc: {name}:2:2: offset {}: byte 0x20 (' ') must be percent-encoded\n",
            zeros + 2
        )
    );
    assert_eq!(out.status.code(), Some(1));
}
