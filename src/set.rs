//! [`Set`]: which bytes get escaped, and how a space is written; and [`ParseSetError`], the
//! error of a set name that names none (the names are the predefined sets', in
//! [`sets`](crate::sets)).

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
/// is an *IRI* set ([`with_iri`](Set::with_iri)), which keeps the characters RFC 3987 allows
/// in an IRI raw, so that `é` stays `é` instead of becoming `%C3%A9`. Such a set still escapes
/// bytes that are not part of valid UTF-8, so an encoder's output is always valid UTF-8.
///
/// A set may also write a space as `+` instead of `%20`
/// ([`with_space_as_plus`](Set::with_space_as_plus)), as HTML forms do. Such a set always
/// escapes `+` too, so that a `+` in its output can only be a space.
///
/// Sets are `Copy`, small (48 bytes), and built with `const fn`s, so a custom set is a constant.
/// The builders say what happens to the bytes they name: [`keep`](Set::keep) and
/// [`escape`](Set::escape) (or [`remove`](Set::remove) and [`add`](Set::add), one byte at a
/// time, as the `percent-encoding` crate calls them):
///
/// ```
/// use pctenc::{sets, Set};
///
/// // Keep letters, digits and `-._~/` (an RFC 3986 path that keeps its slashes).
/// const PATH_KEEP_SLASH: Set = sets::RFC3986.keep(b"/");
/// assert_eq!(pctenc::encode("a b/c", &PATH_KEEP_SLASH), "a%20b/c");
///
/// // The same set, spelled as the characters to keep.
/// assert_eq!(Set::keeping(b"-._~/"), PATH_KEEP_SLASH);
/// // And in the words of the percent-encoding crate.
/// assert_eq!(sets::RFC3986.remove(b'/'), PATH_KEEP_SLASH);
/// ```
///
/// Two sets are equal when they encode every input alike: a set that keeps the space (or `+`)
/// is equal to the same set with the space-as-`+` rule, which it does not use.
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
/// Re-quoting's text set ([`Set::copying_plus`]): `+` is copied, yet a space is `+`.
const COPY_PLUS: u8 = 4;

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
    /// const SPACES_ONLY: Set = Set::EMPTY.escape(b" ");
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

    /// This set, also escaping `byte`: [`escape`](Set::escape) for one byte, under the
    /// `percent-encoding` crate's name (`AsciiSet::add`). Bytes `0x80..=0xFF` are escaped
    /// already unless the set is an IRI set, which keeps all of them; for those bytes `add`
    /// changes nothing.
    ///
    /// ```
    /// use pctenc::sets;
    ///
    /// let set = sets::RFC3986.remove(b'/').add(b'~');
    /// assert_eq!(set, sets::RFC3986.keep(b"/").escape(b"~"));
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

    /// This set, keeping `byte` raw: [`keep`](Set::keep) for one byte, under the
    /// `percent-encoding` crate's name (`AsciiSet::remove`). For bytes `0x80..=0xFF` this
    /// changes nothing (see [`with_iri`](Set::with_iri)).
    ///
    /// A set that keeps `+` does not use the space-as-`+` rule
    /// ([`with_space_as_plus`](Set::with_space_as_plus)): it writes a space as `%20`, since a
    /// raw `+` in its output would read as a space. (A set that keeps the space copies it.)
    /// Escaping `+` again puts the rule back in use.
    ///
    /// ```
    /// use pctenc::sets;
    ///
    /// let set = sets::COMPONENT.remove(b'@');
    /// assert_eq!(pctenc::encode("me@example.org", &set), "me@example.org");
    /// assert_eq!(pctenc::encode("a+b c", &sets::FORM.remove(b'+')), "a+b%20c");
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

    /// This space-as-`+` set, copying `+` as it is while still writing a space as `+`: the
    /// set for text when re-quoting, where a `+` of the input is an encoded space already.
    /// Not for output that must decode back to the input.
    pub(crate) const fn copying_plus(self) -> Set {
        Set { flags: self.flags | COPY_PLUS, ..self.remove(b'+') }
    }

    /// The set that escapes what either set escapes. The rules (space as `+`, IRI) are those
    /// of `self`.
    ///
    /// ```
    /// use pctenc::{sets, Set};
    ///
    /// let set = sets::PATH.union(Set::EMPTY.escape(b"/"));
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
    /// let set = Set::EMPTY.escape(b"aeiou").complement();
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
    /// space and `+` (as `%2B`), whatever it did before: a `+` in the output then always
    /// stands for a space, and decoding with `+` as a space
    /// ([`Decoder::plus_as_space`](crate::Decoder::plus_as_space)) gives the input back.
    ///
    /// Turning it off writes a space as `%20` again and changes nothing else: which bytes
    /// are escaped is the bitmap's business, and the rule does not record which of them it
    /// added, so the space and `+` stay escaped (`.remove(b'+')` keeps `+` again).
    ///
    /// ```
    /// use pctenc::sets;
    ///
    /// let set = sets::RFC3986.with_space_as_plus(true);
    /// assert_eq!(pctenc::encode("a b+c", &set), "a+b%2Bc");
    /// assert_eq!(set, sets::PYTHON_QUOTE_PLUS);
    /// // A set that keeps `+` escapes it once it writes spaces as `+`.
    /// let query = sets::QUERY.with_space_as_plus(true);
    /// assert_eq!(pctenc::encode("1+1 = 2", &query), "1%2B1+=+2");
    /// assert_eq!(pctenc::encode("1+1 = 2", &query.with_space_as_plus(false)), "1%2B1%20=%202");
    /// // A set that keeps the space has no use for the rule.
    /// assert_eq!(sets::FORM.remove(b' '), pctenc::Set::keeping(b" *-._"));
    /// ```
    #[must_use]
    pub const fn with_space_as_plus(self, on: bool) -> Set {
        if on {
            Set { flags: self.flags | PLUS, ..self.add(b' ').add(b'+') }
        } else {
            Set { flags: self.flags & !PLUS, ..self }
        }
    }

    /// This set, keeping non-ASCII characters raw when `on`, as an IRI may hold them
    /// (RFC 3987): exactly the characters of its `ucschar` (U+00A0-U+D7FF, U+F900-U+FDCF,
    /// U+FDF0-U+FFEF, and planes 1 to 14 but their last two code points and U+E0000-U+E0FFF),
    /// less the bidirectional formatting characters that its section 4.1 forbids although
    /// `ucschar` has them: Unicode's `Bidi_Control` characters (PropList.txt), U+061C, U+200E,
    /// U+200F, U+202A-U+202E and the isolates U+2066-U+2069.
    ///
    /// Every other non-ASCII character is escaped as the `%HH` of its UTF-8: the C1 controls
    /// U+0080-U+009F (U+009B starts terminal escape sequences, U+0085 is a newline to some
    /// systems), private use characters (`iprivate`, which RFC 3987 allows in a query only),
    /// the noncharacters U+FDD0-U+FDEF and U+xFFFE, U+xFFFF, and the specials U+FFF0-U+FFFF.
    /// So are bytes that are not part of valid UTF-8.
    ///
    /// ```
    /// use pctenc::sets;
    ///
    /// let iri = sets::COMPONENT.with_iri(true);
    /// assert_eq!(pctenc::encode("café au lait", &iri), "café%20au%20lait");
    /// assert_eq!(pctenc::encode(b"caf\xE9", &iri), "caf%E9"); // Latin-1, not UTF-8
    /// assert_eq!(pctenc::encode("a\u{9B}b\u{202E}", &iri), "a%C2%9Bb%E2%80%AE");
    /// assert_eq!(pctenc::encode("\u{627}\u{61C}", &iri), "\u{627}%D8%9C"); // ALM
    /// ```
    #[must_use]
    pub const fn with_iri(self, on: bool) -> Set {
        Set { flags: if on { self.flags | IRI } else { self.flags & !IRI }, ..self }
    }

    /// Whether the set escapes `byte`. Every byte value is a valid argument.
    ///
    /// For bytes `0x80..=0xFF`, whether the set escapes them everywhere: an IRI set escapes
    /// them only where they are not part of a character it keeps ([`with_iri`](Set::with_iri)).
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

    /// Whether a space is written as `+`: the rule is on
    /// ([`with_space_as_plus`](Set::with_space_as_plus)) and the set escapes both the space
    /// and `+`.
    ///
    /// ```
    /// use pctenc::sets;
    ///
    /// assert!(sets::FORM.space_as_plus());
    /// assert!(!sets::FORM.remove(b'+').space_as_plus()); // a raw `+` would read as a space
    /// assert!(sets::FORM.remove(b'+').add(b'+').space_as_plus());
    /// ```
    #[inline]
    pub const fn space_as_plus(&self) -> bool {
        self.flags & PLUS != 0 && self.contains(b' ') && (self.contains(b'+') || self.flags & COPY_PLUS != 0)
    }

    /// How the set writes a space, as a label: `"+"` (the form rule,
    /// [`space_as_plus`](Set::space_as_plus)), `"%20"`, or `"kept"` when the space stays raw.
    /// A space is the character whose spelling differs most between ecosystems, so the
    /// listings of the sets (`pctenc sets`, the web page, the Python module's `sets()`) show
    /// it beside [`kept_punctuation`](Set::kept_punctuation).
    ///
    /// ```
    /// use pctenc::sets;
    ///
    /// assert_eq!(sets::FORM.space_label(), "+");
    /// assert_eq!(sets::COMPONENT.space_label(), "%20");
    /// assert_eq!(sets::COMPONENT.remove(b' ').space_label(), "kept");
    /// ```
    #[inline]
    pub const fn space_label(&self) -> &'static str {
        if self.space_as_plus() {
            "+"
        } else if self.contains(b' ') {
            "%20"
        } else {
            "kept"
        }
    }

    /// Whether the non-ASCII characters an IRI may hold are kept raw (see
    /// [`with_iri`](Set::with_iri)).
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

/// Building sets by naming bytes: [`keep`](Set::keep) and [`escape`](Set::escape) say what
/// happens to the bytes they are given, in the words of [`Set::keeping`] and `SETS.md`.
/// The single-byte [`add`](Set::add) (escape) and [`remove`](Set::remove) (keep) are the
/// same operations under the names of the `percent-encoding` crate, whose sets list what is
/// escaped.
impl Set {
    /// This set, keeping each byte of `bytes` raw (copied as is by the encoder). ASCII bytes
    /// only: bytes `0x80..=0xFF` in `bytes` change nothing (see [`with_iri`](Set::with_iri)).
    /// The byte-string form of [`remove`](Set::remove), the `percent-encoding` name.
    ///
    /// ```
    /// use pctenc::{sets, Set};
    ///
    /// // RFC 3986 unreserved, and the delimiters of a path.
    /// const PATH_SEGMENTS: Set = sets::RFC3986.keep(b"/@:");
    /// assert_eq!(pctenc::encode("a b/c@d", &PATH_SEGMENTS), "a%20b/c@d");
    /// assert_eq!(PATH_SEGMENTS, sets::RFC3986.remove(b'/').remove(b'@').remove(b':'));
    /// ```
    #[must_use]
    #[doc(alias = "remove")]
    pub const fn keep(self, bytes: &[u8]) -> Set {
        let mut set = self;
        let mut i = 0;
        while i < bytes.len() {
            set = set.remove(bytes[i]);
            i += 1;
        }
        set
    }

    /// This set, also escaping each byte of `bytes` (written `%HH`). Bytes `0x80..=0xFF` are
    /// escaped already unless the set is an IRI set, which keeps all of them; for those bytes
    /// `escape` changes nothing. The byte-string form of [`add`](Set::add), the
    /// `percent-encoding` name.
    ///
    /// ```
    /// use pctenc::{sets, Set};
    ///
    /// // encodeURIComponent, but escaping `'` and `*` too.
    /// const STRICTER: Set = sets::COMPONENT.escape(b"'*");
    /// assert_eq!(pctenc::encode("it's *", &STRICTER), "it%27s%20%2A");
    /// assert_eq!(STRICTER, sets::COMPONENT.add(b'\'').add(b'*'));
    /// // Starting from nothing: escape only these.
    /// assert_eq!(pctenc::encode("a b&c", &Set::EMPTY.escape(b" &")), "a%20b%26c");
    /// ```
    #[must_use]
    #[doc(alias = "add")]
    pub const fn escape(self, bytes: &[u8]) -> Set {
        let mut set = self;
        let mut i = 0;
        while i < bytes.len() {
            set = set.add(bytes[i]);
            i += 1;
        }
        set
    }
}

/// Checks that the nibble rows stay in step with the bitmap, and that a plus set escapes
/// `+`, through every builder, for `sets` and their unions: the test of this file (sets of
/// every shape) and that of `sets.rs` (the named ones) call it.
/// The error of parsing a [`Set`] from a name that is not one of
/// [`sets::NAMED`](crate::sets::NAMED). Its message names the input (with `alloc`) and lists
/// the names that would have worked.
///
/// ```
/// let err = "nope".parse::<pctenc::Set>().unwrap_err();
/// assert_eq!(err.name(), "nope");
/// let message = err.to_string();
/// for named in pctenc::sets::NAMED {
///     assert!(message.contains(named.name));
/// }
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseSetError {
    #[cfg(feature = "alloc")]
    name: alloc::string::String,
}

impl ParseSetError {
    pub(crate) fn new(name: &str) -> ParseSetError {
        #[cfg(not(feature = "alloc"))]
        let _ = name;
        ParseSetError {
            #[cfg(feature = "alloc")]
            name: name.into(),
        }
    }

    /// The name that was not found, as given.
    ///
    /// ```
    /// assert_eq!("uri_componnent".parse::<pctenc::Set>().unwrap_err().name(), "uri_componnent");
    /// ```
    #[cfg(feature = "alloc")]
    pub fn name(&self) -> &str {
        &self.name
    }
}

// Its `Display`, which lists the names, is in `crate::sets` with them.
impl core::error::Error for ParseSetError {}

#[cfg(test)]
pub(crate) fn check_builders(sets: &[Set]) {
    for &set in sets {
        for other in sets {
            for s in
                [set, set.union(*other), set.complement(), set.with_space_as_plus(true), set.with_iri(true)]
            {
                assert_eq!(s.rows, rows_of(s.ascii));
                for t in [s, s.complement(), s.remove(b'+'), s.union(*other), s.add(b'+'), s.remove(b' ')] {
                    assert!(!t.space_as_plus() || t.contains(b'+'), "{t:?}");
                }
                for b in 0..128u8 {
                    assert_eq!(s.add(b).rows, rows_of(s.add(b).ascii));
                    assert_eq!(s.remove(b).rows, rows_of(s.remove(b).ascii));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The column table stays in step with the bitmap through every builder.
    #[test]
    #[cfg_attr(miri, ignore = "exhaustive check of safe table code, too slow for Miri: runs natively")]
    fn rows_follow_the_bitmap() {
        // Sets of every shape the named ones have (`sets.rs` runs the named ones), and the
        // extremes.
        check_builders(&[
            Set::EMPTY,
            Set::ALL,
            Set::keeping(b"-_"),
            Set::EMPTY.add(b'a').complement(),
            Set::keeping(b"-._~"),
            Set::keeping(b"!'()*-._~"),
            Set::keeping(b"!#$&'()*+,-./:;=?@_~"),
            Set::keeping(b"*-._").with_space_as_plus(true),
            Set::keeping(b"!'()*-._~").with_iri(true),
            Set::ALL.keep(b" !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"),
        ]);
    }
}
