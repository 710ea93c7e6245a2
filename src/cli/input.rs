//! Inputs: regular files memory-mapped whole, pipes and terminals read in fixed-size
//! chunks.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use memmap2::Mmap;

use super::Failure;

/// Bytes read at a time from a pipe or terminal: memory stays bounded whatever the input's
/// size or line lengths.
pub const CHUNK: usize = 256 * 1024;

/// Bytes of a mapped file handed on at a time: enough for every thread to get many chunks
/// of the parallel encoder, little enough that the output buffer stays small.
pub const SEGMENT: usize = 16 * 1024 * 1024;

/// One input and its name for messages.
pub struct Input {
    pub name: String,
    source: Source,
}

enum Source {
    /// A regular file, mapped: no copy into a buffer, and every core can work on it at once.
    Mapped { map: Mmap, at: usize },
    /// A pipe, terminal or special file: read as it comes.
    Stream(Box<dyn Read>),
    /// An empty regular file (which cannot be mapped).
    Empty,
}

impl Input {
    /// Every input of the command line in order; standard input when there is none.
    pub fn all(files: &[PathBuf]) -> Vec<PathBuf> {
        if files.is_empty() { vec![PathBuf::from("-")] } else { files.to_vec() }
    }

    /// The total size of the inputs that are regular files (pipes count 0): what a progress
    /// bar counts to.
    pub fn known_size(files: &[PathBuf]) -> u64 {
        Input::all(files)
            .iter()
            .filter(|p| *p != Path::new("-"))
            .filter_map(|p| std::fs::metadata(p).ok())
            .filter(|m| m.is_file())
            .map(|m| m.len())
            .sum()
    }

    pub fn open(path: &Path) -> Result<Input, Failure> {
        if path == Path::new("-") {
            let name = "<stdin>".to_string();
            let source = match stdin_file() {
                // `pctenc encode < file`: standard input is a regular file, map it too.
                Some(file) => map(&file).map_err(|e| Failure::Io { what: name.clone(), error: e })?,
                None => Source::Stream(Box::new(io::stdin().lock())),
            };
            return Ok(Input { name, source });
        }
        let file = File::open(path).map_err(|e| Failure::io(path, e))?;
        let source = map(&file).map_err(|e| Failure::io(path, e))?;
        Ok(Input { name: path.display().to_string(), source })
    }

    /// The whole input, when it is a regular file (mapped).
    pub fn mapped(&self) -> Option<&[u8]> {
        match &self.source {
            Source::Mapped { map, .. } => Some(map),
            Source::Empty => Some(&[]),
            Source::Stream(_) => None,
        }
    }

    /// The next piece of the input, empty at its end: what one read of up to `buf.len()`
    /// bytes gives, in `buf` (a mapped file: the next [`SEGMENT`] bytes, not copied).
    /// `short` tells that a read came back short: nothing more is there yet, so output
    /// should be passed on now (`tail -f log | pctenc encode`).
    pub fn next<'a>(&'a mut self, buf: &'a mut [u8]) -> Result<Piece<'a>, Failure> {
        match &mut self.source {
            Source::Mapped { map, at } => {
                let start = *at;
                *at = (start + SEGMENT).min(map.len());
                Ok(Piece { bytes: &map[start..*at], short: false })
            }
            Source::Empty => Ok(Piece { bytes: &[], short: false }),
            Source::Stream(reader) => loop {
                match reader.read(buf) {
                    Ok(n) => return Ok(Piece { short: n < buf.len(), bytes: &buf[..n] }),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(Failure::Io { what: self.name.clone(), error: e }),
                }
            },
        }
    }
}

impl Input {
    /// Fills as much of `buf` as one read gives (a mapped file: copies the next bytes); 0 at
    /// the end of the input. For the commands that work in place in a buffer of their own.
    pub fn read(&mut self, buf: &mut [u8]) -> Result<usize, Failure> {
        if let Source::Mapped { map, at } = &mut self.source {
            let n = buf.len().min(map.len() - *at);
            buf[..n].copy_from_slice(&map[*at..*at + n]);
            *at += n;
            return Ok(n);
        }
        let piece = self.next(buf)?;
        Ok(piece.bytes.len())
    }
}

/// A piece of input; see [`Input::next`].
pub struct Piece<'a> {
    pub bytes: &'a [u8],
    pub short: bool,
}

/// Maps `file` if it is a regular file; other files are read as streams.
fn map(file: &File) -> io::Result<Source> {
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Ok(Source::Stream(Box::new(file.try_clone()?)));
    }
    if meta.len() == 0 {
        return Ok(Source::Empty);
    }
    // SAFETY: the map is only read. If another process truncates the file while pctenc reads
    // it, reading the lost pages raises SIGBUS (as for every tool that maps its input, such
    // as ripgrep); a file changed in place gives output that mixes old and new contents.
    // The CLI's help says so.
    let map = unsafe { Mmap::map(file)? };
    #[cfg(unix)]
    let _ = map.advise(memmap2::Advice::Sequential);
    Ok(Source::Mapped { map, at: 0 })
}

/// Standard input as a `File`, when it is a regular file.
#[cfg(unix)]
fn stdin_file() -> Option<File> {
    use std::os::fd::AsFd;
    let fd = io::stdin().as_fd().try_clone_to_owned().ok()?;
    let file = File::from(fd);
    file.metadata().ok()?.is_file().then_some(file)
}

#[cfg(not(unix))]
fn stdin_file() -> Option<File> {
    None
}
