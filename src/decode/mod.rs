//! Decoding: [`Decoder`], its switches and presets. The rest of it by job: `options.rs`
//! ([`Utf8Mode`], [`Reject`]), `output.rs` (the output forms and sizing), `check.rs` (which
//! problem is reported, and where), `lossy.rs` (lossy output that outgrows a slice),
//! `debug.rs` (`Debug`), `stream.rs` ([`StreamDecoder`]), `par.rs` (the parallel paths),
//! `utf8.rs` (the UTF-8 step).

mod check;
mod debug;
mod lossy;
mod options;
mod output;
#[cfg(feature = "rayon")]
pub(crate) mod par;
#[cfg(feature = "alloc")]
mod stream;
pub(crate) mod utf8;

pub use options::{Reject, Utf8Mode};
#[cfg(feature = "alloc")]
pub use stream::StreamDecoder;

#[cfg(doc)]
use crate::error::DecodeErrorKind;
use crate::kernel_io::{Rules, Step};
use crate::scalar::decode as scalar;
use crate::{error::DecodeError, set::Set, simd::engine::Engine};

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
/// Each option reads back under one rule: a switch `x(on)` as a question, `is_x()`
/// ([`is_lenient`](Decoder::is_lenient)), and an option that takes a value, `x(value)`, as
/// `x_value()` ([`utf8_value`](Decoder::utf8_value),
/// [`keep_encoded_value`](Decoder::keep_encoded_value)).
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
    /// assert_eq!(pctenc::Decoder::new().engine_value(), pctenc::Engine::detect());
    /// ```
    pub fn engine_value(&self) -> Engine {
        self.engine.unwrap_or_else(Engine::detect)
    }

    /// The byte decoder (escapes and `+`, no UTF-8 step) on this decoder's engine. The
    /// vector decoders handle the basic rules and rejected bytes; `%u` and kept escapes are
    /// the scalar decoder's. `out` may be spare capacity: it is written, never read.
    #[inline]
    pub(crate) fn bytes(
        &self,
        input: &[u8],
        out: &mut [core::mem::MaybeUninit<u8>],
        last: bool,
    ) -> Result<Step, DecodeError> {
        let rules = self.rules();
        if rules.vectorizable() {
            crate::simd::decode(self.engine_value(), input, out, rules, last)
        } else {
            scalar::decode(input, out, rules, last)
        }
    }

    /// [`bytes`](Decoder::bytes) into initialised bytes, which stay initialised.
    #[inline]
    pub(crate) fn bytes_into(&self, input: &[u8], out: &mut [u8], last: bool) -> Result<Step, DecodeError> {
        // SAFETY: the decoders write only bytes.
        self.bytes(input, unsafe { crate::kernel_io::as_uninit(out) }, last)
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
    /// assert_eq!(Decoder::new().utf8_value(), Utf8Mode::Bytes);
    /// assert_eq!(Decoder::URI_COMPONENT.utf8_value(), Utf8Mode::Strict);
    /// assert_eq!(Decoder::FORM.utf8_value(), Utf8Mode::Lossy);
    /// ```
    pub const fn utf8_value(&self) -> Utf8Mode {
        self.utf8
    }

    /// The set of bytes whose escapes are kept as written; by default an IRI set that
    /// contains no byte.
    ///
    /// ```
    /// use pctenc::Decoder;
    ///
    /// assert!((0..=255).all(|b| !Decoder::new().keep_encoded_value().contains(b)));
    /// assert_eq!(Decoder::URI.keep_encoded_value(), Decoder::URI_RESERVED);
    /// ```
    pub const fn keep_encoded_value(&self) -> Set {
        self.keep
    }

    /// Whether `%uHHHH` escapes are decoded.
    pub const fn is_legacy_u(&self) -> bool {
        self.legacy_u
    }

    /// The classes of bytes that an escape must not decode to.
    ///
    /// ```
    /// use pctenc::{Decoder, Reject};
    ///
    /// assert_eq!(Decoder::new().reject_value(), Reject::NONE);
    /// assert_eq!(Decoder::new().reject(Reject::CONTROLS).reject_value(), Reject::CONTROLS);
    /// ```
    pub const fn reject_value(&self) -> Reject {
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
}
