//! Which problem a [`Decoder`] reports, and where: an input with several problems gets the
//! first one a left-to-right reader meets, and a UTF-8 error found in the output is mapped
//! back to its offset in the input. And `check_whole`, the allocation-free check of a whole
//! input that in-place decoding and sizing run first.

use super::utf8::{self, Utf8End};
use super::{Decoder, Utf8Mode};
use crate::scalar::decode as scalar;
use crate::{error::DecodeError, error::DecodeErrorKind};

impl Decoder {
    /// Applies the UTF-8 mode to `decoded` (the decoding of `input`) in strict mode: the
    /// error, if any.
    pub(super) fn check_utf8(&self, input: &[u8], decoded: &[u8]) -> Result<(), DecodeError> {
        match utf8::check(decoded) {
            Utf8End::Valid => Ok(()),
            Utf8End::Invalid(at) | Utf8End::Incomplete(at) => Err(self.utf8_error(input, at)),
        }
    }

    pub(super) fn utf8_error(&self, input: &[u8], decoded_index: usize) -> DecodeError {
        DecodeError::new(
            scalar::source_offset(input, self.rules(), decoded_index),
            DecodeErrorKind::InvalidUtf8,
        )
    }

    /// The error to report when the byte decoder failed with `err` after writing `decoded`:
    /// an invalid UTF-8 sequence that ended before the bad `%` comes first.
    pub(super) fn first_error(&self, input: &[u8], decoded: &[u8], err: DecodeError) -> DecodeError {
        match (self.utf8, utf8::check(decoded)) {
            (Utf8Mode::Strict, Utf8End::Invalid(at)) => self.utf8_error(input, at),
            _ => err,
        }
    }

    /// How many bytes the input before the error at `e` decodes to.
    pub(super) fn decoded_before(&self, input: &[u8], e: DecodeError) -> usize {
        // Only reached on the error path; decoding the prefix again is simpler than
        // threading the count out of the hot loop.
        let mut scratch = [0u8; 256];
        let mut total = 0;
        let mut rest = &input[..e.offset];
        while !rest.is_empty() {
            match scalar::decode_into(rest, &mut scratch, self.rules(), true) {
                Ok(step) if step.read > 0 => {
                    total += step.written;
                    rest = &rest[step.read..];
                }
                // The prefix before the first error decodes, and every call gets on (an
                // escape's output is at most 12 bytes): not reached. Stop rather than panic.
                _ => {
                    debug_assert!(false, "prefix before the first error decodes");
                    break;
                }
            }
        }
        total
    }

    /// Checks that `input` decodes without error (escapes and UTF-8), in fixed-size pieces
    /// so that nothing is allocated.
    pub(super) fn check_whole(&self, input: &[u8]) -> Result<(), DecodeError> {
        const PIECE: usize = 512;
        let mut buf = [0u8; PIECE + 4];
        // Bytes of an unfinished UTF-8 sequence carried to the next piece, and the input
        // offset where that sequence starts.
        let (mut carried, mut carried_at) = (0, 0);
        let mut read = 0;
        loop {
            let rest = &input[read..];
            let step = match self.bytes_into(rest, &mut buf[carried..carried + PIECE], true) {
                Ok(step) => step,
                Err(e) => {
                    let before = self.decoded_before(rest, e);
                    if let Utf8End::Invalid(at) = utf8::check(&buf[..carried + before]) {
                        return Err(self.piece_error(rest, read, carried, carried_at, at));
                    }
                    return Err(e.shifted(read));
                }
            };
            let end = carried + step.written;
            let done = read + step.read == input.len();
            match utf8::check(&buf[..end]) {
                Utf8End::Valid => carried = 0,
                Utf8End::Invalid(at) => return Err(self.piece_error(rest, read, carried, carried_at, at)),
                Utf8End::Incomplete(at) if done => {
                    return Err(self.piece_error(rest, read, carried, carried_at, at));
                }
                Utf8End::Incomplete(at) => {
                    if at >= carried {
                        carried_at = read + scalar::source_offset(rest, self.rules(), at - carried);
                    }
                    buf.copy_within(at..end, 0);
                    carried = end - at;
                }
            }
            read += step.read;
            if done {
                return Ok(());
            }
        }
    }

    /// The UTF-8 error at index `at` of a piece made of `carried` carried bytes followed by
    /// the decoding of `rest`, which starts at input offset `read`.
    pub(super) fn piece_error(
        &self,
        rest: &[u8],
        read: usize,
        carried: usize,
        carried_at: usize,
        at: usize,
    ) -> DecodeError {
        let offset = if at < carried {
            carried_at
        } else {
            read + scalar::source_offset(rest, self.rules(), at - carried)
        };
        DecodeError::new(offset, DecodeErrorKind::InvalidUtf8)
    }
}
