//! Spark's `url_encode` and `url_decode` as row operations: the rules of [`crate::spark`]
//! (Java's decoder, Java's reading of bytes as a string) run by the kernels' scheduler.

use std::borrow::Cow;

use pctenc::{DecodeErrorKind, Encoder};

use super::decode::decode_chunk;
use crate::row::{Row, RowOp, span};
use crate::spark::{FAST, cannot_decode_url, java_string, java_url_decode};
use crate::utf8::{NOT_UTF8_INPUT, rows_are_utf8};

/// The row operation of `url_decode` and `try_url_decode`; `binary`: the values are bytes,
/// read as [`java_string`] does.
pub(crate) struct UrlDecodeOp {
    pub(crate) binary: bool,
}

impl RowOp for UrlDecodeOp {
    fn reserve(&self, values: &[u8], bounds: &[usize]) -> usize {
        // Java's output is never longer than its input (an escape of 3 bytes gives at most
        // the 3 bytes of one U+FFFD), so no string row asks for more; a binary value read as
        // a string can be longer (that row asks for more). A tighter size (the fast path's)
        // would send every chunk holding one U+FFFD row row by row into a buffer of its own.
        span(values, bounds).len()
    }

    fn row(&self, input: &[u8], out: &mut [u8]) -> Row {
        let string = if self.binary { java_string(input) } else { Cow::Borrowed(input) };
        match Self::string_row(&string, out) {
            // The offset of the `%` at fault in the bytes given: ASCII bytes are kept one for
            // one in Java's string (a malformed sequence never takes one in), so it is the
            // same `%` counted from the start.
            Row::Fail(offset, message) if matches!(string, Cow::Owned(_)) => {
                let nth = string[..offset].iter().filter(|&&b| b == b'%').count();
                let raw =
                    input.iter().enumerate().filter(|&(_, &b)| b == b'%').nth(nth).map_or(offset, |(i, _)| i);
                Row::Fail(raw, message)
            }
            other => other,
        }
    }

    fn chunk(&self, values: &[u8], bounds: &[usize], out: &mut [u8]) -> Option<(usize, Vec<usize>)> {
        if self.binary && !rows_are_utf8(values, bounds) {
            return None;
        }
        // Where the fast path decodes every row, its output is Java's.
        decode_chunk(&FAST, values, bounds, out)
    }
}

impl UrlDecodeOp {
    /// One row of UTF-8 `input`.
    fn string_row(input: &[u8], out: &mut [u8]) -> Row {
        match FAST.decode_slice(input, out) {
            Ok(n) => return Row::Written(n),
            Err(e) if e.kind() == DecodeErrorKind::BufferTooSmall => return Row::Grow(input.len()),
            Err(_) => {}
        }
        // A string column's row that is not UTF-8 (Arrow data that broke the rule: a binary
        // column viewed as strings) has no Java string: it fails, or is null for
        // `try_url_decode`. (A binary row was read as Java's string before it came here.)
        if let Err(e) = std::str::from_utf8(input) {
            return Row::Fail(e.valid_up_to(), NOT_UTF8_INPUT.into());
        }
        let mut decoded = Vec::with_capacity(input.len());
        match java_url_decode(input, &mut decoded) {
            Ok(()) if decoded.len() <= out.len() => {
                out[..decoded.len()].copy_from_slice(&decoded);
                Row::Written(decoded.len())
            }
            Ok(()) => Row::Grow(decoded.len()),
            Err(e) => Row::Fail(e.offset, cannot_decode_url(&String::from_utf8_lossy(input))),
        }
    }
}

/// The row operation of `url_encode`: the `form` set (`java.net.URLEncoder`); `binary`: the
/// values are bytes, read as [`java_string`] does.
pub(crate) struct UrlEncodeOp {
    pub(crate) binary: bool,
}

const FORM: Encoder = Encoder::new(pctenc::sets::FORM);

impl RowOp for UrlEncodeOp {
    fn reserve(&self, values: &[u8], bounds: &[usize]) -> usize {
        // Exact for UTF-8 values; a binary row with malformed bytes asks for more.
        FORM.encoded_len(span(values, bounds))
    }

    fn row(&self, input: &[u8], out: &mut [u8]) -> Row {
        let input = if self.binary { java_string(input) } else { Cow::Borrowed(input) };
        match FORM.encode_slice(&input, out) {
            Ok(n) => Row::Written(n),
            Err(e) => Row::Grow(e.needed()),
        }
    }

    /// As `EncodeOp::measure`: the form set escapes byte by byte. A binary run is measured
    /// so only when its rows are UTF-8 (then [`java_string`] changes nothing).
    fn measure(&self, values: &[u8], bounds: &[usize]) -> Option<Vec<usize>> {
        if self.binary && !rows_are_utf8(values, bounds) {
            return None;
        }
        Some(FORM.encoded_lens(values, bounds))
    }

    fn write(&self, span: &[u8], out: &mut [u8]) -> Option<usize> {
        FORM.encode_slice(span, out).ok()
    }

    /// What an encoder writes is UTF-8 whatever its input (`EncodeOp::output_is_utf8`); a
    /// binary row is first read as Java's `String`, which is UTF-8 too.
    fn output_is_utf8(&self) -> bool {
        true
    }

    /// The `form` set escapes `%` and `+` (`EncodeOp::injective`); a binary row's malformed
    /// bytes all read as U+FFFD, so two binary values may give one output.
    fn injective(&self) -> bool {
        !self.binary
    }
}
