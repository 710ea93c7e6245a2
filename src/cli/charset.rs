//! `--charset` for `encode` and `decode`, `decode --explain`, and `pctenc charsets`: a line
//! at a time (a legacy encoding's text is converted whole lines at once), each line's `\n`
//! or `\r\n` copied as is.

use std::fmt::Write as _;
use std::path::PathBuf;

use pctenc::charset::{Charset, explain};
use pctenc::{Decoder, Encoder, Utf8Mode};

use super::Failure;
use super::input::{CHUNK, Input};
use super::output::Output;
use super::progress::Progress;

/// Calls `each(line, ending, number, offset)` for every line of every input, in order: the
/// line without its `\n` or `\r\n`, that ending (empty for a last line without one), its
/// number from 1 and its offset in the input. Output is flushed after a short read, so that
/// `tail -f log | pctenc ...` shows each line as it comes.
fn each_line(
    files: &[PathBuf],
    out: &mut Output,
    progress: &Progress,
    mut each: impl FnMut(&str, &[u8], &[u8], u64, u64, &mut Output) -> Result<(), Failure>,
) -> Result<(), Failure> {
    let mut buf = vec![0u8; CHUNK];
    for path in Input::all(files) {
        let mut input = Input::open(&path)?;
        let name = input.name.clone();
        let (mut line, mut number, mut offset) = (Vec::new(), 1u64, 0u64);
        loop {
            let piece = input.next(&mut buf)?;
            if piece.bytes.is_empty() {
                break;
            }
            let mut rest = piece.bytes;
            while let Some(nl) = memchr::memchr(b'\n', rest) {
                line.extend_from_slice(&rest[..nl]);
                let ending: &[u8] = if line.last() == Some(&b'\r') {
                    line.pop();
                    b"\r\n"
                } else {
                    b"\n"
                };
                each(&name, &line, ending, number, offset, out)?;
                offset += (line.len() + ending.len()) as u64;
                number += 1;
                line.clear();
                rest = &rest[nl + 1..];
            }
            line.extend_from_slice(rest);
            progress.advance(piece.bytes.len());
            if piece.short {
                out.flush()?;
            }
        }
        if !line.is_empty() {
            each(&name, &line, b"", number, offset, out)?;
        }
    }
    Ok(())
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

/// `pctenc encode --charset`: each line converted to `charset`, then percent-encoded.
pub fn encode(
    encoder: &Encoder,
    charset: Charset,
    files: &[PathBuf],
    out: &mut Output,
    progress: &Progress,
) -> Result<(), Failure> {
    let mut encoded = String::new();
    each_line(files, out, progress, |name, line, ending, number, offset, out| {
        let text = std::str::from_utf8(line).map_err(|e| {
            bad_line(name, number, offset, e.valid_up_to(), "not valid UTF-8 (--charset converts UTF-8 text)")
        })?;
        encoded.clear();
        encoder.encode_string_in(text, charset, &mut encoded);
        out.write_all(encoded.as_bytes())?;
        out.write_all(ending)
    })
}

/// `pctenc decode --charset`: each line's escapes decoded and the bytes converted from
/// `charset` by the decoder's UTF-8 mode.
pub fn decode(
    decoder: Decoder,
    charset: Charset,
    files: &[PathBuf],
    out: &mut Output,
    progress: &Progress,
) -> Result<(), Failure> {
    each_line(files, out, progress, |name, line, ending, number, offset, out| {
        let decoded = decoder.decode_in(line, charset).map_err(|e| {
            let column = e.offset() as u64 + 1;
            let error = e.shifted(offset as usize);
            let mut failure = Failure::Decode { input: name.to_string(), line: number, column, error };
            if e.kind() == pctenc::DecodeErrorKind::InvalidCharset {
                failure = bad_line(name, number, offset, e.offset(), format_args!("not valid {charset}"));
            }
            failure
        })?;
        out.write_all(&decoded)?;
        out.write_all(ending)
    })
}

/// `pctenc decode --explain`: for each line whose decoded bytes are not UTF-8, the readings
/// of [`explain`]; a last line says how many lines there were.
pub fn explain_lines(
    decoder: Decoder,
    files: &[PathBuf],
    out: &mut Output,
    progress: &Progress,
) -> Result<(), Failure> {
    let bytes = decoder.utf8(Utf8Mode::Bytes);
    let strict = decoder.utf8(Utf8Mode::Strict);
    let (mut lines, mut shown) = (0u64, 0u64);
    each_line(files, out, progress, |name, line, _, number, offset, out| {
        lines += 1;
        let decoded = bytes.decode(line).map_err(|e| {
            let column = e.offset() as u64 + 1;
            Failure::Decode {
                input: name.to_string(),
                line: number,
                column,
                error: e.shifted(offset as usize),
            }
        })?;
        let Err(e) = std::str::from_utf8(&decoded) else { return Ok(()) };
        shown += 1;
        // Where in the line the bytes stop being UTF-8: the strict decoder names the `%` (or
        // raw byte) that starts the first malformed sequence, which is what a reader looks
        // for in the input; the decoded index alone points into text nobody sees.
        let at = match strict.decode(line) {
            Err(err) => format!("{name}:{number}:{}", err.offset() + 1),
            Ok(_) => format!("{name}:{number}"),
        };
        let mut report = format!(
            "{at}: not UTF-8 from here on (byte {} of the decoded line); reads as:\n",
            e.valid_up_to()
        );
        let readings = explain(&decoded);
        if readings.is_empty() {
            report.push_str("  (none of the encodings tried reads it without an error)\n");
        }
        for reading in readings {
            let _ = writeln!(report, "  {:<14} {}", reading.charset.name(), printable(&reading.text));
        }
        out.write_all(report.as_bytes())
    })?;
    let summary = format!("{shown} of {lines} lines not UTF-8\n");
    out.write_all(summary.as_bytes())
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

    #[test]
    fn printable_escapes_controls() {
        assert_eq!(printable("a\u{1b}[2Jb\u{202E}c\u{85}é"), "a\\u{1b}[2Jb\\u{202e}c\\u{85}é");
        assert_eq!(printable("\u{627}\u{61C}\u{2028}\u{2069}"), "\u{627}\\u{61c}\\u{2028}\\u{2069}");
    }
}
