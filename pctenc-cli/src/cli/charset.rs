//! `--charset` for `encode` and `decode`, `decode --explain`, and `pctenc charsets`: a line
//! at a time, each line's `\n` or `\r\n` copied as is. A line is read in pieces, never
//! whole, so that memory stays bounded whatever its length.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use encoding_rs::DecoderResult;
use pctenc::charset::Charset;
use pctenc::{DecodeError, Decoder, Encoder, StreamDecoder, Utf8Mode};

use super::input::{CHUNK, Input};
use super::output::Output;
use super::progress::Progress;
use super::{Failure, Skipped};

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
trait Lines {
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
fn each_line(
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
trait Whole {
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
struct Short<L> {
    lines: L,
    /// The current line so far, while it is short.
    line: Vec<u8>,
    /// The current line has been given in pieces.
    long: bool,
}

impl<L> Short<L> {
    fn new(lines: L) -> Short<L> {
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
fn bad_line(input: &str, number: u64, offset: u64, at: usize, why: impl std::fmt::Display) -> Failure {
    Failure::Data {
        input: input.to_string(),
        line: number,
        column: at as u64 + 1,
        message: format!("offset {}: {why}", offset + at as u64),
    }
}

/// `pctenc encode --charset`: each line converted to `charset`, then percent-encoded, as
/// [`Encoder::encode_string_in`] does, a piece at a time.
pub fn encode(
    encoder: &Encoder,
    charset: Charset,
    files: &[PathBuf],
    out: &mut Output,
    progress: &Progress,
) -> Result<(), Failure> {
    let mut lines = Short::new(EncodeIn::new(*encoder, charset));
    each_line(files, out, progress, &mut lines)
}

/// `encode --charset`, a line at a time, in pieces. Each piece is converted and encoded as
/// far as it is UTF-8 and ends outside a `%HH` escape (the rest waits for the next piece):
/// [`Encoder::encode_string_in`] of an ASCII-compatible encoding (or UTF-8) gives the same
/// text whether the line is given whole or in such pieces, as it encodes each character on
/// its own but for the escapes that `keep_escapes` copies. ISO-2022-JP, whose encoder has a
/// state, carries it from piece to piece.
struct EncodeIn {
    encoder: Encoder,
    charset: Charset,
    /// The encoder of a stateful encoding (ISO-2022-JP), for the current line.
    stateful: Option<encoding_rs::Encoder>,
    /// The end of the line so far, not encoded yet: an unfinished UTF-8 sequence, or a `%`
    /// and the hex digit after it.
    held: Vec<u8>,
    /// Bytes of the line before `held`.
    done: usize,
    encoded: String,
}

impl EncodeIn {
    fn new(encoder: Encoder, charset: Charset) -> EncodeIn {
        let mut lines =
            EncodeIn { encoder, charset, stateful: None, held: Vec::new(), done: 0, encoded: String::new() };
        lines.reset();
        lines
    }

    fn reset(&mut self) {
        let encoding = self.charset.output().encoding();
        self.stateful = (!encoding.is_ascii_compatible()).then(|| encoding.new_encoder());
        self.held.clear();
        self.done = 0;
    }

    /// Encodes `text`, the next valid piece of the line (`last`: its end), to `out`.
    fn encode(&mut self, text: &str, last: bool, out: &mut Output) -> Result<(), Failure> {
        self.encoded.clear();
        match &mut self.stateful {
            Some(converter) => {
                pctenc::__cli::encode_stateful_part(&self.encoder, converter, text, last, &mut self.encoded)
            }
            None => self.encoder.encode_string_in(text, self.charset, &mut self.encoded),
        }
        out.write_all(self.encoded.as_bytes())
    }

    /// Encodes what of `bytes` (the held bytes, then the next piece of the line) can be, and
    /// holds back the rest; `last`: the line ends with them.
    fn feed(&mut self, line: &Line<'_>, bytes: &[u8], last: bool, out: &mut Output) -> Result<(), Failure> {
        let (text, valid) = match std::str::from_utf8(bytes) {
            Ok(text) => (text, bytes.len()),
            // (Checked again only up to a character cut by the end of the piece.)
            Err(e) if e.error_len().is_none() && !last => {
                (std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default(), e.valid_up_to())
            }
            Err(e) => {
                let at = self.done + e.valid_up_to();
                let why = "not valid UTF-8 (--charset converts UTF-8 text)";
                return Err(bad_line(line.name, line.number, line.offset, at, why));
            }
        };
        let mut cut = valid;
        if !last {
            // A `%` or `%H` at the end may start an escape that the next piece finishes.
            if cut >= 2 && bytes[cut - 2] == b'%' {
                cut -= 2;
            } else if cut >= 1 && bytes[cut - 1] == b'%' {
                cut -= 1;
            }
        }
        // The cut is at a `%` or the end of a character: a character boundary.
        let text = text.get(..cut).unwrap_or_default();
        if !text.is_empty() || last && self.stateful.is_some() {
            self.encode(text, last, out)?;
        }
        self.done += cut;
        self.held = bytes[cut..].to_vec();
        Ok(())
    }
}

impl Whole for EncodeIn {
    fn whole(
        &mut self,
        line: &Line<'_>,
        bytes: &[u8],
        ending: &[u8],
        out: &mut Output,
    ) -> Result<(), Failure> {
        let text = std::str::from_utf8(bytes).map_err(|e| {
            let why = "not valid UTF-8 (--charset converts UTF-8 text)";
            bad_line(line.name, line.number, line.offset, e.valid_up_to(), why)
        })?;
        self.encoded.clear();
        self.encoder.encode_string_in(text, self.charset, &mut self.encoded);
        out.write_all(self.encoded.as_bytes())?;
        out.write_all(ending)
    }
}

impl Lines for EncodeIn {
    fn piece(&mut self, line: &Line<'_>, bytes: &[u8], out: &mut Output) -> Result<(), Failure> {
        if self.held.is_empty() {
            return self.feed(line, bytes, false, out);
        }
        // The held bytes (at most five: `%` and three bytes of a character) settled with the
        // first bytes of the piece, in a copy; then the rest of the piece where it is.
        let take = bytes.len().min(8);
        let mut joined = std::mem::take(&mut self.held);
        joined.extend_from_slice(&bytes[..take]);
        self.feed(line, &joined, false, out)?;
        if take == bytes.len() {
            return Ok(());
        }
        // What is held now is the end of `joined`, so of `bytes[..take]`.
        let from = take - self.held.len();
        self.held.clear();
        self.feed(line, &bytes[from..], false, out)
    }

    fn end(&mut self, line: &Line<'_>, ending: &[u8], out: &mut Output) -> Result<(), Failure> {
        let held = std::mem::take(&mut self.held);
        self.feed(line, &held, true, out)?;
        out.write_all(ending)?;
        self.reset();
        Ok(())
    }
}

/// `pctenc decode --charset`: each line's escapes decoded and the bytes converted from
/// `charset` by the decoder's UTF-8 mode, as [`Decoder::decode_in`] does, a piece at a time.
pub fn decode(
    decoder: Decoder,
    charset: Charset,
    files: &[PathBuf],
    out: &mut Output,
    progress: &Progress,
) -> Result<(), Failure> {
    let lines =
        DecodeLines { decoder, stream: DecodeIn::new(decoder, charset), charset, decoded: Vec::new() };
    each_line(files, out, progress, &mut Short::new(lines))
}

struct DecodeLines {
    decoder: Decoder,
    stream: DecodeIn,
    charset: Charset,
    decoded: Vec<u8>,
}

impl DecodeLines {
    fn failure(&self, line: &Line<'_>, e: InError) -> Failure {
        match e {
            InError::Decode(e) => Failure::Decode {
                input: line.name.to_string(),
                line: line.number,
                column: e.offset() as u64 + 1,
                error: e.shifted(line.offset as usize),
            },
            InError::Charset(at) => {
                bad_line(line.name, line.number, line.offset, at, format_args!("not valid {}", self.charset))
            }
        }
    }
}

impl Whole for DecodeLines {
    fn whole(
        &mut self,
        line: &Line<'_>,
        bytes: &[u8],
        ending: &[u8],
        out: &mut Output,
    ) -> Result<(), Failure> {
        let decoded = self.decoder.decode_in(bytes, self.charset).map_err(|e| {
            let e = match e.kind() {
                pctenc::DecodeErrorKind::InvalidCharset => InError::Charset(e.offset()),
                _ => InError::Decode(e),
            };
            self.failure(line, e)
        })?;
        out.write_all(&decoded)?;
        out.write_all(ending)
    }
}

impl Lines for DecodeLines {
    fn piece(&mut self, line: &Line<'_>, bytes: &[u8], out: &mut Output) -> Result<(), Failure> {
        self.decoded.clear();
        if let Err(e) = self.stream.feed(bytes, &mut self.decoded) {
            return Err(self.failure(line, e));
        }
        out.write_all(&self.decoded)
    }

    fn end(&mut self, line: &Line<'_>, ending: &[u8], out: &mut Output) -> Result<(), Failure> {
        self.decoded.clear();
        if let Err(e) = self.stream.finish(&mut self.decoded) {
            return Err(self.failure(line, e));
        }
        out.write_all(&self.decoded)?;
        out.write_all(ending)
    }
}

/// Why a line does not decode: the decoder's error, or a malformed sequence of the charset
/// that starts at this offset of the line.
#[derive(Clone, Copy, Debug)]
pub enum InError {
    Decode(DecodeError),
    Charset(usize),
}

/// How [`DecodeIn`] converts the decoded bytes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Convert {
    /// Not at all: UTF-8, or `Utf8Mode::Bytes` (the stream's decoder does it all).
    No,
    Strict,
    Lossy,
}

/// [`Decoder::decode_in`] of a line given in pieces: the same output and the same error,
/// with memory bounded whatever the line's length. The escapes are decoded by a
/// [`StreamDecoder`], the bytes converted by an `encoding_rs` decoder, which both carry
/// what they need from piece to piece. The offset of a malformed sequence is found from the
/// decoded bytes back to the input: with `--charset` (no `%u`, no kept escapes) each decoded
/// byte is one input byte or one `%HH` escape.
pub struct DecodeIn {
    decoder: Decoder,
    encoding: &'static encoding_rs::Encoding,
    convert: Convert,
    stream: StreamDecoder,
    converter: encoding_rs::Decoder,
    decoded: Vec<u8>,
    /// Input bytes of the line fed to the stream.
    fed: usize,
    /// Input bytes of the line decoded (the stream holds back the others), and the decoded
    /// bytes they gave.
    done: usize,
    total: usize,
    /// Decoded bytes given to the converter.
    converted: usize,
    /// The last input bytes fed, from offset `recent_at` of the line to `fed`: enough before
    /// `done` to place a malformed sequence the converter holds the start of.
    recent: Vec<u8>,
    recent_at: usize,
    /// The error of the line: it is over, until `finish`.
    failed: Option<InError>,
}

/// Input bytes kept before `done`: a malformed sequence starts at most a few decoded bytes
/// before the end of what the converter was given (8 is more than any encoding holds), each
/// at most 3 input bytes.
const RECENT: usize = 64;

impl DecodeIn {
    pub fn new(decoder: Decoder, charset: Charset) -> DecodeIn {
        let encoding = charset.encoding();
        let convert = match decoder.utf8_value() {
            _ if encoding == encoding_rs::UTF_8 => Convert::No,
            Utf8Mode::Bytes => Convert::No,
            Utf8Mode::Strict => Convert::Strict,
            Utf8Mode::Lossy => Convert::Lossy,
        };
        debug_assert!(!decoder.is_legacy_u(), "--charset refuses --legacy-u");
        let stream = match convert {
            Convert::No => StreamDecoder::new(decoder),
            _ => StreamDecoder::new(decoder.utf8(Utf8Mode::Bytes)),
        };
        DecodeIn {
            decoder,
            encoding,
            convert,
            stream,
            converter: encoding.new_decoder_without_bom_handling(),
            decoded: Vec::new(),
            fed: 0,
            done: 0,
            total: 0,
            converted: 0,
            recent: Vec::new(),
            recent_at: 0,
            failed: None,
        }
    }

    /// Ready for the next line.
    fn reset(&mut self) {
        let (decoded, recent) = (std::mem::take(&mut self.decoded), std::mem::take(&mut self.recent));
        *self = DecodeIn::new(self.decoder, Charset::from(self.encoding));
        (self.decoded, self.recent) = (decoded, recent);
        self.recent.clear();
    }

    /// Decodes the next piece of the line, appending the text to `out`.
    pub fn feed(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<(), InError> {
        if let Some(e) = self.failed {
            return Err(e);
        }
        let result = if self.convert == Convert::No {
            self.stream.feed(input, out).map_err(InError::Decode)
        } else {
            self.step(input, false, out)
        };
        self.failed = result.err();
        result
    }

    /// Ends the line: decodes what was held back. The next line can follow.
    pub fn finish(&mut self, out: &mut Vec<u8>) -> Result<(), InError> {
        let result = if let Some(e) = self.failed {
            Err(e)
        } else if self.convert == Convert::No {
            self.stream.finish(out).map_err(InError::Decode)
        } else {
            self.step(&[], true, out)
        };
        self.reset();
        result
    }

    fn step(&mut self, input: &[u8], last: bool, out: &mut Vec<u8>) -> Result<(), InError> {
        self.decoded.clear();
        let decoded = if last {
            self.stream.finish(&mut self.decoded)
        } else {
            self.stream.feed(input, &mut self.decoded)
        };
        let fed_before = self.fed;
        self.fed += input.len();
        if let Err(e) = decoded {
            return Err(self.escape_error(input, fed_before, e));
        }
        // What the stream still holds back is the end of what it was fed.
        let held = if last { 0 } else { self.stream.held_back() };
        self.done = self.fed - held;
        self.total += self.decoded.len();
        let decoded = std::mem::take(&mut self.decoded);
        let converted = self.convert(&decoded, last, out);
        self.decoded = decoded;
        if let Err(at) = converted {
            return Err(InError::Charset(self.place(input, fed_before, self.done, self.total, at)));
        }
        self.keep_recent(input, fed_before);
        Ok(())
    }

    /// Gives `bytes` to the converter, appending the text to `out`; in strict mode, the
    /// decoded index where a malformed sequence starts is an error.
    fn convert(&mut self, mut bytes: &[u8], last: bool, out: &mut Vec<u8>) -> Result<(), usize> {
        loop {
            // Room for all of `bytes` when the bound is known (a call per piece), else for
            // part of them: zeroed, as much as the text may take, not a fixed block per call.
            let room = self.converter.max_utf8_buffer_length(bytes.len()).unwrap_or(8192).max(16);
            let start = out.len();
            out.resize(start + room, 0);
            let (result, read, written) = if self.convert == Convert::Lossy {
                let (result, read, written, _) =
                    self.converter.decode_to_utf8(bytes, &mut out[start..], last);
                (result.into(), read, written)
            } else {
                match self.converter.decode_to_utf8_without_replacement(bytes, &mut out[start..], last) {
                    (DecoderResult::Malformed(bad, extra), read, written) => {
                        out.truncate(start + written);
                        let end = self.converted + read;
                        return Err(end - usize::from(extra) - usize::from(bad));
                    }
                    (DecoderResult::InputEmpty, read, written) => (Step::Done, read, written),
                    (DecoderResult::OutputFull, read, written) => (Step::More, read, written),
                }
            };
            out.truncate(start + written);
            self.converted += read;
            bytes = &bytes[read..];
            if result == Step::Done {
                return Ok(());
            }
        }
    }

    /// The error of the escapes, `e`, found in the piece `input` (fed from line offset
    /// `fed_before`), as `Decoder::decode_in` reports it: in strict mode, a malformed
    /// sequence of the charset that ends before `e` comes first.
    fn escape_error(&mut self, input: &[u8], fed_before: usize, e: DecodeError) -> InError {
        if self.convert != Convert::Strict || e.kind() == pctenc::DecodeErrorKind::BufferTooSmall {
            return InError::Decode(e);
        }
        // The input from where the decoded bytes stop to the error: whole escapes, which
        // decode without an error.
        let known = self.known(input, fed_before);
        let Some(before) = known.get(self.done - self.recent_at..e.offset().saturating_sub(self.recent_at))
        else {
            return InError::Decode(e);
        };
        let Ok(prefix) = self.decoder.utf8(Utf8Mode::Bytes).decode(before) else { return InError::Decode(e) };
        let total = self.total + prefix.len();
        match self.convert(&prefix, false, &mut Vec::new()) {
            Err(at) => InError::Charset(self.place(input, fed_before, e.offset(), total, at)),
            Ok(()) => InError::Decode(e),
        }
    }

    /// The input bytes from line offset `recent_at` to the end of `input`, the piece fed
    /// from `fed_before`.
    fn known(&self, input: &[u8], fed_before: usize) -> Vec<u8> {
        let mut known = self.recent[..fed_before - self.recent_at].to_vec();
        known.extend_from_slice(input);
        known
    }

    /// The line offset of decoded byte `at`, counted back from decoded byte `total` at input
    /// offset `end`, escape by escape.
    fn place(&self, input: &[u8], fed_before: usize, end: usize, total: usize, at: usize) -> usize {
        let known = self.known(input, fed_before);
        let mut i = end - self.recent_at;
        for _ in at..total {
            let escape = i >= 3
                && known[i - 3] == b'%'
                && known[i - 2].is_ascii_hexdigit()
                && known[i - 1].is_ascii_hexdigit();
            i = i.saturating_sub(if escape { 3 } else { 1 });
        }
        self.recent_at + i
    }

    /// Keeps the input bytes a later error may need: from [`RECENT`] bytes before `done`
    /// to the end of `input` (fed from `fed_before`).
    fn keep_recent(&mut self, input: &[u8], fed_before: usize) {
        let from = self.done.saturating_sub(RECENT).max(self.recent_at);
        if from >= fed_before {
            self.recent.clear();
            self.recent.extend_from_slice(&input[from - fed_before..]);
        } else {
            self.recent.drain(..from - self.recent_at);
            self.recent.extend_from_slice(input);
        }
        self.recent_at = from;
    }
}

/// Whether a conversion call used up its input.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Step {
    Done,
    More,
}

impl From<encoding_rs::CoderResult> for Step {
    fn from(result: encoding_rs::CoderResult) -> Step {
        match result {
            encoding_rs::CoderResult::InputEmpty => Step::Done,
            encoding_rs::CoderResult::OutputFull => Step::More,
        }
    }
}

/// `pctenc decode --explain`: for each line whose decoded bytes are not UTF-8, the readings
/// of the encodings [`pctenc::charset::explain`] tries; a last line says how many lines
/// there were. A long line is shown in part: [`WINDOW`] decoded bytes either side of where
/// it stops being UTF-8, with how many bytes were left out before and after.
pub fn explain_lines(
    decoder: Decoder,
    files: &[PathBuf],
    out: &mut Output,
    progress: &Progress,
) -> Result<(), Failure> {
    let mut explain = Explain::new(decoder);
    let result = each_line(files, out, progress, &mut explain);
    // Inputs that could not be read were skipped: the summary counts the others.
    if matches!(result, Ok(()) | Err(Failure::Unreadable)) {
        let summary = format!("{} of {} lines not UTF-8\n", explain.shown, explain.lines);
        out.write_all(summary.as_bytes())?;
    }
    result
}

/// Decoded bytes shown on either side of the first byte that is not UTF-8, at most.
const WINDOW: u64 = 40;

/// Decoded bytes of a line kept before the encodings are tried on them: a line that ends
/// within them and is UTF-8 costs no decoding but its own. Longer lines go through every
/// encoding as they come, [`LAG`] bytes behind.
const KEEP: usize = 64 << 10;

/// How far the encodings stay behind the decoded line: the window before the first byte
/// that is not UTF-8, and the three bytes of a sequence that may only show it is not later.
const LAG: usize = WINDOW as usize + 4;

/// One encoding `decode --explain` tries on the current line.
struct Reading {
    charset: Charset,
    decoder: encoding_rs::Decoder,
    /// Read without an error so far.
    ok: bool,
    /// The text of the window shown, once it is known.
    text: String,
}

/// `decode --explain`, a line at a time, in pieces.
struct Explain {
    bytes: Decoder,
    strict: Decoder,
    /// The escapes of the line decoded as bytes, and as UTF-8 (which names the column where
    /// the bytes stop being UTF-8).
    line: StreamDecoder,
    checked: StreamDecoder,
    decoded: Vec<u8>,
    dropped: Vec<u8>,
    scratch: Vec<u8>,
    /// Decoded bytes of the line not given to the readings yet, from decoded index `held_at`.
    held: Vec<u8>,
    held_at: u64,
    /// Decoded bytes of the line so far.
    total: u64,
    /// The end of the line's UTF-8 checked so far: an unfinished sequence, at most 3 bytes.
    tail: Vec<u8>,
    /// The decoded index of the first byte that is not UTF-8.
    bad: Option<u64>,
    readings: Vec<Reading>,
    lines: u64,
    shown: u64,
}

impl Explain {
    fn new(decoder: Decoder) -> Explain {
        let (bytes, strict) = (decoder.utf8(Utf8Mode::Bytes), decoder.utf8(Utf8Mode::Strict));
        let mut explain = Explain {
            bytes,
            strict,
            line: StreamDecoder::new(bytes),
            checked: StreamDecoder::new(strict),
            decoded: Vec::new(),
            dropped: Vec::new(),
            scratch: Vec::new(),
            held: Vec::new(),
            held_at: 0,
            total: 0,
            tail: Vec::new(),
            bad: None,
            readings: Vec::new(),
            lines: 0,
            shown: 0,
        };
        explain.reset();
        explain
    }

    /// Ready for the next line.
    fn reset(&mut self) {
        self.line = StreamDecoder::new(self.bytes);
        self.checked = StreamDecoder::new(self.strict);
        self.held.clear();
        (self.held_at, self.total, self.bad) = (0, 0, None);
        self.tail.clear();
        if self.readings.is_empty() {
            self.readings = pctenc::__cli::CANDIDATES
                .iter()
                .map(|&charset| Reading {
                    charset,
                    decoder: charset.encoding().new_decoder_without_bom_handling(),
                    ok: true,
                    text: String::new(),
                })
                .collect();
        }
        for reading in &mut self.readings {
            reading.decoder = reading.charset.encoding().new_decoder_without_bom_handling();
            reading.ok = true;
            reading.text.clear();
        }
    }

    /// Takes in the next decoded bytes of the line, in `self.decoded`.
    fn take_decoded(&mut self, last: bool) {
        let decoded = std::mem::take(&mut self.decoded);
        if self.bad.is_none() {
            // Where the bytes stop being UTF-8: checked with the unfinished sequence the
            // last piece ended with.
            let from = self.total - self.tail.len() as u64;
            self.tail.extend_from_slice(&decoded);
            match std::str::from_utf8(&self.tail) {
                Ok(_) => self.tail.clear(),
                Err(e) if e.error_len().is_some() || last => {
                    self.bad = Some(from + e.valid_up_to() as u64);
                    self.tail.clear();
                }
                Err(e) => {
                    self.tail.drain(..e.valid_up_to());
                }
            }
        }
        self.total += decoded.len() as u64;
        self.held.extend_from_slice(&decoded);
        self.decoded = decoded;
        self.decoded.clear();
        // Until a byte is not UTF-8, hold back what a window before it may need.
        let give = match self.bad {
            Some(_) => self.held.len(),
            None if last => 0,
            None if self.held.len() > KEEP => self.held.len() - LAG,
            None => 0,
        };
        if give > 0 {
            let held = std::mem::take(&mut self.held);
            self.read(&held[..give], self.held_at, false);
            self.held = held;
            self.held.drain(..give);
            self.held_at += give as u64;
        }
        if last && self.bad.is_some() {
            self.read(&[], self.held_at, true);
        }
    }

    /// Gives `bytes`, at decoded index `at` of the line, to every reading still without an
    /// error: the text of the window kept, the rest dropped.
    fn read(&mut self, bytes: &[u8], at: u64, last: bool) {
        let (from, to) = match self.bad {
            Some(bad) => (bad.saturating_sub(WINDOW), bad + WINDOW),
            None => (u64::MAX, u64::MAX),
        };
        let end = at + bytes.len() as u64;
        // Before the window, in it, after it.
        let cut = |x: u64| (x.clamp(at, end) - at) as usize;
        let parts =
            [(&bytes[..cut(from)], false), (&bytes[cut(from)..cut(to)], true), (&bytes[cut(to)..], false)];
        for reading in self.readings.iter_mut().filter(|r| r.ok) {
            for (i, &(part, shown)) in parts.iter().enumerate() {
                if !reading.ok || part.is_empty() && !(last && i == 2) {
                    continue;
                }
                let text = shown.then_some(&mut reading.text);
                reading.ok = decode_into(&mut reading.decoder, part, last && i == 2, text, &mut self.scratch);
            }
        }
    }

    /// The report of a line that is not UTF-8 from decoded byte `bad` on, at `column`.
    fn report(&self, line: &Line<'_>, bad: u64, column: Option<usize>) -> String {
        let at = match column {
            Some(column) => format!("{}:{}:{}", line.name, line.number, column),
            None => format!("{}:{}", line.name, line.number),
        };
        let mut report =
            format!("{at}: not UTF-8 from here on (byte {bad} of the decoded line); reads as:\n");
        let before = bad.saturating_sub(WINDOW);
        let after = self.total.saturating_sub(bad + WINDOW);
        let mut none = true;
        for reading in self.readings.iter().filter(|r| r.ok) {
            none = false;
            let _ = write!(report, "  {:<14} ", reading.charset.name());
            if before > 0 {
                let _ = write!(report, "[{} bytes before] ", thousands(before));
            }
            report.push_str(&printable(&reading.text));
            if after > 0 {
                let _ = write!(report, " [{} bytes after]", thousands(after));
            }
            report.push('\n');
        }
        if none {
            report.push_str("  (none of the encodings tried reads it without an error)\n");
        }
        report
    }
}

impl Lines for Explain {
    fn piece(&mut self, line: &Line<'_>, bytes: &[u8], _: &mut Output) -> Result<(), Failure> {
        let failure = |e: DecodeError| Failure::Decode {
            input: line.name.to_string(),
            line: line.number,
            column: e.offset() as u64 + 1,
            error: e.shifted(line.offset as usize),
        };
        self.line.feed(bytes, &mut self.decoded).map_err(failure)?;
        // Only its error matters: its output is dropped.
        let _ = self.checked.feed(bytes, &mut self.dropped);
        self.dropped.clear();
        self.take_decoded(false);
        Ok(())
    }

    fn end(&mut self, line: &Line<'_>, _: &[u8], out: &mut Output) -> Result<(), Failure> {
        self.lines += 1;
        let failure = |e: DecodeError| Failure::Decode {
            input: line.name.to_string(),
            line: line.number,
            column: e.offset() as u64 + 1,
            error: e.shifted(line.offset as usize),
        };
        self.line.finish(&mut self.decoded).map_err(failure)?;
        self.take_decoded(true);
        let result = match self.bad {
            Some(bad) => {
                self.shown += 1;
                // Where in the line the bytes stop being UTF-8: the strict decoder names the
                // `%` (or raw byte) that starts the first malformed sequence, which is what a
                // reader looks for in the input; the decoded index alone points into text
                // nobody sees.
                let column = self.checked.finish(&mut Vec::new()).err().map(|e| e.offset() + 1);
                out.write_all(self.report(line, bad, column).as_bytes())
            }
            None => Ok(()),
        };
        self.reset();
        result
    }
}

/// Decodes `bytes` with `decoder` (`last`: they end the text), appending the text to `text`
/// if given; whether they read without an error. `scratch` takes the text that is dropped.
fn decode_into(
    decoder: &mut encoding_rs::Decoder,
    mut bytes: &[u8],
    last: bool,
    mut text: Option<&mut String>,
    scratch: &mut Vec<u8>,
) -> bool {
    loop {
        let room = decoder.max_utf8_buffer_length_without_replacement(bytes.len()).unwrap_or(8192).max(16);
        if scratch.len() < room {
            scratch.resize(room, 0);
        }
        let (result, read, written) =
            decoder.decode_to_utf8_without_replacement(bytes, &mut scratch[..room], last);
        if let Some(text) = &mut text {
            // The decoder writes whole characters of UTF-8.
            text.push_str(std::str::from_utf8(&scratch[..written]).unwrap_or_default());
        }
        bytes = &bytes[read..];
        match result {
            DecoderResult::InputEmpty => return true,
            DecoderResult::OutputFull => {}
            DecoderResult::Malformed(..) => return false,
        }
    }
}

/// `n` with a comma between groups of three digits, as `1,048,576`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() * 4 / 3);
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// `text` with what must not reach a terminal raw (control characters, bidirectional
/// formatting) escaped as Rust writes them (`\u{1b}`).
fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            c if super::is_invisible_format(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c if c.is_control() => out.extend(c.escape_debug()),
            c => out.push(c),
        }
    }
    out
}

/// `pctenc charsets`: every encoding with its labels.
pub fn table() -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{:<16} LABELS", "ENCODING");
    for charset in Charset::all() {
        let _ = writeln!(out, "{:<16} {}", charset.name(), charset.labels().join(", "));
    }
    let _ = writeln!(
        out,
        "\nThe encodings and labels of the WHATWG Encoding Standard (labels are case-insensitive).\n\
         encode --charset writes UTF-16BE, UTF-16LE and replacement as UTF-8, as forms do."
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The line decoded in pieces gives what `Decoder::decode_in` gives it whole: the same
    /// text, the same error at the same offset, wherever the pieces are cut.
    #[test]
    fn decode_in_pieces_as_whole() {
        use pctenc::DecodeErrorKind;
        let inputs: [&[u8]; 12] = [
            b"q=%8C%9F%8D%F5+%83%8F%81%5B%83h",
            b"ab%82%20cd",
            b"x%81 y%82",
            b"%FF%FF%zz",
            b"%82%zz",
            b"a+b+%82",
            b"%8C%9F%",
            b"%8C%9F%8",
            b"ab%1B(Z",
            b"%1B$B%24%22%1B(B",
            b"%C4%E3%BA%C3+%CA%C0\x81",
            b"\x82\xA0%A0%E9t%E9",
        ];
        let charsets = [
            Charset::SHIFT_JIS,
            Charset::EUC_KR,
            Charset::GB18030,
            Charset::ISO_2022_JP,
            Charset::UTF_8,
            Charset::WINDOWS_1252,
            Charset::for_label("iso-8859-3").unwrap(),
            Charset::for_label("utf-16le").unwrap(),
        ];
        let decoders = [
            Decoder::new().utf8(Utf8Mode::Strict),
            Decoder::new().utf8(Utf8Mode::Strict).plus_as_space(true).lenient(true),
            Decoder::new().utf8(Utf8Mode::Lossy).plus_as_space(true),
            Decoder::new(),
        ];
        for input in inputs {
            for charset in charsets {
                for decoder in decoders {
                    let whole = decoder.decode_in(input, charset).map(|d| d.into_owned()).map_err(|e| {
                        if e.kind() == DecodeErrorKind::InvalidCharset {
                            (e.offset(), None)
                        } else {
                            (e.offset(), Some(e.kind()))
                        }
                    });
                    let mut stream = DecodeIn::new(decoder, charset);
                    for a in 0..=input.len() {
                        for b in a..=input.len() {
                            let mut out = Vec::new();
                            let mut run = || {
                                for piece in [&input[..a], &input[a..b], &input[b..]] {
                                    stream.feed(piece, &mut out)?;
                                }
                                stream.finish(&mut out)
                            };
                            let got = run().map(|()| out.clone()).map_err(|e| match e {
                                InError::Decode(e) => (e.offset(), Some(e.kind())),
                                InError::Charset(at) => (at, None),
                            });
                            // A failed line is over: more of it and its end give the error
                            // again, and leave the stream for the next line.
                            if got.is_err() {
                                let _ = stream.feed(b"%82 more", &mut Vec::new());
                                let _ = stream.finish(&mut Vec::new());
                            }
                            assert_eq!(
                                got,
                                whole,
                                "{:?} in {charset} by {decoder:?}, cut at {a}, {b}",
                                input.escape_ascii().to_string()
                            );
                        }
                    }
                }
            }
        }
    }

    /// After an error, the line is over: more of it and its end give the same error, then
    /// the next line starts afresh.
    #[test]
    fn a_failed_line_is_over() {
        let mut stream = DecodeIn::new(Decoder::new().utf8(Utf8Mode::Strict), Charset::SHIFT_JIS);
        let mut out = Vec::new();
        assert!(matches!(stream.feed(b"ab%82%20cd", &mut out), Err(InError::Charset(2))));
        assert!(matches!(stream.feed(b"%8C%9F", &mut out), Err(InError::Charset(2))));
        assert!(matches!(stream.finish(&mut out), Err(InError::Charset(2))));
        out.clear();
        stream.feed(b"%8C%9F", &mut out).unwrap();
        stream.finish(&mut out).unwrap();
        assert_eq!(out, "検".as_bytes());
    }

    #[test]
    fn thousands_groups_digits() {
        for (n, want) in
            [(0, "0"), (999, "999"), (1000, "1,000"), (1_048_576, "1,048,576"), (123_456, "123,456")]
        {
            assert_eq!(thousands(n), want);
        }
    }

    #[test]
    fn printable_escapes_controls() {
        assert_eq!(printable("a\u{1b}[2Jb\u{202E}c\u{85}é"), "a\\u{1b}[2Jb\\u{202e}c\\u{85}é");
        assert_eq!(printable("\u{627}\u{61C}\u{2028}\u{2069}"), "\u{627}\\u{61c}\\u{2028}\\u{2069}");
    }
}
