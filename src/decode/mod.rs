//! Decoding: [`Decoder`] and its modes.

#[cfg(feature = "rayon")]
pub(crate) mod par;
#[cfg(feature = "alloc")]
mod stream;
pub(crate) mod utf8;

#[cfg(feature = "alloc")]
use alloc::{borrow::Cow, string::String, vec::Vec};

use core::fmt;
use core::ops::{BitOr, BitOrAssign};

use crate::scalar::decode::{self as scalar, Rules, Step};
use crate::{DecodeError, DecodeErrorKind, Engine, Set};
use utf8::Utf8End;

#[cfg(feature = "alloc")]
pub use stream::StreamDecoder;

/// What a decoder does with decoded bytes that are not valid UTF-8.
///
/// ```
/// use pctenc::{Decoder, Utf8Mode};
///
/// let input = "caf%E9"; // Latin-1 `é`, not UTF-8
/// assert_eq!(Decoder::new().utf8(Utf8Mode::Bytes).decode(input).unwrap(), &b"caf\xE9"[..]);
/// assert!(Decoder::new().utf8(Utf8Mode::Strict).decode(input).is_err());
/// assert_eq!(Decoder::new().utf8(Utf8Mode::Lossy).decode(input).unwrap(), "caf\u{FFFD}".as_bytes());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Utf8Mode {
    /// Return the bytes as they are (Python `unquote_to_bytes`, Go, `percent_decode`).
    #[default]
    Bytes,
    /// Invalid UTF-8 (truncated, overlong, surrogates, above U+10FFFF) is an error naming the
    /// input offset where the invalid sequence starts (JavaScript `decodeURIComponent`).
    Strict,
    /// Each maximal invalid subsequence becomes one U+FFFD, exactly as
    /// `String::from_utf8_lossy`, WHATWG "UTF-8 decode without BOM" and Python's
    /// `errors="replace"` do.
    Lossy,
}

/// Classes of bytes that a [`Decoder`] refuses to produce by decoding an escape
/// ([`Decoder::reject`]): what a proxy or a file server checks in a decoded path.
///
/// Classes combine with `|` (or [`union`](Reject::union), which is `const`). Only escapes are
/// checked: a raw byte of the input is copied as it is (use [`validate`](crate::validate) to
/// check raw bytes).
///
/// ```
/// use pctenc::{Decoder, DecodeErrorKind, Reject};
///
/// const PROXY: Decoder = Decoder::new().reject(Reject::CONTROLS.union(Reject::SLASHES));
/// assert_eq!(PROXY.decode("a%20b/c").unwrap(), &b"a b/c"[..]);
/// let err = PROXY.decode("a%2Fb").unwrap_err();
/// assert_eq!((err.offset(), err.kind()), (1, DecodeErrorKind::Forbidden(b'/')));
/// assert!(Reject::CONTROLS.rejects(b'\n') && !Reject::CR_LF.rejects(0));
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Reject(
    /// Bit `b`: an escape that decodes to ASCII byte `b` is rejected.
    u128,
);

impl Reject {
    /// No byte is rejected (the default).
    pub const NONE: Reject = Reject(0);
    /// NUL, `%00`.
    pub const NUL: Reject = Reject(1);
    /// Every C0 control (`%00` to `%1F`) and DEL (`%7F`).
    pub const CONTROLS: Reject = Reject(((1 << 0x20) - 1) | (1 << 0x7F));
    /// CR and LF (`%0D`, `%0A`): header and log injection.
    pub const CR_LF: Reject = Reject((1 << b'\r') | (1 << b'\n'));
    /// `/` and `\` (`%2F`, `%5C`): a path segment that decodes into two (see also
    /// [`Decoder::keep_encoded`], which can keep `%2F` as it is instead).
    pub const SLASHES: Reject = Reject((1 << b'/') | (1 << b'\\'));
    /// Every class above.
    pub const ALL: Reject = Reject::CONTROLS.union(Reject::SLASHES);

    /// The classes, widest first, by name.
    const NAMES: [(Reject, &'static str); 4] = [
        (Reject::CONTROLS, "CONTROLS"),
        (Reject::NUL, "NUL"),
        (Reject::CR_LF, "CR_LF"),
        (Reject::SLASHES, "SLASHES"),
    ];

    /// The bytes of both: `|`, usable in a `const`.
    ///
    /// ```
    /// use pctenc::Reject;
    ///
    /// const PATH_CHECKS: Reject = Reject::NUL.union(Reject::SLASHES);
    /// assert_eq!(PATH_CHECKS, Reject::NUL | Reject::SLASHES);
    /// assert!(PATH_CHECKS.rejects(b'\\') && !PATH_CHECKS.rejects(b'\n'));
    /// ```
    #[must_use]
    pub const fn union(self, other: Reject) -> Reject {
        Reject(self.0 | other.0)
    }

    /// Whether `self` rejects every byte that `other` rejects.
    ///
    /// ```
    /// use pctenc::Reject;
    ///
    /// assert!((Reject::NUL | Reject::SLASHES).contains(Reject::SLASHES));
    /// assert!(Reject::CONTROLS.contains(Reject::NUL | Reject::CR_LF));
    /// assert!(!Reject::CR_LF.contains(Reject::NUL));
    /// ```
    pub const fn contains(self, other: Reject) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether no byte is rejected.
    ///
    /// ```
    /// assert!(pctenc::Reject::NONE.is_empty());
    /// assert!(pctenc::Decoder::new().rejected().is_empty());
    /// ```
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether an escape that decodes to `byte` is rejected. The classes are ASCII: a byte
    /// `0x80..=0xFF` (part of a non-ASCII character) is never rejected.
    ///
    /// ```
    /// use pctenc::Reject;
    ///
    /// assert!(Reject::SLASHES.rejects(b'/') && Reject::SLASHES.rejects(b'\\'));
    /// assert!(Reject::CONTROLS.rejects(0x7F));
    /// assert!(!Reject::ALL.rejects(b'%') && !Reject::ALL.rejects(0xFF));
    /// ```
    pub const fn rejects(self, byte: u8) -> bool {
        byte < 0x80 && self.0 >> byte & 1 != 0
    }

    /// The rejected bytes as a bitmap: bit `b` for ASCII byte `b`.
    const fn bits(self) -> u128 {
        self.0
    }
}

impl BitOr for Reject {
    type Output = Reject;

    fn bitor(self, other: Reject) -> Reject {
        self.union(other)
    }
}

impl BitOrAssign for Reject {
    fn bitor_assign(&mut self, other: Reject) {
        *self = self.union(other);
    }
}

impl fmt::Debug for Reject {
    /// `Reject(NUL | SLASHES)`, `Reject(CONTROLS)` (which holds `NUL` and `CR_LF`),
    /// `Reject(NONE)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Reject(")?;
        let mut shown = Reject::NONE;
        for (class, name) in Reject::NAMES {
            if self.contains(class) && !shown.contains(class) {
                f.write_str(if shown.is_empty() { "" } else { " | " })?;
                f.write_str(name)?;
                shown = shown.union(class);
            }
        }
        f.write_str(if shown.is_empty() { "NONE)" } else { ")" })
    }
}

/// Percent-decodes with one choice of the three switches of `DECODING.md`: what a malformed
/// `%` does (strict error or lenient copy), whether `+` is a space, and what happens to
/// invalid UTF-8 ([`Utf8Mode`]).
///
/// [`decode`](crate::decode) and [`decode_lenient`](crate::decode_lenient) are shortcuts for
/// [`Decoder::new`] and `Decoder::new().lenient(true)`. The presets name the systems people
/// match:
///
/// ```
/// use pctenc::Decoder;
///
/// // JavaScript decodeURIComponent: strict escapes, strict UTF-8.
/// assert!(Decoder::URI_COMPONENT.decode("%E2%82").is_err());
/// // URLSearchParams: lenient, `+` is a space, lossy UTF-8.
/// assert_eq!(Decoder::FORM.decode_to_str("a+b%zz%FF").unwrap(), "a b%zz\u{FFFD}");
/// ```
///
/// Three more options act on escapes, and are off by default: [`keep_encoded`] copies the
/// escapes of some bytes as written (JavaScript's `decodeURI`, see [`Decoder::URI`]),
/// [`legacy_u`] decodes `%uHHHH` (JavaScript's `unescape`), and [`reject`] makes the escapes
/// of some bytes (`%2F`, `%00`, ...) errors. Every API honours them: the one-shot decoders,
/// the slice and in-place ones, and [`StreamDecoder`].
///
/// When the input has several problems, the error is the first one a left-to-right reader
/// meets: an invalid UTF-8 sequence is reported where it starts once the bytes after it show
/// that it is invalid; a bad `%`, a lone surrogate or a rejected byte where its `%` is.
///
/// [`keep_encoded`]: Decoder::keep_encoded
/// [`legacy_u`]: Decoder::legacy_u
/// [`reject`]: Decoder::reject
/// [`StreamDecoder`]: crate::StreamDecoder
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Decoder {
    lenient: bool,
    plus: bool,
    utf8: Utf8Mode,
    legacy_u: bool,
    keep: Set,
    reject: Reject,
    engine: Option<Engine>,
}

/// The set that contains no byte: an IRI set (which does not contain `0x80..=0xFF`) that
/// escapes no ASCII byte.
const KEEP_NOTHING: Set = Set::EMPTY.with_iri(true);

impl Default for Decoder {
    fn default() -> Self {
        Decoder::new()
    }
}

impl Decoder {
    /// JavaScript `decodeURIComponent` (and `decodeURI`'s error rules): strict escapes,
    /// `+` kept, strict UTF-8.
    ///
    /// ```
    /// use pctenc::{Decoder, DecodeErrorKind};
    ///
    /// assert_eq!(Decoder::URI_COMPONENT.decode_to_str("a+b%20%C3%A9").unwrap(), "a+b é");
    /// let err = Decoder::URI_COMPONENT.decode("ok%C3%28").unwrap_err();
    /// assert_eq!((err.offset(), err.kind()), (2, DecodeErrorKind::InvalidUtf8));
    /// ```
    pub const URI_COMPONENT: Decoder = Decoder::new().utf8(Utf8Mode::Strict);

    /// `application/x-www-form-urlencoded` values as `URLSearchParams` and the
    /// `form_urlencoded` crate read them: lenient, `+` is a space, lossy UTF-8. It never
    /// fails, except for a lack of room in [`decode_slice`](Decoder::decode_slice) and
    /// [`decode_in_place`](Decoder::decode_in_place). For whole form bodies,
    /// [`form::parse`](crate::form::parse) also splits the pairs.
    ///
    /// ```
    /// use pctenc::Decoder;
    ///
    /// assert_eq!(Decoder::FORM.decode_to_str("%%41+%C0%AF").unwrap(), "%A \u{FFFD}\u{FFFD}");
    /// ```
    pub const FORM: Decoder = Decoder::new().lenient(true).plus_as_space(true).utf8(Utf8Mode::Lossy);

    /// The bytes whose escapes JavaScript's `decodeURI` keeps as written: `;/?:@&=+$,#`. An
    /// IRI set, so that non-ASCII escapes are decoded (see
    /// [`keep_encoded`](Decoder::keep_encoded)).
    ///
    /// ```
    /// use pctenc::Decoder;
    ///
    /// let kept: String =
    ///     (0..=255u8).filter(|&b| Decoder::URI_RESERVED.contains(b)).map(char::from).collect();
    /// assert_eq!(kept, "#$&+,/:;=?@");
    /// ```
    pub const URI_RESERVED: Set = {
        let reserved = b";/?:@&=+$,#";
        let mut set = KEEP_NOTHING;
        let mut i = 0;
        while i < reserved.len() {
            set = set.add(reserved[i]);
            i += 1;
        }
        set
    };

    /// JavaScript `decodeURI`: strict escapes, the escapes of
    /// [`URI_RESERVED`](Decoder::URI_RESERVED) bytes kept as written (hex case included), `+`
    /// kept, strict UTF-8.
    ///
    /// ```
    /// use pctenc::Decoder;
    ///
    /// // node -e 'console.log(decodeURI("%2f%41%3F%C3%A9%20"))' prints `%2fA%3Fé `
    /// assert_eq!(Decoder::URI.decode_to_str("%2f%41%3F%C3%A9%20").unwrap(), "%2fA%3Fé ");
    /// assert!(Decoder::URI.decode("%C3%2F").is_err()); // URIError: URI malformed
    /// ```
    pub const URI: Decoder = Decoder::URI_COMPONENT.keep_encoded(Decoder::URI_RESERVED);

    /// Strict escapes, `+` kept, bytes returned as they are: what [`decode`](crate::decode)
    /// does.
    ///
    /// ```
    /// assert_eq!(pctenc::Decoder::new().decode("a+%41").unwrap(), &b"a+A"[..]);
    /// ```
    pub const fn new() -> Decoder {
        Decoder {
            lenient: false,
            plus: false,
            utf8: Utf8Mode::Bytes,
            legacy_u: false,
            keep: KEEP_NOTHING,
            reject: Reject::NONE,
            engine: None,
        }
    }

    /// Runs on `engine`'s backend instead of the best one this CPU has. The result, errors
    /// included, is the same on every backend.
    ///
    /// ```
    /// use pctenc::{Backend, Decoder, Engine};
    ///
    /// let scalar = Decoder::new().engine(Engine::new(Backend::Scalar).unwrap());
    /// assert_eq!(scalar.decode("a%20b").unwrap(), Decoder::new().decode("a%20b").unwrap());
    /// ```
    #[must_use]
    pub const fn engine(self, engine: Engine) -> Decoder {
        Decoder { engine: Some(engine), ..self }
    }

    /// The engine this decoder runs on: the one given to [`engine`](Decoder::engine), else
    /// the best one this CPU has.
    ///
    /// ```
    /// assert_eq!(pctenc::Decoder::new().engine_in_use(), pctenc::Engine::detect());
    /// ```
    pub fn engine_in_use(&self) -> Engine {
        self.engine.unwrap_or_else(Engine::detect)
    }

    /// The byte decoder (escapes and `+`, no UTF-8 step) on this decoder's engine. The
    /// vector decoders handle the basic rules and rejected bytes; `%u` and kept escapes are
    /// the scalar decoder's.
    #[inline]
    pub(crate) fn bytes(&self, input: &[u8], out: &mut [u8], last: bool) -> Result<Step, DecodeError> {
        let rules = self.rules();
        if rules.vectorizable() {
            crate::simd::decode(self.engine_in_use(), input, out, rules, last)
        } else {
            scalar::decode(input, out, rules, last)
        }
    }

    /// When `on`, a `%` not followed by two hex digits is copied as is (the WHATWG URL
    /// Standard's percent-decode: `%%41` gives `%A`) instead of being an error.
    ///
    /// ```
    /// assert_eq!(pctenc::Decoder::new().lenient(true).decode("%4%41").unwrap(), &b"%4A"[..]);
    /// ```
    #[must_use]
    pub const fn lenient(self, on: bool) -> Decoder {
        Decoder { lenient: on, ..self }
    }

    /// When `on`, `+` decodes to a space (forms, Python `unquote_plus`, Go `QueryUnescape`).
    /// `%2B` always decodes to `+`.
    ///
    /// ```
    /// let dec = pctenc::Decoder::new().plus_as_space(true);
    /// assert_eq!(dec.decode("a+b%2B").unwrap(), &b"a b+"[..]);
    /// ```
    #[must_use]
    pub const fn plus_as_space(self, on: bool) -> Decoder {
        Decoder { plus: on, ..self }
    }

    /// What to do with decoded bytes that are not valid UTF-8. The default is
    /// [`Utf8Mode::Bytes`].
    ///
    /// ```
    /// use pctenc::{Decoder, DecodeErrorKind, Utf8Mode};
    ///
    /// let err = Decoder::new().utf8(Utf8Mode::Strict).decode("ok%C0%AF").unwrap_err();
    /// assert_eq!((err.offset(), err.kind()), (2, DecodeErrorKind::InvalidUtf8));
    /// ```
    #[must_use]
    pub const fn utf8(self, mode: Utf8Mode) -> Decoder {
        Decoder { utf8: mode, ..self }
    }

    /// Copies each escape whose decoded byte is in `set` ([`Set::contains`]) exactly as
    /// written, and decodes the others: JavaScript's `decodeURI` keeps `%2F` and `%2f`, and
    /// decodes `%41` ([`Decoder::URI`]). A kept escape is decoded by no one, so it is never
    /// [rejected](Decoder::reject); `%252F` still decodes once, to `%2F`. By default no escape
    /// is kept.
    ///
    /// A set contains the bytes `0x80..=0xFF` unless it is an IRI set ([`Set::with_iri`]):
    /// `keep_encoded(sets::RFC3986)` decodes the escapes of the unreserved characters only,
    /// and keeps `%C3%A9` (the URI way); with `sets::RFC3986.with_iri(true)`, `%C3%A9`
    /// becomes `é` (the IRI way). A `%uHHHH` escape ([`legacy_u`](Decoder::legacy_u)), or a
    /// pair of them, is kept when every byte of its UTF-8 is in `set`; a malformed `%` or a
    /// lone surrogate is never kept.
    ///
    /// Kept escapes are ASCII, so they never make the output invalid UTF-8 themselves, but
    /// they separate what is around them: `%C3%2F%A9` keeping `/` is not UTF-8.
    ///
    /// ```
    /// use pctenc::{sets, Decoder, Set};
    ///
    /// let dec = Decoder::new().keep_encoded(Set::EMPTY.add(b'/').with_iri(true));
    /// assert_eq!(dec.decode("a%2fb%2F%20%C3%A9").unwrap(), "a%2fb%2F é".as_bytes());
    ///
    /// // RFC 3986 normalization's decoding step: only unreserved characters are decoded.
    /// let dec = Decoder::new().keep_encoded(sets::RFC3986);
    /// assert_eq!(dec.decode("%7e%41%2F%C3%A9").unwrap(), &b"~A%2F%C3%A9"[..]);
    /// ```
    #[must_use]
    pub const fn keep_encoded(self, set: Set) -> Decoder {
        Decoder { keep: set, ..self }
    }

    /// When `on`, `%uHHHH` (a `%`, a lowercase `u`, exactly four hex digits of either case, as
    /// JavaScript's `unescape` reads it) decodes to the UTF-8 of that UTF-16 code unit; a
    /// high-surrogate escape immediately followed by a low-surrogate one (`%uD83D%uDE00`) is
    /// one character. A lone surrogate is an error of kind
    /// [`DecodeErrorKind::LoneSurrogate`] at its `%`, or, when [lenient](Decoder::lenient),
    /// U+FFFD. A `%u` without four hex digits is a malformed `%`: copied when lenient, else an
    /// error of kind [`DecodeErrorKind::InvalidUEscape`], or
    /// [`TruncatedUEscape`](DecodeErrorKind::TruncatedUEscape) when only hex digits follow it
    /// to the end of the input. `%HH` escapes decode as always.
    ///
    /// ```
    /// use pctenc::{Decoder, DecodeErrorKind};
    ///
    /// let dec = Decoder::new().legacy_u(true);
    /// assert_eq!(dec.decode_to_str("%u00E9t%u00e9 %uD83D%uDE00%41").unwrap(), "été 😀A");
    /// let err = dec.decode("ok%uD83D!").unwrap_err();
    /// assert_eq!((err.offset(), err.kind()), (2, DecodeErrorKind::LoneSurrogate));
    /// assert_eq!(dec.lenient(true).decode_to_str("%uDE00%U0041").unwrap(), "\u{FFFD}%U0041");
    /// let err = dec.decode("%u0041%u00E").unwrap_err();
    /// assert_eq!((err.offset(), err.kind()), (6, DecodeErrorKind::TruncatedUEscape));
    /// assert_eq!(err.to_string(), "offset 6: truncated `%u` escape: `%u` needs four hex digits");
    /// ```
    #[must_use]
    pub const fn legacy_u(self, on: bool) -> Decoder {
        Decoder { legacy_u: on, ..self }
    }

    /// Makes an escape that decodes to a byte of the classes in `reject` an error of kind
    /// [`DecodeErrorKind::Forbidden`] (which carries the byte) at its `%`, in lenient mode
    /// too. Raw bytes of the input are copied as they are; only what decoding produces is
    /// checked (a `%u` escape too). Decoding happens once: `%252F` decodes to `%2F` and is
    /// fine. An escape [kept as written](Decoder::keep_encoded) produces no byte, so keeping
    /// `/` and rejecting slashes keeps `%2F` and rejects `%5C` (Apache's
    /// `AllowEncodedSlashes NoDecode`).
    ///
    /// ```
    /// use pctenc::{Decoder, DecodeErrorKind, Reject};
    ///
    /// let dec = Decoder::new().reject(Reject::NUL | Reject::SLASHES);
    /// assert_eq!(dec.decode("/a/%252F").unwrap(), &b"/a/%2F"[..]);
    /// let err = dec.decode("/a%00").unwrap_err();
    /// assert_eq!((err.offset(), err.kind()), (2, DecodeErrorKind::Forbidden(0)));
    /// assert!(dec.lenient(true).decode("%zz%5c").is_err());
    /// ```
    #[must_use]
    pub const fn reject(self, reject: Reject) -> Decoder {
        Decoder { reject, ..self }
    }

    /// Whether a malformed `%` is copied instead of being an error.
    pub const fn is_lenient(&self) -> bool {
        self.lenient
    }

    /// Whether `+` decodes to a space.
    pub const fn is_plus_as_space(&self) -> bool {
        self.plus
    }

    /// The UTF-8 mode.
    ///
    /// ```
    /// use pctenc::{Decoder, Utf8Mode};
    ///
    /// assert_eq!(Decoder::new().utf8_mode(), Utf8Mode::Bytes);
    /// assert_eq!(Decoder::URI_COMPONENT.utf8_mode(), Utf8Mode::Strict);
    /// assert_eq!(Decoder::FORM.utf8_mode(), Utf8Mode::Lossy);
    /// ```
    pub const fn utf8_mode(&self) -> Utf8Mode {
        self.utf8
    }

    /// The set of bytes whose escapes are kept as written; by default an IRI set that
    /// contains no byte.
    ///
    /// ```
    /// use pctenc::Decoder;
    ///
    /// assert!((0..=255).all(|b| !Decoder::new().kept_encoded().contains(b)));
    /// assert_eq!(Decoder::URI.kept_encoded(), Decoder::URI_RESERVED);
    /// ```
    pub const fn kept_encoded(&self) -> Set {
        self.keep
    }

    /// Whether `%uHHHH` escapes are decoded.
    pub const fn is_legacy_u(&self) -> bool {
        self.legacy_u
    }

    /// The classes of bytes that an escape must not decode to.
    pub const fn rejected(&self) -> Reject {
        self.reject
    }

    pub(crate) const fn rules(&self) -> Rules {
        Rules {
            lenient: self.lenient,
            plus: self.plus,
            legacy_u: self.legacy_u,
            keep: self.keep.ascii_bits(),
            keep_high: self.keep.contains(0x80),
            reject: self.reject.bits(),
        }
    }

    #[cfg(feature = "alloc")]
    /// Whether `input` decodes to itself as bytes: no `%`, and no `+` when `+` is a space.
    fn is_verbatim(&self, input: &[u8]) -> bool {
        if self.plus {
            memchr::memchr2(b'%', b'+', input).is_none()
        } else {
            memchr::memchr(b'%', input).is_none()
        }
    }

    /// Applies the UTF-8 mode to `decoded` (the decoding of `input`) in strict mode: the
    /// error, if any.
    fn check_utf8(&self, input: &[u8], decoded: &[u8]) -> Result<(), DecodeError> {
        match utf8::check(decoded) {
            Utf8End::Valid => Ok(()),
            Utf8End::Invalid(at) | Utf8End::Incomplete(at) => Err(self.utf8_error(input, at)),
        }
    }

    fn utf8_error(&self, input: &[u8], decoded_index: usize) -> DecodeError {
        DecodeError::new(
            scalar::source_offset(input, self.rules(), decoded_index),
            DecodeErrorKind::InvalidUtf8,
        )
    }

    /// The error to report when the byte decoder failed with `err` after writing `decoded`:
    /// an invalid UTF-8 sequence that ended before the bad `%` comes first.
    fn first_error(&self, input: &[u8], decoded: &[u8], err: DecodeError) -> DecodeError {
        match (self.utf8, utf8::check(decoded)) {
            (Utf8Mode::Strict, Utf8End::Invalid(at)) => self.utf8_error(input, at),
            _ => err,
        }
    }

    /// Decodes `input`, borrowing it when it decodes to itself.
    ///
    /// # Errors
    ///
    /// A [`DecodeError`] at the first problem, from left to right, that this decoder's options
    /// make an error: a `%` that does not start a `%HH` escape (unless
    /// [lenient](Decoder::lenient)), invalid UTF-8 ([`Utf8Mode::Strict`]), a lone `%u`
    /// surrogate ([`legacy_u`](Decoder::legacy_u), unless lenient), an escape of a
    /// [rejected](Decoder::reject) byte.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::borrow::Cow;
    ///
    /// let dec = pctenc::Decoder::new();
    /// assert!(matches!(dec.decode("plain").unwrap(), Cow::Borrowed(b"plain")));
    /// assert_eq!(dec.decode("a%20b").unwrap(), &b"a b"[..]);
    /// ```
    #[cfg(feature = "alloc")]
    pub fn decode<'a, I: AsRef<[u8]> + ?Sized>(&self, input: &'a I) -> Result<Cow<'a, [u8]>, DecodeError> {
        let input = input.as_ref();
        let bytes = if self.is_verbatim(input) {
            Cow::Borrowed(input)
        } else {
            let mut out = Vec::new();
            self.decode_bytes_into(input, &mut out)?;
            Cow::Owned(out)
        };
        match self.utf8 {
            Utf8Mode::Bytes => Ok(bytes),
            Utf8Mode::Strict => self.check_utf8(input, &bytes).map(|()| bytes),
            Utf8Mode::Lossy => Ok(match utf8::lossy(&bytes) {
                Cow::Borrowed(_) => bytes,
                Cow::Owned(s) => Cow::Owned(s.into_bytes()),
            }),
        }
    }

    /// [`bytes`](Decoder::bytes), appending to `out`. On an error, `out` holds the bytes
    /// decoded before it, followed by unspecified bytes (the caller truncates).
    #[cfg(feature = "alloc")]
    pub(crate) fn append_bytes(
        &self,
        input: &[u8],
        out: &mut Vec<u8>,
        last: bool,
    ) -> Result<Step, DecodeError> {
        let start = out.len();
        if out.capacity() == 0 {
            // A new vector: zeroed memory from the allocator. A large one comes as fresh
            // pages that the kernel zeroes when first written, so the room decoding does not
            // use (two thirds of it for escape-dense input) costs neither a fill nor a fault.
            *out = alloc::vec![0; input.len()];
        } else {
            out.resize(start + input.len(), 0);
        }
        let step = self.bytes(input, &mut out[start..], last)?;
        out.truncate(start + step.written);
        Ok(step)
    }

    /// Decodes `input` as bytes (no UTF-8 step), appending to `out`.
    #[cfg(feature = "alloc")]
    fn decode_bytes_into(&self, input: &[u8], out: &mut Vec<u8>) -> Result<(), DecodeError> {
        let start = out.len();
        match self.append_bytes(input, out, true) {
            Ok(_) => Ok(()),
            Err(e) => {
                let decoded = &out[start..start + self.decoded_before(input, e)];
                let err = self.first_error(input, decoded, e);
                out.truncate(start);
                Err(err)
            }
        }
    }

    /// How many bytes the input before the error at `e` decodes to.
    fn decoded_before(&self, input: &[u8], e: DecodeError) -> usize {
        // Only reached on the error path; decoding the prefix again is simpler than
        // threading the count out of the hot loop.
        let mut scratch = [0u8; 256];
        let mut total = 0;
        let mut rest = &input[..e.offset];
        while !rest.is_empty() {
            match scalar::decode(rest, &mut scratch, self.rules(), true) {
                Ok(step) if step.read > 0 => {
                    total += step.written;
                    rest = &rest[step.read..];
                }
                // The prefix before the first error decodes, and every call gets on (an
                // escape's output is at most 12 bytes): not reached. Stop rather than panic.
                _ => {
                    debug_assert!(false, "prefix before the first error decodes");
                    break;
                }
            }
        }
        total
    }

    /// Decodes `input` to text: like [`decode`](Decoder::decode), but returns a `str`. In
    /// [`Utf8Mode::Bytes`], which cannot promise text, invalid UTF-8 is an error as in
    /// [`Utf8Mode::Strict`].
    ///
    /// # Errors
    ///
    /// As [`decode`](Decoder::decode), invalid UTF-8 included in every mode but
    /// [`Utf8Mode::Lossy`].
    ///
    /// # Examples
    ///
    /// ```
    /// let dec = pctenc::Decoder::new();
    /// assert_eq!(dec.decode_to_str("J%C3%BCrgen").unwrap(), "Jürgen");
    /// assert!(dec.decode_to_str("%FF").is_err());
    /// ```
    #[cfg(feature = "alloc")]
    pub fn decode_to_str<'a, I: AsRef<[u8]> + ?Sized>(
        &self,
        input: &'a I,
    ) -> Result<Cow<'a, str>, DecodeError> {
        let dec = if self.utf8 == Utf8Mode::Bytes { self.utf8(Utf8Mode::Strict) } else { *self };
        Ok(match dec.decode(input)? {
            // SAFETY: in Strict and Lossy mode `decode` returns valid UTF-8 only.
            Cow::Borrowed(b) => Cow::Borrowed(unsafe { core::str::from_utf8_unchecked(b) }),
            // SAFETY: as above.
            Cow::Owned(v) => Cow::Owned(unsafe { String::from_utf8_unchecked(v) }),
        })
    }

    /// Decodes `input`, appending to `out`: to collect several decoded pieces in one buffer,
    /// or to reuse a buffer from one input to the next.
    ///
    /// # Errors
    ///
    /// As [`decode`](Decoder::decode); `out` is then left as it was.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut out = b"name: ".to_vec();
    /// pctenc::Decoder::new().decode_vec("J%C3%BCrgen", &mut out).unwrap();
    /// assert_eq!(out, "name: Jürgen".as_bytes());
    /// ```
    #[cfg(feature = "alloc")]
    pub fn decode_vec(&self, input: impl AsRef<[u8]>, out: &mut Vec<u8>) -> Result<(), DecodeError> {
        let input = input.as_ref();
        let start = out.len();
        self.decode_bytes_into(input, out)?;
        let result = match self.utf8 {
            Utf8Mode::Bytes => Ok(()),
            Utf8Mode::Strict => self.check_utf8(input, &out[start..]),
            Utf8Mode::Lossy => {
                if let Cow::Owned(s) = utf8::lossy(&out[start..]) {
                    out.truncate(start);
                    out.extend_from_slice(s.as_bytes());
                }
                Ok(())
            }
        };
        if result.is_err() {
            out.truncate(start);
        }
        result
    }

    /// Decodes `input`, appending to `out`, using every thread of the rayon pool when
    /// `input` is large (at least [`PAR_DECODE_THRESHOLD`](crate::PAR_DECODE_THRESHOLD) bytes,
    /// and more than one thread; otherwise it is [`decode_vec`](Decoder::decode_vec)). The result, output or error, is exactly
    /// `decode_vec`'s, whatever the number of threads; the output is allocated once, and
    /// each thread writes its own part of it.
    ///
    /// The parallel pass is for input that decodes cleanly. Input with an error, or with
    /// bytes that [`Utf8Mode::Lossy`] replaces, is then decoded again serially, for the
    /// exact error or replacement. `%u` escapes ([`legacy_u`](Decoder::legacy_u)) and kept
    /// escapes ([`keep_encoded`](Decoder::keep_encoded)) decode serially.
    ///
    /// Runs on the current rayon pool: `rayon::ThreadPool::install` chooses another.
    ///
    /// # Errors
    ///
    /// Exactly those of [`decode_vec`](Decoder::decode_vec) (see
    /// [`decode`](Decoder::decode)); `out` is then left as it was.
    ///
    /// # Examples
    ///
    /// ```
    /// // 1.1 MB: above the threshold.
    /// let query = "q=caf%C3%A9+au+lait&lang=fr&".repeat(40_000);
    /// let mut out = Vec::new();
    /// pctenc::Decoder::FORM.par_decode_vec(&query, &mut out).unwrap();
    /// assert!(out.starts_with("q=café au lait&".as_bytes()));
    ///
    /// let broken = format!("{query}%G0");
    /// let err = pctenc::Decoder::new().par_decode_vec(&broken, &mut out).unwrap_err();
    /// assert_eq!(err.offset(), query.len());
    /// ```
    #[cfg(feature = "rayon")]
    pub fn par_decode_vec(&self, input: impl AsRef<[u8]>, out: &mut Vec<u8>) -> Result<(), DecodeError> {
        let input = input.as_ref();
        if input.len() < crate::PAR_DECODE_THRESHOLD || crate::par::single_thread() || !par::splits(self) {
            self.decode_vec(input, out)
        } else {
            par::decode_vec(self, input, out, crate::par::CHUNK)
        }
    }

    /// The decoding of `input`, on every thread of the rayon pool when `input` is large:
    /// [`par_decode_vec`](Decoder::par_decode_vec).
    ///
    /// # Errors
    ///
    /// As [`decode`](Decoder::decode).
    ///
    /// # Examples
    ///
    /// ```
    /// let path = "/files/r%C3%A9sum%C3%A9.pdf\n".repeat(40_000);
    /// let decoded = pctenc::Decoder::URI_COMPONENT.par_decode(&path).unwrap();
    /// assert_eq!(decoded, pctenc::Decoder::URI_COMPONENT.decode(&path).unwrap().into_owned());
    /// ```
    #[cfg(feature = "rayon")]
    pub fn par_decode(&self, input: impl AsRef<[u8]>) -> Result<Vec<u8>, DecodeError> {
        let mut out = Vec::new();
        self.par_decode_vec(input, &mut out)?;
        Ok(out)
    }

    /// Decodes `input` into the start of `out` and returns the number of bytes written.
    /// Never allocates. The output is never longer than the input, except in
    /// [`Utf8Mode::Lossy`], where each replaced byte can become the three bytes of U+FFFD.
    ///
    /// # Errors
    ///
    /// As [`decode`](Decoder::decode), and a too-small `out` is an error of kind
    /// [`DecodeErrorKind::BufferTooSmall`] at the first input byte whose output does not fit,
    /// whose [`needed`](DecodeError::needed) is the size `out` needs
    /// ([`decoded_len`](Decoder::decoded_len)). A problem in the input, before or after that
    /// byte, is reported instead: more room would not help. After an error the contents of
    /// `out` are unspecified.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut buf = [0u8; 16];
    /// let n = pctenc::Decoder::new().decode_slice("a%2Fb", &mut buf).unwrap();
    /// assert_eq!(&buf[..n], b"a/b");
    ///
    /// let err = pctenc::Decoder::new().decode_slice("abcd", &mut buf[..2]).unwrap_err();
    /// assert_eq!((err.kind(), err.offset()), (pctenc::DecodeErrorKind::BufferTooSmall, 2));
    /// assert_eq!(err.needed(), Some(4));
    /// assert_eq!(err.to_string(), "offset 2: output buffer too small: 4 bytes needed");
    /// ```
    pub fn decode_slice(&self, input: impl AsRef<[u8]>, out: &mut [u8]) -> Result<usize, DecodeError> {
        let input = input.as_ref();
        let step = self
            .bytes(input, out, true)
            .map_err(|e| self.first_error(input, &out[..self.decoded_before(input, e)], e))?;
        if step.read < input.len() {
            // A problem anywhere in the input comes before the lack of room (more room would
            // not help), and the error says how much room the output needs.
            let needed = self.decoded_len(input)?;
            if self.utf8 == Utf8Mode::Strict
                && let Utf8End::Invalid(at) = utf8::check(&out[..step.written])
            {
                return Err(self.utf8_error(input, at));
            }
            let offset = match self.utf8 {
                // Replacements before the end of `out` may be what did not fit.
                Utf8Mode::Lossy => self.lossy_overflow(input, &out[..step.written], step.read, out.len()),
                _ => step.read,
            };
            return Err(DecodeError::too_small(offset, needed));
        }
        let len = step.written;
        match self.utf8 {
            Utf8Mode::Bytes => Ok(len),
            Utf8Mode::Strict => self.check_utf8(input, &out[..len]).map(|()| len),
            Utf8Mode::Lossy => utf8::lossy_in_place(out, len).map_err(|needed| {
                let fit = lossy_fit(&out[..len], out.len());
                DecodeError::too_small(scalar::source_offset(input, self.rules(), fit), needed)
            }),
        }
    }

    /// For [`decode_slice`](Decoder::decode_slice) in lossy mode: `out` holds the first
    /// decoded bytes, as many as the output slice (of `room` bytes) had room for, and the
    /// input from `read` on did not fit. An escape that decodes to several bytes (or is kept
    /// as written) is written whole or not at all, so `out` may be up to 11 bytes shorter
    /// than `room`. Returns the input offset of the first byte whose lossy output does not
    /// fit. An unfinished UTF-8 sequence at the end of `out` is judged together with the
    /// decoded bytes that follow it.
    fn lossy_overflow(&self, input: &[u8], out: &[u8], read: usize, room: usize) -> usize {
        let written = out.len();
        // Where the unfinished sequence at the end of `out` starts (`written` if there is none).
        let tail = match out.utf8_chunks().last() {
            Some(last) if utf8::check(&out[written - last.invalid().len()..]) == Utf8End::Incomplete(0) => {
                written - last.invalid().len()
            }
            _ => written,
        };
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
        let more = match scalar::decode(rest, &mut next[kept..kept + 60], self.rules(), true) {
            Ok(step) => step.written,
            Err(e) => self.decoded_before(rest, e).min(60),
        };
        let used = utf8::lossy_len(&out[..tail]).0.unwrap_or(usize::MAX);
        let fit = tail + lossy_fit(&next[..kept + more], room.saturating_sub(used));
        scalar::source_offset(input, self.rules(), fit.min(room))
    }

    /// Decodes `buf` in place and returns the decoded length: the decoded bytes are
    /// `buf[..len]`. Never allocates: for a buffer that is needed only decoded (a request
    /// line read into memory, a field of a parsed record).
    ///
    /// In [`Utf8Mode::Strict`] the input is checked before anything is overwritten, so the
    /// error can name its input offset; that costs a second pass. The decoding itself runs
    /// the scalar code whatever the [engine](Decoder::engine): a vector block writes a whole
    /// register at once, which in place could overwrite input not read yet.
    ///
    /// # Errors
    ///
    /// As [`decode`](Decoder::decode). In [`Utf8Mode::Lossy`], a replacement that makes the
    /// output longer than `buf` is an error of kind [`DecodeErrorKind::BufferTooSmall`] whose
    /// offset, the input being gone, is the index in the decoded bytes of the first one that
    /// did not fit: an escaped invalid byte (`%E9`, three bytes) brings the room for its
    /// U+FFFD (three bytes), a raw one (one byte) does not. Its [`needed`](DecodeError::needed)
    /// is the length of the whole output. After an error the contents of `buf` are
    /// unspecified.
    ///
    /// # Examples
    ///
    /// ```
    /// use pctenc::{Decoder, DecodeErrorKind, Utf8Mode};
    ///
    /// let mut buf = *b"a%20b%2Bc";
    /// let n = Decoder::new().decode_in_place(&mut buf).unwrap();
    /// assert_eq!(&buf[..n], b"a b+c");
    ///
    /// let lossy = Decoder::new().utf8(Utf8Mode::Lossy);
    /// let mut buf = *b"caf%E9";
    /// let n = lossy.decode_in_place(&mut buf).unwrap();
    /// assert_eq!(&buf[..n], "caf\u{FFFD}".as_bytes());
    /// let mut raw = *b"caf\xE9!"; // a raw Latin-1 byte
    /// let err = lossy.decode_in_place(&mut raw).unwrap_err();
    /// assert_eq!((err.kind(), err.offset(), err.needed()), (DecodeErrorKind::BufferTooSmall, 3, Some(7)));
    /// ```
    pub fn decode_in_place(&self, buf: &mut [u8]) -> Result<usize, DecodeError> {
        if self.utf8 == Utf8Mode::Strict {
            self.validate_utf8(buf)?;
        }
        let len = scalar::decode_in_place(buf, self.rules())?;
        match self.utf8 {
            Utf8Mode::Lossy => utf8::lossy_in_place(buf, len)
                .map_err(|needed| DecodeError::too_small(lossy_fit(&buf[..len], buf.len()), needed)),
            _ => Ok(len),
        }
    }

    /// Checks that `input` decodes without error (escapes and UTF-8), in fixed-size pieces
    /// so that nothing is allocated.
    fn validate_utf8(&self, input: &[u8]) -> Result<(), DecodeError> {
        const PIECE: usize = 512;
        let mut buf = [0u8; PIECE + 4];
        // Bytes of an unfinished UTF-8 sequence carried to the next piece, and the input
        // offset where that sequence starts.
        let (mut carried, mut carried_at) = (0, 0);
        let mut read = 0;
        loop {
            let rest = &input[read..];
            let step = match self.bytes(rest, &mut buf[carried..carried + PIECE], true) {
                Ok(step) => step,
                Err(e) => {
                    let before = self.decoded_before(rest, e);
                    if let Utf8End::Invalid(at) = utf8::check(&buf[..carried + before]) {
                        return Err(self.piece_error(rest, read, carried, carried_at, at));
                    }
                    return Err(e.shifted(read));
                }
            };
            let end = carried + step.written;
            let done = read + step.read == input.len();
            match utf8::check(&buf[..end]) {
                Utf8End::Valid => carried = 0,
                Utf8End::Invalid(at) => return Err(self.piece_error(rest, read, carried, carried_at, at)),
                Utf8End::Incomplete(at) if done => {
                    return Err(self.piece_error(rest, read, carried, carried_at, at));
                }
                Utf8End::Incomplete(at) => {
                    if at >= carried {
                        carried_at = read + scalar::source_offset(rest, self.rules(), at - carried);
                    }
                    buf.copy_within(at..end, 0);
                    carried = end - at;
                }
            }
            read += step.read;
            if done {
                return Ok(());
            }
        }
    }

    /// The UTF-8 error at index `at` of a piece made of `carried` carried bytes followed by
    /// the decoding of `rest`, which starts at input offset `read`.
    fn piece_error(
        &self,
        rest: &[u8],
        read: usize,
        carried: usize,
        carried_at: usize,
        at: usize,
    ) -> DecodeError {
        let offset = if at < carried {
            carried_at
        } else {
            read + scalar::source_offset(rest, self.rules(), at - carried)
        };
        DecodeError::new(offset, DecodeErrorKind::InvalidUtf8)
    }
}

/// The index in `bytes` of the first byte whose lossy output does not fit in `room` bytes.
fn lossy_fit(bytes: &[u8], room: usize) -> usize {
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

/// Sizing the output.
impl Decoder {
    /// The exact length of the decoding of `input`, or the error decoding would report: what
    /// [`decode`](Decoder::decode) returns, measured without allocating (the input is decoded
    /// in pieces into a buffer on the stack). Every option counts: lenient escapes copied as
    /// they are, escapes [kept as written](Decoder::keep_encoded), `%uHHHH` escapes
    /// ([`legacy_u`](Decoder::legacy_u), up to 4 bytes for 12 of input), and in
    /// [`Utf8Mode::Lossy`] each replacement (three bytes of U+FFFD for what can be a single
    /// invalid byte: the output can be longer than the input). The size to give
    /// [`decode_slice`](Decoder::decode_slice) or to allocate; saturates at `usize::MAX`.
    ///
    /// # Errors
    ///
    /// Exactly those of [`decode`](Decoder::decode), at the same offset.
    ///
    /// # Examples
    ///
    /// ```
    /// use pctenc::{Decoder, Utf8Mode};
    ///
    /// assert_eq!(Decoder::new().decoded_len("caf%C3%A9"), Ok(5));
    /// // Lossy: one invalid byte becomes the three bytes of U+FFFD.
    /// assert_eq!(Decoder::new().utf8(Utf8Mode::Lossy).decoded_len(b"\xFF"), Ok(3));
    /// assert_eq!(Decoder::new().decoded_len("%zz").unwrap_err().offset(), 0);
    ///
    /// let input = "q=caf%C3%A9+au+lait";
    /// let mut buf = vec![0u8; Decoder::FORM.decoded_len(input).unwrap()];
    /// let n = Decoder::FORM.decode_slice(input, &mut buf).unwrap();
    /// assert_eq!((n, &buf[..]), (buf.len(), "q=café au lait".as_bytes()));
    /// ```
    pub fn decoded_len(&self, input: impl AsRef<[u8]>) -> Result<usize, DecodeError> {
        let input = input.as_ref();
        if self.utf8 == Utf8Mode::Strict {
            // Escapes and UTF-8, errors in order; then the length is that of the bytes.
            self.validate_utf8(input)?;
        }
        const PIECE: usize = 512;
        let mut buf = [0u8; PIECE + 4];
        // Lossy: the bytes of an unfinished UTF-8 sequence carried to the next piece, where
        // what follows them decides how they are replaced.
        let mut carried = 0;
        let (mut read, mut total) = (0, 0usize);
        loop {
            let step = self
                .bytes(&input[read..], &mut buf[carried..carried + PIECE], true)
                .map_err(|e| e.shifted(read))?;
            let end = carried + step.written;
            read += step.read;
            let done = read == input.len();
            if self.utf8 != Utf8Mode::Lossy {
                total = total.saturating_add(step.written);
            } else {
                let tail = if done { end } else { unfinished_tail(&buf[..end]) };
                let len = utf8::lossy_len(&buf[..tail]).0.unwrap_or(usize::MAX);
                total = total.saturating_add(len);
                buf.copy_within(tail..end, 0);
                carried = end - tail;
            }
            if done {
                return Ok(total);
            }
            if step.read == 0 {
                // Every call gets on (an escape's output is at most 12 bytes, far less than
                // a piece): not reached. Stop rather than loop.
                debug_assert!(false, "a piece of {PIECE} bytes always takes some input");
                return Ok(total);
            }
        }
    }
}

/// Where the unfinished UTF-8 sequence at the end of `bytes` starts (`bytes.len()` if there
/// is none): a sequence that the bytes after it may still complete.
fn unfinished_tail(bytes: &[u8]) -> usize {
    match bytes.utf8_chunks().last() {
        Some(last) if utf8::check(&bytes[bytes.len() - last.invalid().len()..]) == Utf8End::Incomplete(0) => {
            bytes.len() - last.invalid().len()
        }
        _ => bytes.len(),
    }
}

impl fmt::Debug for Decoder {
    /// Every option by the name of its builder, the kept escapes readably: `nothing`, the
    /// name of a predefined set (`sets::RFC3986`, `Decoder::URI_RESERVED`), or the bytes
    /// whose escapes are kept, with runs as ranges (`"%/"`, `"\x00-\x1F"`, `"/" + 0x80-0xFF`).
    ///
    /// ```
    /// use pctenc::Decoder;
    ///
    /// assert_eq!(
    ///     format!("{:?}", Decoder::URI),
    ///     "Decoder { lenient: false, plus_as_space: false, utf8: Strict, legacy_u: false, \
    ///      keep_encoded: Decoder::URI_RESERVED, reject: Reject(NONE), engine: None }"
    /// );
    /// assert!(format!("{:?}", Decoder::new()).contains("keep_encoded: nothing,"));
    /// let dec = Decoder::new().keep_encoded(pctenc::Set::EMPTY.escape(b"%/"));
    /// assert!(format!("{dec:?}").contains(r#"keep_encoded: "%/" + 0x80-0xFF,"#));
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Decoder")
            .field("lenient", &self.lenient)
            .field("plus_as_space", &self.plus)
            .field("utf8", &self.utf8)
            .field("legacy_u", &self.legacy_u)
            .field("keep_encoded", &KeptEncoded(self.keep))
            .field("reject", &self.reject)
            .field("engine", &self.engine.map(|e| e.backend()))
            .finish()
    }
}

/// The `Debug` form of [`Decoder::kept_encoded`].
struct KeptEncoded(Set);

impl fmt::Debug for KeptEncoded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let set = self.0;
        let (ascii, high) = (set.ascii_bits(), set.contains(0x80));
        if ascii == 0 && !high {
            return f.write_str("nothing");
        }
        if ascii == Decoder::URI_RESERVED.ascii_bits() && !high {
            return f.write_str("Decoder::URI_RESERVED");
        }
        for named in crate::sets::NAMED {
            if named.set.ascii_bits() == ascii {
                // The constant's name: `c0-control` is `sets::C0_CONTROL`.
                f.write_str("sets::")?;
                for c in named.name.chars() {
                    write!(f, "{}", if c == '-' { '_' } else { c.to_ascii_uppercase() })?;
                }
                return if high { Ok(()) } else { f.write_str(".with_iri(true)") };
            }
        }
        if ascii != 0 {
            f.write_str("\"")?;
            let mut b = 0u8;
            while b < 128 {
                if !set.contains(b) {
                    b += 1;
                    continue;
                }
                let mut end = b;
                while end < 127 && set.contains(end + 1) {
                    end += 1;
                }
                if end - b >= 3 {
                    write!(f, "{}-{}", Shown(b), Shown(end))?;
                } else {
                    for c in b..=end {
                        write!(f, "{}", Shown(c))?;
                    }
                }
                b = end + 1;
            }
            f.write_str("\"")?;
            if high {
                f.write_str(" + ")?;
            }
        }
        if high { f.write_str("0x80-0xFF") } else { Ok(()) }
    }
}

/// An ASCII byte inside the quotes of [`KeptEncoded`]: printable as itself (`"`, `\` and `-`
/// behind a backslash), the others as `\xHH`.
struct Shown(u8);

impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            b'"' | b'\\' | b'-' => write!(f, "\\{}", char::from(self.0)),
            b' '..=b'~' => write!(f, "{}", char::from(self.0)),
            b => write!(f, "\\x{b:02X}"),
        }
    }
}
