//! Where the output goes: standard output, a device or FIFO written in place, or a regular
//! file that is replaced only when the run succeeds.
//!
//! `-o OUT` looks at what OUT is when the run starts:
//!
//! - `-`: standard output itself (its open file, so `>> log` still appends).
//! - a name of a descriptor open in pctenc (`/dev/stdout`, `/dev/stderr`, `/dev/stdin`,
//!   `/dev/fd/N`, `/proc/self/fd/N`, `/proc/thread-self/fd/N`, `/proc/PID/fd/N` with pctenc's
//!   own PID), or a symbolic link that leads to one: that descriptor as it is (a copy of it,
//!   [`dup`](https://man7.org/linux/man-pages/man2/dup.2.html)), written at its offset, with
//!   no truncation and no temporary file, so `-o /dev/fd/5 5>>log` appends to `log` as
//!   `>&5` would. A descriptor that is not open, or open for reading only (standard input as
//!   usually opened), is an error.
//! - an existing file that is not a regular file (character or block device, FIFO, socket):
//!   opened for writing and written in place, as a shell's `>` would, with no temporary file
//!   (opening a FIFO waits for a reader). `-o /dev/null` discards the output; a FIFO's reader
//!   gets it as it is produced. A failed run may have written part of its output there.
//! - a symbolic link: followed (through any chain of links) to the file it names, which is then
//!   treated as below in *its* directory; the link stays a link. A dangling link creates the
//!   file it points to, as `>` does.
//! - a regular file, or no file: the output goes to a temporary file `.pctenc-XXXXXX.tmp` in the
//!   target's directory, renamed onto the target when the whole run succeeds, so a failed run
//!   leaves the target as it was. A replaced file keeps its permission bits (without setuid and
//!   setgid) and, where the system allows it, its owner and group; a new file gets
//!   `0666 & !umask`. Renaming gives the target a new inode: hard links to the old file keep
//!   the old contents (as with `sed -i`). Renaming needs write permission on the directory,
//!   not on the file, so a write-protected file (mode 0444) is replaced too, as `sed -i`
//!   replaces it, where the shell's `>` refuses it to all but root; the new file is 0444 in
//!   turn. SIGINT, SIGTERM, SIGHUP and the other signals that end a process remove the
//!   temporary file before the process ends by the signal (see [`interrupt`]); SIGXFSZ is
//!   ignored, so a write past `ulimit -f` is an I/O error that removes it too.
//!
//! Errors name OUT as the user wrote it, with the reason the system gave, never the
//! temporary file's name; every path in them is escaped ([`escape_name`]).

use std::fs::{self, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use super::{Failure, escape_name};

/// Small writes (the end of a read, a few lines encoded one by one) are gathered up to this
/// size; larger ones, such as the output of a parallel chunk (45-190 KiB), go straight
/// through without a copy (copying decoded chunks through a 64 KiB buffer cost 12% of the
/// decoding time).
const BUFFER: usize = 16 * 1024;

/// The output of one run.
pub enum Output {
    Stdout(BufWriter<Stdout>),
    /// An existing file that is not a regular file (a device, a FIFO), written in place, or a
    /// copy of an open descriptor that `-o` names.
    Direct {
        file: BufWriter<fs::File>,
        target: PathBuf,
    },
    /// A temporary file beside the file to replace, renamed onto it by [`Output::finish`].
    /// Dropping it without `finish` deletes it, so a failed run never leaves a partial file.
    File {
        temp: BufWriter<fs::File>,
        pending: Pending,
        /// Where the temporary file goes: the target, or the file its symbolic links lead to.
        destination: PathBuf,
        /// The path as given, for messages.
        target: PathBuf,
    },
}

impl Output {
    /// Standard output for `None`, else the output to `target` as the module documentation
    /// describes.
    pub fn open(target: Option<&Path>) -> Result<Output, Failure> {
        let Some(target) = target.filter(|t| *t != Path::new("-")) else {
            if super::closed::at_start(1) {
                return Err(Failure::io(Path::new("<stdout>"), super::closed::error()));
            }
            let stdout = stdout().map_err(|e| Failure::io(Path::new("<stdout>"), e))?;
            return Ok(Output::Stdout(BufWriter::with_capacity(BUFFER, stdout)));
        };
        let fail = |e| Failure::io(target, e);
        let destination = match follow_links(target).map_err(fail)? {
            Resolved::Path(path) => path,
            Resolved::Descriptor(fd) => {
                return Ok(Output::Direct {
                    file: BufWriter::with_capacity(BUFFER, descriptor(fd).map_err(fail)?),
                    target: target.to_path_buf(),
                });
            }
        };
        // `metadata` follows symbolic links, including the kernel's own (`/dev/stderr`).
        let existing = match fs::metadata(target) {
            Ok(meta) if meta.is_dir() => return Err(fail(io::ErrorKind::IsADirectory.into())),
            Ok(meta) if !meta.is_file() => {
                // No truncation: a device or FIFO has no length, and `O_TRUNC` on a terminal
                // or FIFO is ignored anyway.
                let file = OpenOptions::new().write(true).open(target).map_err(fail)?;
                return Ok(Output::Direct {
                    file: BufWriter::with_capacity(BUFFER, file),
                    target: target.to_path_buf(),
                });
            }
            Ok(meta) => Some(meta),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(fail(e)),
        };
        if let Some(meta) = &existing
            && !same_file(meta, &destination)
        {
            // A link the kernel resolves but a path cannot reach (`/proc/PID/fd/N` of another
            // process, to a deleted file): write it as the shell would.
            let file = OpenOptions::new().write(true).truncate(true).open(target).map_err(fail)?;
            return Ok(Output::Direct {
                file: BufWriter::with_capacity(BUFFER, file),
                target: target.to_path_buf(),
            });
        }
        interrupt::watch().map_err(|e| Failure::Io { what: "signal handlers".into(), error: e })?;
        let dir = match destination.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let (temp, pending) = Pending::create(dir, existing.as_ref()).map_err(|e| {
            fail(io::Error::new(e.kind(), format!("cannot create a file in {}: {e}", escape_name(dir))))
        })?;
        Ok(Output::File {
            temp: BufWriter::with_capacity(BUFFER, temp),
            pending,
            destination,
            target: target.to_path_buf(),
        })
    }

    pub fn write_all(&mut self, bytes: &[u8]) -> Result<(), Failure> {
        Write::write_all(self, bytes).map_err(|e| self.error(e))
    }

    /// Passes buffered output on now. Called when a read came back short, that is when
    /// the input is a pipe or terminal with nothing more to read yet, so that
    /// `tail -f log | pctenc encode` shows each line as it comes.
    pub fn flush(&mut self) -> Result<(), Failure> {
        Write::flush(self).map_err(|e| self.error(e))
    }

    /// Flushes, and for a file moves it into place.
    pub fn finish(self) -> Result<(), Failure> {
        match self {
            Output::Stdout(mut w) => w.flush().map_err(|e| Failure::io(Path::new("<stdout>"), e)),
            Output::Direct { mut file, target } => file.flush().map_err(|e| Failure::io(&target, e)),
            Output::File { temp, pending, destination, target } => {
                let temp = temp.into_inner().map_err(|e| Failure::io(&target, e.into_error()))?;
                temp.sync_all().map_err(|e| Failure::io(&target, e))?;
                pending.persist(&destination).map_err(|e| Failure::io(&target, e))
            }
        }
    }

    /// Ends a failed run: what was written to standard output or a device is flushed, and a
    /// temporary file is removed, leaving its target as it was.
    pub fn abandon(self) -> Result<(), Failure> {
        match self {
            Output::Stdout(mut w) => w.flush().map_err(|e| Failure::io(Path::new("<stdout>"), e)),
            Output::Direct { mut file, target } => file.flush().map_err(|e| Failure::io(&target, e)),
            Output::File { .. } => Ok(()),
        }
    }

    /// The failure for an error writing to this output.
    pub fn error(&self, e: io::Error) -> Failure {
        match self {
            Output::Stdout(_) => Failure::io(Path::new("<stdout>"), e),
            Output::Direct { target, .. } | Output::File { target, .. } => Failure::io(target, e),
        }
    }

    /// Whether the output is a terminal, whichever (`/dev/tty`, another name of stderr's
    /// terminal, another terminal), or the file that stderr is: a progress bar on stderr
    /// would mix with it, or be drawn among the output's lines.
    pub fn is_terminal(&self) -> bool {
        use std::io::IsTerminal;
        match self {
            #[cfg(unix)]
            Output::Stdout(w) => w.get_ref().is_terminal() || same_file_as_stderr(w.get_ref()),
            #[cfg(not(unix))]
            Output::Stdout(_) => io::stdout().is_terminal(),
            Output::Direct { file, .. } => {
                file.get_ref().is_terminal() || same_file_as_stderr(file.get_ref())
            }
            Output::File { .. } => false,
        }
    }
}

/// Where the symbolic links of a target lead.
enum Resolved {
    /// A path that is not a link (or does not exist yet).
    Path(PathBuf),
    /// A name of this descriptor of pctenc's.
    Descriptor(i32),
}

/// Where a chain of symbolic links ends (a path that may not exist yet), each link read
/// relative to its own directory, as the kernel reads it: a path, or the first name of an
/// open descriptor found on the way (`/dev/stderr` leads to `/proc/self/fd/2`, whose own link
/// names the file behind the descriptor, not the descriptor). Only the last component is
/// followed: links among the directories need not be, as the rename goes through them.
fn follow_links(target: &Path) -> io::Result<Resolved> {
    let mut path = target.to_path_buf();
    // Linux's own limit (MAXSYMLINKS).
    for _ in 0..40 {
        if let Some(fd) = descriptor_name(&path) {
            return Ok(Resolved::Descriptor(fd));
        }
        match fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = fs::read_link(&path)?;
                path = match path.parent() {
                    Some(dir) => dir.join(link),
                    None => link,
                };
            }
            Ok(_) => return Ok(Resolved::Path(path)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Resolved::Path(path)),
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::other("too many levels of symbolic links"))
}

/// The descriptor that `path` names, open or not: `N` in a directory that is this process's
/// descriptor table, whatever the spelling of the way there (`/dev/fd`, `/proc/self/fd`,
/// `/proc/thread-self/fd`, `/proc/PID/fd`, a link to one of them), as the kernel resolves it.
/// `N` is written as the kernel reads it (decimal, no leading zero); a trailing `/` asks for
/// a directory, which no descriptor name is.
#[cfg(unix)]
fn descriptor_name(path: &Path) -> Option<i32> {
    use std::os::unix::ffi::OsStrExt;
    let bytes = path.as_os_str().as_bytes();
    let name = bytes.rsplit(|&b| b == b'/').next()?;
    if name.is_empty() || !name.iter().all(u8::is_ascii_digit) || (name.len() > 1 && name[0] == b'0') {
        return None;
    }
    let fd: i32 = std::str::from_utf8(name).ok()?.parse().ok()?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let dir = fs::canonicalize(dir).ok()?;
    let own = Path::new("/proc").join(std::process::id().to_string());
    // `/proc/thread-self` is `/proc/PID/task/TID`: a thread of this process, which shares
    // its descriptors.
    let thread = dir.ends_with("fd")
        && dir.parent().and_then(Path::parent).is_some_and(|task| task == own.join("task"));
    let table = thread || dir == own.join("fd") || dir == Path::new("/dev/fd");
    table.then_some(fd)
}

#[cfg(not(unix))]
fn descriptor_name(_: &Path) -> Option<i32> {
    None
}

/// A copy of descriptor `fd`, which must be open for writing: it shares the open file, with
/// its offset and its append mode.
#[cfg(unix)]
fn descriptor(fd: i32) -> io::Result<fs::File> {
    use std::os::fd::BorrowedFd;
    if super::closed::at_start(fd) {
        // Open now, on `/dev/null`, only because the runtime filled the gap.
        let e = super::closed::error();
        return Err(io::Error::new(e.kind(), format!("descriptor {fd} is not open")));
    }
    // SAFETY: F_GETFL reads the descriptor's status flags; no memory is involved, and a
    // descriptor that is not open gives EBADF.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags == -1 {
        let e = io::Error::last_os_error();
        return Err(match e.raw_os_error() {
            Some(libc::EBADF) => io::Error::new(e.kind(), format!("descriptor {fd} is not open")),
            _ => e,
        });
    }
    if flags & libc::O_ACCMODE == libc::O_RDONLY {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!("descriptor {fd} is not open for writing"),
        ));
    }
    // SAFETY: `fd` is open (F_GETFL succeeded), and nothing in pctenc closes a descriptor it
    // did not open itself: it stays open while borrowed here, just long enough to copy it.
    let borrowed = unsafe { BorrowedFd::borrow_raw(fd) };
    Ok(fs::File::from(borrowed.try_clone_to_owned()?))
}

#[cfg(not(unix))]
fn descriptor(_: i32) -> io::Result<fs::File> {
    Err(io::ErrorKind::Unsupported.into())
}

#[cfg(unix)]
fn same_file(meta: &fs::Metadata, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    fs::metadata(path).is_ok_and(|m| m.dev() == meta.dev() && m.ino() == meta.ino())
}

#[cfg(not(unix))]
fn same_file(_: &fs::Metadata, path: &Path) -> bool {
    path.exists()
}

/// The temporary file of a [`Output::File`], registered with [`interrupt`] while it exists.
pub struct Pending(Option<tempfile::TempPath>);

impl Pending {
    /// A new temporary file in `dir`, with the mode the output will have.
    fn create(dir: &Path, existing: Option<&fs::Metadata>) -> io::Result<(fs::File, Pending)> {
        // Held until the file is registered: a signal that comes meanwhile is handled after,
        // and removes it.
        let mut registered = interrupt::pending();
        // `make_in` rather than `tempfile_in`: errors come back as the system gave them,
        // without the temporary path.
        let temp = tempfile::Builder::new()
            .prefix(".pctenc-")
            .suffix(".tmp")
            .make_in(dir, |path| new_file(path, existing.is_none()))?;
        let (file, path) = temp.into_parts();
        *registered = Some(path.to_path_buf());
        drop(registered);
        let pending = Pending(Some(path));
        if let Some(meta) = existing {
            keep_owner_and_mode(&file, meta)?;
        }
        Ok((file, pending))
    }

    /// Renames the file onto `destination`.
    fn persist(mut self, destination: &Path) -> io::Result<()> {
        let Some(temp) = self.0.take() else { return Ok(()) };
        // Under the lock: a signal handled after this finds the file renamed, not half gone.
        let mut registered = interrupt::pending();
        *registered = None;
        // On failure the returned `TempPath` is dropped here too, which removes the file.
        temp.persist(destination).map_err(|e| e.error)
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        if let Some(temp) = self.0.take() {
            let mut registered = interrupt::pending();
            *registered = None;
            drop(temp);
        }
    }
}

/// The temporary file. A new output is created with mode 0666 and the kernel applies the
/// umask (and a directory's default ACL) at `open`, exactly as for any new file: the umask is
/// never read, so there is no window in which it is changed to be read (`umask(2)` only
/// reads it by setting it) while other threads run. The file to replace an existing one is
/// created private (0600) and given that file's owner and mode at once.
#[cfg(unix)]
fn new_file(path: &Path, new_output: bool) -> io::Result<fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let mode = if new_output { 0o666 } else { 0o600 };
    OpenOptions::new().write(true).create_new(true).mode(mode).open(path)
}

#[cfg(not(unix))]
fn new_file(path: &Path, _: bool) -> io::Result<fs::File> {
    OpenOptions::new().write(true).create_new(true).open(path)
}

/// Gives `file` the owner, group and permission bits of the file it replaces, without setuid
/// and setgid. Changing the owner needs privileges, and the group needs membership: what the
/// system refuses (`EPERM`) is left as it is, as `sed -i` and `cp -p` do.
#[cfg(unix)]
fn keep_owner_and_mode(file: &fs::File, meta: &fs::Metadata) -> io::Result<()> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt, fchown};
    let refused = |e: &io::Error| e.kind() == io::ErrorKind::PermissionDenied;
    if let Err(e) = fchown(file, Some(meta.uid()), Some(meta.gid())) {
        if !refused(&e) {
            return Err(e);
        }
        if let Err(e) = fchown(file, None, Some(meta.gid()))
            && !refused(&e)
        {
            return Err(e);
        }
    }
    // After fchown, which may clear setuid and setgid itself.
    file.set_permissions(fs::Permissions::from_mode(meta.mode() & 0o1777))
}

#[cfg(not(unix))]
fn keep_owner_and_mode(file: &fs::File, meta: &fs::Metadata) -> io::Result<()> {
    file.set_permissions(meta.permissions())
}

/// Standard output, written directly: `io::Stdout` is line-buffered, and searches every
/// large write for its last line break, which for output of megabytes costs as much as
/// encoding it.
#[cfg(unix)]
type Stdout = std::fs::File;
#[cfg(not(unix))]
type Stdout = io::StdoutLock<'static>;

/// A new descriptor for fd 1 (dup): writes go to the same open file, with no buffering in
/// between.
#[cfg(unix)]
fn stdout() -> io::Result<Stdout> {
    use std::os::fd::AsFd;
    Ok(std::fs::File::from(io::stdout().as_fd().try_clone_to_owned()?))
}

#[cfg(not(unix))]
fn stdout() -> io::Result<Stdout> {
    Ok(io::stdout().lock())
}

/// Whether `file` is the file that fd 2 is: the same character device (two names of one
/// terminal are one device), or the same file.
#[cfg(unix)]
fn same_file_as_stderr(file: &fs::File) -> bool {
    use std::os::fd::AsFd;
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let stderr = io::stderr().as_fd().try_clone_to_owned().map(fs::File::from).and_then(|f| f.metadata());
    let (Ok(out), Ok(err)) = (file.metadata(), stderr) else { return false };
    if out.file_type().is_char_device() && err.file_type().is_char_device() {
        out.rdev() == err.rdev()
    } else {
        out.dev() == err.dev() && out.ino() == err.ino()
    }
}

#[cfg(not(unix))]
fn same_file_as_stderr(_: &fs::File) -> bool {
    false
}

/// A signal that ends the process while a temporary file exists: the file is removed, then
/// the process ends by the signal, as it would have without pctenc's handler (a shell shows
/// status 130 for SIGINT, 143 for SIGTERM, and a script interrupted by Ctrl-C stops; SIGQUIT
/// and SIGXCPU still dump core where cores are dumped). The signals are those another process
/// or the kernel sends from outside, whose default action ends the process (`signals`):
/// SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF and SIGXCPU,
/// and on Linux SIGIO and SIGPWR. Not: SIGKILL and SIGSTOP (no handler can run); SIGSEGV,
/// SIGBUS, SIGILL, SIGFPE, SIGTRAP and SIGSYS, which the process's own fault raises (a mapped
/// input truncated under pctenc gives SIGBUS, and a handler cannot go on safely); the
/// real-time signals, which nothing sends to pctenc unasked; SIGPIPE, which Rust's runtime
/// ignores, so a closed pipe is an error of the write (`main`'s `broken_pipe`) and a
/// regular file never gives it; and SIGXFSZ, which `ignore_file_size_signal` ignores for
/// the whole run, so that a write past `ulimit -f` fails with EFBIG, an I/O error like any
/// other (status 2, temporary file removed).
///
/// A thread of signal-hook's waits for the signals, so the removal runs as ordinary code, not
/// in a signal handler. Races: the handlers are installed before the first temporary file is
/// created; creating and registering a file, renaming it into place and removing it on
/// failure all hold the [`pending`](interrupt::pending) lock, and so does the handling thread
/// from the moment it takes the lock until the process ends. So a signal either finds a
/// registered file, which has not been renamed and is removed, or no file (none made yet, or
/// the output is complete in place); nothing can be created or renamed after it is handled.
///
/// A signal that was ignored when pctenc started (`nohup`, a background job's SIGINT) stays
/// ignored.
mod interrupt {
    use std::io;
    use std::path::PathBuf;
    use std::sync::{Mutex, MutexGuard, OnceLock};

    static PENDING: Mutex<Option<PathBuf>> = Mutex::new(None);

    /// The temporary file that exists now, if any.
    pub fn pending() -> MutexGuard<'static, Option<PathBuf>> {
        PENDING.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The signals that remove the temporary file (see the module's documentation).
    #[cfg(unix)]
    fn signals() -> Vec<i32> {
        let mut signals = vec![
            libc::SIGHUP,
            libc::SIGINT,
            libc::SIGQUIT,
            libc::SIGTERM,
            libc::SIGUSR1,
            libc::SIGUSR2,
            libc::SIGALRM,
            libc::SIGVTALRM,
            libc::SIGPROF,
            libc::SIGXCPU,
        ];
        #[cfg(any(target_os = "linux", target_os = "android"))]
        signals.extend([libc::SIGIO, libc::SIGPWR]);
        signals
    }

    /// Installs the handlers, once.
    #[cfg(unix)]
    pub fn watch() -> io::Result<()> {
        static WATCHING: OnceLock<Result<(), String>> = OnceLock::new();
        let installed = WATCHING.get_or_init(|| {
            let signals: Vec<i32> = signals().into_iter().filter(|&s| !ignored(s)).collect();
            let mut signals = signal_hook::iterator::Signals::new(signals).map_err(|e| e.to_string())?;
            std::thread::Builder::new()
                .name("signals".into())
                .spawn(move || {
                    if let Some(signal) = signals.forever().next() {
                        // Kept until the process ends.
                        let registered = pending();
                        if let Some(path) = registered.as_ref() {
                            let _ = std::fs::remove_file(path);
                        }
                        // Restores the default action, which ends the process for each of
                        // these signals, and raises the signal again. (signal-hook's
                        // `emulate_default_handler` takes SIGIO for one ignored by default,
                        // as it is on the BSDs.)
                        // SAFETY: resetting a disposition to SIG_DFL and raising a signal
                        // touch no memory of the process.
                        unsafe {
                            libc::signal(signal, libc::SIG_DFL);
                            libc::raise(signal);
                        }
                        std::process::exit(128 + signal);
                    }
                })
                .map(drop)
                .map_err(|e| e.to_string())
        });
        installed.clone().map_err(io::Error::other)
    }

    #[cfg(not(unix))]
    pub fn watch() -> io::Result<()> {
        Ok(())
    }

    /// Whether `signal` is ignored (inherited from the parent).
    #[cfg(unix)]
    fn ignored(signal: i32) -> bool {
        // SAFETY: with a null new action, sigaction only writes the current action into
        // `old`, a zeroed `sigaction` (a plain C struct, valid when zeroed) that it owns.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            libc::sigaction(signal, std::ptr::null(), &mut old) == 0 && old.sa_sigaction == libc::SIG_IGN
        }
    }
}

/// Ignores SIGXFSZ for the run: a write past the file size limit
/// (`ulimit -f`) then fails with EFBIG, an I/O error reported as any other (status 2), and a
/// temporary file is removed, where the signal's default action would end the process and
/// leave it. (Standard output to a file past the limit is such an error too.)
pub fn ignore_file_size_signal() {
    #[cfg(unix)]
    // SAFETY: changing a signal's disposition to SIG_IGN touches no memory of the process;
    // no handler of pctenc's is installed for SIGXFSZ.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

/// For the library's writing paths (`feed_to`); their errors are turned into failures with
/// [`Output::error`].
impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Output::Stdout(w) => w.write(buf),
            Output::Direct { file, .. } => file.write(buf),
            Output::File { temp, .. } => temp.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Output::Stdout(w) => w.write_all(buf),
            Output::Direct { file, .. } => file.write_all(buf),
            Output::File { temp, .. } => temp.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::Stdout(w) => w.flush(),
            Output::Direct { file, .. } => file.flush(),
            Output::File { temp, .. } => temp.flush(),
        }
    }
}
