//! Lossy output that outgrows a slice: where in the input the output stops fitting, once
//! each invalid UTF-8 sequence takes the three bytes of U+FFFD.

use super::Decoder;
use super::utf8::{self, Utf8End};
use crate::scalar::decode as scalar;

impl Decoder {
    /// For [`decode_slice`](Decoder::decode_slice) in lossy mode: `out` holds the first
    /// decoded bytes, as many as the output slice (of `room` bytes) had room for, and the
    /// input from `read` on did not fit. An escape that decodes to several bytes (or is kept
    /// as written) is written whole or not at all, so `out` may be up to 11 bytes shorter
    /// than `room`. Returns the input offset of the first byte whose lossy output does not
    /// fit. An unfinished UTF-8 sequence at the end of `out` is judged together with the
    /// decoded bytes that follow it.
    pub(super) fn lossy_overflow(&self, input: &[u8], out: &[u8], read: usize, room: usize) -> usize {
        let written = out.len();
        let tail = unfinished_tail(out);
        let fit = lossy_fit(&out[..tail], room);
        if fit < tail {
            return scalar::source_offset(input, self.rules(), fit);
        }
        // The first byte that does not fit is at most `room` (each decoded byte takes at least
        // one byte of output), which is less than `tail + 15`; the sequence that holds it ends
        // at most three bytes later. Decoding the next 60 bytes (at least 49 of them: an
        // escape's output is at most 12 bytes) shows all of that.
        let mut next = [0u8; 64];
        let kept = written - tail;
        next[..kept].copy_from_slice(&out[tail..]);
        let rest = &input[read..];
        let more = match scalar::decode_into(rest, &mut next[kept..kept + 60], self.rules(), true) {
            Ok(step) => step.written,
            Err(e) => self.decoded_before(rest, e).min(60),
        };
        let used = utf8::lossy_len(&out[..tail]).0.unwrap_or(usize::MAX);
        let fit = tail + lossy_fit(&next[..kept + more], room.saturating_sub(used));
        scalar::source_offset(input, self.rules(), fit.min(room))
    }
}

/// The index in `bytes` of the first byte whose lossy output does not fit in `room` bytes.
pub(super) fn lossy_fit(bytes: &[u8], room: usize) -> usize {
    let (mut read, mut written) = (0, 0);
    for chunk in bytes.utf8_chunks() {
        let valid = chunk.valid().len();
        if written + valid > room {
            return read + (room - written);
        }
        read += valid;
        written += valid;
        if !chunk.invalid().is_empty() {
            if written + utf8::REPLACEMENT.len() > room {
                return read;
            }
            read += chunk.invalid().len();
            written += utf8::REPLACEMENT.len();
        }
    }
    read
}

/// Where the unfinished UTF-8 sequence at the end of `bytes` starts (`bytes.len()` if there
/// is none): a sequence that the bytes after it may still complete.
pub(super) fn unfinished_tail(bytes: &[u8]) -> usize {
    match bytes.utf8_chunks().last() {
        Some(last) if utf8::check(&bytes[bytes.len() - last.invalid().len()..]) == Utf8End::Incomplete(0) => {
            bytes.len() - last.invalid().len()
        }
        _ => bytes.len(),
    }
}
