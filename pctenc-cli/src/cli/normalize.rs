//! `pctenc normalize`: RFC 3986 sections 6.2.2.1 and 6.2.2.2 (escapes' case, unreserved
//! characters decoded), streamed in place in the read buffer.
//!
//! Normalization never changes `\n` or `\r`, so line mode and binary mode are the same thing.
//! What an escape becomes depends on the two bytes after its `%` and on the two bytes before it
//! (the escape of a hex digit right after a stray `%` stays escaped), so between reads two
//! kinds of bytes go through again: a `%` or `%H` at the end of a read, which the next bytes may
//! complete into an escape, and the two bytes before it, as context.

use std::path::{Path, PathBuf};

use super::input::{CHUNK, Input};
use super::output::Output;
use super::{Failure, Skipped};

pub fn run(files: &[PathBuf], out: &mut Output) -> Result<(), Failure> {
    let mut stream = Stream::new(CHUNK);
    let mut skipped = Skipped::default();
    for path in Input::all(files) {
        let result = one(&path, &mut stream, out);
        skipped.input(result, out)?;
    }
    skipped.end()
}

/// Normalizes the input at `path`.
fn one(path: &Path, stream: &mut Stream, out: &mut Output) -> Result<(), Failure> {
    let mut input = Input::open(path)?;
    stream.restart();
    loop {
        let space = stream.space();
        let want = space.len();
        let n = input.read(space)?;
        out.write_all(stream.step(n))?;
        if n == 0 {
            return Ok(());
        }
        if n < want {
            out.flush()?;
        }
    }
}

/// One input going through the read buffer.
struct Stream {
    buf: Vec<u8>,
    /// `buf[..context]`: input already written, again as context; `buf[context..carried]`:
    /// an unfinished escape held back. Together at most four bytes.
    context: usize,
    carried: usize,
    /// What goes back to the start of `buf` (`buf[..carried]`) once the output of the last step
    /// has been written: those bytes as they were read, before normalizing overwrote them.
    keep: [u8; 4],
    restore: bool,
}

impl Stream {
    fn new(size: usize) -> Stream {
        assert!(size > 4, "room to read besides what is carried");
        Stream { buf: vec![0; size], context: 0, carried: 0, keep: [0; 4], restore: false }
    }

    /// Starts a new input: an escape never spans two inputs.
    fn restart(&mut self) {
        (self.context, self.carried, self.restore) = (0, 0, false);
    }

    /// Where to read the next bytes.
    fn space(&mut self) -> &mut [u8] {
        if std::mem::take(&mut self.restore) {
            self.buf[..self.carried].copy_from_slice(&self.keep[..self.carried]);
        }
        &mut self.buf[self.carried..]
    }

    /// Normalizes after `n` bytes were read into [`space`](Stream::space), `0` at the end of
    /// the input, and returns the output.
    fn step(&mut self, n: usize) -> &[u8] {
        let end = self.carried + n;
        let hold = if n == 0 { 0 } else { unfinished_escape(&self.buf[self.context..end]) };
        let done = end - hold;
        let keep_from = done.saturating_sub(2);
        self.keep[..end - keep_from].copy_from_slice(&self.buf[keep_from..end]);

        let len = pctenc::normalize_in_place(&mut self.buf[..done]);
        // The context comes out as it went in: no escape starts in it, since a `%` there is
        // followed, within two bytes, by the held `%` or by a byte that is not a hex digit
        // (or it would have been held).
        debug_assert!(len >= self.context);
        let output = self.context.min(len)..len;
        (self.context, self.carried, self.restore) = (done - keep_from, end - keep_from, true);
        &self.buf[output]
    }
}

/// The length of a `%` or `%H` at the end of `data`, which the next bytes may make an escape
/// (0 if there is none).
fn unfinished_escape(data: &[u8]) -> usize {
    match data {
        [.., b'%'] => 1,
        [.., b'%', h] if h.is_ascii_hexdigit() => 2,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Normalizes `input` through a buffer of `size` bytes, read `piece` bytes at a time at
    /// most.
    fn through(input: &[u8], size: usize, piece: usize) -> Vec<u8> {
        let mut stream = Stream::new(size);
        let mut out = Vec::new();
        let mut rest = input;
        loop {
            let space = stream.space();
            let n = space.len().min(piece).min(rest.len());
            space[..n].copy_from_slice(&rest[..n]);
            rest = &rest[n..];
            out.extend_from_slice(stream.step(n));
            if n == 0 {
                return out;
            }
        }
    }

    #[test]
    fn independent_of_reads() {
        let input = b"a%7e%2fb%c3%a9\r\n%%34%31%4%41%%7e%4g%41%e%%%41%4";
        let want = pctenc::normalize(input);
        assert_eq!(&want[..], b"a~%2Fb%C3%A9\r\n%%341%4%41%~%4gA%e%%%41%4");
        for size in 5..=input.len() + 1 {
            for piece in 1..=size {
                assert_eq!(through(input, size, piece), &want[..], "buffer {size}, reads of {piece}");
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { failure_persistence: None, ..Default::default() })]

        #[test]
        fn any_input_any_reads(input in "[%%%4a7eEg1~\n]{0,40}", size in 5usize..12, piece in 1usize..12) {
            let want = pctenc::normalize(input.as_bytes());
            proptest::prop_assert_eq!(through(input.as_bytes(), size, piece), &want[..]);
        }
    }

    #[test]
    fn unfinished_escapes() {
        assert_eq!(unfinished_escape(b"a%"), 1);
        assert_eq!(unfinished_escape(b"%a"), 2);
        assert_eq!(unfinished_escape(b"%%"), 1);
        assert_eq!(unfinished_escape(b"%g"), 0);
        assert_eq!(unfinished_escape(b"%41"), 0);
        assert_eq!(unfinished_escape(b""), 0);
    }
}
