//! `pctenc check`: is every line already a correct encoding for a set?

use std::path::PathBuf;

use pctenc::charset::Charset;
use pctenc::{Decoder, Encoder, Utf8Mode, ValidationError};

use super::charset::{DecodeIn, InError, SHORT};
use super::input::{CHUNK, Input};
use super::{Failure, report_or_fail, stderr_closed};

/// What `check` reports, and when it stops.
pub struct Options {
    /// Stop reading an input after this many bad lines in it (`--max-errors`, as grep's
    /// `-m`; 1 with `--quiet`).
    pub limit: Option<u64>,
    /// Report no bad line, only the exit status, and read nothing more after the first bad
    /// line (`--quiet`, as `grep -q`).
    pub quiet: bool,
    /// Each line's escapes must also decode to valid text in this encoding (`--charset`).
    pub charset: Option<Charset>,
}

/// Validates every line of every input and reports each invalid line (its first problem) on
/// stderr, one write per line; with a limit, stops reading an input after that many bad
/// lines in it. An input that cannot be read is reported and the others are still checked.
/// Fails with [`Failure::Unreadable`] if an input could not be read, else with
/// [`Failure::Invalid`] if a line was invalid. With `quiet`, stops at the first bad line,
/// opens no later input, and fails with [`Failure::Invalid`] (as `grep -q` exits 0 on a match
/// even after an error): the status does not depend on the order of the inputs.
///
/// Standard input that is a regular file, when reading it stops early, is left just after
/// the bad line that reached the limit, as grep leaves it; otherwise at its end.
pub fn run(encoder: &Encoder, files: &[PathBuf], options: Options) -> Result<(), Failure> {
    let (mut unreadable, mut bad) = (false, 0u64);
    let mut buf = vec![0u8; CHUNK];
    for path in Input::all(files) {
        let mut input = match Input::open(&path) {
            Ok(input) => input,
            Err(failure) => {
                reported(&failure)?;
                unreadable = true;
                continue;
            }
        };
        let mut lines = Lines::new(encoder, &options, input.name.clone());
        let checked = check(&mut input, &mut lines, &mut buf);
        bad += lines.bad;
        if lines.stderr_closed {
            return Err(stderr_closed());
        }
        if let Err(failure) = checked {
            reported(&failure)?;
            unreadable = true;
        }
        if options.quiet && bad > 0 {
            return Err(Failure::Invalid);
        }
    }
    if unreadable {
        Err(Failure::Unreadable)
    } else if bad > 0 {
        Err(Failure::Invalid)
    } else {
        Ok(())
    }
}

/// Reports `failure`; a standard error that is a closed pipe ends the run, as a closed
/// standard output ends the other commands: nobody reads the reports any more.
fn reported(failure: &Failure) -> Result<(), Failure> {
    match report_or_fail(failure) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(stderr_closed()),
        _ => Ok(()),
    }
}

/// Checks one input until its end, the limit, or a closed standard error.
fn check(input: &mut Input, lines: &mut Lines<'_>, buf: &mut [u8]) -> Result<(), Failure> {
    loop {
        let n = input.read(buf)?;
        match lines.feed(&buf[..n], n == 0) {
            Fed::More if n == 0 => return Ok(()),
            Fed::More => {}
            Fed::Stopped { .. } if lines.stderr_closed => return Ok(()),
            Fed::Stopped { at, line_ended } => {
                if input.is_shared_file() {
                    let end = if line_ended { at } else { line_end(input, buf, at)? };
                    input.leave_at(end);
                }
                return Ok(());
            }
        }
    }
}

/// The input offset just after the line that goes on at offset `at` (where reading stopped):
/// after its `\n`, or the end of the input.
fn line_end(input: &mut Input, buf: &mut [u8], mut at: u64) -> Result<u64, Failure> {
    loop {
        let n = input.read(buf)?;
        if n == 0 {
            return Ok(at);
        }
        if let Some(nl) = memchr::memchr(b'\n', &buf[..n]) {
            return Ok(at + nl as u64 + 1);
        }
        at += n as u64;
    }
}

/// What feeding a chunk came to.
enum Fed {
    /// Go on with the next chunk.
    More,
    /// The limit has been reached: stop reading. `at` is the input offset just after the
    /// line that reached it if `line_ended`; else that line goes on after `at`, the end of
    /// what was fed.
    Stopped { at: u64, line_ended: bool },
}

/// The state of one input: the current line may span chunks, so it is validated piece by
/// piece, each piece ending on a token boundary; at most three bytes wait for the next chunk.
/// Offsets are `u64`, as inputs may be larger than the address space.
struct Lines<'a> {
    encoder: &'a Encoder,
    options: &'a Options,
    /// Bad lines found so far in this input.
    bad: u64,
    /// The name of the input, for messages.
    name: String,
    /// Bytes of the current line not validated yet.
    pending: Vec<u8>,
    /// Input offset of `pending[0]`.
    offset: u64,
    /// Offset where the current line starts, and its number (from 1).
    line_start: u64,
    line: u64,
    /// The current line already has an error (reported).
    failed: bool,
    /// With `--charset`: the current line's escapes decoded and converted, whole while the
    /// line is short (`short`), in pieces once it is longer than [`SHORT`] bytes (`long`).
    text: Option<(Decoder, DecodeIn)>,
    short: Vec<u8>,
    long: bool,
    /// Where in the current line its text stopped being valid in the charset: reported at
    /// the end of the line if the set finds nothing wrong with it before.
    bad_text: Option<u64>,
    /// Output of `text`, dropped.
    dropped: Vec<u8>,
    /// A report found standard error a closed pipe: stop reading.
    stderr_closed: bool,
}

impl<'a> Lines<'a> {
    fn new(encoder: &'a Encoder, options: &'a Options, name: String) -> Lines<'a> {
        Lines {
            encoder,
            options,
            bad: 0,
            name,
            pending: Vec::new(),
            offset: 0,
            line_start: 0,
            line: 1,
            failed: false,
            // The line is valid for the set before it is decoded, so its escapes decode:
            // only the text can be bad.
            text: options.charset.map(|charset| {
                let decoder =
                    Decoder::new().plus_as_space(encoder.set().space_as_plus()).utf8(Utf8Mode::Strict);
                (decoder, DecodeIn::new(decoder, charset))
            }),
            short: Vec::new(),
            long: false,
            bad_text: None,
            dropped: Vec::new(),
            stderr_closed: false,
        }
    }

    /// Whether as many bad lines as asked for have been found in this input, or nobody reads
    /// the reports any more.
    fn done(&self) -> bool {
        self.stderr_closed || self.options.limit.is_some_and(|limit| self.bad >= limit)
    }

    /// Validates the next chunk of the input (`last`: the input ends after it).
    fn feed(&mut self, chunk: &[u8], last: bool) -> Fed {
        let mut data = std::mem::take(&mut self.pending);
        data.extend_from_slice(chunk);
        let base = self.offset;
        let at = |i: usize| base + i as u64;
        let mut start = 0;
        while let Some(nl) = memchr::memchr(b'\n', &data[start..]) {
            let end = start + nl;
            let content = if end > start && data[end - 1] == b'\r' { end - 1 } else { end };
            self.piece(&data[start..content], at(start));
            self.end_line();
            start = end + 1;
            if self.done() {
                return Fed::Stopped { at: at(start), line_ended: true };
            }
            self.line += 1;
            self.line_start = at(start);
            self.failed = false;
        }
        // The unfinished last line: validate up to a point no escape, UTF-8 sequence or
        // `\r\n` spans, and keep the rest.
        let rest = &data[start..];
        let cut = if last { rest.len() } else { safe_cut(rest, self.encoder.set().is_iri()) };
        self.piece(&rest[..cut], at(start));
        if last {
            self.end_line();
        }
        if self.done() {
            return Fed::Stopped { at: at(data.len()), line_ended: last };
        }
        self.pending = rest[cut..].to_vec();
        self.offset = at(start + cut);
        Fed::More
    }

    /// Validates part of the current line, which starts at input offset `at`.
    fn piece(&mut self, bytes: &[u8], at: u64) {
        if self.failed || bytes.is_empty() {
            return;
        }
        match self.encoder.validate(bytes) {
            Err(e) => self.report(at, e),
            Ok(()) if self.bad_text.is_some() => {}
            Ok(()) => {
                let Some((_, text)) = &mut self.text else { return };
                if !self.long && self.short.len() + bytes.len() <= SHORT {
                    self.short.extend_from_slice(bytes);
                    return;
                }
                let mut fed = Ok(());
                if !self.long {
                    self.long = true;
                    fed = text.feed(&self.short, &mut self.dropped);
                    self.short.clear();
                }
                if let Err(e) = fed.and_then(|()| text.feed(bytes, &mut self.dropped)) {
                    self.bad_text = Some(self.line_start + bad_text_offset(e));
                }
                self.dropped.clear();
            }
        }
    }

    /// The current line has been validated to its end: with `--charset`, its escapes
    /// must decode to text in that encoding.
    fn end_line(&mut self) {
        let (Some((decoder, text)), Some(charset)) = (&mut self.text, self.options.charset) else { return };
        let ended = if std::mem::take(&mut self.long) {
            text.finish(&mut self.dropped).map_err(bad_text_offset)
        } else {
            decoder.decode_in(&self.short, charset).map(drop).map_err(|e| e.offset() as u64)
        };
        self.short.clear();
        self.dropped.clear();
        let bad = std::mem::take(&mut self.bad_text);
        if self.failed {
            return;
        }
        let bad = bad.or_else(|| ended.err().map(|at| self.line_start + at));
        if let Some(offset) = bad {
            let why = format!("decodes to bytes that are not valid {charset}");
            self.bad_at(offset, &why);
        }
    }

    fn report(&mut self, at: u64, e: ValidationError) {
        let why = e.to_string();
        let why = why.split_once(": ").map_or(why.as_str(), |(_, w)| w);
        self.bad_at(at + e.offset() as u64, why);
    }

    fn bad_at(&mut self, offset: u64, why: &str) {
        let column = offset - self.line_start + 1;
        self.failed = true;
        self.bad += 1;
        if self.options.quiet {
            return;
        }
        let written =
            report_or_fail(format_args!("{}:{}:{}: offset {offset}: {why}", self.name, self.line, column));
        if written.is_err_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe) {
            self.stderr_closed = true;
        }
    }
}

/// The offset in its line where a line valid for the set stops decoding to valid text.
fn bad_text_offset(e: InError) -> u64 {
    match e {
        InError::Decode(e) => e.offset() as u64,
        InError::Charset(at) => at as u64,
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
