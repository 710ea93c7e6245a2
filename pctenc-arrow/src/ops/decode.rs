//! Decoding as a row operation: a [`Decoder`] over each row, or, where no escape can cross
//! a row's end, over a whole chunk of values at once ([`decode_chunk`], which Spark's
//! `url_decode` uses too).

use arrow_schema::DataType;
use pctenc::{DecodeErrorKind, Decoder, Utf8Mode};

use crate::row::{Row, RowOp, span};
use crate::utf8::{is_continuation, is_utf8};

pub(crate) struct DecodeOp {
    pub(crate) dec: Decoder,
}

impl RowOp for DecodeOp {
    fn reserve(&self, values: &[u8], bounds: &[usize]) -> usize {
        decoded_bound(&self.dec, values, bounds)
    }

    fn row(&self, input: &[u8], out: &mut [u8]) -> Row {
        match self.dec.decode_slice(input, out) {
            Ok(n) => Row::Written(n),
            Err(e) if e.kind() == DecodeErrorKind::BufferTooSmall => {
                Row::Grow(e.needed().unwrap_or(input.len().saturating_mul(3)))
            }
            Err(e) => Row::Fail(e.offset(), e.kind().to_string()),
        }
    }

    fn chunk(&self, values: &[u8], bounds: &[usize], out: &mut [u8]) -> Option<(usize, Vec<usize>)> {
        decode_chunk(&self.dec, values, bounds, out)
    }
}

/// [`RowOp::chunk`] for a decoder whose every escape is `%HH` and shortens the output by two
/// bytes (strict escapes, no `%u`, nothing kept encoded, UTF-8 checked or not at all): the
/// values of a run of rows decoded in one call. That equals decoding the rows one by one
/// when no escape can cross a row's end (no `%` in a row's last two bytes), the whole
/// decoding succeeds (every `%` starts an escape: each row's do), and, when UTF-8 is
/// checked, each row's output starts at a character boundary of the (valid) whole. Each
/// row's length is then its input's less two bytes a `%`. `None` otherwise, and for any
/// row that fails: the rows then go one by one, which finds the row, the offset and the
/// reason.
pub(crate) fn decode_chunk(
    dec: &Decoder,
    values: &[u8],
    bounds: &[usize],
    out: &mut [u8],
) -> Option<(usize, Vec<usize>)> {
    let utf8 = plain_decoder(dec)?;
    let mut lens = Vec::with_capacity(bounds.len() - 1);
    for r in bounds.windows(2) {
        let row = &values[r[0]..r[1]];
        if row.len() >= 2 && row[row.len() - 2..].contains(&b'%') || row.last() == Some(&b'%') {
            return None;
        }
        let escapes = count_percent(row);
        // More `%` than room for their escapes: the row cannot decode.
        lens.push(row.len().checked_sub(2 * escapes)?);
    }
    let n = dec.decode_slice(&values[bounds[0]..bounds[bounds.len() - 1]], out).ok()?;
    if utf8 {
        // The whole is valid UTF-8; each row is if it starts at a character boundary.
        let mut at = 0;
        for &len in &lens {
            if out.get(at).is_some_and(|&b| is_continuation(b)) {
                return None;
            }
            at += len;
        }
    }
    (lens.iter().sum::<usize>() == n).then_some((n, lens))
}

/// Whether every escape `dec` decodes is `%HH`, which gives one byte (strict escapes, no
/// `%u`, nothing kept encoded, UTF-8 checked or not at all: no replacement characters): then
/// a row either fails or decodes to its length less two bytes a `%`. `Some(whether UTF-8 is
/// checked)` for such a decoder.
pub(crate) fn plain_decoder(dec: &Decoder) -> Option<bool> {
    let utf8 = match dec.utf8_value() {
        Utf8Mode::Strict => true,
        Utf8Mode::Bytes => false,
        _ => return None,
    };
    let plain =
        !dec.is_lenient() && !dec.is_legacy_u() && (0..=255).all(|b| !dec.keep_encoded_value().contains(b));
    plain.then_some(utf8)
}

/// [`RowOp::reserve`] for decoding with `dec`: for a [`plain_decoder`], the rows' lengths
/// less two bytes a `%` (exact when every row decodes; a failing row counts as empty), so
/// that the chunks' outputs need not be moved together; else the values' length (never
/// exceeded but for lossy replacements, whose rows ask for more).
pub(crate) fn decoded_bound(dec: &Decoder, values: &[u8], bounds: &[usize]) -> usize {
    if plain_decoder(dec).is_none() {
        return span(values, bounds).len();
    }
    bounds
        .windows(2)
        .map(|r| {
            let row = &values[r[0]..r[1]];
            row.len().saturating_sub(2 * count_percent(row))
        })
        .sum()
}

/// How many `%` bytes `bytes` holds. Counted in bytes, 64 at a time: the compiler turns
/// that into whole-register compares and byte adds (counting into a `usize` directly, it
/// widens every byte and goes several times slower).
pub(crate) fn count_percent(bytes: &[u8]) -> usize {
    let count = |block: &[u8]| usize::from(block.iter().fold(0u8, |n, &b| n + u8::from(b == b'%')));
    let blocks = bytes.chunks_exact(64);
    let rest = count(blocks.remainder());
    blocks.map(count).sum::<usize>() + rest
}

/// The decoder for an array of kind `dt`: for the string kinds, [`Utf8Mode::Bytes`] becomes
/// [`Utf8Mode::Strict`], since the output must be UTF-8.
pub(crate) fn decoder_for(dt: &DataType, dec: &Decoder) -> Decoder {
    if is_utf8(dt) && dec.utf8_value() == Utf8Mode::Bytes { dec.utf8(Utf8Mode::Strict) } else { *dec }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_percent_counts_every_length() {
        let bytes: Vec<u8> =
            (0..300u32).map(|i| if i * 7 % 5 == 0 || i % 64 == 63 { b'%' } else { i as u8 }).collect();
        for start in 0..70 {
            for end in start..bytes.len() {
                let row = &bytes[start..end];
                assert_eq!(count_percent(row), row.iter().filter(|&&b| b == b'%').count(), "{start}..{end}");
            }
        }
        assert_eq!(count_percent(&[b'%'; 200]), 200);
    }
}
