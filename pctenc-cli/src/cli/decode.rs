//! `pctenc decode`: streams each input through a [`StreamDecoder`] and turns an error's byte
//! offset into a line and column.

use std::io::Write;
use std::path::{Path, PathBuf};

use pctenc::{DecodeError, Decoder, PAR_DECODE_THRESHOLD, StreamDecoder};

use super::input::{CHUNK, Input, each_segment};
use super::output::Output;
use super::progress::Progress;
use super::threads::Threads;
use super::{Failure, Skipped};

pub fn run(
    decoder: Decoder,
    files: &[PathBuf],
    out: &mut Output,
    progress: &Progress,
    threads: &Threads,
) -> Result<(), Failure> {
    let mut buf = vec![0u8; CHUNK];
    let mut skipped = Skipped::default();
    for path in Input::all(files) {
        let result = one(decoder, &path, out, progress, threads, &mut buf);
        skipped.input(result, out)?;
    }
    skipped.end()
}

/// Decodes the input at `path`. On a decode error the output is the decoding of the input up
/// to the error ([`up_to_error`]), whichever path (mapped or read) and however many threads
/// got there.
fn one(
    decoder: Decoder,
    path: &Path,
    out: &mut Output,
    progress: &Progress,
    threads: &Threads,
    buf: &mut [u8],
) -> Result<(), Failure> {
    // Each input is a stream of its own: an escape never spans two files.
    let mut input = Input::open(path)?;
    let name = input.name.clone();
    let mut stream = StreamDecoder::new(decoder);
    // The input bytes the stream holds back: the output so far is the decoding of the input
    // before them.
    let mut held = Vec::new();
    if let Some(segments) = input.segments() {
        // A regular file: big segments, decoded on every thread; lines are only counted
        // when there is an error to place.
        let mut fed = 0usize;
        let mut counted = Counted { inner: &mut *out, written: 0 };
        let result = threads.run(segments.remaining(), PAR_DECODE_THRESHOLD, || {
            let work = |segment: &[u8]| {
                let before = counted.written;
                let result = stream.feed_to(segment, &mut counted);
                match result.as_ref().err().and_then(decode_error) {
                    Some(e) => {
                        let upto = e.offset() - (fed - held.len());
                        up_to_error(decoder, &held, segment, upto, counted.written - before, &mut counted)?;
                    }
                    None if result.is_ok() => {
                        keep_held(&mut held, segment, stream.held_back());
                        fed = fed.saturating_add(segment.len());
                    }
                    None => {}
                }
                result
            };
            each_segment(segments, work, |n| progress.advance(n))
        })??;
        if let Err(e) = result {
            return Err(match decode_error(&e) {
                Some(e) => place(&input, e),
                None => out.error(e),
            });
        }
        let mut decoded = Vec::new();
        if let Err(e) = stream.finish(&mut decoded) {
            let upto = e.offset() - (fed - held.len());
            up_to_error(decoder, &held, &[], upto, 0, out).map_err(|e| out.error(e))?;
            return Err(place(&input, e));
        }
        return out.write_all(&decoded);
    }
    let mut decoded = Vec::with_capacity(CHUNK);
    let mut position = Position::default();
    loop {
        let piece = input.next(buf)?;
        let chunk = piece.bytes;
        if chunk.is_empty() {
            break;
        }
        decoded.clear();
        let fed =
            threads.run(chunk.len() as u64, PAR_DECODE_THRESHOLD, || stream.feed(chunk, &mut decoded))?;
        if let Err(e) = fed {
            let upto = e.offset() - (position.offset - held.len());
            up_to_error(decoder, &held, chunk, upto, 0, out).map_err(|e| out.error(e))?;
            return Err(position.failure(&name, chunk, e));
        }
        out.write_all(&decoded)?;
        keep_held(&mut held, chunk, stream.held_back());
        position.advance(chunk);
        progress.advance(chunk.len());
        if piece.short {
            out.flush()?;
        }
    }
    decoded.clear();
    if let Err(e) = stream.finish(&mut decoded) {
        let upto = e.offset() - (position.offset - held.len());
        up_to_error(decoder, &held, &[], upto, 0, out).map_err(|e| out.error(e))?;
        return Err(position.failure(&name, &[], e));
    }
    out.write_all(&decoded)
}

/// After `fed` was fed: the last `n` bytes of `held` followed by `fed`, the input bytes the
/// stream now holds back (a few at most).
fn keep_held(held: &mut Vec<u8>, fed: &[u8], n: usize) {
    let from_fed = n.min(fed.len());
    let from_held = n - from_fed;
    held.drain(..held.len() - from_held.min(held.len()));
    held.extend_from_slice(&fed[fed.len() - from_fed..]);
}

/// Completes the output of a stream that failed. The output was complete up to `held`, the
/// bytes the stream held back before `fed` was fed; the error is `upto` bytes into `held`
/// and `fed` joined, and `written` bytes of the decoding of those bytes are out already.
/// Writes the rest, so that the output is the decoding of everything before the error,
/// however the input was cut into pieces and threads. (In `--utf8 strict`, up to the UTF-8
/// sequence that the error cut short, if any: it is not text.)
fn up_to_error(
    decoder: Decoder,
    held: &[u8],
    fed: &[u8],
    upto: usize,
    written: u64,
    out: &mut impl Write,
) -> std::io::Result<()> {
    let mut before = held[..upto.min(held.len())].to_vec();
    before.extend_from_slice(&fed[..upto.saturating_sub(held.len())]);
    let decoded = loop {
        match decoder.decode(&before) {
            Ok(decoded) => break decoded.into_owned(),
            // Only a sequence cut short by the end (strict UTF-8) fails here: without it.
            Err(e) if e.offset() < before.len() => before.truncate(e.offset()),
            Err(_) => return Ok(()),
        }
    };
    let written = usize::try_from(written).unwrap_or(usize::MAX).min(decoded.len());
    out.write_all(&decoded[written..])
}

/// A writer that counts what passes through it.
struct Counted<'a, W> {
    inner: &'a mut W,
    written: u64,
}

impl<W: Write> Write for Counted<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// The failure for `error` in `input`, a regular file, with its line and column: the lines
/// before it are counted a mapped segment at a time (a 32-bit address space cannot map
/// gigabytes at once).
fn place(input: &Input, error: DecodeError) -> Failure {
    let mut position = Position::default();
    for segment in input.segments().into_iter().flatten() {
        let segment = match segment {
            Ok(segment) => segment,
            Err(failure) => return failure,
        };
        let before = error.offset() - position.offset;
        if before <= segment.len() {
            return position.failure(&input.name, &segment[..before], error);
        }
        if position.offset.checked_add(segment.len()).is_none() {
            break; // an offset saturated past 4 GiB on a 32-bit target: placed no further
        }
        position.advance(&segment);
    }
    position.failure(&input.name, &[], error)
}

/// The decoding error an error of `StreamDecoder::feed_to` stands for, if it is one.
fn decode_error(e: &std::io::Error) -> Option<DecodeError> {
    e.get_ref()?.downcast_ref::<DecodeError>().copied()
}

/// Line bookkeeping for the input read so far.
#[derive(Debug)]
struct Position {
    /// Offset of the next chunk.
    offset: usize,
    /// Line number (from 1) at `offset`.
    line: u64,
    /// Offset where that line starts.
    line_start: usize,
}

impl Default for Position {
    fn default() -> Self {
        Position { offset: 0, line: 1, line_start: 0 }
    }
}

impl Position {
    /// Moves past `chunk`. Offsets saturate at `usize::MAX`, as the decoder's do (a stream
    /// longer than 4 GiB on a 32-bit target).
    fn advance(&mut self, chunk: &[u8]) {
        self.line += memchr::memchr_iter(b'\n', chunk).count() as u64;
        if let Some(last) = memchr::memrchr(b'\n', chunk) {
            self.line_start = self.offset.saturating_add(last + 1);
        }
        self.offset = self.offset.saturating_add(chunk.len());
    }

    /// The failure for `error`, found while decoding `chunk` (the bytes at `self.offset`).
    /// An error before the chunk lies in bytes carried over from the previous one, which
    /// hold no line break, so it is on the current line.
    fn failure(&self, input: &str, chunk: &[u8], error: DecodeError) -> Failure {
        let mut here = Position { ..*self };
        if error.offset() > self.offset {
            here.advance(&chunk[..error.offset() - self.offset]);
        }
        let column = error.offset().saturating_sub(here.line_start) as u64 + 1;
        Failure::Decode { input: input.to_string(), line: here.line, column, error }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn locate(chunks: &[&[u8]], offset_in_last: usize) -> (u64, u64) {
        let mut p = Position::default();
        for c in &chunks[..chunks.len() - 1] {
            p.advance(c);
        }
        let last = chunks[chunks.len() - 1];
        let err = pctenc::decode("%").unwrap_err().shifted(p.offset + offset_in_last);
        match p.failure("x", last, err) {
            Failure::Decode { line, column, .. } => (line, column),
            _ => unreachable!(),
        }
    }

    #[test]
    fn lines_and_columns() {
        assert_eq!(locate(&[b"ab%"], 2), (1, 3));
        assert_eq!(locate(&[b"a\nb\n", b"cd%"], 2), (3, 3));
        assert_eq!(locate(&[b"a\nbc", b"d\nef%"], 4), (3, 3));
        assert_eq!(locate(&[b"a\nbc", b"%"], 0), (2, 3));
    }
}
