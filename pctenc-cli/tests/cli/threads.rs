//! `-j N`: its limit, and threads started only for inputs large enough to share.

use std::io::{Read, Write};
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::run::{command, fails_all, ok, spawn_lock};

/// The largest `-j`: 4 threads per core pctenc may run on.
fn most() -> usize {
    4 * std::thread::available_parallelism().map_or(1, usize::from)
}

/// Runs pctenc with `stdin` on a pipe, and fails the test if it has not exited within a
/// minute (then it is killed): its status, stdout and stderr.
fn within_a_minute(args: &[&str], stdin: &[u8]) -> std::process::Output {
    let mut child = {
        let _lock = spawn_lock();
        let mut child = command()
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let _ = child.stdin.take().unwrap().write_all(stdin);
        child
    };
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("pctenc {args:?} still ran after a minute");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stderr = crate::run::without_emulator_warnings(stderr.join().unwrap());
    std::process::Output { status, stdout: stdout.join().unwrap(), stderr }
}

/// A `-j` beyond 4 threads per core is a usage error that says the limit, at once, even for
/// a tiny input; the limit itself runs. `-j 0` stays a usage error.
#[test]
fn threads_beyond_the_limit_are_a_usage_error() {
    let most = most();
    for j in ["65535".to_string(), (most + 1).to_string()] {
        let out = within_a_minute(&["encode", "-j", &j], b"a b\n");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "-j {j}: {stderr}");
        assert!(stderr.contains(&format!("invalid value '{j}' for '--threads <N>'")), "{stderr}");
        assert!(stderr.contains(&format!("at most {most} threads: 4 per CPU")), "{stderr}");
        assert!(out.stdout.is_empty());
    }
    let out = within_a_minute(&["encode", "-j", &most.to_string()], b"a b\n");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.stdout, b"a%20b\n");
    let info = String::from_utf8(ok(&["info", "-j", &most.to_string()], b"")).unwrap();
    assert!(info.ends_with(&format!("threads:             {most}\n")), "{info}");
    let (code, msg) = fails_all(&["encode", "-j", "0"], b"");
    assert_eq!(code, 2, "{msg}");
    assert!(msg.contains("N must be 1 or more"), "{msg}");
}

/// The threads of pctenc (Linux: its tasks).
#[cfg(target_os = "linux")]
fn threads_of(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/task")).unwrap().count()
}

/// `encode -j 8 FILE -`: once FILE is encoded and pctenc waits on its standard input (a
/// pipe), it has a thread per 64 KiB piece of FILE beside the main one, none for a FILE too
/// small to share, and never more than one per piece.
#[cfg(target_os = "linux")]
#[test]
fn threads_start_only_for_inputs_large_enough_to_share() {
    if std::env::var_os("PCTENC_CLI_RUNNER").is_some() {
        eprintln!("PCTENC_CLI_RUNNER is set: the emulator's own threads would be counted");
        return;
    }
    if most() < 8 {
        eprintln!("fewer than 2 cores: -j 8 is beyond the limit");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // 4 bytes; 5 pieces of 64 KiB (past the 256 KiB threshold).
    for (lines, want) in [(1, 1), (5 * 64 * 1024 / 4, 1 + 5)] {
        let path = dir.path().join("in");
        std::fs::write(&path, b"a b\n".repeat(lines)).unwrap();
        // Held while the child's stdin is open here (see `run`).
        let _lock = spawn_lock();
        let mut child = command()
            .args(["encode", "-j", "8", path.to_str().unwrap(), "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let mut stdout = child.stdout.take().unwrap();
        // A short read from the pipe flushes the output: once it is all here, the file is
        // done and pctenc reads its stdin again.
        stdin.write_all(b"x\n").unwrap();
        let mut out = vec![0; 6 * lines + 2];
        stdout.read_exact(&mut out).unwrap();
        assert!(out.ends_with(b"a%20b\nx\n"));
        let threads = threads_of(child.id());
        drop(stdin);
        let mut rest = Vec::new();
        stdout.read_to_end(&mut rest).unwrap();
        assert!(child.wait().unwrap().success());
        assert!(rest.is_empty());
        assert_eq!(threads, want, "{} input bytes", 4 * lines);
    }
}
