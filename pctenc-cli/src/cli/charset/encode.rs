//! `encode --charset`: each line converted to the charset, then percent-encoded.

use std::path::PathBuf;

use pctenc::Encoder;
use pctenc::charset::Charset;

use super::lines::{Line, Lines, Short, Whole, bad_line, each_line};
use crate::cli::Failure;
use crate::cli::output::Output;
use crate::cli::progress::Progress;

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
