//! Which characters an IRI set ([`Set::with_iri`](crate::Set::with_iri)) keeps raw: the one
//! place that decides it, for the encoder, its lazy form, the streams, the parallel paths and
//! the validator.
//!
//! RFC 3987 section 2.2 allows `ucschar` raw in an IRI:
//!
//! ```text
//! ucschar = %xA0-D7FF / %xF900-FDCF / %xFDF0-FFEF
//!         / %x10000-1FFFD / %x20000-2FFFD / ... / %xD0000-DFFFD
//!         / %xE1000-EFFFD
//! ```
//!
//! That leaves out the C1 controls (U+0080-U+009F), the private use characters (`iprivate`,
//! which RFC 3987 allows in a query only), the noncharacters U+FDD0-U+FDEF and U+xFFFE,
//! U+xFFFF of every plane, the specials U+FFF0-U+FFFD and U+E0000-U+E0FFF (tags, variation
//! selectors). The bidirectional formatting characters are inside `ucschar`'s ranges, yet
//! section 4.1 says an IRI must not use them: an IRI set escapes every character of Unicode's
//! `Bidi_Control` property ([`BIDI_CONTROL`]), which lists them all: LRM, RLM, LRE, RLE, PDF,
//! LRO, RLO (U+200E, U+200F, U+202A-U+202E), which the RFC names, and the Arabic letter mark
//! ALM (U+061C) and the isolates LRI, RLI, FSI, PDI (U+2066-U+2069), which Unicode added after
//! RFC 3987 for the same purpose. An IRI set escapes all of these.

/// The characters of Unicode's `Bidi_Control` property, as `PropList.txt` of the Unicode
/// Character Database lists them (unchanged since Unicode 6.3): ALM U+061C, LRM U+200E, RLM
/// U+200F, LRE, RLE, PDF, LRO, RLO U+202A-U+202E, and LRI, RLI, FSI, PDI U+2066-U+2069. The
/// one list of them in pctenc: an IRI set escapes them (`keeps`), and the `pctenc` binary
/// escapes them in what it shows on a terminal.
pub const BIDI_CONTROL: [char; 12] = [
    '\u{061C}', '\u{200E}', '\u{200F}', '\u{202A}', '\u{202B}', '\u{202C}', '\u{202D}', '\u{202E}',
    '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}',
];

/// RFC 3987's `ucschar`.
pub(crate) const fn is_ucschar(cp: u32) -> bool {
    match cp {
        0xA0..=0xD7FF | 0xF900..=0xFDCF | 0xFDF0..=0xFFEF => true,
        // Planes 1 to 14 but their last two code points, and U+E0000-U+E0FFF.
        0x10000..=0xEFFFD => cp & 0xFFFF <= 0xFFFD && !(cp >= 0xE0000 && cp < 0xE1000),
        _ => false,
    }
}

/// Whether `cp` is one of [`BIDI_CONTROL`], which RFC 3987 section 4.1 forbids in IRIs.
pub(crate) const fn is_bidi_control(cp: u32) -> bool {
    let mut i = 0;
    while i < BIDI_CONTROL.len() {
        if BIDI_CONTROL[i] as u32 == cp {
            return true;
        }
        i += 1;
    }
    false
}

/// Whether an IRI set keeps the non-ASCII character `cp` raw.
pub(crate) const fn keeps(cp: u32) -> bool {
    is_ucschar(cp) && !is_bidi_control(cp)
}

/// Whether an IRI set keeps the character that starts at `bytes[i]` (a lead byte of valid
/// UTF-8, not ASCII) raw, and its length. The lead byte settles most characters: only those
/// of [`SUSPECT`] need the code point.
#[inline]
fn classify(bytes: &[u8], i: usize) -> (bool, usize) {
    let lead = bytes[i];
    let cont = |k: usize| bytes.get(i + k).map_or(0, |&b| u32::from(b & 0x3F));
    let len = utf8_len(lead);
    if !SUSPECT[lead as usize] {
        return (true, len);
    }
    let cp = match len {
        2 => u32::from(lead & 0x1F) << 6 | cont(1),
        3 => u32::from(lead & 0x0F) << 12 | cont(1) << 6 | cont(2),
        _ => u32::from(lead & 0x07) << 18 | cont(1) << 12 | cont(2) << 6 | cont(3),
    };
    (keeps(cp), len)
}

/// The length of the UTF-8 sequence that the non-ASCII lead byte `lead` starts.
const fn utf8_len(lead: u8) -> usize {
    match lead {
        0x00..=0xDF => 2,
        0xE0..=0xEF => 3,
        _ => 4,
    }
}

/// The lead byte of the UTF-8 of `c`.
const fn lead_byte(c: char) -> u8 {
    let cp = c as u32;
    (match cp {
        0..=0x7F => cp,
        0x80..=0x7FF => 0xC0 | cp >> 6,
        0x800..=0xFFFF => 0xE0 | cp >> 12,
        _ => 0xF0 | cp >> 18,
    }) as u8
}

/// Lead bytes of the characters that [`classify`] must look at: those an IRI set may escape.
/// Every other byte is ASCII, a continuation byte, or the lead byte of a character it keeps:
/// `C2` (C1 controls, U+0080-U+009F), `EE` and `EF` (private use, noncharacters, specials),
/// `F0`-`FF` (planes 1 to 16), and the lead bytes of [`BIDI_CONTROL`] (`D8`, `E2`).
const SUSPECT: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0xF0;
    while b <= 0xFF {
        t[b] = true;
        b += 1;
    }
    t[0xC2] = true;
    t[0xEE] = true;
    t[0xEF] = true;
    let mut i = 0;
    while i < BIDI_CONTROL.len() {
        t[lead_byte(BIDI_CONTROL[i]) as usize] = true;
        i += 1;
    }
    t
};

const ONES: u64 = 0x0101_0101_0101_0101;

/// Nonzero when a byte of `v` is zero (exactly: the borrow that can make a byte above a zero
/// one look zero needs a zero one).
#[inline]
const fn zero_bytes(v: u64) -> u64 {
    v.wrapping_sub(ONES) & !v & (0x80 * ONES)
}

/// Nonzero when one of the eight bytes of `word` is [`SUSPECT`]: `C2` or `E2`, `D8`, `EE` or
/// `EF`, or `F0..=FF` (the test `suspect_words` holds this to the table).
#[inline]
const fn suspects(word: u64) -> u64 {
    zero_bytes((word & !(0x20 * ONES)) ^ (0xC2 * ONES))
        | zero_bytes(word ^ (0xD8 * ONES))
        | zero_bytes((word | ONES) ^ (0xEF * ONES))
        | zero_bytes((word & (0xF0 * ONES)) ^ (0xF0 * ONES))
}

/// The eight bytes of `bytes` at `i`, first byte lowest, if there are eight.
#[inline]
fn word_at(bytes: &[u8], i: usize) -> Option<u64> {
    bytes.get(i..i + 8).and_then(|w| <[u8; 8]>::try_from(w).ok()).map(u64::from_le_bytes)
}

/// The length of the start of `bytes` (valid UTF-8) that is ASCII and characters that an IRI
/// set keeps raw (`kept`), or ASCII and characters that it escapes (`!kept`): where the
/// encoder must switch between the IRI set and the set that escapes every non-ASCII byte.
/// The result is a character boundary.
pub(crate) fn run(bytes: &[u8], kept: bool) -> usize {
    let mut i = 0;
    if kept {
        // Only a suspect byte, always a lead byte, can end the run: go from one to the next,
        // eight bytes at a time (from the middle of a character, maybe).
        loop {
            let at = loop {
                if let Some(word) = word_at(bytes, i) {
                    let found = suspects(word);
                    if found != 0 {
                        // The lowest flagged byte is a suspect one (only a borrow from a
                        // lower one can flag a byte that is not).
                        break i + found.trailing_zeros() as usize / 8;
                    }
                    i += 8;
                } else {
                    let tail = bytes.get(i..).unwrap_or_default();
                    match tail.iter().position(|&b| SUSPECT[usize::from(b)]) {
                        Some(k) => break i + k,
                        None => return bytes.len(),
                    }
                }
            };
            let (keeps, len) = classify(bytes, at);
            if !keeps {
                return at;
            }
            i = at + len;
        }
    }
    while let Some(&b) = bytes.get(i) {
        if b < 0x80 {
            // ASCII, eight bytes at a time.
            i += 1;
            while let Some(word) = word_at(bytes, i) {
                if word & (0x80 * ONES) != 0 {
                    break;
                }
                i += 8;
            }
        } else if b < 0xC0 {
            // A continuation byte of a character escaped.
            i += 1;
        } else {
            let (keeps, _) = classify(bytes, i);
            if keeps {
                return i;
            }
            i += 1;
        }
    }
    bytes.len()
}

/// The offset of the first non-ASCII byte of `input` that an IRI set does not keep raw (the
/// start of an invalid UTF-8 sequence, or of a character outside what it keeps), if any.
pub(crate) fn first_escaped(input: &[u8]) -> Option<usize> {
    let valid = match core::str::from_utf8(input) {
        Ok(_) => input.len(),
        Err(e) => e.valid_up_to(),
    };
    let kept = run(&input[..valid], true);
    (kept < input.len()).then_some(kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        for (cp, want) in [
            (0x9F, false),
            (0xA0, true),
            (0xD7FF, true),
            (0xE000, false),
            (0xF8FF, false),
            (0xF900, true),
            (0xFDCF, true),
            (0xFDD0, false),
            (0xFDEF, false),
            (0xFDF0, true),
            (0xFFEF, true),
            (0xFFF0, false),
            (0xFFFD, false),
            (0x10000, true),
            (0x1FFFD, true),
            (0x1FFFE, false),
            (0x2FFFF, false),
            (0xDFFFD, true),
            (0xE0000, false),
            (0xE0FFF, false),
            (0xE1000, true),
            (0xEFFFD, true),
            (0xEFFFE, false),
            (0xF0000, false),
            (0x10FFFD, false),
            (0x61B, true),
            (0x61C, false),
            (0x61D, true),
            (0x200D, true),
            (0x200E, false),
            (0x202A, false),
            (0x202E, false),
            (0x202F, true),
            (0x2066, false),
            (0x2069, false),
            (0x206A, true),
        ] {
            assert_eq!(keeps(cp), want, "U+{cp:04X}");
        }
    }

    /// The lead-byte shortcuts of `classify` agree with `keeps` on every character.
    #[test]
    #[cfg_attr(miri, ignore = "every code point, too slow for Miri: runs natively")]
    fn classify_agrees_with_keeps() {
        for c in (0x80..=0x10FFFF).filter_map(char::from_u32) {
            let mut buf = [0u8; 4];
            let bytes = c.encode_utf8(&mut buf).as_bytes();
            assert_eq!(classify(bytes, 0), (keeps(u32::from(c)), bytes.len()), "U+{:04X}", u32::from(c));
        }
    }

    #[test]
    fn suspect_words() {
        for b in 0..=255u8 {
            for at in 0..8 {
                let mut word = [b'a'; 8];
                word[at] = b;
                assert_eq!(
                    suspects(u64::from_le_bytes(word)) != 0,
                    SUSPECT[usize::from(b)],
                    "{b:#04X} at {at}"
                );
            }
        }
        assert_eq!(suspects(u64::from_le_bytes(*b"\xC3\xA9\xC3\xA9\xE6\x9D\xB1a")), 0);
    }

    #[test]
    fn runs() {
        assert_eq!(run("\u{627}\u{61C}".as_bytes(), true), 2);
        let text = "ab\u{e9}cd\u{85}\u{200E}x\u{1F600}";
        assert_eq!(run(text.as_bytes(), true), 6);
        assert_eq!(run(&text.as_bytes()[6..], false), 6);
        assert_eq!(run(&text.as_bytes()[12..], true), 4);
        assert_eq!(run(b"only ascii, longer than a word", false), 30);
        assert_eq!(first_escaped("caf\u{e9}".as_bytes()), None);
        assert_eq!(first_escaped("caf\u{e9}\u{9B}".as_bytes()), Some(5));
        assert_eq!(first_escaped(b"caf\xE9"), Some(3));
        assert_eq!(first_escaped(b"\xC2\x85\xFF"), Some(0));
    }
}
