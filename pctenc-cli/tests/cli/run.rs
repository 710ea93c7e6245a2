//! Running the binary under test, under an emulator when `PCTENC_CLI_RUNNER` names one.
//!
//! A child fed on a pipe must be the only process that holds the pipe's write end, or it
//! never sees the end of its input. Rust opens pipes with `O_CLOEXEC`, so another child
//! inherits them only between its `fork` and its `exec`: microseconds natively, but under
//! qemu-user a multi-threaded guest's fork can stick in a futex before `exec` for ever, and
//! keep every pipe the test process had open (a CI run hung 40 minutes in `pctenc encode`
//! waiting for its stdin to end). So every spawn in this test binary holds [`spawn_lock`],
//! from before the child's pipes exist until the write end of its stdin is closed: no other
//! child can be between fork and exec while a pipe to a child's stdin is open. Tests that
//! start a process themselves (from [`command`] or `Command::new`) take the lock too.

use std::io::{Read, Write};
use std::process::{Command, Output, Stdio};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// Held while a process is spawned and while the write end of a child's stdin is open; see
/// the module's documentation.
pub fn spawn_lock() -> MutexGuard<'static, ()> {
    static SPAWN: Mutex<()> = Mutex::new(());
    // A test that panicked while holding it left nothing half done that matters here.
    SPAWN.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The binary as a command. `PCTENC_CLI_RUNNER` (for example
/// `qemu-aarch64 -L /usr/aarch64-linux-gnu`) runs it under an emulator when it was built for
/// another architecture. Spawn it with [`output_of`], or under [`spawn_lock`] (held until
/// the child's stdin is closed, when it is a pipe).
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

/// Runs the binary with `args`, `stdin` on a pipe as its standard input, and returns its
/// status, stdout and stderr (without the emulator's warnings).
pub fn pctenc(args: &[&str], stdin: &[u8]) -> Output {
    let lock = spawn_lock();
    let mut child = command()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run pctenc");
    // Output is read on threads of its own while the input is written here, so that a child
    // that writes much before it has read all its input never waits for this thread.
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            pipe.read_to_end(&mut bytes).map(|_| bytes)
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let mut input = child.stdin.take().unwrap();
    // A child that exits without reading all of it closes the pipe: not this function's
    // business (the tests check its status and output).
    let _ = input.write_all(stdin);
    drop(input);
    drop(lock);
    let stdout = stdout.join().unwrap().expect("read pctenc's stdout");
    let stderr = stderr.join().unwrap().expect("read pctenc's stderr");
    let status = child.wait().expect("wait for pctenc");
    Output { status, stdout, stderr: without_emulator_warnings(stderr) }
}

/// `cmd.output()` (stdin from `/dev/null`, stdout and stderr captured), spawned under
/// [`spawn_lock`]: for tests that run a program other than the binary, or the binary with a
/// terminal or environment of their own.
pub fn output_of(cmd: &mut Command) -> std::io::Result<Output> {
    let child = {
        let _lock = spawn_lock();
        cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn()?
    };
    child.wait_with_output()
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

/// Runs the binary with the given standard input, output and error (files, pipes, devices),
/// spawned under [`spawn_lock`]. A pipe given as `stdin` is the caller's to close.
pub fn pctenc_with(args: &[&str], stdin: Stdio, stdout: Stdio, stderr: Stdio) -> Output {
    let child = {
        let _lock = spawn_lock();
        command().args(args).stdin(stdin).stdout(stdout).stderr(stderr).spawn().expect("run pctenc")
    };
    let mut out = child.wait_with_output().expect("wait for pctenc");
    out.stderr = without_emulator_warnings(out.stderr);
    out
}

/// No other child holds the write end of a child's stdin. While [`pctenc`] runs again and
/// again, another thread forks copies of this process that stay between fork and exec until
/// released, as a fork stuck under qemu-user does; each call must still see its input end.
/// (Natively only: under an emulator these forks of a multi-threaded process are the hazard
/// itself, and the emulated CLI tests run one at a time.)
#[cfg(unix)]
#[test]
fn no_stray_fork_holds_a_childs_stdin() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    if std::env::var_os("PCTENC_CLI_RUNNER").is_some() {
        eprintln!("PCTENC_CLI_RUNNER is set: forks of the emulated test process are not tried");
        return;
    }
    let (release, hold) = std::io::pipe().unwrap();
    let (release_fd, hold_fd) = {
        use std::os::fd::AsRawFd;
        (release.as_raw_fd(), hold.as_raw_fd())
    };
    static STOP: AtomicBool = AtomicBool::new(false);
    let forker = std::thread::spawn(move || {
        let mut strays = Vec::new();
        while !STOP.load(Ordering::Relaxed) && strays.len() < 1000 {
            let lock = spawn_lock();
            // SAFETY: the child calls only async-signal-safe functions (`close`, `read`,
            // `_exit`) on descriptors it owns, and never returns into Rust code.
            let pid = unsafe { libc::fork() };
            if pid == 0 {
                // SAFETY: as above; `byte` is one writable byte.
                unsafe {
                    libc::close(hold_fd);
                    let mut byte = 0u8;
                    libc::read(release_fd, (&raw mut byte).cast(), 1);
                    libc::_exit(0);
                }
            }
            drop(lock);
            assert!(pid > 0, "fork failed");
            strays.push(pid);
            std::thread::sleep(Duration::from_millis(1));
        }
        strays
    });
    let (done, finished) = std::sync::mpsc::channel();
    let calls = std::thread::spawn(move || {
        let input: Vec<u8> = (0..256 * 1024).map(|i| b"a b/"[i % 4]).collect();
        for _ in 0..40 {
            let out = pctenc(&["encode", "--binary"], &input);
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            assert_eq!(out.stdout.len(), input.len() / 4 * 8);
        }
        let _ = done.send(());
    });
    let in_time = finished.recv_timeout(Duration::from_secs(60)).is_ok();
    STOP.store(true, Ordering::Relaxed);
    let strays = forker.join().unwrap();
    // The strays read the end of `release` and exit once no process holds `hold`.
    drop(hold);
    for pid in &strays {
        // SAFETY: `pid` is a child of this process, waited for once.
        unsafe { libc::waitpid(*pid, std::ptr::null_mut(), 0) };
    }
    drop(release);
    calls.join().unwrap();
    assert!(
        in_time,
        "pctenc() waited for the end of its stdin while {} forks stayed before exec",
        strays.len()
    );
    assert!(!strays.is_empty());
}
