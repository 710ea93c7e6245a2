//! `decode --charset`: each line's escapes decoded, then its bytes converted from the
//! charset, in pieces; [`DecodeIn`] is what `check --charset` uses too.

use std::path::PathBuf;

use encoding_rs::DecoderResult;
use pctenc::charset::Charset;
use pctenc::{DecodeError, Decoder, StreamDecoder, Utf8Mode};

use super::lines::{Line, Lines, Short, Whole, bad_line, each_line};
use crate::cli::Failure;
use crate::cli::output::Output;
use crate::cli::progress::Progress;

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
}
