//! How an [`Encoder`] splits its input when the kernels cannot take it whole: re-quoting
//! (`keep_escapes`) cuts it at each `%` into text for the kernels and escapes to copy or
//! write as `%25` ([`Encoder::try_parts`]), and an IRI set cuts it into parts for the IRI
//! set (valid UTF-8 it keeps) and for the same set without IRI ([`try_segments`]), so that
//! the kernels stay per-byte.

use super::Encoder;
use crate::{hex, set::Set};

impl Encoder {
    /// Calls `f` on the parts of `input`: all of it as text, or when re-quoting, the runs
    /// between `%`s as text and each `%` as a valid escape or a stray `%`. Stops at the first
    /// `None` from `f`.
    pub(super) fn try_parts<'a>(
        &self,
        input: &'a [u8],
        mut f: impl FnMut(Part<'a>) -> Option<()>,
    ) -> Option<()> {
        if !self.keep_escapes {
            return f(Part::Text(input));
        }
        let mut rest = input;
        loop {
            let Some(at) = memchr::memchr(b'%', rest) else {
                return if rest.is_empty() { Some(()) } else { f(Part::Text(rest)) };
            };
            if at > 0 {
                f(Part::Text(&rest[..at]))?;
            }
            match rest.get(at + 1..at + 3) {
                Some(&[hi, lo]) if hex::pair(hi, lo).is_some() => {
                    f(Part::Escape(&rest[at..at + 3]))?;
                    rest = &rest[at + 3..];
                }
                _ => {
                    f(Part::Stray)?;
                    rest = &rest[at + 1..];
                }
            }
        }
    }
}

/// A part of the input to encode (see [`Encoder::try_parts`]).
pub(super) enum Part<'a> {
    /// Bytes to encode with the set.
    Text(&'a [u8]),
    /// A valid `%HH` escape, copied as it is (re-quoting only).
    Escape(&'a [u8]),
    /// A `%` that starts no escape, written `%25` (re-quoting only).
    Stray,
}

/// Calls `f` on consecutive parts of `input` with the set to use for each: `set` itself,
/// except that with an IRI set the bytes it must not keep raw get the non-IRI set, which
/// escapes them: bytes that are not valid UTF-8, and characters outside RFC 3987's
/// `ucschar` or forbidden by it ([`crate::iri`]). Stops at the first `None` from `f`.
///
/// The two sets treat ASCII alike, so ASCII joins the part it follows, and a part ends only
/// where a non-ASCII character of the other kind starts: input such as `a\xFF` or `a\u{85}`
/// repeated is one part, not two per character (which made it 70 times slower to encode
/// than valid text).
pub(super) fn try_segments(
    input: &[u8],
    set: &Set,
    mut f: impl FnMut(&[u8], &Set) -> Option<()>,
) -> Option<()> {
    if !set.is_iri() {
        return f(input, set);
    }
    let escape_all = set.with_iri(false);
    // `input[start..pos]` is the part not handed to `f` yet; `raw`: whether it goes with
    // `set` (it holds characters kept raw) or with `escape_all`.
    let (mut start, mut pos, mut raw) = (0, 0, false);
    let mut flush = |start: &mut usize, end: usize, raw: bool| {
        let part = &input[*start..end];
        *start = end;
        if part.is_empty() { Some(()) } else { f(part, if raw { set } else { &escape_all }) }
    };
    while pos < input.len() {
        let (valid, bad) = match core::str::from_utf8(&input[pos..]) {
            Ok(_) => (input.len() - pos, 0),
            Err(e) => (e.valid_up_to(), e.error_len().unwrap_or(input.len() - pos - e.valid_up_to())),
        };
        let text = &input[pos..pos + valid];
        let mut at = 0;
        loop {
            at += crate::iri::run(&text[at..], raw);
            if at == text.len() {
                break;
            }
            // A character of the other kind: the part ends before it.
            flush(&mut start, pos + at, raw)?;
            raw = !raw;
        }
        if bad > 0 && raw {
            flush(&mut start, pos + valid, raw)?;
            raw = false;
        }
        pos += valid + bad;
    }
    flush(&mut start, input.len(), raw)
}
