//! The output forms of a [`Decoder`]: `Cow`, `str`, `Vec`, slice, in place, the parallel
//! `Vec`; and sizing ([`Decoder::decoded_len`]).

#[cfg(feature = "alloc")]
use alloc::{borrow::Cow, string::String, vec::Vec};

use super::lossy::{lossy_fit, unfinished_tail};
use super::utf8::{self, Utf8End};
use super::{Decoder, Utf8Mode};
use crate::error::DecodeError;
#[cfg(doc)]
use crate::error::DecodeErrorKind;
#[cfg(feature = "alloc")]
use crate::kernel_io::Step;
use crate::scalar::decode as scalar;

impl Decoder {
    #[cfg(feature = "alloc")]
    /// Whether `input` decodes to itself as bytes: no `%`, and no `+` when `+` is a space.
    pub(super) fn is_verbatim(&self, input: &[u8]) -> bool {
        if self.plus {
            memchr::memchr2(b'%', b'+', input).is_none()
        } else {
            memchr::memchr(b'%', input).is_none()
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
        // As bytes, the output is never longer than the input. Decoded into spare capacity:
        // neither zeroed nor read. A large new vector comes as fresh pages, so the room the
        // output does not use (two thirds of it for escape-dense input) is never touched.
        out.reserve(input.len());
        match self.bytes(input, &mut out.spare_capacity_mut()[..input.len()], last) {
            Ok(step) => {
                // SAFETY: the decoder wrote `step.written` bytes at the start of the spare
                // capacity.
                unsafe { out.set_len(start + step.written) };
                Ok(step)
            }
            Err(_) => {
                // The error path: the bytes before the error are the caller's to read (its
                // message orders a UTF-8 error before it), so decode again into initialised
                // memory, which returns the same error.
                out.resize(start + input.len(), 0);
                self.bytes_into(input, &mut out[start..], last)
            }
        }
    }

    /// Decodes `input` as bytes (no UTF-8 step), appending to `out`.
    #[cfg(feature = "alloc")]
    pub(super) fn decode_bytes_into(&self, input: &[u8], out: &mut Vec<u8>) -> Result<(), DecodeError> {
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
        if input.len() < crate::par::PAR_DECODE_THRESHOLD
            || crate::par::single_thread()
            || !super::par::splits(self)
        {
            self.decode_vec(input, out)
        } else {
            super::par::decode_vec(self, input, out, crate::par::CHUNK)
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
            .bytes_into(input, out, true)
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
            self.check_whole(buf)?;
        }
        let len = scalar::decode_in_place(buf, self.rules())?;
        match self.utf8 {
            Utf8Mode::Lossy => utf8::lossy_in_place(buf, len)
                .map_err(|needed| DecodeError::too_small(lossy_fit(&buf[..len], buf.len()), needed)),
            _ => Ok(len),
        }
    }
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
            self.check_whole(input)?;
        }
        const PIECE: usize = 512;
        let mut buf = [0u8; PIECE + 4];
        // Lossy: the bytes of an unfinished UTF-8 sequence carried to the next piece, where
        // what follows them decides how they are replaced.
        let mut carried = 0;
        let (mut read, mut total) = (0, 0usize);
        loop {
            let step = self
                .bytes_into(&input[read..], &mut buf[carried..carried + PIECE], true)
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
