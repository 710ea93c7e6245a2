//! Where the output goes: `-o` onto devices, FIFOs, sockets, symbolic links and regular files
//! (permissions, owner, umask), `-o -`, errors that name the output, signals during a run, a
//! closed output pipe, and the progress bar beside output on a terminal.
#![cfg(unix)]

use std::fs;
use std::io::{ErrorKind, Read, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::run::{command, fails, ok, output_of, spawn_lock};

/// The names in `dir`, sorted (temporary files included).
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    names
}

fn path_str(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// The message the system gives for `errno`, as pctenc prints it.
fn os_message(errno: i32) -> String {
    std::io::Error::from_raw_os_error(errno).to_string()
}

/// A run that fails with status 2 (an I/O error): its one line of stderr, which names `out`
/// as given and never a temporary file.
fn io_failure(args: &[&str], out: &str) -> String {
    let (code, msg) = fails(args, b"a b\n");
    assert_eq!(code, 2, "{args:?}: {msg}");
    assert!(msg.starts_with(&format!("pctenc: {out}: ")), "{msg}");
    assert!(!msg.contains(".pctenc-"), "temporary path in {msg:?}");
    msg
}

#[test]
fn character_device_is_written_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let node = dir.path().join("null");
    let c_node = std::ffi::CString::new(path_str(&node)).unwrap();
    // SAFETY: a valid NUL-terminated path; mknod reads it and creates the node.
    let made = unsafe { libc::mknod(c_node.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 3)) };
    assert_eq!(made, 0, "mknod (needs root or CAP_MKNOD): {}", std::io::Error::last_os_error());
    ok(&["encode", "-o", path_str(&node)], b"x y\n");
    let meta = fs::symlink_metadata(&node).unwrap();
    assert!(meta.file_type().is_char_device(), "the device node became {:?}", meta.file_type());
    assert_eq!(meta.rdev(), libc::makedev(1, 3));
    assert_eq!(names(dir.path()), ["null"]);
}

#[test]
fn fifo_reader_gets_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    let c_fifo = std::ffi::CString::new(path_str(&fifo)).unwrap();
    // SAFETY: a valid NUL-terminated path; mkfifo reads it and creates the FIFO.
    assert_eq!(unsafe { libc::mkfifo(c_fifo.as_ptr(), 0o644) }, 0);
    // The reader opens first, without blocking, so that pctenc's open for writing does not
    // wait; the output (a few bytes) fits in the FIFO's buffer.
    let mut reader = fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(&fifo).unwrap();
    ok(&["encode", "-o", path_str(&fifo)], b"a b\nc d\n");
    let mut got = Vec::new();
    let mut buf = [0u8; 256];
    loop {
        match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == ErrorKind::WouldBlock => break,
            Err(e) => panic!("{e}"),
        }
    }
    assert_eq!(got, b"a%20b\nc%20d\n");
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    assert_eq!(names(dir.path()), ["fifo"]);
}

#[test]
fn socket_is_not_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let sock = dir.path().join("sock");
    let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    // A socket cannot be opened as a file: the system's reason, and the socket stays.
    let msg = io_failure(&["encode", "-o", path_str(&sock)], path_str(&sock));
    assert!(msg.ends_with(&os_message(libc::ENXIO)), "{msg}");
    assert!(fs::symlink_metadata(&sock).unwrap().file_type().is_socket());
    assert_eq!(names(dir.path()), ["sock"]);
}

/// The system's /dev/null and /dev/full as targets. (As root, a pctenc that renamed over its
/// target would replace them for the whole system.)
#[test]
fn dev_null_and_dev_full() {
    let null_before = fs::symlink_metadata("/dev/null").unwrap();
    ok(&["encode", "-o", "/dev/null"], b"a b\n");
    let null = fs::symlink_metadata("/dev/null").unwrap();
    assert!(null.file_type().is_char_device() && null.ino() == null_before.ino());

    let msg = io_failure(&["encode", "-o", "/dev/full"], "/dev/full");
    assert!(msg.ends_with(&os_message(libc::ENOSPC)), "{msg}");
    assert!(fs::symlink_metadata("/dev/full").unwrap().file_type().is_char_device());
    let left: Vec<String> =
        names(Path::new("/dev")).into_iter().filter(|n| n.starts_with(".pctenc-")).collect();
    assert!(left.is_empty(), "left in /dev: {left:?}");
}

/// pctenc run in `dir` with `-o target`, stdout a pipe: its output.
fn in_dir(dir: &Path, target: &str) -> Vec<u8> {
    let out = output_of(command().args(["encode", "-o", target]).current_dir(dir)).unwrap();
    assert!(out.status.success(), "-o {target}: {}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

#[test]
fn dash_is_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    in_dir(dir.path(), "-");
    assert!(names(dir.path()).is_empty(), "-o - made {:?}", names(dir.path()));
    assert_eq!(ok(&["encode", "-o", "-"], b"a b\n"), b"a%20b\n");
}

/// The system's /dev/stdout. (As root, a pctenc that renamed over its target would replace
/// it for the whole system.)
#[test]
fn dev_stdout_is_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    in_dir(dir.path(), "/dev/stdout");
    assert!(names(dir.path()).is_empty());
    assert_eq!(ok(&["encode", "-o", "/dev/stdout"], b"a b\n"), b"a%20b\n");
    assert!(fs::symlink_metadata("/dev/stdout").unwrap().file_type().is_symlink());
    // `-o /dev/stdout >> file` appends, as the shell's `>>` asks.
    let log = dir.path().join("log");
    fs::write(&log, "old\n").unwrap();
    // Held until the child's stdin is closed (see `run`).
    let lock = spawn_lock();
    let mut child = command()
        .args(["encode", "-o", "/dev/stdout"])
        .stdin(Stdio::piped())
        .stdout(fs::OpenOptions::new().append(true).open(&log).unwrap())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"new one\n").unwrap();
    drop(lock);
    assert!(child.wait().unwrap().success());
    assert_eq!(fs::read(&log).unwrap(), b"old\nnew%20one\n");
}

/// pctenc with `args`, `file` as its descriptor `fd` (put there between fork and exec, as a
/// shell's `5>>log` does), stdin from /dev/null, and stdout and stderr captured unless `fd`
/// is one of them.
fn with_descriptor(args: &[&str], fd: i32, file: &fs::File) -> std::process::Output {
    use std::os::fd::AsRawFd;
    let raw = file.as_raw_fd();
    let mut cmd = command();
    cmd.args(args);
    // SAFETY: dup2 and fcntl are async-signal-safe and touch no memory of the parent; `raw`
    // is open in the parent until the spawn returns.
    unsafe {
        cmd.pre_exec(move || {
            // `raw` itself is close-on-exec; its copy as `fd` is not.
            let done = if raw == fd { libc::fcntl(fd, libc::F_SETFD, 0) } else { libc::dup2(raw, fd) };
            if done == -1 { Err(std::io::Error::last_os_error()) } else { Ok(()) }
        });
    }
    output_of(&mut cmd).unwrap()
}

/// The names of an open descriptor, and links to them, as `-o` targets: the output goes to
/// the descriptor as it is (a dup of it), so `>>` appends, nothing is truncated and the file
/// keeps its inode (and its hard links). Never a temporary file renamed over the file
/// behind the descriptor.
#[test]
fn descriptor_names_write_to_the_descriptor() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("input");
    fs::write(&input, "a b\n").unwrap();
    let input = path_str(&input);
    let log = dir.path().join("log");
    let hard = dir.path().join("hard");
    let link = dir.path().join("link");
    std::os::unix::fs::symlink("/dev/fd/5", &link).unwrap();
    let chain = dir.path().join("chain");
    std::os::unix::fs::symlink("link", &chain).unwrap();
    let to_stderr = dir.path().join("to-stderr");
    std::os::unix::fs::symlink("/dev/stderr", &to_stderr).unwrap();
    let cases = [
        ("/dev/stdout", 1),
        ("/dev/fd/1", 1),
        ("/dev/stderr", 2),
        ("/dev/fd/2", 2),
        ("/proc/self/fd/2", 2),
        ("/dev/fd/5", 5),
        ("/proc/self/fd/5", 5),
        ("/proc/thread-self/fd/5", 5),
        (path_str(&link), 5),
        (path_str(&chain), 5),
        (path_str(&to_stderr), 2),
        // Standard input, when it is open for writing (`<>`).
        ("/dev/stdin", 0),
        ("/proc/self/fd/0", 0),
    ];
    for (target, fd) in cases {
        fs::write(&log, "line 1\n").unwrap();
        let _ = fs::remove_file(&hard);
        fs::hard_link(&log, &hard).unwrap();
        let inode = fs::metadata(&log).unwrap().ino();
        // Appending, as `5>>log` opens it (and `0<>log` for stdin, with append added so that
        // the old line stays).
        let file = fs::OpenOptions::new().read(fd == 0).append(true).open(&log).unwrap();
        let run = with_descriptor(&["encode", "-o", target, input], fd, &file);
        assert!(run.status.success(), "-o {target}: {}", String::from_utf8_lossy(&run.stderr));
        assert_eq!(fs::read_to_string(&log).unwrap(), "line 1\na%20b\n", "-o {target}");
        assert_eq!(fs::metadata(&log).unwrap().ino(), inode, "-o {target} replaced the file");
        assert_eq!(fs::read_to_string(&hard).unwrap(), "line 1\na%20b\n", "-o {target}");
        assert!(run.stdout.is_empty(), "-o {target}: {:?}", run.stdout);
        assert_eq!(names(dir.path()), ["chain", "hard", "input", "link", "log", "to-stderr"]);
    }
    // Not appending (`exec 5>log`, then some output through it): written at the descriptor's
    // offset, with no truncation.
    fs::write(&log, "line 1\n").unwrap();
    let inode = fs::metadata(&log).unwrap().ino();
    let mut file = fs::OpenOptions::new().write(true).open(&log).unwrap();
    std::io::Seek::seek(&mut file, std::io::SeekFrom::End(0)).unwrap();
    let run = with_descriptor(&["encode", "-o", "/dev/fd/5", input], 5, &file);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert_eq!(fs::read_to_string(&log).unwrap(), "line 1\na%20b\n");
    assert_eq!(fs::metadata(&log).unwrap().ino(), inode);
    // `/proc/<pid>/fd/N` with pctenc's own pid (`exec` keeps the shell's, also under an
    // emulator, which runs in the process it is given).
    fs::write(&log, "line 1\n").unwrap();
    let inode = fs::metadata(&log).unwrap().ino();
    let runner = std::env::var("PCTENC_CLI_RUNNER").unwrap_or_default();
    let script = r#"log=$1; shift; exec "$@" encode -o /proc/$$/fd/5 "$log.in" 5>>"$log""#;
    fs::write(format!("{}.in", log.display()), "c d\n").unwrap();
    let run = output_of(
        Command::new("bash")
            .args(["-c", script, "bash", path_str(&log)])
            .args(runner.split_whitespace())
            .arg(env!("CARGO_BIN_EXE_pctenc")),
    )
    .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert_eq!(fs::read_to_string(&log).unwrap(), "line 1\nc%20d\n");
    assert_eq!(fs::metadata(&log).unwrap().ino(), inode);
}

/// A descriptor name for a descriptor that is not open, or not open for writing: a clear
/// error naming OUT as given, and the file behind it (standard input's) is left alone.
#[test]
fn descriptor_names_that_cannot_be_written() {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("link");
    std::os::unix::fs::symlink("/dev/fd/97", &link).unwrap();
    for target in ["/dev/fd/97", "/proc/self/fd/97", path_str(&link)] {
        let msg = io_failure(&["encode", "-o", target], target);
        assert_eq!(msg, format!("pctenc: {target}: descriptor 97 is not open"));
    }
    let log = dir.path().join("log");
    fs::write(&log, "line 1\n").unwrap();
    let inode = fs::metadata(&log).unwrap().ino();
    for target in ["/dev/stdin", "/dev/fd/0"] {
        let stdin = fs::File::open(&log).unwrap();
        let run = crate::run::pctenc_with(
            &["encode", "-o", target, "/dev/null"],
            Stdio::from(stdin),
            Stdio::piped(),
            Stdio::piped(),
        );
        assert_eq!(run.status.code(), Some(2), "-o {target}");
        let stderr = String::from_utf8(run.stderr).unwrap();
        assert_eq!(stderr, format!("pctenc: {target}: descriptor 0 is not open for writing\n"));
        assert_eq!(fs::read_to_string(&log).unwrap(), "line 1\n");
        assert_eq!(fs::metadata(&log).unwrap().ino(), inode);
    }
    assert_eq!(names(dir.path()), ["link", "log"]);
}

#[test]
fn symbolic_links_are_followed() {
    let dir = tempfile::tempdir().unwrap();
    let (here, there) = (dir.path().join("here"), dir.path().join("there"));
    fs::create_dir(&here).unwrap();
    fs::create_dir(&there).unwrap();
    let file = there.join("file.txt");
    fs::write(&file, "old\n").unwrap();
    fs::set_permissions(&file, fs::Permissions::from_mode(0o640)).unwrap();

    // Absolute: the file is replaced in its own directory, the link stays as it was.
    let abs = here.join("abs");
    std::os::unix::fs::symlink(&file, &abs).unwrap();
    ok(&["encode", "-o", path_str(&abs)], b"a b\n");
    assert_eq!(fs::read_link(&abs).unwrap(), file);
    assert_eq!(fs::read(&file).unwrap(), b"a%20b\n");
    assert_eq!(fs::metadata(&file).unwrap().mode() & 0o7777, 0o640);
    assert_eq!(names(&here), ["abs"]);
    assert_eq!(names(&there), ["file.txt"]);

    // Relative, read from the link's directory, and a chain of two links.
    let rel = here.join("rel");
    std::os::unix::fs::symlink("../there/file.txt", &rel).unwrap();
    let chain = dir.path().join("chain");
    std::os::unix::fs::symlink("here/rel", &chain).unwrap();
    ok(&["encode", "-o", path_str(&chain)], b"c d\n");
    assert_eq!(fs::read_link(&chain).unwrap(), Path::new("here/rel"));
    assert_eq!(fs::read_link(&rel).unwrap(), Path::new("../there/file.txt"));
    assert_eq!(fs::read(&file).unwrap(), b"c%20d\n");
    assert_eq!(names(&there), ["file.txt"]);
    // A relative target given as a relative path, from the current directory.
    let out = output_of(command().args(["encode", "-o", "rel"]).current_dir(&here)).unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(fs::read(&file).unwrap(), b"");
    assert!(fs::symlink_metadata(&rel).unwrap().file_type().is_symlink());

    // Dangling: the file it points to is created (as the shell's `>` does), as a new file.
    let dangling = here.join("dangling");
    std::os::unix::fs::symlink("../there/new.txt", &dangling).unwrap();
    ok(&["encode", "-o", path_str(&dangling)], b"e f\n");
    assert!(fs::symlink_metadata(&dangling).unwrap().file_type().is_symlink());
    assert_eq!(fs::read(there.join("new.txt")).unwrap(), b"e%20f\n");
    assert_eq!(names(&there), ["file.txt", "new.txt"]);
    // Into a directory that does not exist: the error names the link as given.
    let nowhere = here.join("nowhere");
    std::os::unix::fs::symlink("../missing/new.txt", &nowhere).unwrap();
    let msg = io_failure(&["encode", "-o", path_str(&nowhere)], path_str(&nowhere));
    assert!(msg.ends_with(&os_message(libc::ENOENT)), "{msg}");

    // A loop is an error, and the links stay.
    let (a, b) = (here.join("a"), here.join("b"));
    std::os::unix::fs::symlink("b", &a).unwrap();
    std::os::unix::fs::symlink("a", &b).unwrap();
    let msg = io_failure(&["encode", "-o", path_str(&a)], path_str(&a));
    assert!(msg.contains("symbolic links"), "{msg}");
    assert_eq!(fs::read_link(&a).unwrap(), Path::new("b"));
    assert_eq!(names(&here), ["a", "abs", "b", "dangling", "nowhere", "rel"]);
}

/// `pctenc` with this umask (set in the child between fork and exec).
fn with_umask(mask: libc::mode_t, args: &[&str]) -> std::process::Output {
    let mut cmd = command();
    cmd.args(args);
    // SAFETY: umask is async-signal-safe and touches no memory of the parent.
    unsafe {
        cmd.pre_exec(move || {
            libc::umask(mask);
            Ok(())
        });
    }
    output_of(&mut cmd).unwrap()
}

#[test]
fn new_files_follow_the_umask() {
    let dir = tempfile::tempdir().unwrap();
    for (mask, mode) in [(0o077, 0o600), (0o022, 0o644), (0o002, 0o664), (0o027, 0o640)] {
        let out = dir.path().join(format!("out-{mask:03o}"));
        let run = with_umask(mask, &["encode", "-o", path_str(&out)]);
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        let got = fs::metadata(&out).unwrap().mode() & 0o7777;
        assert_eq!(got, mode, "umask {mask:03o}: mode {got:o}");
    }
}

#[test]
fn replaced_files_keep_mode_owner_and_group() {
    let dir = tempfile::tempdir().unwrap();
    // SAFETY: geteuid and getegid take no arguments, touch no memory and cannot fail.
    let (euid, egid) = unsafe { (libc::geteuid(), libc::getegid()) };
    let root = euid == 0;
    // As root, another owner and group must survive; otherwise (no privilege to give them)
    // our own, which at least shows that nothing else is set.
    let (uid, gid) = if root { (1234, 5678) } else { (euid, egid) };
    if !root {
        eprintln!("not root: the owner check uses the current user only");
    }
    for (before, after) in [(0o640, 0o640), (0o604, 0o604), (0o4755, 0o755), (0o2750, 0o750), (0o6711, 0o711)]
    {
        let out = dir.path().join("out");
        fs::write(&out, "old\n").unwrap();
        std::os::unix::fs::chown(&out, Some(uid), Some(gid)).unwrap();
        fs::set_permissions(&out, fs::Permissions::from_mode(before)).unwrap();
        // The umask applies to new files only.
        let run = with_umask(0o077, &["encode", "-o", path_str(&out)]);
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        let meta = fs::metadata(&out).unwrap();
        assert_eq!(meta.mode() & 0o7777, after, "{before:o} became {:o}", meta.mode() & 0o7777);
        assert_eq!((meta.uid(), meta.gid()), (uid, gid));
        assert_eq!(names(dir.path()), ["out"]);
    }
    // Replacing breaks a hard link, as `sed -i` does: the other name keeps the old file.
    let (out, other) = (dir.path().join("out"), dir.path().join("other"));
    fs::write(&out, "old\n").unwrap();
    fs::hard_link(&out, &other).unwrap();
    ok(&["encode", "-o", path_str(&out)], b"new one\n");
    assert_eq!(fs::read(&out).unwrap(), b"new%20one\n");
    assert_eq!(fs::read(&other).unwrap(), b"old\n");
}

/// A write-protected regular file is replaced, as `sed -i` replaces it (the shell's `>`
/// refuses it to a user other than root): the new file keeps mode 0444.
#[test]
fn write_protected_file_is_replaced_and_stays_protected() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    fs::write(&out, "old\n").unwrap();
    fs::set_permissions(&out, fs::Permissions::from_mode(0o444)).unwrap();
    let inode = fs::metadata(&out).unwrap().ino();
    ok(&["encode", "-o", path_str(&out)], b"a b\n");
    let meta = fs::metadata(&out).unwrap();
    assert_eq!(fs::read(&out).unwrap(), b"a%20b\n");
    assert_eq!(meta.mode() & 0o7777, 0o444, "mode {:o}", meta.mode() & 0o7777);
    assert_ne!(meta.ino(), inode, "written in place, not replaced");
    assert_eq!(names(dir.path()), ["out"]);
}

/// Every path in a message is escaped: the directory that refuses a new file too, given
/// directly or reached through a dangling symbolic link.
#[test]
fn output_errors_escape_every_path() {
    let dir = tempfile::tempdir().unwrap();
    let base = path_str(dir.path());
    let bad = "no\x1b[2Jdir\nx";
    let shown = format!("{base}/no\\x1b[2Jdir\\nx");
    let enoent = os_message(libc::ENOENT);
    let target = dir.path().join(bad).join("f");
    let run = crate::run::pctenc(&["encode", "-o", path_str(&target)], b"q\n");
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(run.stderr).unwrap(),
        format!("pctenc: {shown}/f: cannot create a file in {shown}: {enoent}\n")
    );
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(format!("{bad}/new"), &link).unwrap();
    let run = crate::run::pctenc(&["encode", "-o", path_str(&link)], b"q\n");
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(run.stderr).unwrap(),
        format!("pctenc: {base}/link: cannot create a file in {shown}: {enoent}\n")
    );
    assert_eq!(names(dir.path()), ["link"]);
}

#[test]
fn output_errors_name_the_path_and_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    // A directory that does not exist.
    let missing = dir.path().join("missing").join("out.txt");
    let msg = io_failure(&["encode", "-o", path_str(&missing)], path_str(&missing));
    assert!(msg.ends_with(&os_message(libc::ENOENT)), "{msg}");
    assert!(
        msg.contains(&format!("cannot create a file in {}", dir.path().join("missing").display())),
        "{msg}"
    );
    // Tests run as root, whom permission bits do not stop: a "directory" that is a regular
    // file refuses a new file to everyone.
    let file = dir.path().join("file");
    fs::write(&file, "").unwrap();
    let under = file.join("out.txt");
    let msg = io_failure(&["encode", "-o", path_str(&under)], path_str(&under));
    assert!(msg.ends_with(&os_message(libc::ENOTDIR)), "{msg}");
    // A directory as the target.
    let msg = io_failure(&["encode", "-o", path_str(dir.path())], path_str(dir.path()));
    assert!(msg.ends_with("is a directory"), "{msg}");
    assert_eq!(names(dir.path()), ["file"]);
}

/// sysfs refuses new files to root too; the reason is whatever the system says here.
#[cfg(target_os = "linux")]
#[test]
fn output_errors_in_a_directory_that_refuses_new_files() {
    let probe = fs::OpenOptions::new().write(true).create_new(true).open("/sys/pctenc-probe");
    let reason = probe.expect_err("/sys accepted a new file").to_string();
    let msg = io_failure(&["encode", "-o", "/sys/pctenc-out"], "/sys/pctenc-out");
    assert_eq!(msg, format!("pctenc: /sys/pctenc-out: cannot create a file in /sys: {reason}"));
}

/// Waits for `cond`, for at most a minute (an emulator may be slow to start).
fn wait_for(what: &str, mut cond: impl FnMut() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(start.elapsed() < Duration::from_secs(60), "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// pctenc writing `-o out` from a pipe that stays open, with part of its input written: the
/// child, the pipe, and the directory.
fn run_in_progress(
    ignore: Option<i32>,
) -> (std::process::Child, std::process::ChildStdin, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    fs::write(&out, "old\n").unwrap();
    let mut cmd = command();
    cmd.args(["encode", "--binary", "-o", path_str(&out)])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    // SAFETY: signal and setrlimit are async-signal-safe and touch no memory of the parent.
    unsafe {
        cmd.pre_exec(move || {
            if let Some(signal) = ignore {
                libc::signal(signal, libc::SIG_IGN);
            }
            // No core file from the signals whose default dumps one.
            let none = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
            libc::setrlimit(libc::RLIMIT_CORE, &none);
            Ok(())
        });
    }
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&vec![b' '; 1 << 20]).unwrap();
    // The temporary file is there, and holds output.
    wait_for("the temporary file", || {
        fs::read_dir(dir.path()).unwrap().any(|e| {
            let e = e.unwrap();
            e.file_name() != "out" && e.metadata().unwrap().len() > 0
        })
    });
    (child, stdin, dir)
}

fn send(child: &std::process::Child, signal: i32) {
    // SAFETY: kill has no memory effects; the pid is our own child's, not yet waited for.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, signal) }, 0);
}

/// Every signal that ends a process and comes from outside it, during `-o`: the temporary
/// file is removed, the target kept, and the process ends by the signal (status 130, 143 or
/// 129 in a shell for SIGINT, SIGTERM and SIGHUP).
#[test]
fn signals_during_a_run_remove_the_temporary_file() {
    // Held while a child's stdin pipe is open here (see `run`).
    let _lock = spawn_lock();
    let mut signals = vec![
        libc::SIGINT,
        libc::SIGTERM,
        libc::SIGHUP,
        libc::SIGQUIT,
        libc::SIGUSR1,
        libc::SIGUSR2,
        libc::SIGALRM,
        libc::SIGVTALRM,
        libc::SIGPROF,
        libc::SIGXCPU,
    ];
    #[cfg(target_os = "linux")]
    signals.extend([libc::SIGIO, libc::SIGPWR]);
    for signal in signals {
        let (mut child, stdin, dir) = run_in_progress(None);
        send(&child, signal);
        let status = child.wait().unwrap();
        drop(stdin);
        assert_eq!(status.signal(), Some(signal), "signal {signal}: {status:?}");
        assert_eq!(names(dir.path()), ["out"], "signal {signal}");
        assert_eq!(fs::read(dir.path().join("out")).unwrap(), b"old\n");
    }
    // A signal ignored by the parent (`nohup`) stays ignored: the run completes.
    let (mut child, mut stdin, dir) = run_in_progress(Some(libc::SIGHUP));
    send(&child, libc::SIGHUP);
    stdin.write_all(b"!").unwrap();
    drop(stdin);
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    let out = fs::read(dir.path().join("out")).unwrap();
    assert_eq!(out.len(), 3 * ((1 << 20) + 1));
    assert!(out.ends_with(b"%20%21"));
    assert_eq!(names(dir.path()), ["out"]);
}

/// A closed output pipe ends pctenc by SIGPIPE, quietly, as it ends `cat`, even when its
/// standard error is a closed pipe too.
#[test]
fn closed_output_pipe_ends_by_sigpipe() {
    // Held while a child's stdout pipe is open here: a fork that inherited its read end would
    // keep the pipe from breaking (see `run`).
    let _lock = spawn_lock();
    for close_stderr in [false, true] {
        let mut child = command()
            .args(["encode", "--binary"])
            .stdin(fs::File::open("/dev/zero").unwrap())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let mut head = [0u8; 30];
        stdout.read_exact(&mut head).unwrap();
        assert_eq!(&head, b"%00%00%00%00%00%00%00%00%00%00");
        if close_stderr {
            drop(child.stderr.take());
        }
        drop(stdout);
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.signal(), Some(libc::SIGPIPE), "{:?}", out.status);
        let stderr = crate::run::without_emulator_warnings(out.stderr);
        assert!(stderr.is_empty(), "{}", String::from_utf8_lossy(&stderr));
    }
    // The issue's pipeline: `pipefail` sees 141.
    let runner = std::env::var("PCTENC_CLI_RUNNER").unwrap_or_default();
    let script = r#"set -o pipefail; "$@" encode --binary </dev/zero | head -c 30 >/dev/null; echo $?"#;
    let out = Command::new("bash")
        .args(["-c", script, "bash"])
        .args(runner.split_whitespace())
        .arg(env!("CARGO_BIN_EXE_pctenc"))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "141\n");
}

/// pctenc decoding `input` (66 MiB, past the bar's threshold) on a pseudo-terminal that
/// `script` gives it as stdin, stdout and stderr, with `redirect` added to the shell line:
/// what reached the terminal.
fn decode_on_a_terminal(input: &Path, redirect: &str) -> String {
    if output_of(Command::new("script").arg("--version")).is_err() {
        panic!("`script` (util-linux) is needed to give pctenc a terminal");
    }
    let runner = std::env::var("PCTENC_CLI_RUNNER").unwrap_or_default();
    let exe = env!("CARGO_BIN_EXE_pctenc");
    let line = format!("{runner} {exe} decode {} {redirect}", input.display());
    let run = output_of(Command::new("script").args(["-qefc", &line, "/dev/null"])).unwrap();
    assert!(run.status.success(), "{line}: {}", String::from_utf8_lossy(&run.stderr));
    String::from_utf8_lossy(&run.stdout).into_owned()
}

/// 66 MiB that decode to 22 MiB of `A`.
fn large_input(dir: &Path) -> std::path::PathBuf {
    let big = dir.join("big");
    fs::write(&big, b"%41".repeat(22 << 20)).unwrap();
    big
}

/// The progress bar is drawn on a terminal stderr only when the output does not go to that
/// same terminal.
#[test]
fn progress_bar_never_mixes_with_output() {
    let dir = tempfile::tempdir().unwrap();
    let big = large_input(dir.path());
    let out = dir.path().join("out");
    // Output to the terminal: no bar.
    let mixed = decode_on_a_terminal(&big, "");
    assert!(mixed.contains(&"A".repeat(1000)), "the output did not reach the terminal");
    assert!(!mixed.contains("MiB"), "a progress bar in the output");
    // Output redirected: the bar shows.
    let shown = decode_on_a_terminal(&big, &format!("> {}", out.display()));
    assert!(shown.contains("MiB"), "no progress bar beside redirected output: {shown:?}");
    assert_eq!(fs::metadata(&out).unwrap().len(), 22 << 20);
}

/// No progress bar when the output is a terminal by any name: `-o /dev/tty` is the same
/// terminal as stderr, yet another device (5,0) than the pseudo-terminal's own.
#[test]
fn no_progress_bar_when_the_output_is_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let big = large_input(dir.path());
    for redirect in ["-o /dev/tty", "> /dev/tty"] {
        let mixed = decode_on_a_terminal(&big, redirect);
        assert!(mixed.contains(&"A".repeat(1000)), "{redirect}: the output did not reach the terminal");
        assert!(!mixed.contains("MiB"), "{redirect}: a progress bar in the output");
    }
}

/// pctenc run with descriptors `fds` closed (after its standard streams are set up: stdin
/// from `/dev/null`, stdout and stderr on pipes).
#[cfg(target_os = "linux")]
fn with_closed(args: &[&str], fds: &'static [i32]) -> std::process::Output {
    let mut cmd = command();
    cmd.args(args);
    // SAFETY: close is async-signal-safe, and the closure touches no memory of the parent's
    // but the static slice.
    unsafe {
        cmd.pre_exec(move || {
            for &fd in fds {
                libc::close(fd);
            }
            Ok(())
        });
    }
    let mut out = output_of(&mut cmd).unwrap();
    out.stderr = crate::run::without_emulator_warnings(out.stderr);
    out
}

/// A standard output closed when pctenc starts (`>&-`) is an error, as `cat` gives, not
/// output lost in the `/dev/null` Rust's runtime puts there; so is a closed standard input
/// that is read. `>/dev/null` discards, with status 0; a command that writes no standard
/// output (`check`) or reads no standard input does not mind.
#[cfg(target_os = "linux")]
#[test]
fn closed_standard_descriptors_are_errors() {
    if std::env::var_os("PCTENC_CLI_RUNNER").is_some() {
        eprintln!("PCTENC_CLI_RUNNER is set: the emulator opens descriptors of its own");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    fs::write(&input, "a%20b\n").unwrap();
    let file = path_str(&input);
    let bad = "Bad file descriptor (os error 9)";
    let stdout_closed: [(&[&str], String); 10] = [
        (&["encode", file], format!("<stdout>: {bad}")),
        (&["bench", "--seconds", "0.01", "--size", "64"], format!("<stdout>: {bad}")),
        (&["decode", file], format!("<stdout>: {bad}")),
        (&["normalize", file], format!("<stdout>: {bad}")),
        (&["encode", "-o", "-", file], format!("<stdout>: {bad}")),
        (&["encode", "-o", "/dev/stdout", file], "/dev/stdout: descriptor 1 is not open".into()),
        (&["sets"], format!("<stdout>: {bad}")),
        (&["info"], format!("<stdout>: {bad}")),
        (&["--help"], format!("write error: {bad}")),
        (&["--version"], format!("write error: {bad}")),
    ];
    for (args, message) in stdout_closed {
        let out = with_closed(args, &[1]);
        assert_eq!(String::from_utf8_lossy(&out.stderr), format!("pctenc: {message}\n"), "{args:?}");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
    let out = with_closed(&["check", file], &[1]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Standard input closed: an error where it is read, and only there.
    let out = with_closed(&["decode"], &[0]);
    assert_eq!(String::from_utf8_lossy(&out.stderr), format!("pctenc: <stdin>: {bad}\n"));
    assert_eq!(out.status.code(), Some(2));
    let out = with_closed(&["decode", file], &[0]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.stdout, b"a b\n");
    // `>/dev/null` is not a closed descriptor.
    let null = || fs::OpenOptions::new().read(true).write(true).open("/dev/null").unwrap();
    for args in [&["encode", file][..], &["--help"], &["decode"]] {
        let out = crate::run::pctenc_with(args, Stdio::from(null()), Stdio::from(null()), Stdio::piped());
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

/// A write past the file size limit (`ulimit -f`) is an I/O error that names the output, with
/// status 2, not the end of the process by SIGXFSZ: a `-o` file is left as it was, and no
/// temporary file stays.
#[test]
fn writes_past_the_file_size_limit_are_io_errors() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    fs::write(&input, vec![b' '; 1 << 20]).unwrap();
    let out = dir.path().join("out");
    fs::write(&out, "old\n").unwrap();
    let limited = |args: &[&str], stdout: Stdio| {
        let mut cmd = command();
        cmd.args(args).stdin(Stdio::null()).stdout(stdout).stderr(Stdio::piped());
        // SAFETY: setrlimit is async-signal-safe and touches no memory of the parent.
        unsafe {
            cmd.pre_exec(|| {
                let limit = libc::rlimit { rlim_cur: 64 << 10, rlim_max: 64 << 10 };
                libc::setrlimit(libc::RLIMIT_FSIZE, &limit);
                Ok(())
            });
        }
        let child = {
            let _lock = spawn_lock();
            cmd.spawn().unwrap()
        };
        let out = child.wait_with_output().unwrap();
        (out.status, String::from_utf8(crate::run::without_emulator_warnings(out.stderr)).unwrap())
    };
    let too_large = os_message(libc::EFBIG);
    let (status, stderr) =
        limited(&["encode", "--binary", "-o", path_str(&out), path_str(&input)], Stdio::null());
    assert_eq!(stderr, format!("pctenc: {}: {too_large}\n", path_str(&out)));
    assert_eq!(status.code(), Some(2), "{status:?}");
    assert_eq!(fs::read(&out).unwrap(), b"old\n");
    assert_eq!(names(dir.path()), ["in", "out"]);
    // Standard output redirected to a file.
    let redirected = fs::File::create(dir.path().join("redirected")).unwrap();
    let (status, stderr) = limited(&["encode", "--binary", path_str(&input)], Stdio::from(redirected));
    assert_eq!(stderr, format!("pctenc: <stdout>: {too_large}\n"));
    assert_eq!(status.code(), Some(2), "{status:?}");
}
