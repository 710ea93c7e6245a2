//! `Debug` for [`Decoder`]: its options, with the kept escapes as a readable class.

use core::fmt;

use super::Decoder;
use crate::set::Set;

impl fmt::Debug for Decoder {
    /// Every option by the name of its builder, the kept escapes readably: `nothing`, the
    /// name of a predefined set (`sets::RFC3986`, `Decoder::URI_RESERVED`), or the bytes
    /// whose escapes are kept, with runs as ranges (`"%/"`, `"\x00-\x1F"`, `"/" + 0x80-0xFF`).
    ///
    /// ```
    /// use pctenc::Decoder;
    ///
    /// assert_eq!(
    ///     format!("{:?}", Decoder::URI),
    ///     "Decoder { lenient: false, plus_as_space: false, utf8: Strict, legacy_u: false, \
    ///      keep_encoded: Decoder::URI_RESERVED, reject: Reject(NONE), engine: None }"
    /// );
    /// assert!(format!("{:?}", Decoder::new()).contains("keep_encoded: nothing,"));
    /// let dec = Decoder::new().keep_encoded(pctenc::Set::EMPTY.escape(b"%/"));
    /// assert!(format!("{dec:?}").contains(r#"keep_encoded: "%/" + 0x80-0xFF,"#));
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Decoder")
            .field("lenient", &self.lenient)
            .field("plus_as_space", &self.plus)
            .field("utf8", &self.utf8)
            .field("legacy_u", &self.legacy_u)
            .field("keep_encoded", &KeptEncoded(self.keep))
            .field("reject", &self.reject)
            .field("engine", &self.engine.map(|e| e.backend()))
            .finish()
    }
}

/// The `Debug` form of [`Decoder::keep_encoded_value`].
struct KeptEncoded(Set);

impl fmt::Debug for KeptEncoded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let set = self.0;
        let (ascii, high) = (set.ascii_bits(), set.contains(0x80));
        if ascii == 0 && !high {
            return f.write_str("nothing");
        }
        if ascii == Decoder::URI_RESERVED.ascii_bits() && !high {
            return f.write_str("Decoder::URI_RESERVED");
        }
        for named in crate::sets::NAMED {
            if named.set.ascii_bits() == ascii {
                // The constant's name: `c0-control` is `sets::C0_CONTROL`.
                f.write_str("sets::")?;
                for c in named.name.chars() {
                    write!(f, "{}", if c == '-' { '_' } else { c.to_ascii_uppercase() })?;
                }
                return if high { Ok(()) } else { f.write_str(".with_iri(true)") };
            }
        }
        if ascii != 0 {
            f.write_str("\"")?;
            let mut b = 0u8;
            while b < 128 {
                if !set.contains(b) {
                    b += 1;
                    continue;
                }
                let mut end = b;
                while end < 127 && set.contains(end + 1) {
                    end += 1;
                }
                if end - b >= 3 {
                    write!(f, "{}-{}", Shown(b), Shown(end))?;
                } else {
                    for c in b..=end {
                        write!(f, "{}", Shown(c))?;
                    }
                }
                b = end + 1;
            }
            f.write_str("\"")?;
            if high {
                f.write_str(" + ")?;
            }
        }
        if high { f.write_str("0x80-0xFF") } else { Ok(()) }
    }
}

/// An ASCII byte inside the quotes of [`KeptEncoded`]: printable as itself (`"`, `\` and `-`
/// behind a backslash), the others as `\xHH`.
struct Shown(u8);

impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            b'"' | b'\\' | b'-' => write!(f, "\\{}", char::from(self.0)),
            b' '..=b'~' => write!(f, "{}", char::from(self.0)),
            b => write!(f, "\\x{b:02X}"),
        }
    }
}
