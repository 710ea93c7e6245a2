//! `pctenc encode`: line by line (each line's `\n` or `\r\n` kept) or every byte.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use pctenc::{Encoder, PAR_ENCODE_THRESHOLD, StreamEncoder};

use super::input::{CHUNK, Input, each_segment};
use super::output::Output;
use super::progress::Progress;
use super::threads::Threads;
use super::{Failure, Skipped};

pub fn run(
    encoder: &Encoder,
    binary: bool,
    files: &[PathBuf],
    out: &mut Output,
    progress: &Progress,
    threads: &Threads,
) -> Result<(), Failure> {
    let mut buf = vec![0u8; CHUNK];
    let mut skipped = Skipped::default();
    for path in Input::all(files) {
        let result = one(encoder, binary, &path, out, progress, threads, &mut buf);
        skipped.input(result, out)?;
    }
    skipped.end()
}

/// Encodes the input at `path`.
fn one(
    encoder: &Encoder,
    binary: bool,
    path: &Path,
    out: &mut Output,
    progress: &Progress,
    threads: &Threads,
    buf: &mut [u8],
) -> Result<(), Failure> {
    // Each input is a stream of its own.
    let mut input = Input::open(path)?;
    let mut stream = ChunkEncoder::new(*encoder, binary);
    if let Some(segments) = input.segments() {
        let fed = threads.run(segments.remaining(), PAR_ENCODE_THRESHOLD, || {
            each_segment(segments, |segment| stream.feed(segment, out), |n| progress.advance(n))
        })??;
        fed.map_err(|e| out.error(e))?;
    } else {
        loop {
            let piece = input.next(buf)?;
            if piece.bytes.is_empty() {
                break;
            }
            let bytes = piece.bytes;
            let fed = threads.run(bytes.len() as u64, PAR_ENCODE_THRESHOLD, || stream.feed(bytes, out))?;
            fed.map_err(|e| out.error(e))?;
            progress.advance(piece.bytes.len());
            if piece.short {
                out.flush()?;
            }
        }
    }
    stream.finish(out).map_err(|e| out.error(e))
}

/// Encodes one input read by read: every byte (`binary`), or line by line, each line on its
/// own with its `\n` or `\r\n` copied as is.
struct ChunkEncoder {
    /// The current line (binary: the whole input). It holds back the bytes whose encoding
    /// the next read may change (`StreamEncoder`).
    stream: StreamEncoder,
    /// The encoder of runs of whole lines: `\n` and `\r` kept raw. (A stream for the output
    /// buffers it keeps; a run ends with a `\n`, so it never holds anything back.)
    lines: StreamEncoder,
    /// How the set writes a `\r`, when it escapes it: a `\r` of a run that does not end its
    /// line is written so ([`LoneCr`]).
    lone_cr: Option<[u8; 3]>,
    binary: bool,
    /// Line mode: the last read ended with a `\r`, not fed yet, which may start a `\r\n`.
    cr: bool,
    /// Line mode: the output of lines encoded one by one, written at the end of each read.
    small: Vec<u8>,
}

impl ChunkEncoder {
    fn new(encoder: Encoder, binary: bool) -> ChunkEncoder {
        // Whole lines encode as one text in which `\n` and `\r` stay raw: a line's encoding
        // does not depend on what is around it (a `%` or a UTF-8 sequence never continues
        // across a line end). A `\r` not followed by `\n` is then escaped on its way out.
        let lines = StreamEncoder::new(encoder.with_set(encoder.set().remove(b'\n').remove(b'\r')));
        let lone_cr = <[u8; 3]>::try_from(encoder.encode("\r").as_bytes()).ok();
        ChunkEncoder {
            stream: StreamEncoder::new(encoder),
            lines,
            lone_cr,
            binary,
            cr: false,
            small: Vec::new(),
        }
    }

    /// Writes to `out` the encoding of `data`, the next read, as far as it is known. Large
    /// reads are encoded on every thread, in one pass, and written as they go.
    fn feed<W: Write + Send>(&mut self, data: &[u8], out: &mut W) -> io::Result<()> {
        if self.binary {
            return self.stream.feed_to(data, out);
        }
        let mut small = std::mem::take(&mut self.small);
        small.clear();
        let mut rest = data;
        if self.cr && !rest.is_empty() {
            self.cr = false;
            match rest.strip_prefix(b"\n") {
                Some(after) => {
                    self.end_line(b"\r\n", &mut small);
                    rest = after;
                }
                None => self.stream.feed(b"\r", &mut small),
            }
        }
        // Whole lines after the first: one call for all of them, on every thread when they
        // are many.
        if let Some(first) = memchr::memchr(b'\n', rest)
            && let Some(last) = memchr::memrchr(b'\n', rest)
            && first < last
        {
            let (head, lines, tail) = (&rest[..=first], &rest[first + 1..=last], &rest[last + 1..]);
            self.feed_lines(head, &mut small);
            out.write_all(&small)?;
            small.clear();
            match self.lone_cr {
                Some(escape) => self.lines.feed_to(lines, &mut LoneCr { inner: out, escape, held: false })?,
                None => self.lines.feed_to(lines, out)?,
            }
            rest = tail;
        }
        self.feed_lines(rest, &mut small);
        out.write_all(&small)?;
        self.small = small;
        Ok(())
    }

    /// Line mode: `rest`, which does not start right after a held-back `\r`, line by line.
    fn feed_lines(&mut self, mut rest: &[u8], out: &mut Vec<u8>) {
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

    /// Writes the encoding of what is left at the end of the input.
    fn finish<W: Write>(&mut self, out: &mut W) -> io::Result<()> {
        let mut small = Vec::new();
        if std::mem::take(&mut self.cr) {
            self.stream.feed(b"\r", &mut small);
        }
        self.stream.finish(&mut small);
        out.write_all(&small)
    }

    fn end_line(&mut self, ending: &[u8], out: &mut Vec<u8>) {
        self.stream.finish(out);
        out.extend_from_slice(ending);
    }
}

/// Passes the encoding of a run of whole lines on, writing each raw `\r` that is not
/// followed by `\n` as the set escapes it. The run's encoder keeps `\r` raw, and a raw `\r`
/// in its output is always one of the input, so this is exactly line mode's rule, checked on
/// output still in the cache rather than in a pass of its own over the input.
struct LoneCr<'a, W: Write> {
    inner: &'a mut W,
    escape: [u8; 3],
    /// The last byte written was a `\r`, not passed on yet: what follows decides.
    held: bool,
}

impl<W: Write> LoneCr<'_, W> {
    /// Passes on the held `\r`, now that the byte after it is known.
    fn settle(&mut self, next_is_lf: bool) -> io::Result<()> {
        self.held = false;
        self.inner.write_all(if next_is_lf { b"\r" } else { &self.escape })
    }
}

impl<W: Write> Write for LoneCr<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if self.held {
            self.settle(buf[0] == b'\n')?;
        }
        let mut from = 0;
        for at in memchr::memchr_iter(b'\r', buf) {
            match buf.get(at + 1) {
                Some(b'\n') => continue,
                Some(_) => {
                    self.inner.write_all(&buf[from..at])?;
                    self.inner.write_all(&self.escape)?;
                }
                None => {
                    self.inner.write_all(&buf[from..at])?;
                    self.held = true;
                }
            }
            from = at + 1;
        }
        self.inner.write_all(&buf[from.min(buf.len())..])?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        // A run ends with `\n`, so nothing is held at its end; should it be, the `\r` ends
        // the input and is lone.
        if self.held {
            self.settle(false)?;
        }
        self.inner.flush()
    }
}

impl<W: Write> Drop for LoneCr<'_, W> {
    fn drop(&mut self) {
        if self.held {
            let _ = self.settle(false);
        }
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
            stream.feed(&input[from..to], &mut out).unwrap();
            from = to;
        }
        stream.finish(&mut out).unwrap();
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

    /// Line mode, one line at a time with `Encoder::encode`: what the fast path for runs of
    /// whole lines must equal.
    fn line_by_line(encoder: &Encoder, input: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut lines = input.split(|&b| b == b'\n').peekable();
        while let Some(line) = lines.next() {
            let more = lines.peek().is_some();
            match line.strip_suffix(b"\r") {
                Some(body) if more => {
                    out.extend_from_slice(encoder.encode(body).as_bytes());
                    out.extend_from_slice(b"\r\n");
                }
                _ => {
                    out.extend_from_slice(encoder.encode(line).as_bytes());
                    if more {
                        out.push(b'\n');
                    }
                }
            }
        }
        out
    }

    #[test]
    fn runs_of_lines_equal_line_by_line() {
        let tokens: [&[u8]; 13] = [
            b"a",
            b" ",
            b"\n",
            b"\r\n",
            b"\r",
            b"%",
            b"%4",
            b"%41",
            "\u{e9}".as_bytes(),
            b"\xC3",
            b"\xFF",
            b"+",
            b"~",
        ];
        let encoders = [
            Encoder::new(sets::COMPONENT),
            Encoder::new(sets::FORM).keep_escapes(true),
            Encoder::new(sets::PATH.with_iri(true)).keep_escapes(true),
            Encoder::new(sets::COMPONENT.remove(b'\r')),
        ];
        let mut state = 0x1234_5678_9ABC_DEF1u64;
        for round in 0..400 {
            let mut input = Vec::new();
            for _ in 0..round % 60 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                input.extend_from_slice(tokens[(state % 13) as usize]);
            }
            for encoder in &encoders {
                let want = line_by_line(encoder, &input);
                assert_eq!(pieces(encoder, false, &input, &[]), want, "{input:?}");
                let third = input.len() / 3;
                assert_eq!(pieces(encoder, false, &input, &[third, 2 * third]), want, "{input:?}");
            }
        }
    }

    /// `LoneCr` escapes exactly the `\r`s not followed by `\n`, however the output is split
    /// into writes.
    #[test]
    fn lone_cr_across_writes() {
        let input = b"a\r\nb\rc\r\r\n\r\rd\n\r";
        let want = b"a\r\nb%0Dc%0D\r\n%0D%0Dd\n%0D";
        for cut in 0..=input.len() {
            for cut2 in cut..=input.len() {
                let mut out = Vec::new();
                let mut w = LoneCr { inner: &mut out, escape: *b"%0D", held: false };
                for piece in [&input[..cut], &input[cut..cut2], &input[cut2..]] {
                    w.write_all(piece).unwrap();
                }
                w.flush().unwrap();
                drop(w);
                assert_eq!(out, want, "cuts at {cut} and {cut2}");
            }
        }
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
