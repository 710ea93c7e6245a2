//! Help for mojibake: which common legacy encodings read a byte string without errors, and
//! what text each gives.

use alloc::string::String;
use alloc::vec::Vec;

use super::Charset;

/// The encodings [`explain`] tries, multi-byte first: a multi-byte encoding that reads
/// arbitrary bytes without an error is a stronger hint than a single-byte one, which reads
/// almost anything. (`pctenc decode --explain` tries them too, a line at a time.)
pub const CANDIDATES: [Charset; 12] = [
    Charset::SHIFT_JIS,
    Charset::EUC_JP,
    Charset::EUC_KR,
    Charset::GB18030,
    Charset::BIG5,
    Charset::WINDOWS_1252,
    Charset(&encoding_rs::ISO_8859_2_INIT),
    Charset(&encoding_rs::ISO_8859_5_INIT),
    Charset(&encoding_rs::ISO_8859_7_INIT),
    Charset(&encoding_rs::ISO_8859_8_INIT),
    Charset(&encoding_rs::ISO_8859_15_INIT),
    Charset::KOI8_R,
];

/// One way to read a byte string: an encoding and the text it gives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reading {
    /// The encoding.
    pub charset: Charset,
    /// `bytes` decoded from it, without errors.
    pub text: String,
}

/// The readings of `bytes` (decoded escapes, say) under the common legacy encodings that
/// decode them without an error: Shift_JIS, EUC-JP, EUC-KR, GB18030, Big5, windows-1252,
/// ISO-8859-2, -5, -7, -8, -15 and KOI8-R, in that order. When `bytes` are valid UTF-8,
/// UTF-8 comes first.
///
/// This is a small, honest helper, not a detector: it says which encodings *can* read the
/// bytes and shows the text under each, for a person to see which one is right. The
/// single-byte encodings read nearly any bytes, so the text is what tells; several
/// multi-byte encodings reading the bytes cleanly is a stronger hint. ASCII bytes, which
/// read the same everywhere, give one reading, UTF-8's.
///
/// Behind the feature `encoding`.
///
/// ```
/// use pctenc::charset::{Charset, explain};
///
/// let bytes = pctenc::decode("%8C%9F%8D%F5").unwrap(); // not UTF-8
/// let readings = explain(&bytes);
/// assert_eq!(readings[0].charset, Charset::SHIFT_JIS);
/// assert_eq!(readings[0].text, "検索");
/// assert!(readings.iter().all(|r| r.charset != Charset::UTF_8));
/// assert!(readings.iter().any(|r| r.charset == Charset::WINDOWS_1252 && r.text == "ŒŸ\u{8d}õ"));
/// ```
pub fn explain(bytes: &[u8]) -> Vec<Reading> {
    let mut readings = Vec::new();
    if let Ok(text) = core::str::from_utf8(bytes) {
        readings.push(Reading { charset: Charset::UTF_8, text: text.into() });
        if bytes.is_ascii() {
            return readings;
        }
    }
    for charset in CANDIDATES {
        if let Some(text) = charset.encoding().decode_without_bom_handling_and_without_replacement(bytes) {
            readings.push(Reading { charset, text: text.into_owned() });
        }
    }
    readings
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charset::decode::encode_raw;

    #[test]
    fn the_right_encoding_is_among_the_readings() {
        let cases = [
            ("Fußball", Charset::WINDOWS_1252),
            ("東京の天気", Charset::SHIFT_JIS),
            ("東京の天気", Charset::EUC_JP),
            ("서울 날씨", Charset::EUC_KR),
            ("北京天气", Charset::GB18030),
            ("台北天氣", Charset::BIG5),
            ("Москва", Charset::KOI8_R),
        ];
        for (text, charset) in cases {
            let bytes = encode_raw(text, charset.encoding());
            let readings = explain(&bytes);
            assert!(readings.iter().any(|r| r.charset == charset && r.text == text), "{text} {readings:?}");
            assert!(readings.iter().all(|r| r.charset != Charset::UTF_8), "{text}");
        }
    }

    #[test]
    fn utf8_and_ascii() {
        assert_eq!(explain(b"plain"), [Reading { charset: Charset::UTF_8, text: "plain".into() }]);
        let readings = explain("é".as_bytes());
        assert_eq!(readings[0].charset, Charset::UTF_8);
        // The seeds' mojibake: UTF-8 read as windows-1252.
        assert!(readings.iter().any(|r| r.charset == Charset::WINDOWS_1252 && r.text == "Ã©"));
        assert!(explain(b"").len() == 1);
    }

    #[test]
    fn bytes_no_candidate_reads() {
        // 0x81 0x20 ... is malformed in every multi-byte candidate; windows-1252 reads it
        // (0x81 is a C1 control there); KOI8-R too.
        let readings = explain(b"\x81 \xFF");
        assert!(readings.iter().all(|r| r.charset.is_single_byte()), "{readings:?}");
    }
}
