//! Decoding: [`Decoder`] and its modes.

pub(crate) mod scalar;
#[cfg(feature = "alloc")]
mod stream;
mod utf8;

#[cfg(feature = "alloc")]
use alloc::{borrow::Cow, string::String, vec::Vec};

use crate::{DecodeError, DecodeErrorKind, Engine};
use scalar::{Rules, Step};
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
/// When the input has several problems, the error is the first one a left-to-right reader
/// meets: an invalid UTF-8 sequence is reported where it starts once the bytes after it show
/// that it is invalid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Decoder {
    lenient: bool,
    plus: bool,
    utf8: Utf8Mode,
    engine: Option<Engine>,
}

impl Default for Decoder {
    fn default() -> Self {
        Decoder::new()
    }
}

impl Decoder {
    /// JavaScript `decodeURIComponent` (and `decodeURI`'s error rules): strict escapes,
    /// `+` kept, strict UTF-8.
    pub const URI_COMPONENT: Decoder = Decoder::new().utf8(Utf8Mode::Strict);

    /// `application/x-www-form-urlencoded` values as `URLSearchParams` and the
    /// `form_urlencoded` crate read them: lenient, `+` is a space, lossy UTF-8.
    pub const FORM: Decoder = Decoder::new().lenient(true).plus_as_space(true).utf8(Utf8Mode::Lossy);

    /// Strict escapes, `+` kept, bytes returned as they are: what [`decode`](crate::decode)
    /// does.
    ///
    /// ```
    /// assert_eq!(pctenc::Decoder::new().decode("a+%41").unwrap(), &b"a+A"[..]);
    /// ```
    pub const fn new() -> Decoder {
        Decoder { lenient: false, plus: false, utf8: Utf8Mode::Bytes, engine: None }
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

    /// The byte decoder (escapes and `+`, no UTF-8 step) on this decoder's engine.
    #[inline]
    pub(crate) fn bytes(&self, input: &[u8], out: &mut [u8], last: bool) -> Result<Step, DecodeError> {
        crate::simd::decode(self.engine_in_use(), input, out, self.rules(), last)
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

    /// Whether a malformed `%` is copied instead of being an error.
    pub const fn is_lenient(&self) -> bool {
        self.lenient
    }

    /// Whether `+` decodes to a space.
    pub const fn is_plus_as_space(&self) -> bool {
        self.plus
    }

    /// The UTF-8 mode.
    pub const fn utf8_mode(&self) -> Utf8Mode {
        self.utf8
    }

    pub(crate) const fn rules(&self) -> Rules {
        Rules { lenient: self.lenient, plus: self.plus }
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

    /// Decodes `input` as bytes (no UTF-8 step), appending to `out`.
    #[cfg(feature = "alloc")]
    fn decode_bytes_into(&self, input: &[u8], out: &mut Vec<u8>) -> Result<(), DecodeError> {
        let start = out.len();
        out.resize(start + input.len(), 0);
        match self.bytes(input, &mut out[start..], true) {
            Ok(step) => {
                out.truncate(start + step.written);
                Ok(())
            }
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
            let step = scalar::decode(rest, &mut scratch, self.rules(), true)
                .expect("prefix before the first error decodes");
            total += step.written;
            rest = &rest[step.read..];
        }
        total
    }

    /// Decodes `input` to text: like [`decode`](Decoder::decode), but returns a `str`. In
    /// [`Utf8Mode::Bytes`], which cannot promise text, invalid UTF-8 is an error as in
    /// [`Utf8Mode::Strict`].
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

    /// Decodes `input`, appending to `out`. On error, `out` is left as it was.
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

    /// Decodes `input` into the start of `out` and returns the number of bytes written.
    /// Never allocates. The output is never longer than the input, except in
    /// [`Utf8Mode::Lossy`], where each replaced byte can become the three bytes of U+FFFD.
    ///
    /// A too-small `out` is an error of kind [`DecodeErrorKind::BufferTooSmall`]; then, as
    /// after any error, the contents of `out` are unspecified.
    ///
    /// ```
    /// let mut buf = [0u8; 16];
    /// let n = pctenc::Decoder::new().decode_slice("a%2Fb", &mut buf).unwrap();
    /// assert_eq!(&buf[..n], b"a/b");
    ///
    /// let err = pctenc::Decoder::new().decode_slice("abcd", &mut buf[..2]).unwrap_err();
    /// assert_eq!((err.kind(), err.offset()), (pctenc::DecodeErrorKind::BufferTooSmall, 2));
    /// ```
    pub fn decode_slice(&self, input: impl AsRef<[u8]>, out: &mut [u8]) -> Result<usize, DecodeError> {
        let input = input.as_ref();
        let step = self
            .bytes(input, out, true)
            .map_err(|e| self.first_error(input, &out[..self.decoded_before(input, e)], e))?;
        if step.read < input.len() {
            // Report a problem earlier in the input before the lack of room.
            if self.utf8 == Utf8Mode::Strict
                && let Utf8End::Invalid(at) = utf8::check(&out[..step.written])
            {
                return Err(self.utf8_error(input, at));
            }
            let offset = match self.utf8 {
                // Replacements before the end of `out` may be what did not fit.
                Utf8Mode::Lossy => self.lossy_overflow(input, &out[..step.written], step.read),
                _ => step.read,
            };
            return Err(DecodeError::new(offset, DecodeErrorKind::BufferTooSmall));
        }
        let len = step.written;
        match self.utf8 {
            Utf8Mode::Bytes => Ok(len),
            Utf8Mode::Strict => self.check_utf8(input, &out[..len]).map(|()| len),
            Utf8Mode::Lossy => utf8::lossy_in_place(out, len).map_err(|_| {
                let fit = lossy_fit(&out[..len], out.len());
                DecodeError::new(
                    scalar::source_offset(input, self.rules(), fit),
                    DecodeErrorKind::BufferTooSmall,
                )
            }),
        }
    }

    /// For [`decode_slice`](Decoder::decode_slice) in lossy mode: `out` holds the first
    /// decoded bytes, exactly as many as the output slice has room for, and the input from
    /// `read` on did not fit. Returns the input offset of the first byte whose lossy output
    /// does not fit. An unfinished UTF-8 sequence at the end of `out` is judged together with
    /// the (at most three) decoded bytes that follow it.
    fn lossy_overflow(&self, input: &[u8], out: &[u8], read: usize) -> usize {
        let room = out.len();
        // Where the unfinished sequence at the end of `out` starts (`room` if there is none).
        let tail = match out.utf8_chunks().last() {
            Some(last) if utf8::check(&out[room - last.invalid().len()..]) == Utf8End::Incomplete(0) => {
                room - last.invalid().len()
            }
            _ => room,
        };
        let fit = lossy_fit(&out[..tail], room);
        if fit < tail {
            return scalar::source_offset(input, self.rules(), fit);
        }
        let mut next = [0u8; 6];
        let kept = room - tail;
        next[..kept].copy_from_slice(&out[tail..]);
        let rest = &input[read..];
        let more = match scalar::decode(rest, &mut next[kept..kept + 3], self.rules(), true) {
            Ok(step) => step.written,
            Err(e) => self.decoded_before(rest, e),
        };
        let used = utf8::lossy_len(&out[..tail]).0.unwrap_or(usize::MAX);
        let fit = tail + lossy_fit(&next[..kept + more], room.saturating_sub(used));
        scalar::source_offset(input, self.rules(), fit.min(room))
    }

    /// Decodes `buf` in place and returns the decoded length: the decoded bytes are
    /// `buf[..len]`. Never allocates.
    ///
    /// In [`Utf8Mode::Strict`] the input is checked before anything is overwritten, so the
    /// error can name its input offset; that costs a second pass. In [`Utf8Mode::Lossy`], a
    /// replacement that makes the output longer than `buf` is an error of kind
    /// [`DecodeErrorKind::BufferTooSmall`] whose offset, the input being gone, is the index in
    /// the decoded bytes of the first one that did not fit. After an error the contents of
    /// `buf` are unspecified.
    ///
    /// ```
    /// let mut buf = *b"a%20b%2Bc";
    /// let n = pctenc::Decoder::new().decode_in_place(&mut buf).unwrap();
    /// assert_eq!(&buf[..n], b"a b+c");
    /// ```
    pub fn decode_in_place(&self, buf: &mut [u8]) -> Result<usize, DecodeError> {
        if self.utf8 == Utf8Mode::Strict {
            self.validate_utf8(buf)?;
        }
        let len = scalar::decode_in_place(buf, self.rules())?;
        match self.utf8 {
            Utf8Mode::Lossy => utf8::lossy_in_place(buf, len).map_err(|_| {
                DecodeError::new(lossy_fit(&buf[..len], buf.len()), DecodeErrorKind::BufferTooSmall)
            }),
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
