//! [`Set`]: which bytes get escaped, and how a space is written.

use core::fmt;

/// The bytes that a percent-encoder escapes, plus two rules about how it writes them.
///
/// A `Set` answers one question per byte: [`contains`](Set::contains) is `true` when the byte is
/// written as `%HH` and `false` when it is copied as is. Every predefined set in
/// [`sets`](crate::sets) keeps ASCII letters and digits and escapes the ASCII controls; they
/// differ in the punctuation they keep, and each one matches a standard or a popular
/// implementation byte for byte.
///
/// Bytes `0x80..=0xFF` (the bytes of non-ASCII UTF-8 text) are always escaped, unless the set
/// is an *IRI* set ([`with_iri`](Set::with_iri)), which keeps them raw so that `é` stays `é`
/// instead of becoming `%C3%A9` (RFC 3987). Such a set still escapes bytes that are not part of
/// valid UTF-8, so an encoder's output is always valid UTF-8.
///
/// A set may also write a space as `+` instead of `%20`
/// ([`with_space_as_plus`](Set::with_space_as_plus)), as HTML forms do.
///
/// Sets are `Copy`, small (48 bytes), and built with `const fn`s, so a custom set is a constant:
///
/// ```
/// use pctenc::{sets, Set};
///
/// // Keep letters, digits and `-._~/` (an RFC 3986 path that keeps its slashes).
/// const PATH_KEEP_SLASH: Set = sets::RFC3986.remove(b'/');
/// assert_eq!(pctenc::encode("a b/c", &PATH_KEEP_SLASH), "a%20b/c");
///
/// // The same set, spelled as the characters to keep.
/// assert_eq!(Set::keeping(b"-._~/"), PATH_KEEP_SLASH);
/// ```
///
/// Two sets are equal when they encode every input alike: a set that keeps the space is equal
/// to the same set with the space-as-`+` rule, which it never uses.
#[derive(Clone, Copy)]
pub struct Set {
    /// Bit `b` is set when ASCII byte `b` is escaped.
    ascii: u128,
    /// The same bits by column: bit `hi` of `rows[lo]` is bit `16 * hi + lo` of `ascii`. This
    /// is the table the vector classifiers look up, kept here so that no call pays for it.
    rows: [u8; 16],
    flags: u8,
}

/// `ascii` arranged as [`Set::rows`].
const fn rows_of(ascii: u128) -> [u8; 16] {
    let mut rows = [0u8; 16];
    let mut b = 0;
    while b < 128 {
        if ascii >> b & 1 != 0 {
            rows[b & 15] |= 1 << (b >> 4);
        }
        b += 1;
    }
    rows
}

const PLUS: u8 = 1;
const IRI: u8 = 2;

/// Bits of ASCII letters and digits.
const ALPHANUMERIC: u128 = {
    let mut bits = 0u128;
    let mut b = 0u8;
    while b < 128 {
        if b.is_ascii_alphanumeric() {
            bits |= 1 << b;
        }
        b += 1;
    }
    bits
};

impl Set {
    /// Escapes no ASCII byte (bytes `0x80..=0xFF` are still escaped). A starting point for
    /// sets that escape only a few characters.
    ///
    /// ```
    /// use pctenc::Set;
    ///
    /// const SPACES_ONLY: Set = Set::EMPTY.add(b' ');
    /// assert_eq!(pctenc::encode("a b&c", &SPACES_ONLY), "a%20b&c");
    /// ```
    pub const EMPTY: Set = Set { ascii: 0, rows: [0; 16], flags: 0 };

    /// Escapes every byte.
    ///
    /// ```
    /// assert_eq!(pctenc::encode("ab", &pctenc::Set::ALL), "%61%62");
    /// ```
    pub const ALL: Set = Set { ascii: u128::MAX, rows: [0xFF; 16], flags: 0 };

    /// The set that keeps ASCII letters, digits and the bytes of `keep`, and escapes every
    /// other byte. This is how `SETS.md` and the standards define sets.
    ///
    /// Bytes `0x80..=0xFF` in `keep` are ignored: use [`with_iri`](Set::with_iri) to keep
    /// non-ASCII text.
    ///
    /// ```
    /// use pctenc::{sets, Set};
    ///
    /// assert_eq!(Set::keeping(b"!'()*-._~"), sets::COMPONENT);
    /// ```
    pub const fn keeping(keep: &[u8]) -> Set {
        let mut set = Set { ascii: !ALPHANUMERIC, rows: rows_of(!ALPHANUMERIC), flags: 0 };
        let mut i = 0;
        while i < keep.len() {
            set = set.remove(keep[i]);
            i += 1;
        }
        set
    }

    /// This set, also escaping `byte`. Bytes `0x80..=0xFF` are escaped already unless the set
    /// is an IRI set, which keeps all of them; for those bytes `add` changes nothing.
    ///
    /// ```
    /// use pctenc::sets;
    ///
    /// let set = sets::RFC3986.remove(b'/').add(b'~');
    /// assert!(set.contains(b'~') && !set.contains(b'/'));
    /// ```
    #[must_use]
    pub const fn add(self, byte: u8) -> Set {
        if byte < 128 {
            let mut rows = self.rows;
            rows[(byte & 15) as usize] |= 1 << (byte >> 4);
            Set { ascii: self.ascii | (1 << byte), rows, flags: self.flags }
        } else {
            self
        }
    }

    /// This set, keeping `byte` raw. For bytes `0x80..=0xFF` this changes nothing (see
    /// [`with_iri`](Set::with_iri)).
    ///
    /// ```
    /// let set = pctenc::sets::COMPONENT.remove(b'@');
    /// assert_eq!(pctenc::encode("me@example.org", &set), "me@example.org");
    /// ```
    #[must_use]
    pub const fn remove(self, byte: u8) -> Set {
        if byte < 128 {
            let mut rows = self.rows;
            rows[(byte & 15) as usize] &= !(1 << (byte >> 4));
            Set { ascii: self.ascii & !(1 << byte), rows, flags: self.flags }
        } else {
            self
        }
    }

    /// The set that escapes what either set escapes. The rules (space as `+`, IRI) are those
    /// of `self`.
    ///
    /// ```
    /// use pctenc::{sets, Set};
    ///
    /// let set = sets::PATH.union(Set::EMPTY.add(b'/'));
    /// assert_eq!(pctenc::encode("a/b c", &set), "a%2Fb%20c");
    /// ```
    #[must_use]
    pub const fn union(self, other: Set) -> Set {
        let mut rows = self.rows;
        let mut i = 0;
        while i < 16 {
            rows[i] |= other.rows[i];
            i += 1;
        }
        Set { ascii: self.ascii | other.ascii, rows, flags: self.flags }
    }

    /// The set that escapes exactly the ASCII bytes this one keeps. Bytes `0x80..=0xFF` and
    /// the rules (space as `+`, IRI) are unchanged.
    ///
    /// ```
    /// use pctenc::Set;
    ///
    /// // Keep only vowels: escape every other ASCII byte.
    /// let set = Set::EMPTY.add(b'a').add(b'e').add(b'i').add(b'o').add(b'u').complement();
    /// assert_eq!(pctenc::encode("iou, aye!", &set), "iou%2C%20a%79e%21");
    /// assert_eq!(Set::ALL.complement(), Set::EMPTY);
    /// ```
    #[must_use]
    pub const fn complement(self) -> Set {
        let mut rows = self.rows;
        let mut i = 0;
        while i < 16 {
            rows[i] = !rows[i];
            i += 1;
        }
        Set { ascii: !self.ascii, rows, flags: self.flags }
    }

    /// This set, writing a space as `+` instead of `%20` when `on` (the
    /// `application/x-www-form-urlencoded` rule). Turning it on also makes the set escape the
    /// space.
    ///
    /// ```
    /// use pctenc::sets;
    ///
    /// let set = sets::RFC3986.with_space_as_plus(true);
    /// assert_eq!(pctenc::encode("a b+c", &set), "a+b%2Bc");
    /// assert_eq!(set, sets::PYTHON_QUOTE_PLUS);
    /// // A set that keeps the space has no use for the rule.
    /// assert_eq!(sets::FORM.remove(b' '), pctenc::Set::keeping(b" *-._"));
    /// ```
    #[must_use]
    pub const fn with_space_as_plus(self, on: bool) -> Set {
        if on {
            Set { flags: self.flags | PLUS, ..self.add(b' ') }
        } else {
            Set { flags: self.flags & !PLUS, ..self }
        }
    }

    /// This set, keeping the bytes of non-ASCII UTF-8 characters raw when `on` (IRI, RFC 3987).
    /// Bytes that are not part of valid UTF-8 are still escaped.
    ///
    /// ```
    /// use pctenc::sets;
    ///
    /// let iri = sets::COMPONENT.with_iri(true);
    /// assert_eq!(pctenc::encode("café au lait", &iri), "café%20au%20lait");
    /// assert_eq!(pctenc::encode(b"caf\xE9", &iri), "caf%E9"); // Latin-1, not UTF-8
    /// ```
    #[must_use]
    pub const fn with_iri(self, on: bool) -> Set {
        Set { flags: if on { self.flags | IRI } else { self.flags & !IRI }, ..self }
    }

    /// Whether the set escapes `byte`. Every byte value is a valid argument.
    ///
    /// A space in a space-as-plus set is "contained": it is written as `+`, not as itself.
    ///
    /// ```
    /// use pctenc::sets;
    ///
    /// assert!(sets::COMPONENT.contains(b'&'));
    /// assert!(!sets::COMPONENT.contains(b'!'));
    /// assert!(sets::COMPONENT.contains(0xE9));
    /// assert!(!sets::COMPONENT.with_iri(true).contains(0xE9));
    /// ```
    #[inline]
    pub const fn contains(&self, byte: u8) -> bool {
        if byte < 128 { (self.ascii >> byte) & 1 != 0 } else { self.flags & IRI == 0 }
    }

    /// Whether a space is written as `+`.
    ///
    /// ```
    /// assert!(pctenc::sets::FORM.space_as_plus());
    /// ```
    #[inline]
    pub const fn space_as_plus(&self) -> bool {
        self.flags & PLUS != 0 && self.contains(b' ')
    }

    /// Whether non-ASCII UTF-8 is kept raw (see [`with_iri`](Set::with_iri)).
    ///
    /// ```
    /// assert!(!pctenc::sets::PATH.is_iri());
    /// ```
    #[inline]
    pub const fn is_iri(&self) -> bool {
        self.flags & IRI != 0
    }

    /// The escaped ASCII bytes as a bitmap: bit `b` is set when byte `b` is escaped. This is
    /// what vectorized classifiers are built from.
    ///
    /// ```
    /// assert_eq!(pctenc::Set::EMPTY.add(b'%').ascii_bits(), 1u128 << b'%');
    /// ```
    #[inline]
    pub const fn ascii_bits(&self) -> u128 {
        self.ascii
    }

    /// The escaped ASCII bytes by column: bit `hi` of `rows[lo]` says whether byte
    /// `16 * hi + lo` is escaped (the nibble-lookup table of the vector classifiers).
    #[inline]
    #[cfg_attr(
        not(any(target_arch = "x86", target_arch = "x86_64", target_arch = "aarch64")),
        allow(dead_code)
    )]
    pub(crate) const fn nibble_rows(&self) -> &[u8; 16] {
        &self.rows
    }

    /// The printable ASCII characters (space to `~`) that the set keeps raw, other than
    /// letters and digits, in byte order: the way `SETS.md` and `pctenc sets` describe a set.
    ///
    /// ```
    /// let kept: String = pctenc::sets::RFC3986.kept_punctuation().map(char::from).collect();
    /// assert_eq!(kept, "-._~");
    /// ```
    pub fn kept_punctuation(&self) -> impl Iterator<Item = u8> + '_ {
        (b' '..=b'~').filter(move |&b| !b.is_ascii_alphanumeric() && !self.contains(b))
    }

    /// Looks a set up by the name `SETS.md` and the CLI use (`"component"`, `"form"`, ...) or
    /// an alias (`"uri-component"`, `"unreserved"`, ...). Case and `_`/`-` do not matter.
    ///
    /// ```
    /// use pctenc::{sets, Set};
    ///
    /// assert_eq!(Set::by_name("component"), Some(sets::COMPONENT));
    /// assert_eq!(Set::by_name("URI_COMPONENT"), Some(sets::COMPONENT));
    /// assert_eq!(Set::by_name("nope"), None);
    /// ```
    pub fn by_name(name: &str) -> Option<Set> {
        crate::sets::NAMED.iter().find(|n| n.matches(name)).map(|n| n.set)
    }
}

impl PartialEq for Set {
    fn eq(&self, other: &Set) -> bool {
        self.ascii == other.ascii
            && self.is_iri() == other.is_iri()
            && self.space_as_plus() == other.space_as_plus()
    }
}

impl Eq for Set {}

impl core::hash::Hash for Set {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        (self.ascii, self.is_iri(), self.space_as_plus()).hash(state);
    }
}

impl Default for Set {
    /// [`sets::RFC3986`](crate::sets::RFC3986), the strictest standard set.
    ///
    /// ```
    /// assert_eq!(pctenc::Set::default(), pctenc::sets::RFC3986);
    /// ```
    fn default() -> Set {
        crate::sets::RFC3986
    }
}

impl fmt::Debug for Set {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct Kept<'a>(&'a Set);
        impl fmt::Debug for Kept<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("\"")?;
                for b in 0..128u8 {
                    if !self.0.contains(b) {
                        write!(f, "{}", char::from(b).escape_debug())?;
                    }
                }
                f.write_str("\"")
            }
        }
        f.debug_struct("Set")
            .field("keeps", &Kept(self))
            .field("space_as_plus", &self.space_as_plus())
            .field("iri", &self.is_iri())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The column table stays in step with the bitmap through every builder.
    #[test]
    #[cfg_attr(miri, ignore = "exhaustive check of safe table code, too slow for Miri: runs natively")]
    fn rows_follow_the_bitmap() {
        let mut sets: Vec<Set> = crate::sets::NAMED.iter().map(|n| n.set).collect();
        sets.extend([Set::EMPTY, Set::ALL, Set::keeping(b"-_"), Set::EMPTY.add(b'a').complement()]);
        for set in sets.clone() {
            for other in &sets {
                for s in [
                    set,
                    set.union(*other),
                    set.complement(),
                    set.with_space_as_plus(true),
                    set.with_iri(true),
                ] {
                    assert_eq!(s.rows, rows_of(s.ascii));
                    for b in 0..128u8 {
                        assert_eq!(s.add(b).rows, rows_of(s.add(b).ascii));
                        assert_eq!(s.remove(b).rows, rows_of(s.remove(b).ascii));
                    }
                }
            }
        }
    }
}
