//! The scalar decoder: `%HH` and `+` to bytes, the reference for every other backend.
//! UTF-8 handling happens afterwards, in `crate::decode::utf8`.

use core::mem::MaybeUninit;

use crate::kernel_io::{Rules, Step, put};
use crate::{error::DecodeError, error::DecodeErrorKind, hex};

/// What the scalar decoder asks of the rules.
impl Rules {
    /// Offset of the next byte at or after `from` that is not copied as is.
    #[inline]
    fn next_special(&self, input: &[u8], from: usize) -> usize {
        let rest = &input[from..];
        // Under 16 bytes a plain loop finds it sooner than a call into `memchr`, whose setup
        // costs more than such a scan: a proxy's short values end here.
        if rest.len() < 16 {
            let plus = self.plus;
            return from + rest.iter().position(|&b| b == b'%' || (plus && b == b'+')).unwrap_or(rest.len());
        }
        let found = if self.plus { memchr::memchr2(b'%', b'+', rest) } else { memchr::memchr(b'%', rest) };
        from + found.unwrap_or(rest.len())
    }

    /// Whether an escape that decodes to `byte` is copied as written.
    #[inline]
    fn keeps(&self, byte: u8) -> bool {
        if byte < 128 { self.keep >> byte & 1 != 0 } else { self.keep_high }
    }

    /// Whether an escape that decodes to `byte` is an error.
    #[inline]
    fn rejects(&self, byte: u8) -> bool {
        byte < 128 && self.reject >> byte & 1 != 0
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
#[cold]
fn malformed(input: &[u8], at: usize, rules: Rules) -> DecodeError {
    let kind = if rules.legacy_u && input.get(at + 1) == Some(&b'u') {
        // `%u` is never `%HH`: with `%uHHHH` escapes it is one of them gone wrong.
        if undecided_u(input, at) {
            DecodeErrorKind::TruncatedUEscape
        } else {
            DecodeErrorKind::InvalidUEscape
        }
    } else if undecided(input, at) {
        DecodeErrorKind::TruncatedEscape
    } else {
        DecodeErrorKind::InvalidEscape
    };
    DecodeError::new(at, kind)
}

/// With `%uHHHH` escapes: whether `input[at..]` is `%u` and fewer than four hex digits, all
/// at the end, which more input could make an escape.
fn undecided_u(input: &[u8], at: usize) -> bool {
    match input.get(at + 1..) {
        Some([b'u', digits @ ..]) => digits.len() < 4 && digits.iter().all(|&b| hex::value(b).is_some()),
        _ => false,
    }
}

/// The code unit that the `%uHHHH` at `input[at]` spells, if that is what is there.
fn unit_at(input: &[u8], at: usize) -> Option<u16> {
    match *input.get(at..at.checked_add(6)?)? {
        [b'%', b'u', a, b, c, d] => {
            let digit = |x: u8| hex::value(x).map(u16::from);
            Some(digit(a)? << 12 | digit(b)? << 8 | digit(c)? << 4 | digit(d)?)
        }
        _ => None,
    }
}

/// Whether `rest`, the whole input after a high-surrogate escape, is the start of a
/// low-surrogate escape `%uDC00`..`%uDFFF` that more input could finish.
fn could_be_low_surrogate(rest: &[u8]) -> bool {
    rest.len() < 6
        && rest.iter().enumerate().all(|(i, &b)| match i {
            0 => b == b'%',
            1 => b == b'u',
            2 => matches!(b, b'D' | b'd'),
            3 => matches!(b, b'C'..=b'F' | b'c'..=b'f'),
            _ => hex::value(b).is_some(),
        })
}

/// What the `%` at the start of an escape stands for, under rules that are not basic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Escape {
    /// `len` input bytes decode to `bytes[..n]`.
    Decoded { bytes: [u8; 4], n: usize, len: usize },
    /// `len` input bytes are copied as written.
    Kept(usize),
    /// More input could change what this `%` starts (never when `last`).
    Undecided,
    /// A `%` that starts no escape: copied (lenient) or an error (strict).
    Malformed,
    /// An error even in lenient mode.
    Error(DecodeErrorKind),
}

/// The escape `%HH` or `%uHHHH` (`len` input bytes) that decodes to the one byte `byte`.
fn one_byte(byte: u8, len: usize, rules: Rules) -> Escape {
    if rules.keeps(byte) {
        Escape::Kept(len)
    } else if rules.rejects(byte) {
        Escape::Error(DecodeErrorKind::Forbidden(byte))
    } else {
        Escape::Decoded { bytes: [byte, 0, 0, 0], n: 1, len }
    }
}

/// What the `%` at `input[at]` starts (see [`Escape`]).
fn escape(input: &[u8], at: usize, rules: Rules, last: bool) -> Escape {
    if let Some(byte) = escape_at(input, at) {
        return one_byte(byte, 3, rules);
    }
    if rules.legacy_u && input.get(at + 1) == Some(&b'u') {
        return u_escape(input, at, rules, last);
    }
    if !last && undecided(input, at) { Escape::Undecided } else { Escape::Malformed }
}

/// What the `%u` at `input[at]` starts: a `%uHHHH` escape, a pair of them (a high surrogate
/// then a low one), a lone surrogate, or a malformed `%`.
fn u_escape(input: &[u8], at: usize, rules: Rules, last: bool) -> Escape {
    let Some(unit) = unit_at(input, at) else {
        return if !last && undecided_u(input, at) { Escape::Undecided } else { Escape::Malformed };
    };
    let (code_point, len) = match unit {
        0xD800..=0xDBFF => match unit_at(input, at + 6) {
            Some(low @ 0xDC00..=0xDFFF) => {
                (0x10000 + ((u32::from(unit) - 0xD800) << 10 | (u32::from(low) - 0xDC00)), 12)
            }
            _ if !last && could_be_low_surrogate(&input[at + 6..]) => return Escape::Undecided,
            _ => (u32::from(unit), 6),
        },
        _ => (u32::from(unit), 6),
    };
    // Surrogates left unpaired are not characters.
    let Some(c) = char::from_u32(code_point) else {
        return if rules.lenient {
            Escape::Decoded { bytes: [0xEF, 0xBF, 0xBD, 0], n: 3, len }
        } else {
            Escape::Error(DecodeErrorKind::LoneSurrogate)
        };
    };
    let mut bytes = [0u8; 4];
    let n = c.encode_utf8(&mut bytes).len();
    if n == 1 {
        one_byte(bytes[0], len, rules)
    } else if rules.keep_high {
        // Every byte of a non-ASCII character is in 0x80..=0xFF; none is ever rejected.
        Escape::Kept(len)
    } else {
        Escape::Decoded { bytes, n, len }
    }
}

/// Decodes `input` into `out`.
///
/// Stops early, returning how far it got, when `out` is full (or, with rules that are not
/// basic, has no room for the whole output of the next escape), or (unless `last`) at a `%`
/// that the next input could complete or change (`%` or `%4` at the end; with `%uHHHH`
/// escapes also `%u`, `%u0`, `%u00`, `%u004`, and a high surrogate `%uD83D` followed by at
/// most the first five bytes of a low one, `%uDE0`), which the caller then passes again
/// with more input: at most 11 bytes. With strict rules, a malformed `%` is an error naming
/// its offset in `input`; so are a lone surrogate (strict) and a rejected byte.
pub(crate) fn decode(
    input: &[u8],
    out: &mut [MaybeUninit<u8>],
    rules: Rules,
    last: bool,
) -> Result<Step, DecodeError> {
    if !rules.is_basic() {
        return decode_extended(input, out, rules, last);
    }
    let (mut read, mut written) = (0, 0);
    loop {
        // Copy the run up to the next `%` (or `+`) in bulk.
        let special = rules.next_special(input, read);
        let n = (special - read).min(out.len() - written);
        put(&mut out[written..], &input[read..read + n]);
        read += n;
        written += n;
        // Then decode escapes (and `+`) for as long as they follow one another.
        loop {
            if read == input.len() || written == out.len() {
                return Ok(Step { read, written });
            }
            out[written] = MaybeUninit::new(match input[read] {
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
                        return Err(malformed(input, read, rules));
                    }
                }
                b'+' if rules.plus => {
                    read += 1;
                    b' '
                }
                _ => break,
            });
            written += 1;
        }
    }
}

/// [`decode`] into initialised bytes, which stay initialised.
pub(crate) fn decode_into(
    input: &[u8],
    out: &mut [u8],
    rules: Rules,
    last: bool,
) -> Result<Step, DecodeError> {
    // SAFETY: the decoder writes only bytes.
    decode(input, unsafe { crate::kernel_io::as_uninit(out) }, rules, last)
}

/// [`decode`] under rules that are not basic. An escape's output is written whole or not at
/// all: when it does not fit, decoding stops before its `%`.
#[inline(never)]
fn decode_extended(
    input: &[u8],
    out: &mut [MaybeUninit<u8>],
    rules: Rules,
    last: bool,
) -> Result<Step, DecodeError> {
    let (mut read, mut written) = (0, 0);
    loop {
        let special = rules.next_special(input, read);
        let n = (special - read).min(out.len() - written);
        put(&mut out[written..], &input[read..read + n]);
        read += n;
        written += n;
        if read == input.len() || written == out.len() {
            return Ok(Step { read, written });
        }
        let (len, n) = if input[read] == b'+' {
            out[written] = MaybeUninit::new(b' ');
            (1, 1)
        } else {
            match escape(input, read, rules, last) {
                Escape::Decoded { bytes, n, len } => {
                    let Some(to) = out.get_mut(written..written + n) else {
                        return Ok(Step { read, written });
                    };
                    put(to, &bytes[..n]);
                    (len, n)
                }
                Escape::Kept(len) => {
                    let Some(to) = out.get_mut(written..written + len) else {
                        return Ok(Step { read, written });
                    };
                    put(to, &input[read..read + len]);
                    (len, len)
                }
                Escape::Undecided => return Ok(Step { read, written }),
                Escape::Malformed if rules.lenient => {
                    out[written] = MaybeUninit::new(b'%');
                    (1, 1)
                }
                Escape::Malformed => return Err(malformed(input, read, rules)),
                Escape::Error(kind) => return Err(DecodeError::new(read, kind)),
            }
        };
        read += len;
        written += n;
    }
}

/// Decodes `buf` in place and returns the decoded length. The output never outgrows the
/// input, so the write position never passes the read position.
pub(crate) fn decode_in_place(buf: &mut [u8], rules: Rules) -> Result<usize, DecodeError> {
    if !rules.is_basic() {
        return decode_in_place_extended(buf, rules);
    }
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
            return Err(malformed(buf, read, rules));
        }
        written += 1;
    }
}

/// [`decode_in_place`] under rules that are not basic. Every escape's output is at most as
/// long as the escape (a kept one is the same length), so the write position still never
/// passes the read position.
#[inline(never)]
fn decode_in_place_extended(buf: &mut [u8], rules: Rules) -> Result<usize, DecodeError> {
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
        let (len, n) = if buf[read] == b'+' {
            buf[written] = b' ';
            (1, 1)
        } else {
            match escape(buf, read, rules, true) {
                Escape::Decoded { bytes, n, len } => {
                    buf[written..written + n].copy_from_slice(&bytes[..n]);
                    (len, n)
                }
                Escape::Kept(len) => {
                    buf.copy_within(read..read + len, written);
                    (len, len)
                }
                Escape::Malformed | Escape::Undecided if rules.lenient => {
                    buf[written] = b'%';
                    (1, 1)
                }
                Escape::Malformed | Escape::Undecided => return Err(malformed(buf, read, rules)),
                Escape::Error(kind) => return Err(DecodeError::new(read, kind)),
            }
        };
        read += len;
        written += n;
    }
}

/// The offset in `input` of the bytes that decode to output byte `index` (`input.len()`
/// when `index` is the output's length). Used to turn a position in the decoded output,
/// such as an invalid UTF-8 sequence, into a position in the input. An escape that decodes
/// to several bytes (or is kept as written) is one unit: each of its output bytes maps to
/// its `%`.
pub(crate) fn source_offset(input: &[u8], rules: Rules, index: usize) -> usize {
    let (mut read, mut decoded) = (0, 0);
    loop {
        let special = rules.next_special(input, read);
        if decoded + (special - read) >= index {
            return read + (index - decoded);
        }
        decoded += special - read;
        read = special;
        if read >= input.len() {
            return input.len();
        }
        // A `+` is one byte even when hex digits follow it (`+12` is not an escape).
        let (len, n) = if input[read] == b'+' {
            (1, 1)
        } else if rules.is_basic() {
            if escape_at(input, read).is_some() { (3, 1) } else { (1, 1) }
        } else {
            match escape(input, read, rules, true) {
                Escape::Decoded { n, len, .. } => (len, n),
                Escape::Kept(len) => (len, len),
                Escape::Malformed | Escape::Undecided => (1, 1),
                // Nothing decodes past an error.
                Escape::Error(_) => return read,
            }
        };
        if decoded + n > index {
            return read;
        }
        read += len;
        decoded += n;
        if read >= input.len() {
            return input.len();
        }
    }
}

/// [`source_offset`] counted back from `end` (a token boundary), for vectorizable rules
/// (every escape `%HH`, one output byte): the offset of the bytes that decode to the output
/// byte `back` bytes before the decoding of `input[..end]` ends. Reading backwards is exact
/// here: a `%HH` that ends a token boundary is always an escape, since its `%` cannot be a
/// digit of an escape before it. It costs `back` steps instead of a pass over the input.
#[cfg(feature = "alloc")]
pub(crate) fn source_offset_back(input: &[u8], end: usize, back: usize) -> usize {
    let mut at = end;
    for _ in 0..back {
        let escape = at >= 3 && input[at - 3] == b'%' && escape_at(input, at - 3).is_some();
        at = at.saturating_sub(if escape { 3 } else { 1 });
    }
    at
}

/// How many `%` in `input[from..]` start a valid escape (are followed by two hex digits
/// within `input`).
#[cfg_attr(not(feature = "rayon"), allow(dead_code))]
pub(crate) fn count_valid_escapes(input: &[u8], from: usize) -> usize {
    memchr::memchr_iter(b'%', &input[from..]).filter(|&i| escape_at(input, from + i).is_some()).count()
}

#[cfg(test)]
mod tests {
    #[test]
    fn source_offset_back_agrees_with_source_offset() {
        let rules = [
            Rules { lenient: true, plus: true, legacy_u: false, keep: 0, keep_high: false, reject: 0 },
            Rules { lenient: false, plus: false, legacy_u: false, keep: 0, keep_high: false, reject: 0 },
        ];
        for input in [&b"a%41%%42+%4%zz%C3%A9x"[..], b"%41%42", b"%%%41", b"abc", b""] {
            for rules in rules {
                let mut out = [MaybeUninit::uninit(); 64];
                let Ok(step) = decode(input, &mut out, rules, true) else { continue };
                for back in 0..=step.written {
                    let forward = source_offset(input, rules, step.written - back);
                    assert_eq!(source_offset_back(input, step.read, back), forward, "{input:?} back {back}");
                }
            }
        }
    }

    use super::*;

    const STRICT: Rules = Rules::basic(false, false);
    const LENIENT: Rules = Rules::basic(true, false);

    fn run(input: &[u8], rules: Rules, last: bool) -> Result<(Step, Vec<u8>), DecodeError> {
        let mut out = vec![0; input.len()];
        // SAFETY: the decoder writes only bytes.
        decode(input, unsafe { crate::kernel_io::as_uninit(&mut out) }, rules, last)
            .map(|s| (s, out[..s.written].to_vec()))
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
    fn legacy_u_holds_back_what_more_input_could_pair() {
        let rules = Rules { legacy_u: true, ..LENIENT };
        assert!(!rules.is_basic() && LENIENT.is_basic() && STRICT.is_basic());
        let cases: &[(&[u8], usize)] = &[
            (b"a%u", 1),
            (b"a%u00", 1),
            (b"a%u004", 1),
            (b"a%uD83D", 1),
            (b"a%uD83D%", 1),
            (b"a%uD83D%uDE0", 1),
            (b"a%uD83D%udf", 1),
            // The high surrogate is lone (what follows cannot be a low one); what follows
            // may still be an escape.
            (b"a%uD83D%uDB", 7),
            (b"a%uD83D%D", 7),
            (b"a%uD83D%uDE0z", 13),
            (b"a%u004z", 7),
            (b"a%uD83D%uDE00", 13),
        ];
        for &(input, read) in cases {
            let got = run(input, rules, false).unwrap().0.read;
            assert_eq!(got, read, "{:?}", core::str::from_utf8(input));
        }
        let strict = Rules { legacy_u: true, ..STRICT };
        assert_eq!(
            run(b"%uD83D%uDE0z", strict, false).unwrap_err(),
            DecodeError::new(0, DecodeErrorKind::LoneSurrogate)
        );
        assert_eq!(
            run(b"%uD83D", strict, true).unwrap_err(),
            DecodeError::new(0, DecodeErrorKind::LoneSurrogate)
        );
        assert_eq!(
            run(b"%u12", strict, true).unwrap_err(),
            DecodeError::new(0, DecodeErrorKind::TruncatedUEscape)
        );
        assert_eq!(
            run(b"%u12z", strict, true).unwrap_err(),
            DecodeError::new(0, DecodeErrorKind::InvalidUEscape)
        );
    }

    #[test]
    fn stops_when_the_output_is_full() {
        let mut out = [0u8; 2];
        // SAFETY: the decoder writes only bytes.
        let step =
            decode(b"%41%42%43", unsafe { crate::kernel_io::as_uninit(&mut out) }, STRICT, true).unwrap();
        assert_eq!((step.read, step.written, &out), (6, 2, b"AB"));
    }

    #[test]
    fn source_offsets() {
        let input = b"a%41+%zz%C3%A9";
        let rules = Rules::basic(true, true);
        // decoded: a A ' ' % z z C3 A9
        let want = [0, 1, 4, 5, 6, 7, 8, 11, 14];
        for (index, &offset) in want.iter().enumerate() {
            assert_eq!(source_offset(input, rules, index), offset, "index {index}");
        }
    }
}
