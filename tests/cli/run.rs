//! Running the binary under test, under an emulator when `PCTENC_CLI_RUNNER` names one.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// The binary as a command. `PCTENC_CLI_RUNNER` (for example
/// `qemu-aarch64 -L /usr/aarch64-linux-gnu`) runs it under an emulator when it was built for
/// another architecture.
pub fn command() -> Command {
    let exe = env!("CARGO_BIN_EXE_pctenc");
    match std::env::var("PCTENC_CLI_RUNNER") {
        Ok(runner) if !runner.trim().is_empty() => {
            let mut words = runner.split_whitespace();
            let mut cmd = Command::new(words.next().unwrap());
            cmd.args(words).arg(exe);
            cmd
        }
        _ => Command::new(exe),
    }
}

pub fn pctenc(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = command()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run pctenc");
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let mut out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out.stderr = without_emulator_warnings(out.stderr);
    out
}

/// Drops the emulator's own warnings (`qemu-x86_64: warning: TCG doesn't support ...` for CPU
/// models with features it cannot emulate), so that tests see pctenc's stderr only.
pub fn without_emulator_warnings(stderr: Vec<u8>) -> Vec<u8> {
    let Ok(runner) = std::env::var("PCTENC_CLI_RUNNER") else { return stderr };
    let Some(program) = runner.split_whitespace().next() else { return stderr };
    let program = program.rsplit('/').next().unwrap_or(program);
    let prefix = format!("{program}: warning:");
    let text = String::from_utf8(stderr).unwrap();
    text.split_inclusive('\n').filter(|line| !line.starts_with(&prefix)).collect::<String>().into_bytes()
}

pub fn ok(args: &[&str], stdin: &[u8]) -> Vec<u8> {
    let out = pctenc(args, stdin);
    assert!(out.status.success(), "{args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "unexpected stderr: {}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

/// Runs a failing command; returns (status, the one line of stderr).
pub fn fails(args: &[&str], stdin: &[u8]) -> (i32, String) {
    let out = pctenc(args, stdin);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "one line expected: {stderr:?}");
    (out.status.code().unwrap(), stderr.trim_end().to_string())
}

/// Runs a failing command; returns (status, the whole of stderr, any number of lines).
pub fn fails_all(args: &[&str], stdin: &[u8]) -> (i32, String) {
    let out = pctenc(args, stdin);
    assert!(!out.status.success(), "{args:?} succeeded");
    (out.status.code().expect("exit status, not a signal"), String::from_utf8(out.stderr).unwrap())
}

/// Runs the binary with the given standard input, output and error (files, pipes, devices).
pub fn pctenc_with(args: &[&str], stdin: Stdio, stdout: Stdio, stderr: Stdio) -> Output {
    let mut out =
        command().args(args).stdin(stdin).stdout(stdout).stderr(stderr).output().expect("run pctenc");
    out.stderr = without_emulator_warnings(out.stderr);
    out
}
