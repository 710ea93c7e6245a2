//! Spark SQL's `url_decode`: `java.net.URLDecoder.decode(s, UTF_8)` byte for byte.
//!
//! Spark's `url_encode` and `url_decode` are `java.net.URLEncoder.encode(s, UTF_8)` and
//! `java.net.URLDecoder.decode(s, UTF_8)`. Encoding is pctenc's `form` set exactly. Decoding
//! has quirks that a summary of the rules misses, and this module reproduces them (pinned by
//! `tests/spark.rs` against the outputs of OpenJDK 17, `tests/data/java/urlcodec.json`):
//!
//! - `+` is a space; every other character that is not part of an escape is copied.
//! - The two characters after a `%` are parsed by `Integer.parseInt(.., 16)`, which accepts
//!   a sign and any Unicode decimal digit: `%+1` is the byte 0x01, `%-0` the byte 0x00, while
//!   `%-1` is an error (a negative value). Fullwidth `Ａ`..`Ｆ` and the decimal digits of other
//!   scripts count as hex digits too.
//! - A `%` with fewer than two UTF-16 units after it is an error ("incomplete trailing
//!   escape"); so is one whose two characters are not a number.
//! - Each run of consecutive escapes is decoded on its own by Java's UTF-8 decoder, which
//!   writes one U+FFFD per malformed sequence as *Java* counts them: `%ED%A0%80` (a
//!   surrogate) is one U+FFFD, where Rust's `String::from_utf8_lossy` gives three, and
//!   `%C3x%A9` is `U+FFFD x U+FFFD`.
//!
//! Rows go through pctenc's strict decoder first (`+` as space, strict UTF-8), which gives
//! Java's output whenever it succeeds; only a row it rejects takes the exact, slower path.
//!
//! Spark's functions take strings: a binary value is cast to one, and Java reads its bytes as
//! UTF-8, each malformed sequence one U+FFFD ([`java_string`]). So for the binary kinds both
//! functions work on that string; an error's byte offset is that of the `%` at fault in the
//! bytes given.

use std::borrow::Cow;

use pctenc::{Decoder, Utf8Mode};

/// Spark's message for a row that `url_decode` cannot decode (error class
/// `CANNOT_DECODE_URL`, SQLSTATE 22546), as `SparkThrowable.getMessage` words it.
///
/// ```
/// let m = pctenc_arrow::spark::cannot_decode_url("100%");
/// assert!(m.starts_with("[CANNOT_DECODE_URL] The provided URL cannot be decoded: 100%."));
/// assert!(m.ends_with("SQLSTATE: 22546"));
/// ```
pub fn cannot_decode_url(url: &str) -> String {
    format!(
        "[CANNOT_DECODE_URL] The provided URL cannot be decoded: {url}. Please ensure that the URL is \
         properly formatted and try again. SQLSTATE: 22546"
    )
}

/// Why `java.net.URLDecoder` rejects an input, and the byte offset of the `%` at fault.
///
/// ```
/// use pctenc_arrow::spark::{java_url_decode, JavaDecodeErrorReason};
///
/// let err = java_url_decode(b"ab%G1", &mut Vec::new()).unwrap_err();
/// assert_eq!(err.offset, 2);
/// assert_eq!(err.reason, JavaDecodeErrorReason::IllegalHexCharacters);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JavaDecodeError {
    /// Byte offset of the `%`.
    pub offset: usize,
    /// What Java's message says.
    pub reason: JavaDecodeErrorReason,
}

/// The three messages of `java.net.URLDecoder`.
///
/// ```
/// use pctenc_arrow::spark::{java_url_decode, JavaDecodeErrorReason};
///
/// let reason = |s: &[u8]| java_url_decode(s, &mut Vec::new()).unwrap_err().reason;
/// assert_eq!(reason(b"%4"), JavaDecodeErrorReason::IncompleteTrailingEscape);
/// assert_eq!(reason(b"%-1"), JavaDecodeErrorReason::NegativeValue);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JavaDecodeErrorReason {
    /// "URLDecoder: Incomplete trailing escape (%) pattern"
    IncompleteTrailingEscape,
    /// "URLDecoder: Illegal hex characters in escape (%) pattern - ..." (a `NumberFormatException`)
    IllegalHexCharacters,
    /// "URLDecoder: Illegal hex characters in escape (%) pattern - negative value"
    NegativeValue,
}

/// The fast path: what Java gives whenever this succeeds.
pub(crate) const FAST: Decoder = Decoder::new().plus_as_space(true).utf8(Utf8Mode::Strict);

/// `java.net.URLDecoder.decode(s, UTF_8)` of the UTF-8 (or, for binary input, arbitrary)
/// bytes `input`, appended to `out` as UTF-8. A byte that is not part of valid UTF-8 outside
/// an escape (possible in binary input only) is copied as it is.
///
/// # Errors
///
/// Where and why Java throws.
///
/// ```
/// use pctenc_arrow::spark::java_url_decode;
///
/// let mut out = Vec::new();
/// java_url_decode(b"%+1%ED%A0%80+a", &mut out).unwrap();
/// assert_eq!(out, "\u{1}\u{FFFD} a".as_bytes());
/// assert_eq!(java_url_decode(b"ab%-1", &mut out).unwrap_err().offset, 2);
/// ```
pub fn java_url_decode(input: &[u8], out: &mut Vec<u8>) -> Result<(), JavaDecodeError> {
    let n = input.len();
    let mut i = 0;
    let mut run = Vec::new();
    while i < n {
        match input[i] {
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b'%' => {
                run.clear();
                while i < n && input[i] == b'%' {
                    let (value, len) = escape(input, i)?;
                    run.push(value);
                    i += len;
                }
                java_utf8(&run, out);
            }
            _ => {
                let len = char_len(input, i);
                out.extend_from_slice(&input[i..i + len]);
                i += len;
            }
        }
    }
    Ok(())
}

/// The character at `at`: its UTF-16 units (the second 0 for a BMP char) and its length in
/// bytes. A byte that starts no valid UTF-8 sequence is one unit, U+FFFD, one byte long.
fn units_at(input: &[u8], at: usize) -> ([u16; 2], usize) {
    let len = char_len(input, at);
    match std::str::from_utf8(&input[at..at + len]).ok().and_then(|s| s.chars().next()) {
        Some(c) => {
            let mut buf = [0u16; 2];
            c.encode_utf16(&mut buf);
            (buf, len)
        }
        None => ([0xFFFD, 0], 1),
    }
}

/// The length of the valid UTF-8 character at `at`, or 1 if the bytes there are not one.
fn char_len(input: &[u8], at: usize) -> usize {
    let want = match input[at] {
        0x00..=0x7F => 1,
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => return 1,
    };
    match input.get(at..at + want) {
        Some(bytes) if std::str::from_utf8(bytes).is_ok() => want,
        _ => 1,
    }
}

/// The escape at `at` (a `%`), as Java's loop reads it: the byte it gives and the number of
/// input bytes it takes.
fn escape(input: &[u8], at: usize) -> Result<(u8, usize), JavaDecodeError> {
    let err = |reason| JavaDecodeError { offset: at, reason };
    // Java needs two UTF-16 units after the `%` (`(i + 2) < numChars`).
    if at + 1 >= input.len() {
        return Err(err(JavaDecodeErrorReason::IncompleteTrailingEscape));
    }
    let (first, len1) = units_at(input, at + 1);
    let (u1, u2, taken) = if first[1] != 0 {
        // A supplementary character: its two surrogates are the two units.
        (first[0], first[1], len1)
    } else {
        if at + 1 + len1 >= input.len() {
            return Err(err(JavaDecodeErrorReason::IncompleteTrailingEscape));
        }
        let (second, len2) = units_at(input, at + 1 + len1);
        (first[0], second[0], len1 + len2)
    };
    // Integer.parseInt(s, i + 1, i + 3, 16).
    let value: i32 = if u1 < u16::from(b'0') {
        let negative = match u1 {
            0x2D => true,  // '-'
            0x2B => false, // '+'
            _ => return Err(err(JavaDecodeErrorReason::IllegalHexCharacters)),
        };
        let d = java_digit(u2).ok_or(err(JavaDecodeErrorReason::IllegalHexCharacters))?;
        if negative { -(d as i32) } else { d as i32 }
    } else {
        let d1 = java_digit(u1).ok_or(err(JavaDecodeErrorReason::IllegalHexCharacters))?;
        let d2 = java_digit(u2).ok_or(err(JavaDecodeErrorReason::IllegalHexCharacters))?;
        (d1 * 16 + d2) as i32
    };
    if value < 0 {
        return Err(err(JavaDecodeErrorReason::NegativeValue));
    }
    Ok((value as u8, 1 + taken))
}

/// The zero of each run of Unicode decimal digits (general category Nd) in the BMP, as of
/// Unicode 13 (Java 17): `Character.digit` gives each of them its value.
const ND_ZEROS: &[u16] = &[
    0x0030, 0x0660, 0x06F0, 0x07C0, 0x0966, 0x09E6, 0x0A66, 0x0AE6, 0x0B66, 0x0BE6, 0x0C66, 0x0CE6, 0x0D66,
    0x0DE6, 0x0E50, 0x0ED0, 0x0F20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80, 0x1A90, 0x1B50,
    0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0, 0xFF10,
];

/// `Character.digit(u, 16)` for a UTF-16 unit: decimal digits of any script, ASCII and
/// fullwidth Latin letters `a`-`f`/`A`-`F`.
fn java_digit(u: u16) -> Option<u32> {
    match u {
        0x41..=0x46 => return Some(u32::from(u - 0x41 + 10)),
        0x61..=0x66 => return Some(u32::from(u - 0x61 + 10)),
        0xFF21..=0xFF26 => return Some(u32::from(u - 0xFF21 + 10)),
        0xFF41..=0xFF46 => return Some(u32::from(u - 0xFF41 + 10)),
        _ => {}
    }
    ND_ZEROS.iter().find(|&&zero| (zero..zero + 10).contains(&u)).map(|&zero| u32::from(u - zero))
}

const REPL: &str = "\u{FFFD}";

fn not_cont(b: u8) -> bool {
    b & 0xC0 != 0x80
}

/// The string Spark makes of a binary value, as UTF-8: `bytes` when they are UTF-8, else
/// [`java_utf8`] of them.
///
/// ```
/// use pctenc_arrow::spark::java_string;
///
/// assert_eq!(java_string(b"caf\xC3\xA9"), "café".as_bytes());
/// assert_eq!(java_string(b"%C3\xA9\xFF"), "%C3\u{FFFD}\u{FFFD}".as_bytes());
/// ```
pub fn java_string(bytes: &[u8]) -> Cow<'_, [u8]> {
    if std::str::from_utf8(bytes).is_ok() {
        Cow::Borrowed(bytes)
    } else {
        let mut out = Vec::with_capacity(bytes.len() + 8);
        java_utf8(bytes, &mut out);
        Cow::Owned(out)
    }
}

/// `new String(bytes, UTF_8)` as OpenJDK 17's `String.decodeUTF8_UTF16` does it, written out
/// as UTF-8: each malformed sequence, as Java delimits it, becomes one U+FFFD.
///
/// ```
/// let mut out = Vec::new();
/// pctenc_arrow::spark::java_utf8(b"a\xC3\xFFb", &mut out);
/// assert_eq!(out, "a\u{FFFD}\u{FFFD}b".as_bytes());
/// ```
pub fn java_utf8(src: &[u8], out: &mut Vec<u8>) {
    let push = |out: &mut Vec<u8>, c: u32| {
        let c = char::from_u32(c).unwrap_or('\u{FFFD}');
        out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
    };
    let sl = src.len();
    let mut sp = 0;
    while sp < sl {
        let b1 = src[sp];
        sp += 1;
        match b1 {
            0x00..=0x7F => out.push(b1),
            0xC2..=0xDF => {
                if sp < sl {
                    let b2 = src[sp];
                    if not_cont(b2) {
                        out.extend_from_slice(REPL.as_bytes());
                    } else {
                        sp += 1;
                        push(out, (u32::from(b1 & 0x1F) << 6) | u32::from(b2 & 0x3F));
                    }
                    continue;
                }
                out.extend_from_slice(REPL.as_bytes());
                break;
            }
            0xE0..=0xEF => {
                if sp + 1 < sl {
                    let (b2, b3) = (src[sp], src[sp + 1]);
                    sp += 2;
                    if (b1 == 0xE0 && b2 & 0xE0 == 0x80) || not_cont(b2) || not_cont(b3) {
                        out.extend_from_slice(REPL.as_bytes());
                        sp -= 3;
                        // malformed3: how many bytes the malformed sequence takes.
                        let (m1, m2) = (src[sp], src[sp + 1]);
                        sp += if (m1 == 0xE0 && m2 & 0xE0 == 0x80) || not_cont(m2) { 1 } else { 2 };
                    } else {
                        let c =
                            (u32::from(b1 & 0x0F) << 12) | (u32::from(b2 & 0x3F) << 6) | u32::from(b3 & 0x3F);
                        if (0xD800..=0xDFFF).contains(&c) {
                            out.extend_from_slice(REPL.as_bytes());
                        } else {
                            push(out, c);
                        }
                    }
                    continue;
                }
                if sp < sl && ((b1 == 0xE0 && src[sp] & 0xE0 == 0x80) || not_cont(src[sp])) {
                    out.extend_from_slice(REPL.as_bytes());
                    continue;
                }
                out.extend_from_slice(REPL.as_bytes());
                break;
            }
            0xF0..=0xF7 => {
                if sp + 2 < sl {
                    let (b2, b3, b4) = (src[sp], src[sp + 1], src[sp + 2]);
                    sp += 3;
                    let uc = (u32::from(b1 & 0x07) << 18)
                        | (u32::from(b2 & 0x3F) << 12)
                        | (u32::from(b3 & 0x3F) << 6)
                        | u32::from(b4 & 0x3F);
                    if not_cont(b2) || not_cont(b3) || not_cont(b4) || !(0x10000..=0x10FFFF).contains(&uc) {
                        out.extend_from_slice(REPL.as_bytes());
                        sp -= 4;
                        sp += malformed4(src, sp);
                    } else {
                        push(out, uc);
                    }
                    continue;
                }
                if b1 > 0xF4 || (sp < sl && malformed4_2(b1, src[sp])) {
                    out.extend_from_slice(REPL.as_bytes());
                    continue;
                }
                sp += 1;
                out.extend_from_slice(REPL.as_bytes());
                if sp < sl && not_cont(src[sp]) {
                    continue;
                }
                break;
            }
            _ => out.extend_from_slice(REPL.as_bytes()),
        }
    }
}

fn malformed4_2(b1: u8, b2: u8) -> bool {
    (b1 == 0xF0 && !(0x90..=0xBF).contains(&b2)) || (b1 == 0xF4 && b2 & 0xF0 != 0x80) || not_cont(b2)
}

/// Java's `malformed4`: the length of the malformed 4-byte sequence at `sp` (which has at
/// least 4 bytes).
fn malformed4(src: &[u8], sp: usize) -> usize {
    let (b1, b2) = (src[sp], src[sp + 1]);
    if b1 > 0xF4 || malformed4_2(b1, b2) {
        return 1;
    }
    if not_cont(src[sp + 2]) { 2 } else { 3 }
}
