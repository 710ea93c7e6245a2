//! `decode --explain`: the readings of each line that is not UTF-8 under the legacy
//! encodings `pctenc::charset::explain` tries, a window around where it stops being UTF-8.

use std::fmt::Write as _;
use std::path::PathBuf;

use encoding_rs::DecoderResult;
use pctenc::charset::Charset;
use pctenc::{DecodeError, Decoder, StreamDecoder, Utf8Mode};

use super::lines::{Line, Lines, each_line};
use crate::cli::Failure;
use crate::cli::output::Output;
use crate::cli::progress::Progress;

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
            c if crate::cli::is_invisible_format(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c if c.is_control() => out.extend(c.escape_debug()),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
