//! Decoding escapes whose bytes are in a legacy encoding: the bytes first, on the SIMD paths,
//! then `encoding_rs` from that encoding to UTF-8, by the decoder's UTF-8 mode.

use alloc::borrow::Cow;
use alloc::string::String;

use encoding_rs::{DecoderResult, Encoding, UTF_8};

use super::Charset;
use crate::scalar::decode::source_offset;
use crate::{decode::Decoder, decode::Utf8Mode, error::DecodeError, error::DecodeErrorKind};

impl Decoder {
    /// Decodes `input`, whose escapes (and raw bytes) are text in `charset`, as a server reads
    /// a form or query that a page in that encoding sent. The escapes are decoded as by
    /// [`decode`](Decoder::decode) (this decoder's rules for `%`, `+` and the rest); then the
    /// decoder's [`Utf8Mode`] applies to `charset` instead of UTF-8:
    ///
    /// - [`Strict`](Utf8Mode::Strict): the bytes are converted to UTF-8, and a malformed
    ///   sequence is an [`InvalidCharset`](DecodeErrorKind::InvalidCharset) error at the
    ///   input offset where it starts (its `%`, or its raw byte);
    /// - [`Lossy`](Utf8Mode::Lossy): each malformed sequence becomes U+FFFD, as the Encoding
    ///   Standard decodes;
    /// - [`Bytes`](Utf8Mode::Bytes): the bytes as decoded, not converted.
    ///
    /// A byte order mark is data (no BOM sniffing: the caller named the encoding). With UTF-8
    /// this is [`decode`](Decoder::decode).
    ///
    /// [`legacy_u`](Decoder::legacy_u), [`keep_encoded`](Decoder::keep_encoded) and
    /// [`reject`](Decoder::reject) act on the decoded *bytes*, before the conversion: a
    /// `%uHHHH` escape gives the UTF-8 bytes of its character, and the second byte of a
    /// two-byte character (Shift_JIS's `0x5C`, a backslash on its own, in `表`) is kept or
    /// rejected as that byte. They are for UTF-8; the CLI refuses them with `--charset`. The output borrows `input` when there is nothing
    /// to decode or convert (ASCII without escapes).
    ///
    /// Behind the feature `encoding`.
    ///
    /// # Errors
    ///
    /// Those of [`decode`](Decoder::decode), and in strict mode `InvalidCharset`; as there,
    /// the first problem a left-to-right reader meets.
    ///
    /// # Examples
    ///
    /// ```
    /// use pctenc::charset::Charset;
    /// use pctenc::{DecodeErrorKind, Decoder, Utf8Mode};
    ///
    /// let strict = Decoder::new().utf8(Utf8Mode::Strict);
    /// assert_eq!(strict.decode_in("Fu%DFball", Charset::WINDOWS_1252).unwrap(), "Fußball".as_bytes());
    /// // 0x82 0x20 is not Shift_JIS: the error is at the `%` that starts it.
    /// let err = strict.decode_in("ab%82%20", Charset::SHIFT_JIS).unwrap_err();
    /// assert_eq!((err.offset(), err.kind()), (2, DecodeErrorKind::InvalidCharset));
    ///
    /// let lossy = Decoder::new().utf8(Utf8Mode::Lossy);
    /// assert_eq!(lossy.decode_in("ab%82%20", Charset::SHIFT_JIS).unwrap(), "ab\u{FFFD} ".as_bytes());
    /// // Bytes mode: no conversion.
    /// assert_eq!(Decoder::new().decode_in("%82%A0", Charset::SHIFT_JIS).unwrap(), &b"\x82\xA0"[..]);
    /// ```
    pub fn decode_in<'a, I: AsRef<[u8]> + ?Sized>(
        &self,
        input: &'a I,
        charset: Charset,
    ) -> Result<Cow<'a, [u8]>, DecodeError> {
        let input = input.as_ref();
        let encoding = charset.encoding();
        if encoding == UTF_8 || self.utf8_value() == Utf8Mode::Bytes {
            return self.decode(input);
        }
        let bytes = self.utf8(Utf8Mode::Bytes);
        let decoded = match bytes.decode(input) {
            Ok(decoded) => decoded,
            Err(e) => return Err(self.first_charset_error(input, encoding, e)),
        };
        if self.utf8_value() == Utf8Mode::Lossy {
            return Ok(match decoded {
                Cow::Borrowed(b) => match encoding.decode_without_bom_handling(b).0 {
                    Cow::Borrowed(text) => Cow::Borrowed(text.as_bytes()),
                    Cow::Owned(text) => Cow::Owned(text.into_bytes()),
                },
                Cow::Owned(b) => {
                    Cow::Owned(encoding.decode_without_bom_handling(&b).0.into_owned().into_bytes())
                }
            });
        }
        if is_plain_ascii(encoding, &decoded) {
            return Ok(decoded);
        }
        match strict(encoding, &decoded, true) {
            Ok(text) => Ok(Cow::Owned(text.into_bytes())),
            Err(at) => Err(self.charset_error(input, at)),
        }
    }

    /// [`decode_in`](Decoder::decode_in) to a string: the same, but in
    /// [`Utf8Mode::Bytes`] the conversion is strict, as in
    /// [`decode_to_str`](Decoder::decode_to_str).
    ///
    /// # Errors
    ///
    /// As [`decode_in`](Decoder::decode_in) in strict or lossy mode.
    ///
    /// # Examples
    ///
    /// ```
    /// use pctenc::charset::Charset;
    /// use pctenc::Decoder;
    ///
    /// let gb = Charset::for_label("gb18030").unwrap();
    /// assert_eq!(Decoder::FORM.decode_to_str_in("%C4%E3%BA%C3+%CA%C0%BD%E7", gb).unwrap(), "你好 世界");
    /// assert!(Decoder::new().decode_to_str_in("%FF", gb).is_err());
    /// ```
    pub fn decode_to_str_in<'a, I: AsRef<[u8]> + ?Sized>(
        &self,
        input: &'a I,
        charset: Charset,
    ) -> Result<Cow<'a, str>, DecodeError> {
        let dec = if self.utf8_value() == Utf8Mode::Bytes { self.utf8(Utf8Mode::Strict) } else { *self };
        Ok(match dec.decode_in(input, charset)? {
            // SAFETY: in Strict and Lossy mode `decode_in` returns valid UTF-8 only: the
            // output of `decode` in that mode for UTF-8, of `encoding_rs` otherwise, or ASCII.
            Cow::Borrowed(b) => Cow::Borrowed(unsafe { core::str::from_utf8_unchecked(b) }),
            // SAFETY: as above.
            Cow::Owned(v) => Cow::Owned(unsafe { String::from_utf8_unchecked(v) }),
        })
    }

    /// The error at decoded byte `at`, a malformed sequence of the charset.
    fn charset_error(&self, input: &[u8], at: usize) -> DecodeError {
        DecodeError::new(source_offset(input, self.rules(), at), DecodeErrorKind::InvalidCharset)
    }

    /// The error to report when decoding the escapes failed with `e`: in strict mode, a
    /// malformed sequence of the charset that ends before `e`'s offset comes first (one
    /// that more bytes could complete does not count).
    fn first_charset_error(&self, input: &[u8], encoding: &'static Encoding, e: DecodeError) -> DecodeError {
        if self.utf8_value() != Utf8Mode::Strict || e.kind() == DecodeErrorKind::BufferTooSmall {
            return e;
        }
        // Only on the error path: the prefix before the error decodes again.
        match self.utf8(Utf8Mode::Bytes).decode(&input[..e.offset()]) {
            Ok(prefix) if !is_plain_ascii(encoding, &prefix) => match strict(encoding, &prefix, false) {
                Err(at) => self.charset_error(input, at),
                Ok(_) => e,
            },
            _ => e,
        }
    }
}

/// Whether `bytes` are ASCII that `encoding` reads as themselves, so that they need no
/// conversion (ISO-2022-JP: no ESC, SO or SI either).
fn is_plain_ascii(encoding: &'static Encoding, bytes: &[u8]) -> bool {
    if encoding.is_ascii_compatible() {
        bytes.is_ascii()
    } else if encoding == encoding_rs::ISO_2022_JP {
        Encoding::iso_2022_jp_ascii_valid_up_to(bytes) == bytes.len()
    } else {
        false
    }
}

/// `bytes` from `encoding` to UTF-8, or the index where the first malformed sequence starts.
/// `last`: the bytes end the stream (an unfinished sequence at the end is malformed).
fn strict(encoding: &'static Encoding, bytes: &[u8], last: bool) -> Result<String, usize> {
    let mut decoder = encoding.new_decoder_without_bom_handling();
    let capacity = decoder.max_utf8_buffer_length_without_replacement(bytes.len()).unwrap_or(bytes.len());
    let mut out = String::with_capacity(capacity);
    let mut read = 0;
    loop {
        let (result, n) = decoder.decode_to_string_without_replacement(&bytes[read..], &mut out, last);
        read += n;
        match result {
            DecoderResult::InputEmpty => return Ok(out),
            // The capacity is the worst case: only reached if the crate's bound were wrong.
            DecoderResult::OutputFull => out.reserve(bytes.len() - read + 16),
            DecoderResult::Malformed(bad, extra) => return Err(read - usize::from(extra) - usize::from(bad)),
        }
    }
}

/// The bytes of `text` in `encoding`, for tests: unmappable characters are not expected.
#[cfg(test)]
pub(super) fn encode_raw(text: &str, encoding: &'static Encoding) -> alloc::vec::Vec<u8> {
    let (bytes, _, unmappable) = encoding.encode(text);
    assert!(!unmappable, "{text:?} in {}", encoding.name());
    bytes.into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_offsets_are_input_offsets() {
        let strict = Decoder::new().utf8(Utf8Mode::Strict);
        let at = |input: &'static str, charset| {
            strict.decode_in(input, charset).map(Cow::into_owned).map_err(|e| (e.offset(), e.kind()))
        };
        let bad = DecodeErrorKind::InvalidCharset;
        // A lead byte with no trail byte, raw or escaped, at the end.
        assert_eq!(at("abc%82", Charset::SHIFT_JIS), Err((3, bad)));
        // An ASCII byte after a lead byte: the lead is the malformed sequence.
        assert_eq!(at("x%81 y", Charset::EUC_KR), Err((1, bad)));
        // (0x81 0x41 is a character of EUC-KR as browsers read it, code page 949.)
        assert_eq!(at("x%81A", Charset::EUC_KR).unwrap(), "x갂".as_bytes());
        // An unassigned byte of a single-byte encoding (ISO-8859-3 has no 0xA5).
        let latin3 = Charset::for_label("iso-8859-3").unwrap();
        assert_eq!(at("%41%A5", latin3), Err((3, bad)));
        assert_eq!(at("%41%A5", Charset::WINDOWS_1252).unwrap(), "A¥".as_bytes());
        // A malformed sequence before a bad escape is reported first; an unfinished one is not.
        assert_eq!(at("%FF%FF%zz", Charset::SHIFT_JIS), Err((0, bad)));
        assert_eq!(at("%82%zz", Charset::SHIFT_JIS).unwrap_err(), (3, DecodeErrorKind::InvalidEscape));
        // `+` as a space counts one input byte per decoded byte.
        let form = strict.plus_as_space(true);
        assert_eq!(form.decode_in("a+b+%82", Charset::SHIFT_JIS).unwrap_err().offset(), 4);
        // ISO-2022-JP: an ESC that starts no known sequence.
        assert_eq!(at("ab%1B(Z", Charset::ISO_2022_JP), Err((2, bad)));
        assert_eq!(at("%1B$B%24%22%1B(B", Charset::ISO_2022_JP).unwrap(), "あ".as_bytes());
    }

    #[test]
    fn borrowed_when_nothing_changes() {
        let strict = Decoder::new().utf8(Utf8Mode::Strict);
        for charset in Charset::all() {
            let decoded = strict.decode_in("plain-ascii", charset);
            if charset.encoding().is_ascii_compatible() || charset == Charset::ISO_2022_JP {
                assert!(matches!(decoded, Ok(Cow::Borrowed(b"plain-ascii"))), "{charset}");
            }
        }
        assert!(matches!(
            Decoder::new().utf8(Utf8Mode::Lossy).decode_in("abc", Charset::BIG5),
            Ok(Cow::Borrowed(b"abc"))
        ));
    }

    #[test]
    fn utf16_decodes_its_bytes() {
        let le = Charset::for_label("utf-16le").unwrap();
        let strict = Decoder::new().utf8(Utf8Mode::Strict);
        assert_eq!(strict.decode_in("%FF%FEa%00", le).unwrap(), "\u{FEFF}a".as_bytes());
        // A lone surrogate is malformed.
        assert_eq!(strict.decode_in("a%00%00%D8b%00", le).unwrap_err().offset(), 4);
    }
}
