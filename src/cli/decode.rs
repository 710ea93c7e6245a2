//! `pctenc decode`: streams each input through a [`StreamDecoder`] and turns an error's byte
//! offset into a line and column.

use std::path::{Path, PathBuf};

use pctenc::{DecodeError, Decoder, PAR_DECODE_THRESHOLD, StreamDecoder};

use super::{Failure, Skipped};
use super::input::{CHUNK, Input, each_segment};
use super::output::Output;
use super::progress::Progress;
use super::threads::Threads;

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

/// Decodes the input at `path`.
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
    if let Some(segments) = input.segments() {
        // A regular file: big segments, decoded on every thread; lines are only counted
        // when there is an error to place.
        let fed = threads.run(segments.remaining(), PAR_DECODE_THRESHOLD, || {
            each_segment(segments, |segment| stream.feed_to(segment, out), |n| progress.advance(n))
        })??;
        if let Err(e) = fed {
            return Err(match decode_error(&e) {
                Some(e) => place(&input, e),
                None => out.error(e),
            });
        }
        let mut decoded = Vec::new();
        stream.finish(&mut decoded).map_err(|e| place(&input, e))?;
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
        let fed = threads.run(chunk.len() as u64, PAR_DECODE_THRESHOLD, || stream.feed(chunk, &mut decoded))?;
        fed.map_err(|e| position.failure(&name, chunk, e))?;
        out.write_all(&decoded)?;
        position.advance(chunk);
        progress.advance(chunk.len());
        if piece.short {
            out.flush()?;
        }
    }
    decoded.clear();
    stream.finish(&mut decoded).map_err(|e| position.failure(&name, &[], e))?;
    out.write_all(&decoded)
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
