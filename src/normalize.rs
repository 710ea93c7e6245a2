//! [`normalize`]: RFC 3986 section 6.2.2 normalization of percent-escapes.
//!
//! Two rules, nothing else: the hex digits of every escape become uppercase (section 6.2.2.1),
//! and an escape of an unreserved character (`ALPHA / DIGIT / "-" / "." / "_" / "~"`) is
//! decoded (section 6.2.2.2). Reserved escapes (`%2F`) are never decoded, raw bytes are never
//! touched, and a `%` that does not start an escape is left as it is. Dot segments are not
//! removed (section 6.2.2.3): decoding `%2E` can even make `..` appear. The output is never
//! longer than the input, which is why the slice and in-place forms need no sizing.
//!
//! Input that is not a valid encoding needs one exception to keep its meaning: the escape of a
//! hex digit right after a `%` that starts no escape (`%%34`), or after such a `%` and one hex
//! digit (`%4%31`), stays escaped. Decoding it would turn that `%` into an escape of its own
//! (`%%34` would become `%4`, and `%4%31` would become `%41`, which is `A`). With this rule the
//! output always decodes, leniently, to the same bytes as the input.

#[cfg(feature = "alloc")]
use alloc::{borrow::Cow, vec::Vec};

use crate::{error::BufferTooSmall, hex};

/// What a changed escape becomes: one decoded byte, or the escape with uppercase digits.
#[derive(Clone, Copy)]
struct Change {
    bytes: [u8; 3],
    len: usize,
}

impl Change {
    fn bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// RFC 3986 section 2.3 unreserved characters.
fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

/// The next escape at or after `from` that normalization changes: the offset of its `%`, and
/// what its three bytes become. Bytes before `from` are never read (the in-place form has
/// overwritten them); `from` must be 0 or the end of an escape, whose bytes are not `%`.
fn next_change(input: &[u8], from: usize) -> Option<(usize, Change)> {
    let mut i = from;
    loop {
        let at = i + memchr::memchr(b'%', input.get(i..)?)?;
        let Some(&[hi, lo]) = input.get(at + 1..at + 3) else { return None };
        let Some(value) = hex::pair(hi, lo) else {
            // A `%` that starts no escape stays as it is.
            i = at + 1;
            continue;
        };
        if is_unreserved(value) && !(value.is_ascii_hexdigit() && after_loose_percent(input, from, at)) {
            return Some((at, Change { bytes: [value, 0, 0], len: 1 }));
        }
        if hi.is_ascii_lowercase() || lo.is_ascii_lowercase() {
            let upper = [b'%', hi.to_ascii_uppercase(), lo.to_ascii_uppercase()];
            return Some((at, Change { bytes: upper, len: 3 }));
        }
        i = at + 3;
    }
}

/// Whether the escape at `at` follows a `%`, or a `%` and a hex digit: that `%` then starts
/// no escape (a `%` comes too soon after it), and a hex digit decoded here would complete one.
fn after_loose_percent(input: &[u8], from: usize, at: usize) -> bool {
    let byte = |back: usize| if at >= from + back { input[at - back] } else { 0 };
    byte(1) == b'%' || (byte(2) == b'%' && byte(1).is_ascii_hexdigit())
}

/// Calls `f` on the pieces of the normalized output in order: runs of input copied as they
/// are and the changed escapes. Stops at the first `None` from `f`.
fn try_pieces(input: &[u8], mut f: impl FnMut(&[u8]) -> Option<()>) -> Option<()> {
    let mut read = 0;
    while let Some((at, change)) = next_change(input, read) {
        f(&input[read..at])?;
        f(change.bytes())?;
        read = at + 3;
    }
    f(&input[read..])
}

/// The length of the normalized output.
fn normalized_len(input: &[u8]) -> usize {
    let mut len = 0;
    let _ = try_pieces(input, |piece| {
        len += piece.len();
        Some(())
    });
    len
}

/// Normalizes the percent-escapes of `input` as RFC 3986 sections 6.2.2.1 and 6.2.2.2 say: the
/// hex digits of every escape become uppercase, and escapes of unreserved characters (letters,
/// digits, `-._~`) are decoded. Reserved escapes, raw bytes and a `%` that starts no escape are
/// kept. Borrows `input` when it is already normal.
///
/// Nothing else of section 6.2.2 is done: dot segments are not removed (section 6.2.2.3), and
/// `/a/%2e%2e/b` becomes `/a/../b`. Remove dot segments after normalizing, or refuse them,
/// before routing on a path or opening a file.
///
/// Two URIs that differ only in these ways name the same resource, so this is what to compare,
/// cache or deduplicate them by. The output decodes ([`decode_lenient`](crate::decode_lenient))
/// to the same bytes as the input, and normalizing it again changes nothing. The output of
/// valid UTF-8 is valid UTF-8.
///
/// ```
/// use std::borrow::Cow;
///
/// assert_eq!(pctenc::normalize("a%7e%2fb%c3%a9"), &b"a~%2Fb%C3%A9"[..]);
/// assert_eq!(pctenc::normalize("%41%62%2D%5f"), &b"Ab-_"[..]);
/// // A stray `%` is left alone; so is a reserved escape.
/// assert_eq!(pctenc::normalize("100% %2f"), &b"100% %2F"[..]);
/// // Nothing to change: borrowed.
/// assert!(matches!(pctenc::normalize("a%2Fb"), Cow::Borrowed(b"a%2Fb")));
/// ```
///
/// One exception keeps the meaning of input with stray `%`s: the escape of a hex digit right
/// after a `%` that starts no escape (`%%34`), or after such a `%` and one hex digit
/// (`%4%31`), stays escaped (its digits uppercased), since decoding it would make that `%` start
/// an escape (`%4` decodes differently from `%%34`).
///
/// ```
/// assert_eq!(pctenc::normalize("%%34%7e"), &b"%%34~"[..]);
/// assert_eq!(pctenc::decode_lenient("%%34"), pctenc::decode_lenient(&pctenc::normalize("%%34")));
/// ```
#[cfg(feature = "alloc")]
pub fn normalize<I: AsRef<[u8]> + ?Sized>(input: &I) -> Cow<'_, [u8]> {
    let input = input.as_ref();
    if next_change(input, 0).is_none() {
        return Cow::Borrowed(input);
    }
    let mut out = Vec::with_capacity(input.len());
    let _ = try_pieces(input, |piece| {
        out.extend_from_slice(piece);
        Some(())
    });
    Cow::Owned(out)
}

/// [`normalize`] into the start of `out`; returns the number of bytes written. Never
/// allocates and never writes past `out`. The output is never longer than the input, so an
/// `out` of `input.len()` bytes is always enough.
///
/// # Errors
///
/// [`BufferTooSmall`], with the size needed, when `out` is too small; what was written is
/// then unspecified.
///
/// # Examples
///
/// ```
/// let mut buf = [0u8; 32];
/// let n = pctenc::normalize_slice("%7euser/%c3%a9", &mut buf).unwrap();
/// assert_eq!(&buf[..n], b"~user/%C3%A9");
/// let err = pctenc::normalize_slice("%7euser", &mut buf[..4]).unwrap_err();
/// assert_eq!(err.needed(), 5);
/// ```
pub fn normalize_slice(input: impl AsRef<[u8]>, out: &mut [u8]) -> Result<usize, BufferTooSmall> {
    let input = input.as_ref();
    let mut written = 0;
    let fits = try_pieces(input, |piece| {
        out.get_mut(written..written + piece.len())?.copy_from_slice(piece);
        written += piece.len();
        Some(())
    });
    match fits {
        Some(()) => Ok(written),
        None => Err(BufferTooSmall { needed: normalized_len(input), available: out.len() }),
    }
}

/// [`normalize`] in place: normalizes `buf` and returns the new length, the result being
/// `buf[..len]` (what is left after it is unspecified). Never allocates and never fails,
/// since the output is never longer than the input.
///
/// ```
/// let mut buf = *b"/%7Euser/a%2fb";
/// let len = pctenc::normalize_in_place(&mut buf);
/// assert_eq!(&buf[..len], b"/~user/a%2Fb");
/// ```
pub fn normalize_in_place(buf: &mut [u8]) -> usize {
    let (mut read, mut written) = (0, 0);
    // `next_change` only reads from `read` on, which this loop has not written yet: every
    // change shortens or keeps the length, so `written <= read` throughout.
    while let Some((at, change)) = next_change(buf, read) {
        buf.copy_within(read..at, written);
        written += at - read;
        buf[written..written + change.len].copy_from_slice(change.bytes());
        written += change.len;
        read = at + 3;
    }
    buf.copy_within(read.., written);
    written + (buf.len() - read)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_forms(input: &[u8]) -> Vec<u8> {
        let cow = normalize(input).into_owned();
        let mut buf = vec![0xA5; input.len() + 4];
        let n = normalize_slice(input, &mut buf[..input.len()]).unwrap();
        assert_eq!(&buf[..n], &cow[..]);
        assert!(buf[input.len()..].iter().all(|&b| b == 0xA5));
        assert_eq!(normalized_len(input), n);
        if n > 0 {
            let err = normalize_slice(input, &mut buf[..n - 1]).unwrap_err();
            assert_eq!((err.needed(), err.available()), (n, n - 1));
        }
        let mut place = input.to_vec();
        let len = normalize_in_place(&mut place);
        assert_eq!(&place[..len], &cow[..]);
        cow
    }

    #[test]
    fn examples() {
        let cases: &[(&[u8], &[u8])] = &[
            (b"", b""),
            (b"a%7e%2fb%c3%a9", b"a~%2Fb%C3%A9"),
            (b"%41%5A%61%7A%30%39%2D%2E%5F%7E", b"AZaz09-._~"),
            (b"%2f%3F%23%5b%25%20%2B", b"%2F%3F%23%5B%25%20%2B"),
            (b"%", b"%"),
            (b"%4", b"%4"),
            (b"%4g%zz%", b"%4g%zz%"),
            (b"%%41", b"%%41"),
            (b"%%7e", b"%~"),
            (b"%4%31", b"%4%31"),
            (b"%4%7E", b"%4~"),
            (b"%z%31", b"%z1"),
            (b"%%34%31", b"%%341"),
            (b"1%4%41", b"1%4%41"),
            (b"\xFF%e9 +", b"\xFF%E9 +"),
        ];
        for &(input, want) in cases {
            assert_eq!(all_forms(input), want, "{}", input.escape_ascii());
        }
    }

    /// The rule after a stray `%` is the same at any starting point of the in-place loop.
    #[test]
    fn back_to_back_changes() {
        assert_eq!(all_forms(b"%41%%41%4%41%41"), b"A%%41%4%41A");
        assert_eq!(all_forms(b"%7e%25%7e"), b"~%25~");
    }
}
