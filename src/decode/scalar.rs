//! The scalar decoder: `%HH` and `+` to bytes, the reference for every other backend.
//! UTF-8 handling happens afterwards, in [`super::utf8`].

use crate::{DecodeError, DecodeErrorKind, hex};

/// How far one call to [`decode`] got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Step {
    /// Input bytes consumed.
    pub read: usize,
    /// Output bytes written.
    pub written: usize,
}

/// The malformed-`%` and `+` rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Rules {
    pub lenient: bool,
    pub plus: bool,
}

impl Rules {
    /// Offset of the next byte at or after `from` that is not copied as is.
    #[inline]
    fn next_special(&self, input: &[u8], from: usize) -> usize {
        let rest = &input[from..];
        let found = if self.plus { memchr::memchr2(b'%', b'+', rest) } else { memchr::memchr(b'%', rest) };
        from + found.unwrap_or(rest.len())
    }
}

/// The byte that the escape at `input[at]` (a `%`) stands for, if it is valid.
#[inline]
fn escape_at(input: &[u8], at: usize) -> Option<u8> {
    match input.get(at + 1..at + 3)? {
        &[hi, lo] => hex::pair(hi, lo),
        _ => None,
    }
}

/// Whether more input could still make the `%` at `input[at]` valid: it is within the last
/// two bytes and whatever follows it is a hex digit.
#[inline]
fn undecided(input: &[u8], at: usize) -> bool {
    input[at + 1..].len() < 2 && input[at + 1..].iter().all(|&b| hex::value(b).is_some())
}

/// Why the `%` at `input[at]` (not a valid escape, and nothing more to come) is malformed.
fn malformed(input: &[u8], at: usize) -> DecodeError {
    let kind =
        if undecided(input, at) { DecodeErrorKind::TruncatedEscape } else { DecodeErrorKind::InvalidEscape };
    DecodeError::new(at, kind)
}

/// Decodes `input` into `out`.
///
/// Stops early, returning how far it got, when `out` is full, or (unless `last`) at a `%`
/// that the next input could complete (`%` or `%4` at the end), which the caller then
/// passes again with more input. With strict rules, a malformed `%` is an error naming its
/// offset in `input`.
pub(crate) fn decode(input: &[u8], out: &mut [u8], rules: Rules, last: bool) -> Result<Step, DecodeError> {
    let (mut read, mut written) = (0, 0);
    loop {
        // Copy the run up to the next `%` (or `+`) in bulk.
        let special = rules.next_special(input, read);
        let n = (special - read).min(out.len() - written);
        out[written..written + n].copy_from_slice(&input[read..read + n]);
        read += n;
        written += n;
        // Then decode escapes (and `+`) for as long as they follow one another.
        loop {
            if read == input.len() || written == out.len() {
                return Ok(Step { read, written });
            }
            out[written] = match input[read] {
                b'%' => {
                    if let Some(byte) = escape_at(input, read) {
                        read += 3;
                        byte
                    } else if !last && undecided(input, read) {
                        return Ok(Step { read, written });
                    } else if rules.lenient {
                        read += 1;
                        b'%'
                    } else {
                        return Err(malformed(input, read));
                    }
                }
                b'+' if rules.plus => {
                    read += 1;
                    b' '
                }
                _ => break,
            };
            written += 1;
        }
    }
}

/// Decodes `buf` in place and returns the decoded length. The output never outgrows the
/// input, so the write position never passes the read position.
pub(crate) fn decode_in_place(buf: &mut [u8], rules: Rules) -> Result<usize, DecodeError> {
    let (mut read, mut written) = (0, 0);
    loop {
        let special = rules.next_special(buf, read);
        if written != read {
            buf.copy_within(read..special, written);
        }
        written += special - read;
        read = special;
        if read == buf.len() {
            return Ok(written);
        }
        if buf[read] == b'+' {
            buf[written] = b' ';
            read += 1;
        } else if let Some(byte) = escape_at(buf, read) {
            buf[written] = byte;
            read += 3;
        } else if rules.lenient {
            buf[written] = b'%';
            read += 1;
        } else {
            return Err(malformed(buf, read));
        }
        written += 1;
    }
}

/// The offset in `input` of the bytes that decode to output byte `index` (`input.len()`
/// when `index` is the output's length). Used to turn a position in the decoded output,
/// such as an invalid UTF-8 sequence, into a position in the input.
pub(crate) fn source_offset(input: &[u8], rules: Rules, index: usize) -> usize {
    let (mut read, mut decoded) = (0, 0);
    loop {
        let special = rules.next_special(input, read);
        if decoded + (special - read) >= index {
            return read + (index - decoded);
        }
        decoded += special - read;
        read = special;
        // A `+` is one byte even when hex digits follow it (`+12` is not an escape).
        read += if input[read] == b'%' && escape_at(input, read).is_some() { 3 } else { 1 };
        decoded += 1;
        if read >= input.len() {
            return input.len();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STRICT: Rules = Rules { lenient: false, plus: false };
    const LENIENT: Rules = Rules { lenient: true, plus: false };

    fn run(input: &[u8], rules: Rules, last: bool) -> Result<(Step, Vec<u8>), DecodeError> {
        let mut out = vec![0; input.len()];
        decode(input, &mut out, rules, last).map(|s| (s, out[..s.written].to_vec()))
    }

    #[test]
    fn stops_before_an_escape_the_next_input_could_finish() {
        for (input, read) in [(&b"ab%"[..], 2), (b"ab%4", 2), (b"ab%4z", 5), (b"%%", 1), (b"a%41", 4)] {
            let got = run(input, LENIENT, false).unwrap().0.read;
            assert_eq!(got, read, "{:?}", core::str::from_utf8(input));
        }
        assert_eq!(
            run(b"%%", STRICT, false).unwrap_err(),
            DecodeError::new(0, DecodeErrorKind::InvalidEscape)
        );
        assert_eq!(
            run(b"a%", STRICT, true).unwrap_err(),
            DecodeError::new(1, DecodeErrorKind::TruncatedEscape)
        );
        assert_eq!(
            run(b"a%4", STRICT, true).unwrap_err(),
            DecodeError::new(1, DecodeErrorKind::TruncatedEscape)
        );
        assert_eq!(
            run(b"a%z", STRICT, true).unwrap_err(),
            DecodeError::new(1, DecodeErrorKind::InvalidEscape)
        );
    }

    #[test]
    fn stops_when_the_output_is_full() {
        let mut out = [0u8; 2];
        let step = decode(b"%41%42%43", &mut out, STRICT, true).unwrap();
        assert_eq!((step.read, step.written, &out), (6, 2, b"AB"));
    }

    #[test]
    fn source_offsets() {
        let input = b"a%41+%zz%C3%A9";
        let rules = Rules { lenient: true, plus: true };
        // decoded: a A ' ' % z z C3 A9
        let want = [0, 1, 4, 5, 6, 7, 8, 11, 14];
        for (index, &offset) in want.iter().enumerate() {
            assert_eq!(source_offset(input, rules, index), offset, "index {index}");
        }
    }
}
