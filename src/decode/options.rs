//! The decoder's option types: [`Utf8Mode`] (what invalid UTF-8 becomes) and [`Reject`] (the
//! bytes an escape must not decode to).

use core::fmt;
use core::ops::{BitOr, BitOrAssign};

#[cfg(doc)]
use super::Decoder;

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

/// Classes of bytes that a [`Decoder`] refuses to produce by decoding an escape
/// ([`Decoder::reject`]): what a proxy or a file server checks in a decoded path.
///
/// Classes combine with `|` (or [`union`](Reject::union), which is `const`). Only escapes are
/// checked: a raw byte of the input is copied as it is (use [`validate`](crate::validate) to
/// check raw bytes).
///
/// ```
/// use pctenc::{Decoder, DecodeErrorKind, Reject};
///
/// const PROXY: Decoder = Decoder::new().reject(Reject::CONTROLS.union(Reject::SLASHES));
/// assert_eq!(PROXY.decode("a%20b/c").unwrap(), &b"a b/c"[..]);
/// let err = PROXY.decode("a%2Fb").unwrap_err();
/// assert_eq!((err.offset(), err.kind()), (1, DecodeErrorKind::Forbidden(b'/')));
/// assert!(Reject::CONTROLS.rejects(b'\n') && !Reject::CR_LF.rejects(0));
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Reject(
    /// Bit `b`: an escape that decodes to ASCII byte `b` is rejected.
    u128,
);

impl Reject {
    /// No byte is rejected (the default).
    pub const NONE: Reject = Reject(0);
    /// NUL, `%00`.
    pub const NUL: Reject = Reject(1);
    /// Every C0 control (`%00` to `%1F`) and DEL (`%7F`).
    pub const CONTROLS: Reject = Reject(((1 << 0x20) - 1) | (1 << 0x7F));
    /// CR and LF (`%0D`, `%0A`): header and log injection.
    pub const CR_LF: Reject = Reject((1 << b'\r') | (1 << b'\n'));
    /// `/` and `\` (`%2F`, `%5C`): a path segment that decodes into two (see also
    /// [`Decoder::keep_encoded`], which can keep `%2F` as it is instead).
    pub const SLASHES: Reject = Reject((1 << b'/') | (1 << b'\\'));
    /// Every class above.
    pub const ALL: Reject = Reject::CONTROLS.union(Reject::SLASHES);

    /// The classes, widest first, by name.
    const NAMES: [(Reject, &'static str); 4] = [
        (Reject::CONTROLS, "CONTROLS"),
        (Reject::NUL, "NUL"),
        (Reject::CR_LF, "CR_LF"),
        (Reject::SLASHES, "SLASHES"),
    ];

    /// The bytes of both: `|`, usable in a `const`.
    ///
    /// ```
    /// use pctenc::Reject;
    ///
    /// const PATH_CHECKS: Reject = Reject::NUL.union(Reject::SLASHES);
    /// assert_eq!(PATH_CHECKS, Reject::NUL | Reject::SLASHES);
    /// assert!(PATH_CHECKS.rejects(b'\\') && !PATH_CHECKS.rejects(b'\n'));
    /// ```
    #[must_use]
    pub const fn union(self, other: Reject) -> Reject {
        Reject(self.0 | other.0)
    }

    /// Whether `self` rejects every byte that `other` rejects.
    ///
    /// ```
    /// use pctenc::Reject;
    ///
    /// assert!((Reject::NUL | Reject::SLASHES).contains(Reject::SLASHES));
    /// assert!(Reject::CONTROLS.contains(Reject::NUL | Reject::CR_LF));
    /// assert!(!Reject::CR_LF.contains(Reject::NUL));
    /// ```
    pub const fn contains(self, other: Reject) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether no byte is rejected.
    ///
    /// ```
    /// assert!(pctenc::Reject::NONE.is_empty());
    /// assert!(pctenc::Decoder::new().reject_value().is_empty());
    /// ```
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether an escape that decodes to `byte` is rejected. The classes are ASCII: a byte
    /// `0x80..=0xFF` (part of a non-ASCII character) is never rejected.
    ///
    /// ```
    /// use pctenc::Reject;
    ///
    /// assert!(Reject::SLASHES.rejects(b'/') && Reject::SLASHES.rejects(b'\\'));
    /// assert!(Reject::CONTROLS.rejects(0x7F));
    /// assert!(!Reject::ALL.rejects(b'%') && !Reject::ALL.rejects(0xFF));
    /// ```
    pub const fn rejects(self, byte: u8) -> bool {
        byte < 0x80 && self.0 >> byte & 1 != 0
    }

    /// The rejected bytes as a bitmap: bit `b` for ASCII byte `b`.
    pub(super) const fn bits(self) -> u128 {
        self.0
    }
}

impl BitOr for Reject {
    type Output = Reject;

    fn bitor(self, other: Reject) -> Reject {
        self.union(other)
    }
}

impl BitOrAssign for Reject {
    fn bitor_assign(&mut self, other: Reject) {
        *self = self.union(other);
    }
}

impl fmt::Debug for Reject {
    /// `Reject(NUL | SLASHES)`, `Reject(CONTROLS)` (which holds `NUL` and `CR_LF`),
    /// `Reject(NONE)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Reject(")?;
        let mut shown = Reject::NONE;
        for (class, name) in Reject::NAMES {
            if self.contains(class) && !shown.contains(class) {
                f.write_str(if shown.is_empty() { "" } else { " | " })?;
                f.write_str(name)?;
                shown = shown.union(class);
            }
        }
        f.write_str(if shown.is_empty() { "NONE)" } else { ")" })
    }
}
