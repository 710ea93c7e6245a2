//! `pctenc encode`: line by line (each line's `\n` or `\r\n` kept) or every byte.

use std::path::PathBuf;

use pctenc::Encoder;

use super::Failure;
use super::input::{CHUNK, Input};
use super::output::Output;

pub fn run(encoder: &Encoder, binary: bool, files: &[PathBuf], out: &mut Output) -> Result<(), Failure> {
    let mut buf = vec![0u8; CHUNK];
    let mut encoded = Vec::with_capacity(CHUNK * 3);
    for path in Input::all(files) {
        let mut input = Input::open(&path)?;
        // Line mode: a `\r` at the end of a chunk may be the first half of a `\r\n`.
        let mut pending_cr = false;
        loop {
            let n = input.read(&mut buf)?;
            if n == 0 {
                break;
            }
            encoded.clear();
            if binary {
                encoder.encode_vec(&buf[..n], &mut encoded);
            } else {
                encode_lines(encoder, &buf[..n], &mut pending_cr, &mut encoded);
            }
            out.write_all(&encoded)?;
            if n < buf.len() {
                out.flush()?;
            }
        }
        if pending_cr {
            // A lone `\r` at the very end is data, not a line ending.
            encoded.clear();
            encoder.encode_vec(b"\r", &mut encoded);
            out.write_all(&encoded)?;
        }
    }
    Ok(())
}

/// Encodes `chunk` line by line into `out`, copying each `\n` and `\r\n` as is. A `\r` at
/// the end of `chunk` is held back in `pending_cr` until the next byte shows what it is.
fn encode_lines(encoder: &Encoder, chunk: &[u8], pending_cr: &mut bool, out: &mut Vec<u8>) {
    let mut rest = chunk;
    if std::mem::take(pending_cr) {
        if rest.first() == Some(&b'\n') {
            out.extend_from_slice(b"\r\n");
            rest = &rest[1..];
        } else {
            encoder.encode_vec(b"\r", out);
        }
    }
    while let Some(nl) = memchr::memchr(b'\n', rest) {
        let (line, ending): (&[u8], &[u8]) = match rest[..nl].strip_suffix(b"\r") {
            Some(line) => (line, b"\r\n"),
            None => (&rest[..nl], b"\n"),
        };
        encoder.encode_vec(line, out);
        out.extend_from_slice(ending);
        rest = &rest[nl + 1..];
    }
    match rest.strip_suffix(b"\r") {
        Some(line) => {
            encoder.encode_vec(line, out);
            *pending_cr = true;
        }
        None => encoder.encode_vec(rest, out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Line mode gives the same output however the input is cut into chunks.
    #[test]
    fn line_mode_is_independent_of_chunking() {
        let encoder = Encoder::new(pctenc::sets::COMPONENT);
        let input = b"a b\r\nc\rd\n\r\r\n\n e\r";
        let whole = {
            let (mut out, mut cr) = (Vec::new(), false);
            encode_lines(&encoder, input, &mut cr, &mut out);
            if cr {
                encoder.encode_vec(b"\r", &mut out);
            }
            out
        };
        assert_eq!(whole, b"a%20b\r\nc%0Dd\n%0D\r\n\n%20e%0D");
        for cut in 0..=input.len() {
            let (mut out, mut cr) = (Vec::new(), false);
            encode_lines(&encoder, &input[..cut], &mut cr, &mut out);
            encode_lines(&encoder, &input[cut..], &mut cr, &mut out);
            if cr {
                encoder.encode_vec(b"\r", &mut out);
            }
            assert_eq!(out, whole, "cut at {cut}");
        }
    }
}
