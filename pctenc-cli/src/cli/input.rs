//! Inputs: regular files memory-mapped a segment at a time, pipes and terminals read in
//! fixed-size chunks.

use std::cell::Cell;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use memmap2::{Mmap, MmapOptions};

use super::Failure;

/// Bytes read at a time from a pipe or terminal: memory stays bounded whatever the input's
/// size or line lengths.
pub const CHUNK: usize = 256 * 1024;

/// Bytes of a regular file mapped at a time: enough for every thread to get many chunks of
/// the parallel encoder, and a multiple of every page size.
pub const SEGMENT: usize = 16 * 1024 * 1024;

/// One input and its name for messages.
pub struct Input {
    pub name: String,
    source: Source,
    /// Standard input as a mapped file: its offset, shared with whoever gave pctenc the
    /// descriptor, is moved to the end once the mapping has been read, as a `read()` loop
    /// would leave it (`pctenc encode - - < f` reads `f` once; `{ pctenc encode; cat; } < f`
    /// gives `cat` nothing).
    advance: bool,
    /// The file has been mapped ([`Input::segments`]), not read.
    mapped: Cell<bool>,
}

enum Source {
    /// A regular file: mapped, so nothing is copied and every core can work on it at once.
    /// The input is its bytes `start..end` (standard input starts where its offset was).
    File { file: File, start: u64, end: u64 },
    /// A pipe, terminal or special file: read as it comes.
    Stream(Box<dyn Read>),
}

impl Input {
    /// Every input of the command line in order; standard input when there is none.
    pub fn all(files: &[PathBuf]) -> Vec<PathBuf> {
        if files.is_empty() { vec![PathBuf::from("-")] } else { files.to_vec() }
    }

    /// The total size of the inputs that are regular files (pipes count 0): what a progress
    /// bar counts to.
    pub fn known_size(files: &[PathBuf]) -> u64 {
        let size = |path: &PathBuf| -> u64 {
            if path == Path::new("-") {
                let rest = stdin_file().and_then(|(f, at)| Some(f.metadata().ok()?.len().saturating_sub(at)));
                return rest.unwrap_or(0);
            }
            std::fs::metadata(path).ok().filter(|m| m.is_file()).map_or(0, |m| m.len())
        };
        Input::all(files).iter().map(size).sum()
    }

    pub fn open(path: &Path) -> Result<Input, Failure> {
        if path == Path::new("-") {
            let name = "<stdin>".to_string();
            if super::closed::at_start(0) {
                return Err(Failure::Input { what: name, error: super::closed::error() });
            }
            // `pctenc encode < file`: standard input is a regular file, map it too, from
            // its offset on (`(head -n 1; pctenc encode) < file` reads on from where `head`
            // stopped).
            let source = match stdin_file() {
                Some((file, at)) => {
                    source(file, at).map_err(|e| Failure::Input { what: name.clone(), error: e })?
                }
                None => Source::Stream(Box::new(io::stdin().lock())),
            };
            return Ok(Input { name, source, advance: true, mapped: Cell::new(false) });
        }
        let failure = |error| Failure::Input { what: super::escape_name(path), error };
        let file = File::open(path).map_err(failure)?;
        let source = source(file, 0).map_err(failure)?;
        Ok(Input { name: super::escape_name(path), source, advance: false, mapped: Cell::new(false) })
    }

    /// The input's segments when it is a regular file, each mapped when it is reached.
    pub fn segments(&self) -> Option<Segments<'_>> {
        match &self.source {
            Source::File { file, start, end } => {
                self.mapped.set(true);
                Some(Segments { name: &self.name, file, end: *end, at: *start })
            }
            Source::Stream(_) => None,
        }
    }

    /// The next piece of the input, empty at its end: what one read of up to `buf.len()`
    /// bytes gives. `short` tells that a read came back short: nothing more is there yet,
    /// so output should be passed on now (`tail -f log | pctenc encode`).
    pub fn next<'a>(&mut self, buf: &'a mut [u8]) -> Result<Piece<'a>, Failure> {
        let n = self.read(buf)?;
        Ok(Piece { short: n < buf.len(), bytes: &buf[..n] })
    }

    /// Fills as much of `buf` as one read gives; 0 at the end of the input. (Regular files
    /// too, for the commands that work in a buffer of their own.)
    pub fn read(&mut self, buf: &mut [u8]) -> Result<usize, Failure> {
        let reader: &mut dyn Read = match &mut self.source {
            Source::File { file, .. } => file,
            Source::Stream(reader) => reader,
        };
        loop {
            match reader.read(buf) {
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(Failure::Input { what: self.name.clone(), error: e }),
            }
        }
    }
}

impl Input {
    /// Whether the input is standard input that is a regular file: its offset is shared with
    /// whoever gave pctenc the descriptor, so where pctenc leaves it matters.
    pub fn is_shared_file(&self) -> bool {
        self.advance && matches!(self.source, Source::File { .. })
    }

    /// Leaves standard input that is a regular file at `at` bytes into the input (from where
    /// its offset was when pctenc started), instead of at its end: for a command that stops
    /// reading early, as `grep -m` leaves it just after the last line it read.
    pub fn leave_at(&mut self, at: u64) {
        if self.advance
            && let Source::File { file, start, .. } = &mut self.source
        {
            use std::io::Seek;
            let _ = file.seek(io::SeekFrom::Start(*start + at));
            self.mapped.set(false);
        }
    }
}

impl Drop for Input {
    fn drop(&mut self) {
        // Reads move the offset themselves; a mapping does not.
        if self.advance
            && self.mapped.get()
            && let Source::File { file, end, .. } = &self.source
        {
            use std::io::Seek;
            let mut file = file;
            let _ = file.seek(io::SeekFrom::Start(*end));
        }
    }
}

/// Maps `len` bytes of `file` (named `name`) from `offset`.
fn map(name: &str, file: &File, offset: u64, len: u64) -> Result<Mmap, Failure> {
    let failure = |error| Failure::Input { what: name.to_string(), error };
    let len = usize::try_from(len).map_err(|_| failure(io::ErrorKind::FileTooLarge.into()))?;
    // SAFETY: the map is only read. If another process truncates the file while pctenc reads
    // it, reading the lost pages raises SIGBUS (as for every tool that maps its input, such
    // as ripgrep); a file changed in place gives output that mixes old and new contents. The
    // CLI's help says so.
    let map = unsafe { MmapOptions::new().offset(offset).len(len).map(file) }.map_err(failure)?;
    #[cfg(unix)]
    let _ = map.advise(memmap2::Advice::Sequential);
    populate(&map);
    Ok(map)
}

/// Enters the pages of `map` into the page table now, a megabyte per task on every thread
/// of the pool (at once on this thread when it is on no pool: a small input), instead of page fault by page fault as the encoder reaches them: the threads
/// of one process fault into one page table and slow each other down, while populating in
/// large parts does not (measured: `pctenc encode -j 2` of a 512 MiB file 1.5x faster than
/// `-j 1` without this, 1.7x with it; `-j 1` the same either way). Called while the pool
/// works on the segment before, so the pages are ready when their turn comes. (Linux 5.14 and
/// later; elsewhere the pages are faulted in as they are read.)
fn populate(map: &Mmap) {
    #[cfg(target_os = "linux")]
    {
        use rayon::prelude::*;
        const PART: usize = 1 << 20;
        if rayon::current_thread_index().is_none() {
            let _ = map.advise(memmap2::Advice::PopulateRead);
            return;
        }
        (0..map.len().div_ceil(PART)).into_par_iter().for_each(|k| {
            let at = k * PART;
            let _ = map.advise_range(memmap2::Advice::PopulateRead, at, PART.min(map.len() - at));
        });
    }
    #[cfg(not(target_os = "linux"))]
    let _ = map;
}

/// The segments of a regular file, in order; see [`Input::segments`].
pub struct Segments<'a> {
    name: &'a str,
    file: &'a File,
    end: u64,
    at: u64,
}

impl Segments<'_> {
    /// The bytes of the segments not mapped yet.
    pub fn remaining(&self) -> u64 {
        self.end.saturating_sub(self.at)
    }
}

impl Iterator for Segments<'_> {
    type Item = Result<Mmap, Failure>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.at >= self.end {
            return None;
        }
        let n = (self.end - self.at).min(SEGMENT as u64);
        let map = map(self.name, self.file, self.at, n);
        self.at += n;
        Some(map)
    }
}

/// A piece of input; see [`Input::next`].
pub struct Piece<'a> {
    pub bytes: &'a [u8],
    pub short: bool,
}

/// A regular file is mapped; other files are read as streams, and so are files that say
/// they are regular but report no size or cannot be mapped (`/proc` and `/sys` files, whose
/// contents are made as they are read). The input starts at offset `start` of the file,
/// where its descriptor's offset is; a file with nothing after it is read too (its end).
fn source(file: File, start: u64) -> io::Result<Source> {
    let meta = file.metadata()?;
    // SAFETY: as in `map`; this map of the first byte only tells whether the file can be
    // mapped, and is dropped at once.
    let mappable =
        meta.is_file() && meta.len() > start && unsafe { MmapOptions::new().len(1).map(&file) }.is_ok();
    if mappable {
        Ok(Source::File { file, start, end: meta.len() })
    } else {
        Ok(Source::Stream(Box::new(file)))
    }
}

/// Runs `work` on each segment of a mapped input in order, on the current rayon pool: the
/// next segment is mapped (and populated), and the one before unmapped, while one is worked
/// on. Off any pool (an input too small to share among threads), one after the other on
/// this thread. `done(n)` is told the size of each segment finished. The outer error is the input's
/// (mapping), the inner one `work`'s.
pub fn each_segment<F, E>(
    mut segments: Segments<'_>,
    mut work: F,
    done: impl Fn(usize),
) -> Result<Result<(), E>, Failure>
where
    F: FnMut(&[u8]) -> Result<(), E> + Send,
    E: Send,
{
    if rayon::current_thread_index().is_none() {
        for segment in segments {
            let segment = segment?;
            if let Err(e) = work(&segment) {
                return Ok(Err(e));
            }
            done(segment.len());
        }
        return Ok(Ok(()));
    }
    let (mut next, mut last) = (segments.next().transpose()?, None);
    while let Some(segment) = next {
        let (mapped, worked) = rayon::join(
            || {
                drop(last.take());
                segments.next().transpose()
            },
            || work(&segment),
        );
        if worked.is_err() {
            return Ok(worked);
        }
        done(segment.len());
        next = mapped?;
        last = Some(segment);
    }
    Ok(Ok(()))
}

/// Standard input as a `File` (a descriptor sharing its offset), when it is a regular file,
/// and that offset.
#[cfg(unix)]
fn stdin_file() -> Option<(File, u64)> {
    use std::io::Seek;
    use std::os::fd::AsFd;
    let fd = io::stdin().as_fd().try_clone_to_owned().ok()?;
    let mut file = File::from(fd);
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let at = file.stream_position().ok()?;
    Some((file, at))
}

#[cfg(not(unix))]
fn stdin_file() -> Option<(File, u64)> {
    None
}
