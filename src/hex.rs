//! Hex digits and ready-made `%HH` escapes.

/// Uppercase hex digits, the default (RFC 3986 section 2.1 recommends them).
pub(crate) const UPPER: &[u8; 16] = b"0123456789ABCDEF";
/// Lowercase hex digits, for systems that expect them.
pub(crate) const LOWER: &[u8; 16] = b"0123456789abcdef";

/// `"%00%01...%FF"`: the escape of byte `b` is `ESCAPES_UPPER[3 * b..3 * b + 3]`.
pub(crate) const ESCAPES_UPPER: &str = ascii_str(&table(UPPER));
/// `"%00%01...%ff"`.
pub(crate) const ESCAPES_LOWER: &str = ascii_str(&table(LOWER));

const fn table(digits: &[u8; 16]) -> [u8; 768] {
    let mut t = [0u8; 768];
    let mut b = 0;
    while b < 256 {
        t[3 * b] = b'%';
        t[3 * b + 1] = digits[b >> 4];
        t[3 * b + 2] = digits[b & 15];
        b += 1;
    }
    t
}

const fn ascii_str(bytes: &'static [u8]) -> &'static str {
    match core::str::from_utf8(bytes) {
        Ok(s) => s,
        Err(_) => panic!("escape table is ASCII"),
    }
}

/// `VALUES[b]` is the value of hex digit `b` (either case), or `0xFF` when `b` is not one.
pub(crate) const VALUES: [u8; 256] = {
    let mut t = [0xFF; 256];
    let mut b = 0;
    while b < 256 {
        if let Some(v) = value(b as u8) {
            t[b] = v;
        }
        b += 1;
    }
    t
};

/// The byte that hex digits `hi` and `lo` spell, if both are hex digits.
#[inline]
pub(crate) fn pair(hi: u8, lo: u8) -> Option<u8> {
    let (hi, lo) = (VALUES[usize::from(hi)], VALUES[usize::from(lo)]);
    if (hi | lo) & 0xF0 == 0 { Some(hi << 4 | lo) } else { None }
}

/// The value of hex digit `b` (either case), or `None`.
#[inline]
pub(crate) const fn value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'A'..=b'F' => Some(b - b'A' + 10),
        b'a'..=b'f' => Some(b - b'a' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn escape_tables() {
        for b in 0..=255u8 {
            let e = &super::ESCAPES_UPPER[3 * b as usize..][..3];
            assert_eq!(e, format!("%{b:02X}"));
            let e = &super::ESCAPES_LOWER[3 * b as usize..][..3];
            assert_eq!(e, format!("%{b:02x}"));
        }
    }

    #[test]
    #[cfg_attr(miri, ignore = "exhaustive check of safe table code, too slow for Miri: runs natively")]
    fn pairs() {
        for hi in 0..=255u8 {
            for lo in 0..=255u8 {
                let want = super::value(hi).zip(super::value(lo)).map(|(h, l)| h << 4 | l);
                assert_eq!(super::pair(hi, lo), want);
            }
        }
    }

    #[test]
    fn hex_values() {
        for b in 0..=255u8 {
            let want = (b as char).to_digit(16).map(|d| d as u8);
            assert_eq!(super::value(b), want, "byte {b:#04x}");
        }
    }
}
