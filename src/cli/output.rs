//! Where the output goes: standard output, or a file that appears only when the run succeeds.

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use super::Failure;

/// Small writes (the end of a read, a few lines encoded one by one) are gathered up to this
/// size; larger ones, such as the output of a parallel chunk (45-190 KiB), go straight
/// through without a copy (copying decoded chunks through a 64 KiB buffer cost 12% of the
/// decoding time).
const BUFFER: usize = 16 * 1024;

/// The output of one run.
pub enum Output {
    Stdout(BufWriter<Stdout>),
    /// A temporary file beside the target, renamed onto it by [`Output::finish`]. Dropping it
    /// without `finish` deletes it, so a failed run never leaves a partial file.
    File {
        temp: BufWriter<tempfile::NamedTempFile>,
        target: PathBuf,
    },
}

impl Output {
    pub fn open(target: Option<&Path>) -> Result<Output, Failure> {
        let Some(target) = target else {
            let stdout = stdout().map_err(|e| Failure::io(Path::new("<stdout>"), e))?;
            return Ok(Output::Stdout(BufWriter::with_capacity(BUFFER, stdout)));
        };
        let dir = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let temp = tempfile::Builder::new()
            .prefix(".pctenc-")
            .suffix(".tmp")
            .tempfile_in(dir)
            .map_err(|e| Failure::io(target, e))?;
        Ok(Output::File { temp: BufWriter::with_capacity(BUFFER, temp), target: target.to_path_buf() })
    }

    pub fn write_all(&mut self, bytes: &[u8]) -> Result<(), Failure> {
        let result = match self {
            Output::Stdout(w) => w.write_all(bytes),
            Output::File { temp, .. } => temp.write_all(bytes),
        };
        result.map_err(|e| self.error(e))
    }

    /// Passes buffered output on now. Called when a read came back short, that is when
    /// the input is a pipe or terminal with nothing more to read yet, so that
    /// `tail -f log | pctenc encode` shows each line as it comes.
    pub fn flush(&mut self) -> Result<(), Failure> {
        let result = match self {
            Output::Stdout(w) => w.flush(),
            Output::File { temp, .. } => temp.flush(),
        };
        result.map_err(|e| self.error(e))
    }

    /// Flushes, and for a file moves it into place with the permissions a new file gets (or
    /// those of the file it replaces).
    pub fn finish(self) -> Result<(), Failure> {
        match self {
            Output::Stdout(mut w) => w.flush().map_err(|e| Failure::io(Path::new("<stdout>"), e)),
            Output::File { temp, target } => {
                let temp = temp.into_inner().map_err(|e| Failure::io(&target, e.into_error()))?;
                temp.as_file().sync_all().map_err(|e| Failure::io(&target, e))?;
                let mode = fs::metadata(&target).map(|m| m.permissions()).ok();
                set_permissions(temp.path(), mode).map_err(|e| Failure::io(&target, e))?;
                temp.persist(&target).map_err(|e| Failure::io(&target, e.error))?;
                Ok(())
            }
        }
    }

    /// The failure for an error writing to this output.
    pub fn error(&self, e: io::Error) -> Failure {
        match self {
            Output::Stdout(_) => Failure::io(Path::new("<stdout>"), e),
            Output::File { target, .. } => Failure::io(target, e),
        }
    }
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

#[cfg(unix)]
fn set_permissions(path: &Path, existing: Option<fs::Permissions>) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    // A temporary file is private (0600); the output should look like any other new file.
    let perms = existing.unwrap_or_else(|| fs::Permissions::from_mode(0o644));
    fs::set_permissions(path, perms)
}

#[cfg(not(unix))]
fn set_permissions(path: &Path, existing: Option<fs::Permissions>) -> io::Result<()> {
    match existing {
        Some(perms) => fs::set_permissions(path, perms),
        None => Ok(()),
    }
}

/// For the library's writing paths (`feed_to`); their errors are turned into failures with
/// [`Output::error`].
impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Output::Stdout(w) => w.write(buf),
            Output::File { temp, .. } => temp.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Output::Stdout(w) => w.write_all(buf),
            Output::File { temp, .. } => temp.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::Stdout(w) => w.flush(),
            Output::File { temp, .. } => temp.flush(),
        }
    }
}
