//! The lines of the inputs, given a piece at a time to what `--charset` and `--explain` do
//! with them, each line's `\n` or `\r\n` passed on as is.

use std::path::{Path, PathBuf};

use crate::cli::input::{CHUNK, Input};
use crate::cli::output::Output;
use crate::cli::progress::Progress;
use crate::cli::{Failure, Skipped};

/// The line a piece belongs to, for messages.
pub struct Line<'a> {
    /// The input's name.
    pub name: &'a str,
    /// Its number, from 1.
    pub number: u64,
    /// The input offset where it starts.
    pub offset: u64,
}

/// What is done with the lines of the inputs, a piece at a time.
pub(super) trait Lines {
    /// The next bytes of the current line (never its line ending).
    fn piece(&mut self, line: &Line<'_>, bytes: &[u8], out: &mut Output) -> Result<(), Failure>;
    /// The current line has ended, with `ending` (`\n`, `\r\n`, or nothing for a last line
    /// without a line break).
    fn end(&mut self, line: &Line<'_>, ending: &[u8], out: &mut Output) -> Result<(), Failure>;
}

/// Gives every line of every input, in order, to `lines`, in the pieces the reads cut it
/// into: a line of any length costs no more memory than a read. A `\r` that ends a read is
/// held back until the next read tells whether it starts a `\r\n`. An empty last line
/// without a line break is no line. Output is flushed after a short read, so that
/// `tail -f log | pctenc ...` shows each line as it comes.
pub(super) fn each_line(
    files: &[PathBuf],
    out: &mut Output,
    progress: &Progress,
    lines: &mut impl Lines,
) -> Result<(), Failure> {
    let mut buf = vec![0u8; CHUNK];
    let mut skipped = Skipped::default();
    for path in Input::all(files) {
        let result = lines_of(&path, out, progress, &mut buf, lines);
        skipped.input(result, out)?;
    }
    skipped.end()
}

/// [`each_line`] for the input at `path`.
fn lines_of(
    path: &Path,
    out: &mut Output,
    progress: &Progress,
    buf: &mut [u8],
    lines: &mut impl Lines,
) -> Result<(), Failure> {
    let mut input = Input::open(path)?;
    let name = input.name.clone();
    let mut line = Line { name: &name, number: 1, offset: 0 };
    // Input bytes of the current line so far (a held `\r` too), and whether a `\r`
    // ended the last read.
    let (mut len, mut cr) = (0u64, false);
    let next = |line: &mut Line<'_>, len: &mut u64| {
        line.offset += *len;
        line.number += 1;
        *len = 0;
    };
    loop {
        let piece = input.next(buf)?;
        if piece.bytes.is_empty() {
            break;
        }
        let mut rest = piece.bytes;
        if std::mem::take(&mut cr) {
            if rest[0] == b'\n' {
                lines.end(&line, b"\r\n", out)?;
                len += 1;
                next(&mut line, &mut len);
                rest = &rest[1..];
            } else {
                lines.piece(&line, b"\r", out)?;
            }
        }
        while let Some(nl) = memchr::memchr(b'\n', rest) {
            let (body, ending): (&[u8], &[u8]) = match rest[..nl].strip_suffix(b"\r") {
                Some(body) => (body, b"\r\n"),
                None => (&rest[..nl], b"\n"),
            };
            if !body.is_empty() {
                lines.piece(&line, body, out)?;
            }
            lines.end(&line, ending, out)?;
            len += nl as u64 + 1;
            next(&mut line, &mut len);
            rest = &rest[nl + 1..];
        }
        let body = match rest.strip_suffix(b"\r") {
            Some(body) => {
                cr = true;
                body
            }
            None => rest,
        };
        if !body.is_empty() {
            lines.piece(&line, body, out)?;
        }
        len += rest.len() as u64;
        progress.advance(piece.bytes.len());
        if piece.short {
            out.flush()?;
        }
    }
    if cr {
        lines.piece(&line, b"\r", out)?;
    }
    if len > 0 {
        lines.end(&line, b"", out)?;
    }
    Ok(())
}

/// Lines of at most this many bytes are converted whole, as they come: a line in pieces
/// costs more calls than one.
pub const SHORT: usize = 64 << 10;

/// A line converted whole ([`Short`] gives it so when it is short).
pub(super) trait Whole {
    fn whole(
        &mut self,
        line: &Line<'_>,
        bytes: &[u8],
        ending: &[u8],
        out: &mut Output,
    ) -> Result<(), Failure>;
}

/// Gives each line of at most [`SHORT`] bytes whole to `lines` ([`Whole`]), a longer one in
/// pieces ([`Lines`]), which give the same output and errors: most lines are short, and
/// whole they cost one conversion each, where pieces cost several calls; no line costs
/// more memory than `SHORT` and a read.
pub(super) struct Short<L> {
    lines: L,
    /// The current line so far, while it is short.
    line: Vec<u8>,
    /// The current line has been given in pieces.
    long: bool,
}

impl<L> Short<L> {
    pub(super) fn new(lines: L) -> Short<L> {
        Short { lines, line: Vec::new(), long: false }
    }
}

impl<L: Lines + Whole> Lines for Short<L> {
    fn piece(&mut self, line: &Line<'_>, bytes: &[u8], out: &mut Output) -> Result<(), Failure> {
        if !self.long && self.line.len() + bytes.len() <= SHORT {
            self.line.extend_from_slice(bytes);
            return Ok(());
        }
        if !self.long {
            self.long = true;
            if !self.line.is_empty() {
                let held = std::mem::take(&mut self.line);
                let fed = self.lines.piece(line, &held, out);
                self.line = held;
                self.line.clear();
                fed?;
            }
        }
        self.lines.piece(line, bytes, out)
    }

    fn end(&mut self, line: &Line<'_>, ending: &[u8], out: &mut Output) -> Result<(), Failure> {
        if std::mem::take(&mut self.long) {
            return self.lines.end(line, ending, out);
        }
        let result = self.lines.whole(line, &self.line, ending, out);
        self.line.clear();
        result
    }
}

/// The failure for bad data at byte `at` of line `number`, which starts at input offset
/// `offset`.
pub(super) fn bad_line(
    input: &str,
    number: u64,
    offset: u64,
    at: usize,
    why: impl std::fmt::Display,
) -> Failure {
    Failure::Data {
        input: input.to_string(),
        line: number,
        column: at as u64 + 1,
        message: format!("offset {}: {why}", offset + at as u64),
    }
}
