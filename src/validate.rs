//! [`validate`](crate::validate): is this input already a correct encoding for a set?

use core::fmt;

use crate::{Set, hex};

/// What is wrong with an input that [`validate`](crate::validate) rejects.
///
/// ```
/// use pctenc::{sets, ValidationErrorKind};
///
/// let kind = |input: &str| pctenc::validate(input, &sets::COMPONENT).unwrap_err().kind();
/// assert_eq!(kind("a b"), ValidationErrorKind::Unescaped);
/// assert_eq!(kind("50%"), ValidationErrorKind::TruncatedEscape); // more input could fix it
/// assert_eq!(kind("50%!"), ValidationErrorKind::InvalidEscape);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ValidationErrorKind {
    /// A byte that the set escapes appears raw (for an IRI set, also a byte that is not part of
    /// valid UTF-8, or the first byte of a character the set does not keep raw).
    Unescaped,
    /// A `%` at the end of the input with fewer than two hex digits after it.
    TruncatedEscape,
    /// A `%` not followed by two hex digits.
    InvalidEscape,
}

/// The first place where an input is not a correct encoding for a set: its byte offset, what is
/// wrong, and the byte found there.
///
/// ```
/// use pctenc::{sets, ValidationErrorKind};
///
/// let err = pctenc::validate("a%20b c", &sets::COMPONENT).unwrap_err();
/// assert_eq!((err.offset(), err.kind(), err.byte()), (5, ValidationErrorKind::Unescaped, b' '));
/// assert_eq!(err.to_string(), "offset 5: byte 0x20 (' ') must be percent-encoded");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ValidationError {
    offset: usize,
    kind: ValidationErrorKind,
    byte: u8,
}

impl ValidationError {
    /// The byte offset of the problem (the `%` of a bad escape), to point at it in a message.
    ///
    /// ```
    /// let input = "caf%C3%A9%2";
    /// let err = pctenc::validate(input, &pctenc::sets::COMPONENT).unwrap_err();
    /// assert_eq!(&input[err.offset()..], "%2");
    /// ```
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// What is wrong.
    pub fn kind(&self) -> ValidationErrorKind {
        self.kind
    }

    /// The input byte at [`offset`](ValidationError::offset). With an IRI set, a byte that
    /// is not part of valid UTF-8 is reported as [`Unescaped`](ValidationErrorKind::Unescaped).
    ///
    /// ```
    /// use pctenc::{sets, ValidationErrorKind};
    ///
    /// let iri = sets::PATH.with_iri(true);
    /// assert!(pctenc::validate("/café", &iri).is_ok());
    /// let err = pctenc::validate(b"/caf\xE9", &iri).unwrap_err(); // Latin-1, not UTF-8
    /// assert_eq!((err.kind(), err.byte()), (ValidationErrorKind::Unescaped, 0xE9));
    /// ```
    pub fn byte(&self) -> u8 {
        self.byte
    }
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "offset {}: ", self.offset)?;
        match self.kind {
            ValidationErrorKind::Unescaped if self.byte.is_ascii_graphic() || self.byte == b' ' => {
                write!(f, "byte {:#04x} ('{}') must be percent-encoded", self.byte, char::from(self.byte))
            }
            ValidationErrorKind::Unescaped => write!(f, "byte {:#04x} must be percent-encoded", self.byte),
            ValidationErrorKind::TruncatedEscape => {
                f.write_str("truncated percent-escape: `%` needs two hex digits")
            }
            ValidationErrorKind::InvalidEscape => {
                f.write_str("invalid percent-escape: `%` not followed by two hex digits")
            }
        }
    }
}

impl core::error::Error for ValidationError {}

/// The scalar validator, from `from` (a token boundary) to the end: the reference.
pub(crate) fn scalar(input: &[u8], set: &Set, from: usize) -> Result<(), ValidationError> {
    let plus = set.space_as_plus();
    let err = |offset: usize, kind| Err(ValidationError { offset, kind, byte: input[offset] });
    let mut i = from;
    while i < input.len() {
        let b = input[i];
        if b == b'%' {
            match input.get(i + 1..i + 3) {
                Some(&[h, l]) if hex::pair(h, l).is_some() => {
                    i += 3;
                    continue;
                }
                _ => {
                    let rest = &input[i + 1..];
                    let truncated = rest.len() < 2 && rest.iter().all(|&d| hex::value(d).is_some());
                    let kind = if truncated {
                        ValidationErrorKind::TruncatedEscape
                    } else {
                        ValidationErrorKind::InvalidEscape
                    };
                    return err(i, kind);
                }
            }
        }
        if set.contains(b) && !(plus && b == b'+') {
            return err(i, ValidationErrorKind::Unescaped);
        }
        i += 1;
    }
    Ok(())
}

/// Validates `input` for `set`, with `prefix(input, set)` telling how far a vector scan
/// proved it valid (a token boundary, from which the scalar validator takes over).
pub(crate) fn validate(
    input: &[u8],
    set: &Set,
    prefix: impl Fn(&[u8], &Set) -> usize,
) -> Result<(), ValidationError> {
    // The per-byte check passes raw non-ASCII for IRI sets; they must also be valid UTF-8,
    // and characters such a set keeps raw (`crate::iri`).
    let utf8 = if set.is_iri() { crate::iri::first_escaped(input) } else { None };
    let bytes = scalar(input, set, prefix(input, set));
    match (bytes, utf8) {
        (Err(e), Some(at)) if at < e.offset => {
            Err(ValidationError { offset: at, kind: ValidationErrorKind::Unescaped, byte: input[at] })
        }
        (Err(e), _) => Err(e),
        (Ok(()), Some(at)) => {
            Err(ValidationError { offset: at, kind: ValidationErrorKind::Unescaped, byte: input[at] })
        }
        (Ok(()), None) => Ok(()),
    }
}

/// The bytes a vector scan rejects where they appear raw (outside an escape's digits): the
/// set, less `%` and, for a plus set, `+`; a raw space is wrong even there.
#[cfg(any(target_arch = "x86", target_arch = "x86_64", target_arch = "aarch64"))]
pub(crate) fn raw_set(set: &Set) -> Set {
    let raw = set.remove(b'%').with_space_as_plus(false);
    if set.space_as_plus() { raw.remove(b'+').add(b' ') } else { raw }
}
