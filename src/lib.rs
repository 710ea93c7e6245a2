//! Exact, fast percent-encoding.
//!
//! Every URL library percent-encodes, and they disagree on the details: JavaScript's
//! `encodeURIComponent` keeps `'` and `*`, `URLSearchParams` writes a space as `+` and keeps
//! `*` but not `~`, Python's `quote` keeps `/`, a browser's URL parser leaves `%` alone.
//! pctenc gives each of these rules a name, a [`Set`], and reproduces it byte for byte; it
//! decodes with the strictness you choose and tells you where input is bad; and it never
//! panics on input nor allocates when you bring the buffer.
//!
//! ```
//! use pctenc::sets;
//!
//! // Encode one URL component, as encodeURIComponent does.
//! assert_eq!(pctenc::encode("Jürgen & Björk", &sets::COMPONENT), "J%C3%BCrgen%20%26%20Bj%C3%B6rk");
//!
//! // Decode strictly: a malformed escape is an error that says where.
//! assert_eq!(pctenc::decode("J%C3%BCrgen").unwrap(), "Jürgen".as_bytes());
//! let err = pctenc::decode("100%").unwrap_err();
//! assert_eq!(err.to_string(), "offset 3: truncated percent-escape: `%` needs two hex digits");
//!
//! // Or as browsers do: never fails.
//! assert_eq!(pctenc::decode_lenient("100%"), &b"100%"[..]);
//! ```
//!
//! # Speed
//!
//! Encoding, decoding and validation run on the widest SIMD instruction set the CPU has
//! ([`Backend::detect`]: SSE2, SSSE3, AVX2 or AVX-512 on x86 and x86-64, NEON on AArch64),
//! with results byte-identical to the portable scalar code, errors included. [`Engine`] pins a
//! backend, for tests and benchmarks (and [`Encoder::engine`], [`Decoder::engine`]). Decoded
//! text is checked with the `simdutf8` validator.
//!
//! # Choosing a set
//!
//! A set is the list of bytes that get escaped, and the right one depends on where the text
//! goes and who reads it:
//!
//! | the text is | set |
//! |---|---|
//! | one value in a URL (path segment, query name or value) | [`sets::RFC3986`], or [`sets::COMPONENT`] to match `encodeURIComponent` |
//! | a form body or `URLSearchParams` (space as `+`) | [`sets::FORM`] |
//! | a whole URL that keeps its delimiters (`encodeURI`) | [`sets::URI`] |
//! | what a browser's URL parser writes | [`sets::PATH`], [`sets::QUERY`], [`sets::FRAGMENT`], ... |
//! | what Python or Go write | [`sets::PYTHON_QUOTE`], [`sets::PYTHON_QUOTE_PLUS`], [`sets::GO_PATH`] |
//!
//! Custom sets are `const`s built from these with [`Set::keep`] and [`Set::escape`], which
//! name the bytes to keep raw or to escape (`sets::RFC3986.keep(b"/")`), and friends; the
//! `percent-encoding` crate's one-byte names, [`Set::remove`] (keep) and [`Set::add`]
//! (escape), are there too.
//! The guide [`guide::choosing_a_set`] explains the traps (three form dialects, sets that keep
//! `%`, paths against path segments) and which decoder undoes each set.
//!
//! A [`Set`] is a small `Copy` value (48 bytes), passed by one rule: a function that only
//! reads the set takes `&Set`, as the `percent-encoding` crate's functions take `&AsciiSet`
//! ([`encode`], [`encode_slice`], [`validate`], ...), and a builder that keeps it takes the
//! `Set` itself ([`Encoder::new`], [`Encoder::with_set`], [`Decoder::keep_encoded`]; all
//! `const fn`s, so encoders are constants too). From a reference, write `*set`. Sets are also read from their names,
//! `"component".parse::<Set>()` (see [`sets::NAMED`]).
//!
//! ```
//! use pctenc::{sets, Encoder, Set};
//!
//! const ENC: Encoder = Encoder::new(sets::COMPONENT);
//! assert_eq!(pctenc::encode("a b", &sets::COMPONENT), ENC.encode("a b"));
//! let set: &Set = &"form".parse().unwrap();
//! assert_eq!(pctenc::encode("a b", set), "a+b");
//! assert_eq!(ENC.with_set(*set).encode("a b"), "a+b");
//! ```
//!
//! # Encoding and decoding
//!
//! The free functions cover the common cases. [`Encoder`] adds lowercase hex, UTF-16 input,
//! the lazy form and re-quoting; [`Decoder`] chooses between strict and lenient escapes, `+`
//! as space and the three UTF-8 modes ([`Utf8Mode`]), and can keep some escapes as written
//! (`decodeURI`), decode `%uXXXX` (`unescape`) and reject escapes of bytes such as `/` or NUL
//! ([`Reject`]).
//!
//! Input that arrives in pieces (a pipe, a socket, a large file) goes through
//! [`StreamEncoder`] and [`StreamDecoder`], or through the [`io`] adapters, which encode or
//! decode what goes through a `std::io` reader or writer ([`EncodeWriter`], [`DecodeWriter`],
//! [`EncodeReader`], [`DecodeReader`]). Either way the output is the one-shot output whatever
//! the pieces, and memory stays bounded.
//!
//! Large inputs in memory use every core with the `rayon` feature: [`Encoder::par_encode_vec`],
//! [`Encoder::par_encode_to`] (straight to a writer, through at most 12 MiB of buffers),
//! [`Decoder::par_decode_vec`], and large pieces fed to [`StreamEncoder`] and [`StreamDecoder`]
//! ([`StreamEncoder::feed_to`], [`StreamDecoder::feed_to`]). The chunks are cut where no escape
//! or UTF-8 character can span them, so the output is the serial output byte for byte, whatever
//! the number of threads; below [`PAR_ENCODE_THRESHOLD`] and [`PAR_DECODE_THRESHOLD`] bytes
//! everything stays serial.
//!
//! | need | call |
//! |---|---|
//! | a `Cow<str>`, borrowed when nothing changes | [`encode`], [`Encoder::encode`] |
//! | append to a `String` / `Vec<u8>` | [`encode_string`], [`Encoder::encode_vec`] |
//! | into your buffer, no allocation | [`encode_slice`] (size it with [`encoded_len`]) |
//! | the encoded length of each row of a column (one buffer and its offsets), in one pass | [`Encoder::encoded_lens`] |
//! | lazily, as `Display` or an iterator | [`percent_encode`], [`utf8_percent_encode`] |
//! | UTF-16 text, JavaScript's lone-surrogate rule | [`encode_utf16`] (strict), [`encode_utf16_lossy`] (U+FFFD, as `URLSearchParams`) |
//! | decode strictly / leniently | [`decode`], [`decode_lenient`] |
//! | decode to text: strictly / never failing (U+FFFD) | [`decode_to_str`], [`decode_to_str_lossy`] |
//! | decode into your buffer or in place | [`Decoder::decode_slice`] (size it with [`decoded_len`], [`Decoder::decoded_len`]), [`decode_in_place`] |
//! | decode as `decodeURI`, `unescape`; refuse `%2F`, `%00` | [`Decoder::URI`], [`Decoder::legacy_u`], [`Decoder::reject`] |
//! | is it already encoded for a set? | [`validate`] |
//! | read or write form pairs (`a=1&b=two+words`), as `URLSearchParams` | [`form::parse`] (a query with its `?`: [`form::parse_query`]), [`form::serialize`], [`form::Serializer`] |
//! | encode half-encoded input, keeping its escapes (re-quote) | [`requote`], [`Encoder::keep_escapes`] |
//! | RFC 3986 normalization: uppercase hex, decode unreserved escapes | [`normalize`], [`normalize_slice`], [`normalize_in_place`] |
//! | encode or decode input that arrives in pieces | [`StreamEncoder`], [`StreamDecoder`] |
//! | encode or decode through a `Read` or a `Write`, in bounded memory | [`EncodeWriter`], [`DecodeWriter`], [`EncodeReader`], [`DecodeReader`] |
//! | encode or decode a large input on every core (`rayon`) | [`Encoder::par_encode_vec`], [`Encoder::par_encode_to`], [`Decoder::par_decode_vec`] |
//! | text in Shift_JIS, EUC-KR, Big5, windows-1252, ... (`encoding`) | `Encoder::encode_in`, `Decoder::decode_in`, `form::{serialize_in, parse_in}`; `charset` |
//!
//! # Coming from the `percent-encoding` crate
//!
//! | `percent-encoding` | pctenc |
//! |---|---|
//! | `AsciiSet`, `CONTROLS.add(b' ')` | [`Set`], [`sets::C0_CONTROL`]`.add(b' ')` or `.escape(b" ")` (`const` too) |
//! | `NON_ALPHANUMERIC` | [`sets::NON_ALPHANUMERIC`] |
//! | `utf8_percent_encode(s, SET)` / `percent_encode(b, SET)` | [`utf8_percent_encode`]`(s, &SET)` / [`percent_encode`]`(b, &SET)` (the same `Display`, `Iterator`); [`encode`]`(s, &SET)` is faster |
//! | `percent_decode(b).collect::<Vec<u8>>()` / `percent_decode_str(s)` | [`decode_lenient`]`(b)` (same lenient rule) |
//! | `percent_decode(b).decode_utf8()`, `urlencoding::decode(s)` | [`decode_to_str`]`(b)`, which rejects bad escapes too and says where (lenient: [`Decoder`]) |
//! | `percent_decode(b).decode_utf8_lossy()` | [`decode_to_str_lossy`]`(b)` |
//!
//! In most code the port is: replace `percent_encoding::` by `pctenc::`, pass the set by
//! reference, and pick the pctenc set that matches the `AsciiSet` (or build it the same way).
//! The one change in behavior: [`decode`] is strict, `percent_decode` is lenient. The guide
//! [`guide::from_percent_encoding`] goes through every function, with the sets programs
//! usually define by hand.
//!
//! # Features
//!
//! - `std` (default): `std::error::Error` through `core::error::Error`, the [`io`] adapters,
//!   and `alloc`.
//! - `alloc` (enabled by `std`): the functions that return owned data, and the stream
//!   encoder and decoder. Without it, the crate is `no_std` and offers the slice, in-place
//!   and lazy APIs.
//! - `rayon`: the parallel paths for large inputs. Not a default: whether to spread work
//!   over a thread pool, and over which, is the embedding program's choice (a server may
//!   keep its cores for its requests), and rayon brings its pool and crossbeam with it.
//! - `encoding`: legacy character encodings, the WHATWG way, through `encoding_rs` (the
//!   `charset` module).
//!
//! The defaults are what a library or program embedding pctenc needs, and bring
//! `memchr` and `simdutf8` alone. The `pctenc` command-line tool is a crate of its own,
//! `pctenc-cli`, which turns on `rayon` and `encoding`.

#![cfg_attr(not(test), no_std)]
#![deny(missing_docs)]
#![forbid(unsafe_op_in_unsafe_fn)]
// docs.rs (`--cfg docsrs`, Cargo.toml): each item behind a feature says which.
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

#[cfg(feature = "encoding")]
pub mod charset;
mod decode;
mod encode;
mod error;
pub mod flags;
#[cfg(feature = "alloc")]
pub mod form;
#[cfg(feature = "std")]
pub mod guide;
mod hex;
#[cfg(feature = "std")]
pub mod io;
mod iri;
mod kernel_io;
mod normalize;
#[cfg(feature = "rayon")]
mod par;
mod scalar;
mod set;
pub mod sets;
mod simd;
#[cfg(feature = "alloc")]
pub mod words;

#[cfg(feature = "alloc")]
use alloc::{borrow::Cow, string::String};

/// The README's examples, compiled and run as doctests so that they stay true.
#[cfg(all(doctest, feature = "rayon"))]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

#[cfg(feature = "alloc")]
pub use decode::StreamDecoder;
pub use decode::{Decoder, Reject, Utf8Mode};
#[cfg(feature = "alloc")]
pub use encode::StreamEncoder;
pub use encode::{Encoder, PercentEncode};
pub use error::{
    BufferTooSmall, DecodeError, DecodeErrorKind, Utf16Error, ValidationError, ValidationErrorKind,
};
#[cfg(feature = "std")]
pub use io::{DecodeReader, DecodeWriter, EncodeReader, EncodeWriter};
#[cfg(feature = "alloc")]
pub use normalize::normalize;
pub use normalize::{normalize_in_place, normalize_slice};
#[cfg(feature = "rayon")]
pub use par::{PAR_DECODE_THRESHOLD, PAR_ENCODE_THRESHOLD};
pub use set::{ParseSetError, Set};
pub use simd::engine::{Backend, Engine};
#[cfg(feature = "alloc")]
pub use words::{WordsError, WordsErrorKind};

/// Percent-encodes `input` with `set`, borrowing it when nothing needs escaping.
///
/// `input` is any byte string (`&str`, `&[u8]`, `&String`, ...); text is encoded as its
/// UTF-8 bytes.
///
/// ```
/// use pctenc::sets;
///
/// assert_eq!(pctenc::encode("a b&c", &sets::COMPONENT), "a%20b%26c");
/// assert_eq!(pctenc::encode("中", &sets::COMPONENT), "%E4%B8%AD");
/// assert_eq!(pctenc::encode(b"\xFF", &sets::COMPONENT), "%FF");
/// ```
#[cfg(feature = "alloc")]
pub fn encode<'a, I: AsRef<[u8]> + ?Sized>(input: &'a I, set: &Set) -> Cow<'a, str> {
    Encoder::new(*set).encode(input)
}

/// Appends the percent-encoding of `input` with `set` to `out`.
///
/// # Panics
///
/// Only where any `String` growth panics: when the output's length overflows `usize`.
///
/// # Examples
///
/// ```
/// let mut query = String::from("q=");
/// pctenc::encode_string("C++ & C#", &pctenc::sets::FORM, &mut query);
/// assert_eq!(query, "q=C%2B%2B+%26+C%23");
/// ```
#[cfg(feature = "alloc")]
pub fn encode_string(input: impl AsRef<[u8]>, set: &Set, out: &mut String) {
    Encoder::new(*set).encode_string(input, out)
}

/// Percent-encodes `input` with `set` into the start of `out` and returns the number of bytes
/// written. Never allocates and never writes past `out`; when `out` is too small it returns
/// [`BufferTooSmall`] with the size needed (what was written into `out` is then unspecified).
///
/// # Errors
///
/// [`BufferTooSmall`] when the encoding does not fit in `out`; its
/// [`needed`](BufferTooSmall::needed) is the exact size ([`encoded_len`]).
///
/// # Examples
///
/// ```
/// let mut buf = [0u8; 16];
/// let n = pctenc::encode_slice("100%", &pctenc::sets::RFC3986, &mut buf).unwrap();
/// assert_eq!(&buf[..n], b"100%25");
/// assert!(pctenc::encode_slice("100%", &pctenc::sets::RFC3986, &mut buf[..5]).is_err());
/// ```
pub fn encode_slice(input: impl AsRef<[u8]>, set: &Set, out: &mut [u8]) -> Result<usize, BufferTooSmall> {
    Encoder::new(*set).encode_slice(input, out)
}

/// The exact length of the percent-encoding of `input` with `set`. The arithmetic is
/// checked: a length that does not fit in `usize` gives `usize::MAX` rather than wrapping (see
/// [`Encoder::checked_encoded_len`] to tell that case apart).
///
/// ```
/// assert_eq!(pctenc::encoded_len("é!", &pctenc::sets::RFC3986), 9);
/// ```
pub fn encoded_len(input: impl AsRef<[u8]>, set: &Set) -> usize {
    Encoder::new(*set).encoded_len(input)
}

/// Percent-encodes UTF-16 text (a JavaScript or Windows string) as its UTF-8 bytes. A lone
/// surrogate is an error naming its index: exactly the inputs on which JavaScript's
/// `encodeURIComponent` throws `URIError` ([`encode_utf16_lossy`] writes U+FFFD instead, as
/// `URLSearchParams` does).
///
/// # Errors
///
/// [`Utf16Error`] at the first lone surrogate: its [`index`](Utf16Error::index) in `input`
/// and the code unit.
///
/// # Examples
///
/// ```
/// let units: Vec<u16> = "é".encode_utf16().collect();
/// assert_eq!(pctenc::encode_utf16(&units, &pctenc::sets::COMPONENT).unwrap(), "%C3%A9");
/// assert_eq!(pctenc::encode_utf16(&[0xD83D], &pctenc::sets::COMPONENT).unwrap_err().index(), 0);
/// ```
#[cfg(feature = "alloc")]
pub fn encode_utf16(input: &[u16], set: &Set) -> Result<String, Utf16Error> {
    Encoder::new(*set).encode_utf16(input)
}

/// Percent-encodes UTF-16 text as its UTF-8 bytes, each lone surrogate written as U+FFFD
/// (`%EF%BF%BD` in every set that escapes non-ASCII), as `URLSearchParams` and the URL parser
/// do with a JavaScript string. Never fails; [`encode_utf16`] is the strict form, which
/// reports the lone surrogate where `encodeURIComponent` throws. The shortcut for
/// [`Encoder::encode_utf16_lossy`].
///
/// ```
/// use pctenc::sets;
///
/// // new URLSearchParams({"x\uDC53": "1"}).toString() is "x%EF%BF%BD=1"
/// assert_eq!(pctenc::encode_utf16_lossy(&[0x78, 0xDC53], &sets::FORM), "x%EF%BF%BD");
/// let units: Vec<u16> = "é".encode_utf16().collect();
/// assert_eq!(pctenc::encode_utf16_lossy(&units, &sets::COMPONENT), "%C3%A9");
/// ```
#[cfg(feature = "alloc")]
pub fn encode_utf16_lossy(input: &[u16], set: &Set) -> String {
    Encoder::new(*set).encode_utf16_lossy(input)
}

/// Re-quotes `input` for `set`: encodes what needs encoding without encoding anything twice.
/// Every valid `%HH` escape is kept as written, a `%` that starts no escape becomes `%25`,
/// and every other byte is encoded as [`encode`] would (a `+` is kept in a space-as-`+` set,
/// where it stands for a space). Borrows `input` when it is already a correct encoding for
/// `set` (see [`validate`]).
///
/// The shortcut for [`Encoder::keep_escapes`], which explains the rules and offers every
/// output form (slice, `String`, lazy, ...). For half-encoded input such as a URL typed by a
/// user or copied from a log.
///
/// ```
/// use pctenc::sets;
///
/// assert_eq!(pctenc::requote("100% %41 %zz", &sets::COMPONENT), "100%25%20%41%20%25zz");
/// assert_eq!(pctenc::requote("/a b/caf%C3%A9?q=ü", &sets::URI), "/a%20b/caf%C3%A9?q=%C3%BC");
/// // Already encoded: unchanged and borrowed.
/// assert!(matches!(pctenc::requote("a%20b", &sets::COMPONENT), std::borrow::Cow::Borrowed(_)));
/// ```
#[cfg(feature = "alloc")]
pub fn requote<'a, I: AsRef<[u8]> + ?Sized>(input: &'a I, set: &Set) -> Cow<'a, str> {
    Encoder::new(*set).keep_escapes(true).encode(input)
}

/// The lazy percent-encoding of `input` with `set`: `Display`, an iterator of `&str` pieces,
/// and `Into<Cow<str>>`, as in the `percent-encoding` crate.
///
/// ```
/// let enc = pctenc::percent_encode(b"a b", &pctenc::sets::COMPONENT);
/// assert_eq!(enc.to_string(), "a%20b");
/// ```
pub fn percent_encode<'a>(input: &'a [u8], set: &Set) -> PercentEncode<'a> {
    Encoder::new(*set).lazy(input)
}

/// [`percent_encode`] for a `&str`.
///
/// ```
/// let s = pctenc::utf8_percent_encode("é", &pctenc::sets::COMPONENT).to_string();
/// assert_eq!(s, "%C3%A9");
/// ```
pub fn utf8_percent_encode<'a>(input: &'a str, set: &Set) -> PercentEncode<'a> {
    percent_encode(input.as_bytes(), set)
}

/// Checks that `input` is already a correct encoding for `set`: no byte that the set escapes
/// appears raw (a `+` is fine in a space-as-plus set; for an IRI set, raw non-ASCII must be
/// valid UTF-8 characters the set keeps, [`Set::with_iri`]), and every `%` starts a `%HH`
/// escape. The error names the first problem.
///
/// This is what an encoder's output always passes, so it tells whether input can be used as
/// is or needs encoding (or re-quoting). Vectorized like the encoder.
///
/// # Errors
///
/// [`ValidationError`] at the first byte that is wrong: its offset, and whether it is a byte
/// the set escapes, a `%` without two hex digits, or (IRI sets) invalid UTF-8 or a character
/// the set does not keep raw.
///
/// # Examples
///
/// ```
/// use pctenc::{sets, ValidationErrorKind};
///
/// assert!(pctenc::validate("J%C3%BCrgen%20%26%20Bj%C3%B6rk", &sets::COMPONENT).is_ok());
/// assert!(pctenc::validate("a+b%2B", &sets::FORM).is_ok());
/// let err = pctenc::validate("100%", &sets::COMPONENT).unwrap_err();
/// assert_eq!((err.offset(), err.kind()), (3, ValidationErrorKind::TruncatedEscape));
/// ```
pub fn validate(input: impl AsRef<[u8]>, set: &Set) -> Result<(), ValidationError> {
    Encoder::new(*set).validate(input)
}

/// Decodes strictly: every `%` must start a `%HH` escape (hex digits of either case), else
/// the error names its offset, as JavaScript's `decodeURIComponent` and Go's
/// `url.PathUnescape` do. `+` is kept; the bytes are returned as they are (see [`Decoder`] for
/// `+` as space and UTF-8 checks). Borrows `input` when it has no `%`.
///
/// # Errors
///
/// [`DecodeError`] at the first `%` that does not start a `%HH` escape: its offset and its
/// kind ([`DecodeErrorKind::TruncatedEscape`] when the input ends within what could still
/// become an escape, [`DecodeErrorKind::InvalidEscape`] otherwise).
///
/// # Examples
///
/// ```
/// use pctenc::DecodeErrorKind;
///
/// assert_eq!(pctenc::decode("%c3%a9").unwrap(), "é".as_bytes());
/// let err = pctenc::decode("%4").unwrap_err();
/// assert_eq!((err.offset(), err.kind()), (0, DecodeErrorKind::TruncatedEscape));
/// ```
#[cfg(feature = "alloc")]
pub fn decode<I: AsRef<[u8]> + ?Sized>(input: &I) -> Result<Cow<'_, [u8]>, DecodeError> {
    Decoder::new().decode(input)
}

/// Decodes as the WHATWG URL Standard's percent-decode does: a `%` that does not start a
/// valid escape is copied as is. Never fails. Borrows `input` when it has no `%`.
///
/// ```
/// assert_eq!(pctenc::decode_lenient("%%41%zz"), &b"%A%zz"[..]);
/// ```
#[cfg(feature = "alloc")]
pub fn decode_lenient<I: AsRef<[u8]> + ?Sized>(input: &I) -> Cow<'_, [u8]> {
    match Decoder::new().lenient(true).decode(input) {
        Ok(bytes) => bytes,
        // Lenient byte decoding has no error case.
        Err(_) => unreachable!("lenient decoding never fails"),
    }
}

/// Decodes to text, strictly: every `%` must start a `%HH` escape and the decoded bytes must
/// be UTF-8, else the error names the offset of the first problem. What JavaScript's
/// `decodeURIComponent` does ([`Decoder::URI_COMPONENT`]`.decode_to_str`), in one call for
/// code that used `percent_decode_str(s).decode_utf8()` or `urlencoding::decode(s)`; unlike
/// them it also refuses a `%` that starts no escape (they copy it). `+` is kept. Borrows
/// `input` when it has no `%` (and is UTF-8).
///
/// # Errors
///
/// [`DecodeError`] at the first problem: a malformed `%`
/// ([`TruncatedEscape`](DecodeErrorKind::TruncatedEscape),
/// [`InvalidEscape`](DecodeErrorKind::InvalidEscape)) or the start of invalid UTF-8
/// ([`InvalidUtf8`](DecodeErrorKind::InvalidUtf8)).
///
/// # Examples
///
/// ```
/// use pctenc::DecodeErrorKind;
///
/// assert_eq!(pctenc::decode_to_str("J%C3%BCrgen%20%26%20Bj%C3%B6rk").unwrap(), "Jürgen & Björk");
/// let err = pctenc::decode_to_str("caf%E9").unwrap_err();
/// assert_eq!((err.offset(), err.kind()), (3, DecodeErrorKind::InvalidUtf8));
/// assert_eq!(pctenc::decode_to_str("100%").unwrap_err().kind(), DecodeErrorKind::TruncatedEscape);
/// assert!(matches!(pctenc::decode_to_str("plain"), Ok(std::borrow::Cow::Borrowed("plain"))));
/// ```
#[cfg(feature = "alloc")]
pub fn decode_to_str<I: AsRef<[u8]> + ?Sized>(input: &I) -> Result<Cow<'_, str>, DecodeError> {
    Decoder::URI_COMPONENT.decode_to_str(input)
}

/// Decodes to text and never fails: a `%` that starts no escape is copied (as
/// [`decode_lenient`]), and each invalid UTF-8 sequence becomes U+FFFD, as
/// [`String::from_utf8_lossy`] does. One call for code that used
/// `percent_decode_str(s).decode_utf8_lossy()`, with the same result. `+` is kept (for form
/// values, where `+` is a space, see [`Decoder::FORM`]). Borrows `input` when it has no `%`
/// and is UTF-8.
///
/// ```
/// assert_eq!(pctenc::decode_to_str_lossy("caf%C3%A9 100%"), "café 100%");
/// assert_eq!(pctenc::decode_to_str_lossy("caf%E9"), "caf\u{FFFD}");
/// assert_eq!(pctenc::decode_to_str_lossy(b"a+b\xFF"), "a+b\u{FFFD}");
/// ```
#[cfg(feature = "alloc")]
pub fn decode_to_str_lossy<I: AsRef<[u8]> + ?Sized>(input: &I) -> Cow<'_, str> {
    match Decoder::new().lenient(true).utf8(Utf8Mode::Lossy).decode_to_str(input) {
        Ok(text) => text,
        // Lenient lossy decoding has no error case.
        Err(_) => unreachable!("lenient lossy decoding never fails"),
    }
}

/// Decodes `buf` in place, strictly (as [`decode`]), and returns the decoded length: the
/// result is `buf[..len]`. Never allocates.
///
/// # Errors
///
/// As [`decode`]. On an error, `buf` holds unspecified bytes.
///
/// # Examples
///
/// ```
/// let mut buf = *b"a%2Fb";
/// let len = pctenc::decode_in_place(&mut buf).unwrap();
/// assert_eq!(&buf[..len], b"a/b");
/// ```
pub fn decode_in_place(buf: &mut [u8]) -> Result<usize, DecodeError> {
    Decoder::new().decode_in_place(buf)
}

/// The exact length of [`decode`]`(input)` (strict escapes, bytes as they are), or its error,
/// computed without allocating: the size for [`Decoder::decode_slice`], as [`encoded_len`] is
/// for [`encode_slice`]. [`Decoder::decoded_len`] measures for the other decoders.
///
/// # Errors
///
/// As [`decode`].
///
/// # Examples
///
/// ```
/// assert_eq!(pctenc::decoded_len("a%2Fb"), Ok(3));
/// assert_eq!(pctenc::decoded_len("50%off").unwrap_err().offset(), 2);
/// ```
pub fn decoded_len(input: impl AsRef<[u8]>) -> Result<usize, DecodeError> {
    Decoder::new().decoded_len(input)
}

/// The parallel paths without their size threshold, for `benches/parallel.rs`, which
/// measures where that threshold should be, and the `parallel` fuzz target. Not part of the
/// API: hidden, and kept out of the re-exports above.
#[cfg(feature = "rayon")]
#[doc(hidden)]
pub mod __par {
    /// [`Encoder::par_encode_vec`](crate::Encoder::par_encode_vec) at any size.
    pub fn encode_vec(encoder: &crate::Encoder, input: &[u8], out: &mut alloc::vec::Vec<u8>) {
        crate::encode::par::encode_vec(encoder, input, out, crate::par::CHUNK)
    }

    /// [`Decoder::par_decode_vec`](crate::Decoder::par_decode_vec) at any size.
    pub fn decode_vec(
        decoder: &crate::Decoder,
        input: &[u8],
        out: &mut alloc::vec::Vec<u8>,
    ) -> Result<(), crate::DecodeError> {
        crate::decode::par::decode_vec(decoder, input, out, crate::par::CHUNK)
    }
}

/// What the `pctenc` binary (the pctenc-cli crate) shares with the library so that both
/// follow one table. Not part of the API: hidden, and kept out of the re-exports above.
#[doc(hidden)]
pub mod __cli {
    #[cfg(feature = "encoding")]
    pub use crate::charset::explain::CANDIDATES;
    pub use crate::iri::BIDI_CONTROL;

    /// [`Encoder::encode_string_in`](crate::Encoder::encode_string_in) with an encoding that
    /// is not ASCII-compatible (ISO-2022-JP), of a text that comes in pieces, each cut
    /// outside the escapes that `keep_escapes` copies: `converter` (of that encoding) carries
    /// the state from piece to piece, and `last` ends the text.
    #[cfg(feature = "encoding")]
    pub fn encode_stateful_part(
        encoder: &crate::Encoder,
        converter: &mut encoding_rs::Encoder,
        text: &str,
        last: bool,
        out: &mut alloc::string::String,
    ) {
        encoder.with_set(encoder.set().with_iri(false)).encode_stateful_part(converter, text, last, out)
    }
}
