//! `pctenc encode`: line by line (each line's `\n` or `\r\n` kept) or every byte.

use std::path::PathBuf;

use pctenc::{Encoder, StreamEncoder};

use super::Failure;
use super::input::{CHUNK, Input};
use super::output::Output;

pub fn run(encoder: &Encoder, binary: bool, files: &[PathBuf], out: &mut Output) -> Result<(), Failure> {
    let mut buf = vec![0u8; CHUNK];
    let mut encoded = Vec::with_capacity(CHUNK * 3);
    for path in Input::all(files) {
        // Each input is a stream of its own.
        let mut input = Input::open(&path)?;
        let mut stream = ChunkEncoder::new(*encoder, binary);
        loop {
            let n = input.read(&mut buf)?;
            if n == 0 {
                break;
            }
            encoded.clear();
            stream.feed(&buf[..n], &mut encoded);
            out.write_all(&encoded)?;
            if n < buf.len() {
                out.flush()?;
            }
        }
        encoded.clear();
        stream.finish(&mut encoded);
        out.write_all(&encoded)?;
    }
    Ok(())
}

/// Encodes one input read by read: every byte (`binary`), or line by line, each line on its
/// own with its `\n` or `\r\n` copied as is.
struct ChunkEncoder {
    /// The current line (binary: the whole input). It holds back the bytes whose encoding
    /// the next read may change (`StreamEncoder`).
    stream: StreamEncoder,
    binary: bool,
    /// Line mode: the last read ended with a `\r`, not fed yet, which may start a `\r\n`.
    cr: bool,
}

impl ChunkEncoder {
    fn new(encoder: Encoder, binary: bool) -> ChunkEncoder {
        ChunkEncoder { stream: StreamEncoder::new(encoder), binary, cr: false }
    }

    /// Appends to `out` the encoding of `data`, the next read, as far as it is known.
    fn feed(&mut self, data: &[u8], out: &mut Vec<u8>) {
        if self.binary {
            return self.stream.feed(data, out);
        }
        let mut rest = data;
        if self.cr && !rest.is_empty() {
            self.cr = false;
            match rest.strip_prefix(b"\n") {
                Some(after) => {
                    self.end_line(b"\r\n", out);
                    rest = after;
                }
                None => self.stream.feed(b"\r", out),
            }
        }
        while let Some(nl) = memchr::memchr(b'\n', rest) {
            let (line, ending): (&[u8], &[u8]) = match rest[..nl].strip_suffix(b"\r") {
                Some(line) => (line, b"\r\n"),
                None => (&rest[..nl], b"\n"),
            };
            self.stream.feed(line, out);
            self.end_line(ending, out);
            rest = &rest[nl + 1..];
        }
        if let Some(line) = rest.strip_suffix(b"\r") {
            self.cr = true;
            rest = line;
        }
        self.stream.feed(rest, out);
    }

    /// Appends the encoding of what is left at the end of the input.
    fn finish(&mut self, out: &mut Vec<u8>) {
        if std::mem::take(&mut self.cr) {
            self.stream.feed(b"\r", out);
        }
        self.stream.finish(out);
    }

    fn end_line(&mut self, ending: &[u8], out: &mut Vec<u8>) {
        self.stream.finish(out);
        out.extend_from_slice(ending);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pctenc::sets;

    /// Encodes `input` cut into the pieces given by `cuts`, as `run` does with its reads.
    fn pieces(encoder: &Encoder, binary: bool, input: &[u8], cuts: &[usize]) -> Vec<u8> {
        let mut stream = ChunkEncoder::new(*encoder, binary);
        let mut out = Vec::new();
        let mut from = 0;
        for &to in cuts.iter().chain([&input.len()]) {
            stream.feed(&input[from..to], &mut out);
            from = to;
        }
        stream.finish(&mut out);
        out
    }

    /// The output is the same however the input is cut into reads.
    fn independent_of_cuts(encoder: &Encoder, binary: bool, input: &[u8], want: &[u8]) {
        assert_eq!(pieces(encoder, binary, input, &[]), want);
        for a in 0..=input.len() {
            for b in a..=input.len() {
                assert_eq!(pieces(encoder, binary, input, &[a, b]), want, "cuts at {a} and {b}");
            }
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
}
