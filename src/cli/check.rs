//! `pctenc check`: is every line already a correct encoding for a set?

use std::path::PathBuf;

use pctenc::{Encoder, ValidationError};

use super::input::{CHUNK, Input};
use super::{Failure, report};

/// What `check` reports, and when it stops.
pub struct Options {
    /// Stop after this many bad lines (`--max-errors`; 1 with `--quiet`).
    pub limit: Option<u64>,
    /// Report no bad line, only the exit status (`--quiet`).
    pub quiet: bool,
}

/// Validates every line of every input and reports each invalid line (its first problem) on
/// stderr, one write per line. An input that cannot be read is reported and the others are
/// still checked. Fails with [`Failure::Unreadable`] if an input could not be read, else with
/// [`Failure::Invalid`] if a line was invalid.
pub fn run(encoder: &Encoder, files: &[PathBuf], options: Options) -> Result<(), Failure> {
    let mut unreadable = false;
    let mut buf = vec![0u8; CHUNK];
    let mut lines = Lines::new(encoder, options);
    'inputs: for path in Input::all(files) {
        let mut input = match Input::open(&path) {
            Ok(input) => input,
            Err(failure) => {
                report(&failure);
                unreadable = true;
                continue;
            }
        };
        lines.start(input.name.clone());
        loop {
            let n = match input.read(&mut buf) {
                Ok(n) => n,
                Err(failure) => {
                    report(&failure);
                    unreadable = true;
                    continue 'inputs;
                }
            };
            if n == 0 {
                break;
            }
            lines.feed(&buf[..n], false);
            if lines.done() {
                break 'inputs;
            }
        }
        lines.feed(&[], true);
        if lines.done() {
            break;
        }
    }
    if unreadable {
        Err(Failure::Unreadable)
    } else if lines.bad > 0 {
        Err(Failure::Invalid)
    } else {
        Ok(())
    }
}

/// The state of one input: the current line may span chunks, so it is validated piece by
/// piece, each piece ending on a token boundary; at most three bytes wait for the next chunk.
struct Lines<'a> {
    encoder: &'a Encoder,
    options: Options,
    /// Bad lines found so far, in every input.
    bad: u64,
    /// The name of the input, for messages.
    name: String,
    /// Bytes of the current line not validated yet.
    pending: Vec<u8>,
    /// Input offset of `pending[0]`.
    offset: usize,
    /// Offset where the current line starts, and its number (from 1).
    line_start: usize,
    line: u64,
    /// The current line already has an error (reported).
    failed: bool,
}

impl<'a> Lines<'a> {
    fn new(encoder: &'a Encoder, options: Options) -> Lines<'a> {
        Lines {
            encoder,
            options,
            bad: 0,
            name: String::new(),
            pending: Vec::new(),
            offset: 0,
            line_start: 0,
            line: 1,
            failed: false,
        }
    }

    /// Starts the next input, named `name`.
    fn start(&mut self, name: String) {
        self.name = name;
        self.pending.clear();
        (self.offset, self.line_start, self.line, self.failed) = (0, 0, 1, false);
    }

    /// Whether as many bad lines as asked for have been found: nothing more to do.
    fn done(&self) -> bool {
        self.options.limit.is_some_and(|limit| self.bad >= limit)
    }

    fn feed(&mut self, chunk: &[u8], last: bool) {
        let mut data = std::mem::take(&mut self.pending);
        data.extend_from_slice(chunk);
        let base = self.offset;
        let mut start = 0;
        while let Some(nl) = memchr::memchr(b'\n', &data[start..]) {
            let end = start + nl;
            let content = if end > start && data[end - 1] == b'\r' { end - 1 } else { end };
            self.piece(&data[start..content], base + start);
            self.line += 1;
            self.line_start = base + end + 1;
            self.failed = false;
            start = end + 1;
        }
        // The unfinished last line: validate up to a point no escape, UTF-8 sequence or
        // `\r\n` spans, and keep the rest.
        let rest = &data[start..];
        let cut = if last { rest.len() } else { safe_cut(rest, self.encoder.set().is_iri()) };
        self.piece(&rest[..cut], base + start);
        self.pending = rest[cut..].to_vec();
        self.offset = base + start + cut;
    }

    /// Validates part of the current line, which starts at input offset `at`.
    fn piece(&mut self, bytes: &[u8], at: usize) {
        if self.failed || bytes.is_empty() || self.done() {
            return;
        }
        if let Err(e) = self.encoder.validate(bytes) {
            self.report(at, e);
        }
    }

    fn report(&mut self, at: usize, e: ValidationError) {
        let offset = at + e.offset();
        let column = offset - self.line_start + 1;
        self.failed = true;
        self.bad += 1;
        if self.options.quiet {
            return;
        }
        let why = e.to_string();
        let why = why.split_once(": ").map_or(why.as_str(), |(_, w)| w);
        report(format_args!("{}:{}:{}: offset {offset}: {why}", self.name, self.line, column));
    }
}

/// The longest prefix of `rest` that more input cannot change the verdict on: not ending
/// inside an escape (`%`, `%4`), an unfinished UTF-8 sequence (IRI sets), or a `\r` that may
/// start a `\r\n`.
fn safe_cut(rest: &[u8], iri: bool) -> usize {
    let mut cut = rest.len();
    if cut >= 2 && rest[cut - 2] == b'%' {
        cut -= 2;
    } else if cut >= 1 && rest[cut - 1] == b'%' {
        cut -= 1;
    }
    if cut > 0 && rest[cut - 1] == b'\r' {
        cut -= 1;
    }
    if iri
        && let Err(e) = std::str::from_utf8(&rest[..cut])
        && e.error_len().is_none()
    {
        cut = e.valid_up_to();
    }
    cut
}
