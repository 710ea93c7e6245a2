//! Error types. Every error says where (a byte offset or an index) and why.

use core::fmt;

/// The output slice given to an encoding or normalizing `*_slice` function
/// ([`encode_slice`](crate::encode_slice), [`Encoder::encode_slice`](crate::Encoder::encode_slice),
/// [`normalize_slice`](crate::normalize_slice)) is too small.
///
/// Nothing useful has been written when this is returned; [`needed`](BufferTooSmall::needed)
/// says exactly how large the slice must be. (The slice and in-place decoders report a
/// too-small output as a [`DecodeError`] of kind [`DecodeErrorKind::BufferTooSmall`] instead,
/// which says where the output stopped fitting, and whose
/// [`needed`](DecodeError::needed) is how large it must be.)
///
/// ```
/// let mut out = [0u8; 4];
/// let err = pctenc::encode_slice("a b", &pctenc::sets::COMPONENT, &mut out).unwrap_err();
/// assert_eq!(err.needed(), 5);
/// assert_eq!(err.to_string(), "output buffer too small: 5 bytes needed, 4 available");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferTooSmall {
    pub(crate) needed: usize,
    pub(crate) available: usize,
}

impl BufferTooSmall {
    /// The size the output slice needs (saturating at `usize::MAX`): try a buffer at hand
    /// first, and allocate only when it is too small.
    ///
    /// ```
    /// use pctenc::sets;
    ///
    /// let input = "a b c d";
    /// let mut stack = [0u8; 8];
    /// let err = pctenc::encode_slice(input, &sets::COMPONENT, &mut stack).unwrap_err();
    /// let mut heap = vec![0u8; err.needed()];
    /// let n = pctenc::encode_slice(input, &sets::COMPONENT, &mut heap).unwrap();
    /// assert_eq!(&heap[..n], b"a%20b%20c%20d");
    /// ```
    pub fn needed(&self) -> usize {
        self.needed
    }

    /// The size the output slice had.
    pub fn available(&self) -> usize {
        self.available
    }
}

impl fmt::Display for BufferTooSmall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "output buffer too small: {} bytes needed, {} available", self.needed, self.available)
    }
}

/// Why decoding failed. See [`DecodeError`].
///
/// A malformed `%` is *truncated* when more input could still make it an escape, and
/// *invalid* when nothing could: the difference between input cut short and input that is
/// wrong.
///
/// ```
/// use pctenc::DecodeErrorKind;
///
/// let kind = |input: &str| pctenc::decode(input).unwrap_err().kind();
/// assert_eq!(kind("100%"), DecodeErrorKind::TruncatedEscape);
/// assert_eq!(kind("%4"), DecodeErrorKind::TruncatedEscape);
/// assert_eq!(kind("%4g"), DecodeErrorKind::InvalidEscape);
/// assert_eq!(kind("%z"), DecodeErrorKind::InvalidEscape);
///
/// // With `%uHHHH` escapes, a `%u` needs four hex digits.
/// let kind = |input: &str| pctenc::Decoder::new().legacy_u(true).decode(input).unwrap_err().kind();
/// assert_eq!(kind("%u00E"), DecodeErrorKind::TruncatedUEscape);
/// assert_eq!(kind("%u00Ez"), DecodeErrorKind::InvalidUEscape);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DecodeErrorKind {
    /// A `%` at the end of the input with fewer than two bytes after it, all of them hex
    /// digits (`"100%"`, `"%4"`): more input could have made it an escape.
    TruncatedEscape,
    /// A `%` not followed by two hex digits (`"%zz"`, `"%4g"`, `"%%41"`, `"%z"` at the end).
    InvalidEscape,
    /// A `%u` at the end of the input with fewer than four bytes after it, all of them hex
    /// digits (`"%u"`, `"%u00E"`), with [`Decoder::legacy_u`](crate::Decoder::legacy_u):
    /// more input could have made it a `%uHHHH` escape. Without `legacy_u`, `%u` is an
    /// [`InvalidEscape`](DecodeErrorKind::InvalidEscape).
    TruncatedUEscape,
    /// A `%u` not followed by four hex digits (`"%uzz"`, `"%u00E!"`), with
    /// [`Decoder::legacy_u`](crate::Decoder::legacy_u).
    InvalidUEscape,
    /// The decoded bytes are not valid UTF-8 (only in UTF-8 strict mode, which
    /// [`Decoder::decode_to_str`](crate::Decoder::decode_to_str) also applies in bytes mode).
    /// The offset is that of the input byte, often a `%`, that starts the invalid sequence.
    InvalidUtf8,
    /// The decoded bytes are not valid in the legacy character encoding they were decoded
    /// from (only from [`Decoder::decode_in`](crate::Decoder::decode_in) in strict mode,
    /// feature `encoding`). The offset is that of the input byte, often a `%`, that starts
    /// the malformed sequence.
    InvalidCharset,
    /// The output slice is too small (only from the slice and in-place decoders). The offset
    /// is that of the first input byte whose output did not fit; from
    /// [`Decoder::decode_in_place`](crate::Decoder::decode_in_place), whose input is gone by
    /// then, it is the index of the first decoded byte that did not fit.
    BufferTooSmall,
    /// A `%uHHHH` escape of a UTF-16 surrogate that is not one half of a high-low pair of
    /// such escapes (only with [`Decoder::legacy_u`](crate::Decoder::legacy_u), in strict
    /// mode). The offset is that of its `%`.
    LoneSurrogate,
    /// An escape decodes to a byte that [`Decoder::reject`](crate::Decoder::reject) forbids;
    /// the byte is carried here. The offset is that of the escape's `%`.
    Forbidden(u8),
}

impl DecodeErrorKind {
    /// A stable name for the kind, in snake case, for bindings and logs that need a key and
    /// not a sentence: `"truncated_escape"`, `"invalid_escape"`, `"truncated_u_escape"`,
    /// `"invalid_u_escape"`, `"invalid_utf8"`, `"invalid_charset"`, `"buffer_too_small"`,
    /// `"lone_surrogate"`, `"forbidden"` (the byte is not part of it). A name, once given,
    /// does not change; a new kind gets a new one.
    ///
    /// ```
    /// use pctenc::DecodeErrorKind;
    ///
    /// let err = pctenc::decode("%zz").unwrap_err();
    /// assert_eq!(err.kind().name(), "invalid_escape");
    /// assert_eq!(DecodeErrorKind::Forbidden(0).name(), "forbidden");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            DecodeErrorKind::TruncatedEscape => "truncated_escape",
            DecodeErrorKind::InvalidEscape => "invalid_escape",
            DecodeErrorKind::TruncatedUEscape => "truncated_u_escape",
            DecodeErrorKind::InvalidUEscape => "invalid_u_escape",
            DecodeErrorKind::InvalidUtf8 => "invalid_utf8",
            DecodeErrorKind::InvalidCharset => "invalid_charset",
            DecodeErrorKind::BufferTooSmall => "buffer_too_small",
            DecodeErrorKind::LoneSurrogate => "lone_surrogate",
            DecodeErrorKind::Forbidden(_) => "forbidden",
        }
    }
}

impl fmt::Display for DecodeErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match *self {
            DecodeErrorKind::TruncatedEscape => "truncated percent-escape: `%` needs two hex digits",
            DecodeErrorKind::InvalidEscape => "invalid percent-escape: `%` not followed by two hex digits",
            DecodeErrorKind::TruncatedUEscape => "truncated `%u` escape: `%u` needs four hex digits",
            DecodeErrorKind::InvalidUEscape => "invalid `%u` escape: `%u` not followed by four hex digits",
            DecodeErrorKind::InvalidUtf8 => "decoded bytes are not valid UTF-8",
            DecodeErrorKind::InvalidCharset => "decoded bytes are not valid in the character encoding",
            DecodeErrorKind::BufferTooSmall => "output buffer too small",
            DecodeErrorKind::LoneSurrogate => "lone surrogate: `%u` escape of half a UTF-16 surrogate pair",
            DecodeErrorKind::Forbidden(byte) => {
                write!(f, "rejected byte: escape decodes to {byte:#04X}")?;
                return if byte.is_ascii_graphic() { write!(f, " ('{}')", char::from(byte)) } else { Ok(()) };
            }
        })
    }
}

/// Decoding failed: [`offset`](DecodeError::offset) says where in the input, and
/// [`kind`](DecodeError::kind) says why.
///
/// ```
/// use pctenc::DecodeErrorKind;
///
/// let err = pctenc::decode("100%zz").unwrap_err();
/// assert_eq!(err.offset(), 3);
/// assert_eq!(err.kind(), DecodeErrorKind::InvalidEscape);
/// assert_eq!(
///     err.to_string(),
///     "offset 3: invalid percent-escape: `%` not followed by two hex digits"
/// );
///
/// // A forbidden byte is named in the kind and in the message.
/// let err = pctenc::Decoder::new().reject(pctenc::Reject::SLASHES).decode("a%2Fb").unwrap_err();
/// assert_eq!((err.offset(), err.kind()), (1, DecodeErrorKind::Forbidden(b'/')));
/// assert_eq!(err.to_string(), "offset 1: rejected byte: escape decodes to 0x2F ('/')");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DecodeError {
    pub(crate) offset: usize,
    pub(crate) kind: DecodeErrorKind,
    /// The output size needed, for [`DecodeErrorKind::BufferTooSmall`].
    pub(crate) needed: Option<usize>,
}

impl DecodeError {
    pub(crate) const fn new(offset: usize, kind: DecodeErrorKind) -> DecodeError {
        DecodeError { offset, kind, needed: None }
    }

    /// The byte offset in the input where the problem starts (the `%` of a bad escape), to
    /// point at it in a message.
    ///
    /// ```
    /// let input = "name=J%C3%BCrgen&age=%3";
    /// let err = pctenc::decode(input).unwrap_err();
    /// assert_eq!(&input[err.offset()..], "%3");
    /// ```
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// What is wrong. [`DecodeErrorKind`] is `#[non_exhaustive]`: a `match` on it needs a
    /// `_` arm.
    ///
    /// ```
    /// use pctenc::{Decoder, DecodeErrorKind};
    ///
    /// let err = Decoder::URI_COMPONENT.decode("caf%E9").unwrap_err();
    /// let reason = match err.kind() {
    ///     DecodeErrorKind::TruncatedEscape | DecodeErrorKind::InvalidEscape => "bad escape",
    ///     DecodeErrorKind::InvalidUtf8 => "not UTF-8",
    ///     _ => "other",
    /// };
    /// assert_eq!(reason, "not UTF-8");
    /// ```
    pub fn kind(&self) -> DecodeErrorKind {
        self.kind
    }

    /// The same error, `by` bytes later: for callers that decode a part of a larger input.
    ///
    /// ```
    /// let err = pctenc::decode("%").unwrap_err();
    /// assert_eq!(err.shifted(10).offset(), 10);
    /// ```
    #[must_use]
    pub fn shifted(self, by: usize) -> DecodeError {
        DecodeError { offset: self.offset.saturating_add(by), ..self }
    }
}

impl DecodeError {
    /// A [`DecodeErrorKind::BufferTooSmall`] error at `offset` that knows the size needed.
    pub(crate) const fn too_small(offset: usize, needed: usize) -> DecodeError {
        DecodeError { offset, kind: DecodeErrorKind::BufferTooSmall, needed: Some(needed) }
    }

    /// For an error of kind [`DecodeErrorKind::BufferTooSmall`], the exact size the output
    /// slice needs, as [`BufferTooSmall::needed`] says for encoding (saturating at
    /// `usize::MAX`); `None` for every other kind. The slice decoders report a lack of room
    /// only for input that decodes without error, so a buffer of this size is enough: try a
    /// buffer at hand first, and allocate only when it is too small. The size is what
    /// [`Decoder::decoded_len`](crate::Decoder::decoded_len) computes.
    ///
    /// An accessor rather than a field of the kind, so that `DecodeErrorKind::BufferTooSmall`
    /// stays a plain variant and code that compares kinds keeps working.
    ///
    /// ```
    /// use pctenc::{Decoder, DecodeErrorKind};
    ///
    /// let dec = Decoder::URI_COMPONENT;
    /// let input = "J%C3%BCrgen%20%26%20Bj%C3%B6rk";
    /// let mut stack = [0u8; 8];
    /// let err = dec.decode_slice(input, &mut stack).unwrap_err();
    /// assert_eq!((err.kind(), err.needed()), (DecodeErrorKind::BufferTooSmall, Some(16)));
    /// let mut heap = vec![0u8; err.needed().unwrap()];
    /// let n = dec.decode_slice(input, &mut heap).unwrap();
    /// assert_eq!(&heap[..n], "Jürgen & Björk".as_bytes());
    ///
    /// assert_eq!(pctenc::decode("%zz").unwrap_err().needed(), None);
    /// ```
    pub fn needed(&self) -> Option<usize> {
        self.needed
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "offset {}: {}", self.offset, self.kind)?;
        match self.needed {
            Some(needed) => write!(f, ": {needed} bytes needed"),
            None => Ok(()),
        }
    }
}

/// A lone UTF-16 surrogate: the input of [`encode_utf16`](crate::encode_utf16) is not valid
/// UTF-16, exactly where JavaScript's `encodeURIComponent` throws `URIError`.
///
/// ```
/// let text: Vec<u16> = vec![0x61, 0xD800, 0x62];
/// let err = pctenc::encode_utf16(&text, &pctenc::sets::COMPONENT).unwrap_err();
/// assert_eq!((err.index(), err.unit()), (1, 0xD800));
/// assert_eq!(err.to_string(), "lone surrogate 0xD800 at UTF-16 index 1");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Utf16Error {
    pub(crate) index: usize,
    pub(crate) unit: u16,
}

impl Utf16Error {
    /// The index (in `u16` units) of the lone surrogate.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The lone surrogate itself (`0xD800..=0xDFFF`).
    pub fn unit(&self) -> u16 {
        self.unit
    }
}

impl fmt::Display for Utf16Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "lone surrogate {:#06X} at UTF-16 index {}", self.unit, self.index)
    }
}

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
    pub(crate) const fn new(offset: usize, kind: ValidationErrorKind, byte: u8) -> ValidationError {
        ValidationError { offset, kind, byte }
    }

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

#[cfg(feature = "std")]
impl DecodeError {
    /// The error as an I/O error (`InvalidData`), as the streams' and adapters' `io` paths
    /// report it.
    pub(crate) fn into_io(self) -> std::io::Error {
        std::io::Error::new(std::io::ErrorKind::InvalidData, self)
    }

    /// The decoding error `e` stands for, when it is one made by [`into_io`](Self::into_io).
    #[cfg(feature = "rayon")]
    pub(crate) fn from_io(e: &std::io::Error) -> Option<DecodeError> {
        e.get_ref()?.downcast_ref::<DecodeError>().copied()
    }
}

impl core::error::Error for BufferTooSmall {}
impl core::error::Error for DecodeError {}
impl core::error::Error for Utf16Error {}
