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
        // `buf[..held]`: the end of the previous read, held back for this one (a few bytes).
        let mut held = 0;
        loop {
            let n = input.read(&mut buf[held..])?;
            if n == 0 {
                break;
            }
            let data = &buf[..held + n];
            encoded.clear();
            let used = encode_chunk(encoder, binary, data, false, &mut encoded);
            out.write_all(&encoded)?;
            let short = held + n < buf.len();
            buf.copy_within(used..held + n, 0);
            held = held + n - used;
            if short {
                out.flush()?;
            }
        }
        encoded.clear();
        encode_chunk(encoder, binary, &buf[..held], true, &mut encoded);
        out.write_all(&encoded)?;
    }
    Ok(())
}

/// Encodes `data`, the input from where the previous call stopped, into `out` and returns how
/// many bytes of it were encoded. The rest (at most three bytes) is what the next bytes of
/// input may change the encoding of, to be passed again in front of them; with `last`, there
/// are none and everything is encoded.
fn encode_chunk(encoder: &Encoder, binary: bool, data: &[u8], last: bool, out: &mut Vec<u8>) -> usize {
    let used = if last { data.len() } else { data.len() - held_back(encoder, binary, data) };
    if binary {
        encoder.encode_vec(&data[..used], out);
    } else {
        encode_lines(encoder, &data[..used], out);
    }
    used
}

/// How many bytes at the end of `data` must wait for the next input: a `\r` that may start a
/// `\r\n` (line mode), a `%` or `%H` that may start an escape (re-quoting), an unfinished
/// UTF-8 sequence (IRI sets, which keep the sequence raw only once it is whole).
fn held_back(encoder: &Encoder, binary: bool, data: &[u8]) -> usize {
    let n = data.len();
    let last = |k: usize| if k <= n { Some(data[n - k]) } else { None };
    match last(1) {
        Some(b'\r') if !binary => 1,
        Some(b'%') if encoder.is_keeping_escapes() => 1,
        Some(h) if h.is_ascii_hexdigit() && last(2) == Some(b'%') && encoder.is_keeping_escapes() => 2,
        Some(0x80..=0xFF) if encoder.set().is_iri() => unfinished_utf8(data),
        _ => 0,
    }
}

/// The length of the start of a UTF-8 sequence at the end of `data` that more bytes could
/// complete (0 if there is none).
fn unfinished_utf8(data: &[u8]) -> usize {
    for k in 1..=data.len().min(3) {
        let b = data[data.len() - k];
        let needs = match b {
            0x80..=0xBF => continue,
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xFF => 4,
            _ => return 0,
        };
        return if needs > k { k } else { 0 };
    }
    0
}

/// Encodes `data` line by line into `out`, copying each `\n` and `\r\n` as is.
fn encode_lines(encoder: &Encoder, data: &[u8], out: &mut Vec<u8>) {
    let mut rest = data;
    while let Some(nl) = memchr::memchr(b'\n', rest) {
        let (line, ending): (&[u8], &[u8]) = match rest[..nl].strip_suffix(b"\r") {
            Some(line) => (line, b"\r\n"),
            None => (&rest[..nl], b"\n"),
        };
        encoder.encode_vec(line, out);
        out.extend_from_slice(ending);
        rest = &rest[nl + 1..];
    }
    encoder.encode_vec(rest, out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use pctenc::sets;

    /// Encodes `input` cut into the pieces given by `cuts`, as `run` does with its reads.
    fn pieces(encoder: &Encoder, binary: bool, input: &[u8], cuts: &[usize]) -> Vec<u8> {
        let (mut out, mut pending) = (Vec::new(), Vec::new());
        let mut from = 0;
        for &to in cuts.iter().chain([&input.len()]) {
            pending.extend_from_slice(&input[from..to]);
            let used = encode_chunk(encoder, binary, &pending, false, &mut out);
            assert!(pending.len() - used <= 3);
            pending.drain(..used);
            from = to;
        }
        encode_chunk(encoder, binary, &pending, true, &mut out);
        out
    }

    /// The output is the same however the input is cut into reads.
    fn independent_of_cuts(encoder: &Encoder, binary: bool, input: &[u8], want: &[u8]) {
        assert_eq!(pieces(encoder, binary, input, &[]), want);
        for cut in 0..=input.len() {
            assert_eq!(pieces(encoder, binary, input, &[cut]), want, "cut at {cut}");
        }
        let every: Vec<usize> = (1..input.len()).collect();
        assert_eq!(pieces(encoder, binary, input, &every), want, "one byte at a time");
    }

    #[test]
    fn line_mode() {
        let encoder = Encoder::new(sets::COMPONENT);
        let input = b"a b\r\nc\rd\n\r\r\n\n e\r";
        independent_of_cuts(&encoder, false, input, b"a%20b\r\nc%0Dd\n%0D\r\n\n%20e%0D");
    }

    #[test]
    fn keep_escapes() {
        let encoder = Encoder::new(sets::COMPONENT).keep_escapes(true);
        let input = b"%41 %4\n%%e9%\r\n%z%2";
        independent_of_cuts(&encoder, false, input, b"%41%20%254\n%25%e9%25\r\n%25z%252");
        independent_of_cuts(&encoder, true, input, b"%41%20%254%0A%25%e9%25%0D%0A%25z%252");
    }

    #[test]
    fn iri() {
        let encoder = Encoder::new(sets::COMPONENT.with_iri(true));
        let input = "é\u{20AC}\u{1F600} \r\n".as_bytes();
        let broken = b"\xC3\xE2\x82\xF0\x9F\x98 \xE9";
        independent_of_cuts(&encoder, false, input, "é\u{20AC}\u{1F600}%20\r\n".as_bytes());
        independent_of_cuts(&encoder, true, broken, b"%C3%E2%82%F0%9F%98%20%E9");
        let both = Encoder::new(sets::PATH.with_iri(true)).keep_escapes(true);
        independent_of_cuts(&both, true, "é%C3%A9%é%".as_bytes(), "é%C3%A9%25é%25".as_bytes());
    }

    #[test]
    fn unfinished_sequences() {
        assert_eq!(unfinished_utf8(b"a\xC3"), 1);
        assert_eq!(unfinished_utf8("é".as_bytes()), 0);
        assert_eq!(unfinished_utf8(b"\xE2\x82"), 2);
        assert_eq!(unfinished_utf8(b"\xF0\x9F\x98"), 3);
        assert_eq!(unfinished_utf8(b"\x9F\x98\x80"), 0);
        assert_eq!(unfinished_utf8(b"\xFF"), 1);
        assert_eq!(unfinished_utf8(b""), 0);
    }
}
