//! [`PercentEncode`]: encoding as an iterator of `&str` pieces, for `Display` and for code
//! written against the `percent-encoding` crate.

use core::fmt;

use crate::{hex, set::Set};

/// The lazy encoding of a byte slice: an iterator over pieces of the output, each a `&str`
/// (a run of input bytes the set keeps, borrowed from the input; or one `%HH` escape, written
/// or, when [re-quoting](crate::Encoder::keep_escapes), copied from the input; or `"+"`), that
/// also implements `Display`. Nothing is allocated.
///
/// Made by [`percent_encode`](crate::percent_encode), [`utf8_percent_encode`](crate::utf8_percent_encode)
/// and [`Encoder::lazy`](crate::Encoder::lazy). It is the counterpart of the
/// `percent-encoding` crate's `PercentEncode`, with the same uses:
///
/// ```
/// use pctenc::{percent_encode, sets};
///
/// // Display: write into any formatter without an intermediate String.
/// let url = format!("https://example.org/{}", percent_encode(b"a b", &sets::PATH));
/// assert_eq!(url, "https://example.org/a%20b");
///
/// // Iterator: the pieces, or collect them.
/// let s: String = percent_encode(b"100%", &sets::COMPONENT).collect();
/// assert_eq!(s, "100%25");
///
/// // Into a Cow, borrowed when nothing needed escaping.
/// let cow: std::borrow::Cow<str> = percent_encode(b"plain", &sets::COMPONENT).into();
/// assert!(matches!(cow, std::borrow::Cow::Borrowed("plain")));
/// ```
#[derive(Clone, Debug)]
pub struct PercentEncode<'a> {
    rest: &'a [u8],
    set: Set,
    escapes: &'static str,
    /// Re-quoting: a valid `%HH` is copied, a stray `%` is written `%25`.
    keep_escapes: bool,
    /// IRI sets only: how many bytes at the start of `rest` are known to be ASCII and
    /// characters the set keeps raw, and how many non-ASCII bytes after those are known to be
    /// escaped (an invalid UTF-8 sequence, or characters the set does not keep,
    /// [`crate::iri`]).
    valid: usize,
    invalid: usize,
    /// IRI sets only: how many bytes at the start of `rest` are known to be valid UTF-8, and
    /// how many after those are known not to be. Measured once for all the characters in
    /// them, however many runs they split into.
    utf8: usize,
    bad: usize,
}

impl<'a> PercentEncode<'a> {
    pub(crate) fn new(
        input: &'a [u8],
        set: Set,
        escapes: &'static str,
        keep_escapes: bool,
    ) -> PercentEncode<'a> {
        PercentEncode { rest: input, set, escapes, keep_escapes, valid: 0, invalid: 0, utf8: 0, bad: 0 }
    }

    /// Whether byte `i` of `rest` is copied as is. For IRI sets, `valid`/`invalid` must
    /// describe `rest` (see [`refresh`](Self::refresh)).
    #[inline]
    fn kept(&self, i: usize) -> bool {
        let b = self.rest[i];
        if b < 0x80 {
            !(self.set.contains(b) || (self.keep_escapes && b == b'%'))
        } else {
            self.set.is_iri() && i < self.valid
        }
    }

    /// For IRI sets: measures the run of kept characters at the start of `rest`, or the run
    /// of escaped ones, once the previous measurement has been used up.
    fn refresh(&mut self) {
        if !self.set.is_iri() || self.valid != 0 || self.invalid != 0 {
            return;
        }
        if self.utf8 == 0 && self.bad == 0 {
            match core::str::from_utf8(self.rest) {
                Ok(_) => self.utf8 = self.rest.len(),
                Err(e) => {
                    self.utf8 = e.valid_up_to();
                    self.bad = e.error_len().unwrap_or(self.rest.len() - self.utf8);
                }
            }
        }
        let text = &self.rest[..self.utf8];
        self.valid = crate::iri::run(text, true);
        if self.valid == 0 {
            self.invalid = if text.is_empty() { self.bad } else { crate::iri::run(text, false) };
        }
    }

    fn advance(&mut self, n: usize) -> &'a [u8] {
        let (piece, rest) = self.rest.split_at(n);
        self.rest = rest;
        let from_valid = n.min(self.valid);
        self.valid -= from_valid;
        self.invalid -= (n - from_valid).min(self.invalid);
        let from_utf8 = n.min(self.utf8);
        self.utf8 -= from_utf8;
        self.bad -= (n - from_utf8).min(self.bad);
        piece
    }
}

impl<'a> Iterator for PercentEncode<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let &first = self.rest.first()?;
        self.refresh();
        if !self.kept(0) {
            if first == b'%' && self.keep_escapes {
                if let Some(&[hi, lo]) = self.rest.get(1..3)
                    && hex::pair(hi, lo).is_some()
                {
                    let escape = self.advance(3);
                    return Some(core::str::from_utf8(escape).expect("an escape is ASCII"));
                }
                self.advance(1);
                return Some("%25");
            }
            self.advance(1);
            if first == b' ' && self.set.space_as_plus() {
                return Some("+");
            }
            let i = 3 * usize::from(first);
            return Some(&self.escapes[i..i + 3]);
        }
        let run = (1..self.rest.len()).find(|&i| !self.kept(i)).unwrap_or(self.rest.len());
        let piece = self.advance(run);
        // A kept run is ASCII, or (IRI) lies inside a run of ASCII and whole kept characters
        // and ends where that run ends or before an ASCII byte, so it is valid UTF-8 on its
        // own.
        Some(core::str::from_utf8(piece).expect("kept runs are valid UTF-8"))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (usize::from(!self.rest.is_empty()), Some(self.rest.len()))
    }
}

impl fmt::Display for PercentEncode<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.clone().try_for_each(|piece| f.write_str(piece))
    }
}

#[cfg(feature = "alloc")]
impl<'a> From<PercentEncode<'a>> for alloc::borrow::Cow<'a, str> {
    fn from(mut iter: PercentEncode<'a>) -> Self {
        use alloc::string::String;
        let Some(first) = iter.next() else { return alloc::borrow::Cow::Borrowed("") };
        let Some(second) = iter.next() else { return alloc::borrow::Cow::Borrowed(first) };
        let mut s = String::from(first);
        s.push_str(second);
        s.extend(iter);
        alloc::borrow::Cow::Owned(s)
    }
}
