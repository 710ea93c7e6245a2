//! Legacy character encodings (Shift_JIS, EUC-KR, Big5, GB18030, windows-1252, ...): percent-
//! encoding and decoding text whose escapes are bytes of another encoding than UTF-8, as
//! browsers write them. Behind the feature `encoding`.
//!
//! A page served as Shift_JIS submits its forms in Shift_JIS, so `検索` arrives as
//! `%8C%9F%8D%F5`, not `%E6%A4%9C%E7%B4%A2`; old servers and log pipelines decode such escapes
//! in whatever encoding they assume, and a wrong guess is mojibake (`Fußball` read back as
//! `FuÃŸball`). This module does what the WHATWG standards say, with
//! [`encoding_rs`](https://docs.rs/encoding_rs) (the Encoding Standard as Firefox implements
//! it) for the conversion:
//!
//! - [`Encoder::encode_in`] is the URL Standard's *percent-encode after encoding*: the text is
//!   converted to the encoding, then every byte is percent-encoded with the encoder's set. A
//!   character the encoding cannot represent becomes `%26%23N%3B`, the numeric character
//!   reference `&#N;` percent-encoded, as in forms and URL queries. UTF-16BE/LE and
//!   `replacement` encode as UTF-8 there ([`Charset::output`]).
//! - [`Decoder::decode_in`] decodes the escapes to bytes and those bytes from the encoding,
//!   by the decoder's [`Utf8Mode`]: strict (a malformed sequence is an error at its `%`),
//!   lossy (U+FFFD, as the Encoding Standard decodes) or bytes (no conversion).
//! - [`Charset::for_label`] takes the standard's labels (`sjis`, `latin1`, `cp1252`, ...).
//! - [`explain`] lists which of the common legacy encodings can read a byte string that is
//!   not UTF-8, and the text under each: help for mojibake.
//!
//! ASCII stays on the SIMD paths: only the non-ASCII parts of the text go through
//! `encoding_rs`.
//!
//! ```
//! use pctenc::charset::Charset;
//! use pctenc::{Decoder, Encoder, sets};
//!
//! let sjis = Charset::for_label("sjis").unwrap();
//! let form = Encoder::new(sets::FORM);
//! assert_eq!(form.encode_in("検索 ワード", sjis), "%8C%9F%8D%F5+%83%8F%81%5B%83h");
//! // What the encoding cannot represent is sent as a character reference.
//! assert_eq!(form.encode_in("☃", sjis), "%26%239731%3B");
//!
//! let text = Decoder::FORM.decode_to_str_in("%8C%9F%8D%F5+%83%8F%81%5B%83h", sjis).unwrap();
//! assert_eq!(text, "検索 ワード");
//! ```
//!
//! [`Encoder::encode_in`]: crate::Encoder::encode_in
//! [`Decoder::decode_in`]: crate::Decoder::decode_in
//! [`Utf8Mode`]: crate::Utf8Mode

mod decode;
mod encode;
pub(crate) mod explain;
mod labels;

use core::fmt;
use core::str::FromStr;

use encoding_rs::Encoding;

pub use explain::{Reading, explain};

/// How many bytes of `bytes` are ASCII before the first that is not: `<[u8]>::is_ascii` a
/// block at a time (the standard library's word-at-a-time check, which the compiler
/// vectorizes: several times faster here than `encoding_rs`'s scan without its nightly
/// `simd-accel` feature), then the first block that holds a byte of `0x80` or more, byte by
/// byte.
fn ascii_prefix(bytes: &[u8]) -> usize {
    const BLOCK: usize = 256;
    let mut at = 0;
    for block in bytes.chunks(BLOCK) {
        if !block.is_ascii() {
            return at + block.iter().position(|b| !b.is_ascii()).unwrap_or(block.len());
        }
        at += block.len();
    }
    at
}

/// A character encoding of the WHATWG Encoding Standard: one of the 40 it defines (UTF-8,
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Charset(&'static Encoding);

impl Charset {
    /// UTF-8: the default everywhere else in pctenc.
    pub const UTF_8: Charset = Charset(&encoding_rs::UTF_8_INIT);
    /// windows-1252, which the labels `latin1`, `iso-8859-1` and `ascii` also name.
    pub const WINDOWS_1252: Charset = Charset(&encoding_rs::WINDOWS_1252_INIT);
    /// Shift_JIS (as Windows' code page 932 has it).
    pub const SHIFT_JIS: Charset = Charset(&encoding_rs::SHIFT_JIS_INIT);
    /// EUC-JP.
    pub const EUC_JP: Charset = Charset(&encoding_rs::EUC_JP_INIT);
    /// ISO-2022-JP, with its escape sequences.
    pub const ISO_2022_JP: Charset = Charset(&encoding_rs::ISO_2022_JP_INIT);
    /// EUC-KR (as Windows' code page 949 has it).
    pub const EUC_KR: Charset = Charset(&encoding_rs::EUC_KR_INIT);
    /// GB18030.
    pub const GB18030: Charset = Charset(&encoding_rs::GB18030_INIT);
    /// GBK, which the labels `gb2312` and `chinese` also name.
    pub const GBK: Charset = Charset(&encoding_rs::GBK_INIT);
    /// Big5 (with the HKSCS extensions, as browsers have it).
    pub const BIG5: Charset = Charset(&encoding_rs::BIG5_INIT);
    /// KOI8-R.
    pub const KOI8_R: Charset = Charset(&encoding_rs::KOI8_R_INIT);

    /// The encoding that `label` names, as the Encoding Standard looks labels up: ASCII
    /// case-insensitive, leading and trailing ASCII whitespace ignored.
    ///
    /// # Errors
    ///
    /// [`UnknownCharset`], naming the label, when no encoding has it.
    ///
    /// # Examples
    ///
    /// ```
    /// use pctenc::charset::Charset;
    ///
    /// assert_eq!(Charset::for_label("EUC-KR").unwrap(), Charset::EUC_KR);
    /// let err = Charset::for_label("klingon").unwrap_err();
    /// assert_eq!(err.label(), "klingon");
    /// assert_eq!(err.to_string(), "unknown character encoding `klingon` (`pctenc charsets` lists the labels)");
    /// ```
    pub fn for_label(label: &str) -> Result<Charset, UnknownCharset> {
        Encoding::for_label(label.as_bytes())
            .map(Charset)
            .ok_or_else(|| UnknownCharset { label: label.into() })
    }

    /// The encoding's name in the Encoding Standard (`"Shift_JIS"`, `"windows-1252"`).
    ///
    /// ```
    /// assert_eq!(pctenc::charset::Charset::for_label("ms_kanji").unwrap().name(), "Shift_JIS");
    /// ```
    pub fn name(self) -> &'static str {
        self.0.name()
    }

    /// Every label of the encoding, in ASCII lowercase and sorted.
    ///
    /// ```
    /// let labels = pctenc::charset::Charset::KOI8_R.labels();
    /// assert_eq!(labels, ["cskoi8r", "koi", "koi8", "koi8-r", "koi8_r"]);
    /// ```
    pub fn labels(self) -> &'static [&'static str] {
        labels::TABLE.iter().find(|(encoding, _)| *encoding == self.0).map_or(&[], |&(_, labels)| labels)
    }

    /// Every encoding of the standard, in the order of its table (UTF-8, the single-byte
    /// encodings, then Chinese, Japanese, Korean and the rest).
    ///
    /// ```
    /// use pctenc::charset::Charset;
    ///
    /// assert_eq!(Charset::all().len(), 40);
    /// assert_eq!(Charset::all().next(), Some(Charset::UTF_8));
    /// ```
    pub fn all() -> impl ExactSizeIterator<Item = Charset> + Clone {
        labels::TABLE.iter().map(|&(encoding, _)| Charset(encoding))
    }

    /// The encoding that forms and URL queries encode with when this one is asked for: UTF-8
    /// for UTF-16BE, UTF-16LE and `replacement` (the Encoding Standard's *get an output
    /// encoding*), the encoding itself otherwise. [`Encoder::encode_in`] applies it.
    ///
    /// ```
    /// use pctenc::charset::Charset;
    ///
    /// assert_eq!(Charset::for_label("utf-16le").unwrap().output(), Charset::UTF_8);
    /// assert_eq!(Charset::BIG5.output(), Charset::BIG5);
    /// ```
    ///
    /// [`Encoder::encode_in`]: crate::Encoder::encode_in
    pub fn output(self) -> Charset {
        Charset(self.0.output_encoding())
    }

    /// Whether each byte is one character (windows-1252, ISO-8859-x, KOI8-R, ...).
    ///
    /// ```
    /// use pctenc::charset::Charset;
    ///
    /// assert!(Charset::WINDOWS_1252.is_single_byte());
    /// assert!(!Charset::SHIFT_JIS.is_single_byte());
    /// ```
    pub fn is_single_byte(self) -> bool {
        self.0.is_single_byte()
    }

    /// The `encoding_rs` encoding, for code that uses that crate directly.
    ///
    /// ```
    /// use pctenc::charset::Charset;
    ///
    /// assert_eq!(Charset::SHIFT_JIS.encoding(), encoding_rs::SHIFT_JIS);
    /// assert_eq!(Charset::from(encoding_rs::SHIFT_JIS), Charset::SHIFT_JIS);
    /// ```
    pub fn encoding(self) -> &'static Encoding {
        self.0
    }
}

impl From<&'static Encoding> for Charset {
    fn from(encoding: &'static Encoding) -> Charset {
        Charset(encoding)
    }
}

impl FromStr for Charset {
    type Err = UnknownCharset;

    fn from_str(label: &str) -> Result<Charset, UnknownCharset> {
        Charset::for_label(label)
    }
}

impl fmt::Debug for Charset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Charset({})", self.name())
    }
}

impl fmt::Display for Charset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A label that names no encoding of the Encoding Standard, from [`Charset::for_label`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownCharset {
    label: alloc::string::String,
}

impl UnknownCharset {
    /// The label as it was given.
    ///
    /// ```
    /// let err = "utf-9".parse::<pctenc::charset::Charset>().unwrap_err();
    /// assert_eq!(err.label(), "utf-9");
    /// ```
    pub fn label(&self) -> &str {
        &self.label
    }
}

impl fmt::Display for UnknownCharset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown character encoding `{}` (`pctenc charsets` lists the labels)", self.label)
    }
}

impl core::error::Error for UnknownCharset {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every label of the table names its row's encoding, and the table has the standard's
    /// 40 encodings and 228 labels, each once.
    #[test]
    fn charset_labels_resolve() {
        let mut seen = std::collections::HashSet::new();
        for charset in Charset::all() {
            assert!(!charset.labels().is_empty(), "{charset}");
            for &label in charset.labels() {
                assert_eq!(Charset::for_label(label), Ok(charset), "{label}");
                assert_eq!(Charset::for_label(&label.to_ascii_uppercase()), Ok(charset), "{label}");
                assert!(seen.insert(label), "{label} twice");
            }
        }
        assert_eq!(Charset::all().len(), 40);
        assert_eq!(seen.len(), 228);
        assert_eq!(Charset::all().collect::<std::collections::HashSet<_>>().len(), 40);
    }

    #[test]
    fn ascii_prefix_stops_at_the_first_high_byte() {
        for len in 0..700 {
            let ascii: std::vec::Vec<u8> = (0..len).map(|i| (i * 37 % 128) as u8).collect();
            assert_eq!(ascii_prefix(&ascii), len);
            for at in [0, len / 2, len.saturating_sub(1), 255, 256, 257] {
                if at < len {
                    let mut bytes = ascii.clone();
                    bytes[at] = 0x80 | at as u8;
                    assert_eq!(ascii_prefix(&bytes), at, "{len} {at}");
                    bytes[len - 1] = 0xFF;
                    assert_eq!(ascii_prefix(&bytes), at, "{len} {at}");
                }
            }
        }
    }

    #[test]
    fn labels_trim_whitespace_only() {
        assert_eq!(Charset::for_label("\t latin1\n\x0C"), Ok(Charset::WINDOWS_1252));
        assert!(Charset::for_label("latin1\u{A0}").is_err());
        assert!(Charset::for_label("").is_err());
        assert!(Charset::for_label("lat in1").is_err());
        let err = Charset::for_label("x\0y").unwrap_err();
        assert_eq!(err.label(), "x\0y");
    }
}
