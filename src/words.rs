//! Decoders and encoders from words: the one vocabulary every surface of pctenc reads its
//! options in (the C API's `pctenc_decoder_from_words`, the nginx module's directives, SQL's
//! and Python's `mode`, the CLI's `--mode`, the page).
//!
//! Why one parser: a rule moved from one surface to another must mean the same bytes. Each
//! word has one meaning, and every word follows one case rule, that of set names: ASCII case
//! is ignored and `_` equals `-` (`UTF8=Lossy`, `reject-nul` and `reject_NUL` are the same
//! words). Words are separated by spaces, tabs, newlines or commas, in any order.
//!
//! A decoder ([`Decoder`]'s `FromStr`), every word optional, nothing given being strict
//! decoding of bytes:
//!
//! | word | meaning |
//! |------|---------|
//! | `strict` | a `%` that starts no valid escape is an error (the default) |
//! | `lenient` | such a `%` is copied as it is ([`Decoder::lenient`]) |
//! | `plus` (or `plus_as_space`) | `+` decodes to a space ([`Decoder::plus_as_space`]) |
//! | `utf8=bytes` | decoded bytes are returned as they are (the default) |
//! | `utf8=strict` | decoded bytes that are not UTF-8 are an error |
//! | `utf8=lossy`, or `lossy` | each invalid UTF-8 sequence becomes U+FFFD |
//! | `legacy_u` | `%uHHHH` decodes too ([`Decoder::legacy_u`]) |
//! | `reject_nul`, `reject_controls`, `reject_crlf`, `reject_slashes`, `reject_all` | an escape of such a byte is an error ([`Reject`]) |
//! | `keep_encoded=SET` | escapes of the bytes of SET (a set name, or `uri_reserved`) are kept as written |
//!
//! `lossy` is `utf8=lossy` and nothing else: it touches UTF-8 only, never escapes. What
//! never fails on any input is `lenient lossy`.
//!
//! An encoder ([`Encoder`]'s `FromStr`): exactly one set name (as [`Set::by_name`] reads it),
//! and any of `space_as_plus`, `lowercase`, `requote` (or `keep_escapes`) and `iri`.
//!
//! Two words that set the same thing differently contradict each other (`strict lenient`,
//! `utf8=strict utf8=lossy`, `lossy utf8=strict`, two set names), and a word said twice, or
//! twice in two spellings (`lossy utf8=lossy`), is a repeat: both are errors that name the
//! two words and where the second one starts.
//!
//! ```
//! use pctenc::{Decoder, Encoder, WordsErrorKind};
//!
//! let dec: Decoder = "lenient, plus UTF8=Lossy".parse()?;
//! assert_eq!(dec.decode("a+b%zz%FF")?, "a b%zz\u{FFFD}".as_bytes());
//!
//! let enc: Encoder = "component lowercase".parse()?;
//! assert_eq!(enc.encode("é"), "%c3%a9");
//!
//! let err = "lossy utf8=strict".parse::<Decoder>().unwrap_err();
//! assert_eq!((err.kind(), err.offset()), (WordsErrorKind::Contradiction, 6));
//! assert_eq!(err.to_string(), "`utf8=strict` contradicts `lossy` (word at offset 6)");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use alloc::string::String;
use core::fmt;
use core::str::FromStr;

use crate::decode::{Decoder, Reject, Utf8Mode};
use crate::encode::Encoder;
use crate::set::Set;
use crate::sets::NAMED;

/// What was wrong with a list of words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WordsErrorKind {
    /// A word that is not in the vocabulary (for an encoder: neither an option nor a set).
    Unknown,
    /// A word given twice, in the same or in another spelling.
    Repeated,
    /// A word that sets what an earlier one set otherwise.
    Contradiction,
    /// `utf8=` or `keep_encoded=` with a value it does not take.
    BadValue,
    /// Encoder words without a set name.
    NoSet,
}

/// The error of parsing words into a [`Decoder`] or an [`Encoder`]: its [`kind`](Self::kind),
/// the byte [`offset`](Self::offset) of the word at fault, the word, and for a repeat or a
/// contradiction the earlier word it clashes with.
///
/// ```
/// let err = "plus strict plus".parse::<pctenc::Decoder>().unwrap_err();
/// assert_eq!((err.offset(), err.word(), err.earlier()), (12, "plus", Some("plus")));
/// assert_eq!(err.to_string(), "`plus` repeats `plus` (word at offset 12)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WordsError {
    kind: WordsErrorKind,
    offset: usize,
    word: String,
    earlier: Option<String>,
    decoder: bool,
}

impl WordsError {
    fn new(
        kind: WordsErrorKind,
        offset: usize,
        word: &str,
        earlier: Option<&str>,
        decoder: bool,
    ) -> WordsError {
        WordsError { kind, offset, word: word.into(), earlier: earlier.map(Into::into), decoder }
    }

    /// What was wrong.
    pub fn kind(&self) -> WordsErrorKind {
        self.kind
    }

    /// The byte offset of the word at fault in the words given (for
    /// [`NoSet`](WordsErrorKind::NoSet), their length).
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The word at fault, as given (empty for [`NoSet`](WordsErrorKind::NoSet)).
    pub fn word(&self) -> &str {
        &self.word
    }

    /// For a repeat or a contradiction, the earlier word, as given.
    pub fn earlier(&self) -> Option<&str> {
        self.earlier.as_deref()
    }
}

/// The decoder's words, as the messages list them.
pub const DECODER_WORDS: &str = "strict, lenient, plus, lossy, utf8=bytes|strict|lossy, legacy_u, \
     reject_nul, reject_controls, reject_crlf, reject_slashes, reject_all, keep_encoded=SET";
/// The encoder's option words, beside one set name.
pub const ENCODER_WORDS: &str = "space_as_plus, lowercase, requote, iri";

impl fmt::Display for WordsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (word, at) = (self.word.escape_debug(), self.offset);
        let earlier = self.earlier.as_deref().unwrap_or("").escape_debug();
        match self.kind {
            WordsErrorKind::Unknown if self.decoder => {
                write!(f, "unknown word `{word}` (at offset {at}): expected {DECODER_WORDS}")
            }
            WordsErrorKind::Unknown => {
                write!(f, "unknown word `{word}` (at offset {at}): expected {ENCODER_WORDS}, or a set: ")?;
                set_names(f)
            }
            WordsErrorKind::Repeated => write!(f, "`{word}` repeats `{earlier}` (word at offset {at})"),
            WordsErrorKind::Contradiction => {
                write!(f, "`{word}` contradicts `{earlier}` (word at offset {at})")
            }
            WordsErrorKind::BadValue if self.word.contains("keep") || self.word.contains("KEEP") => {
                write!(
                    f,
                    "bad value in `{word}` (at offset {at}): expected keep_encoded=SET, SET uri_reserved or "
                )?;
                set_names(f)
            }
            WordsErrorKind::BadValue => {
                write!(
                    f,
                    "bad value in `{word}` (at offset {at}): expected utf8=bytes, utf8=strict or utf8=lossy"
                )
            }
            WordsErrorKind::NoSet => {
                write!(f, "no set among the words: expected one of ")?;
                set_names(f)
            }
        }
    }
}

fn set_names(f: &mut fmt::Formatter<'_>) -> fmt::Result {
    for (i, named) in NAMED.iter().enumerate() {
        f.write_str(if i == 0 { "" } else { ", " })?;
        f.write_str(named.name)?;
    }
    Ok(())
}

impl core::error::Error for WordsError {}

/// Whether `given` is the word `canonical` (written with `_`): ASCII case ignored, `-` as `_`.
fn is(given: &str, canonical: &str) -> bool {
    given.len() == canonical.len()
        && given.bytes().zip(canonical.bytes()).all(|(g, c)| {
            let g = if g == b'-' { b'_' } else { g.to_ascii_lowercase() };
            g == c
        })
}

/// The words of `text` and where each starts.
fn split(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut at = 0;
    text.split(|c: char| c == ',' || c.is_ascii_whitespace()).filter_map(move |w| {
        let start = at;
        at += w.len() + 1;
        (!w.is_empty()).then_some((start, w))
    })
}

/// One thing a word sets: the first word that set it, its value, and whether a later word
/// repeats or contradicts it.
struct Slot<'a, T> {
    first: Option<(&'a str, T)>,
}

impl<'a, T: PartialEq + Copy> Slot<'a, T> {
    const fn new() -> Self {
        Slot { first: None }
    }

    fn set(&mut self, at: usize, word: &'a str, value: T, decoder: bool) -> Result<(), WordsError> {
        match self.first {
            None => {
                self.first = Some((word, value));
                Ok(())
            }
            Some((earlier, old)) => {
                let kind =
                    if old == value { WordsErrorKind::Repeated } else { WordsErrorKind::Contradiction };
                Err(WordsError::new(kind, at, word, Some(earlier), decoder))
            }
        }
    }

    fn get(&self) -> Option<T> {
        self.first.map(|(_, v)| v)
    }
}

/// The set `keep_encoded=` names: a set name, or `uri_reserved` (`decodeuri`).
fn keep_set(name: &str) -> Option<Set> {
    if is(name, "uri_reserved") || is(name, "decodeuri") {
        return Some(Decoder::URI_RESERVED);
    }
    Set::by_name(name)
}

/// The value after `prefix=` in `word`, if `word` starts so.
fn value<'a>(word: &'a str, prefix: &str) -> Option<&'a str> {
    let eq = word.find('=')?;
    is(&word[..eq], prefix).then(|| &word[eq + 1..])
}

impl FromStr for Decoder {
    type Err = WordsError;

    /// Parses decoder words (see [the module](crate::words)).
    fn from_str(text: &str) -> Result<Decoder, WordsError> {
        let mut escapes = Slot::<bool>::new();
        let mut plus = Slot::<()>::new();
        let mut utf8 = Slot::<Utf8Mode>::new();
        let mut legacy_u = Slot::<()>::new();
        let mut keep = Slot::<Set>::new();
        // One slot per reject word: overlapping classes (`reject_all reject_nul`) are fine.
        let mut rejects: [Slot<()>; 5] = [Slot::new(), Slot::new(), Slot::new(), Slot::new(), Slot::new()];
        const REJECTS: [(&str, &str, Reject); 5] = [
            ("reject_nul", "", Reject::NUL),
            ("reject_controls", "", Reject::CONTROLS),
            ("reject_crlf", "reject_cr_lf", Reject::CR_LF),
            ("reject_slashes", "", Reject::SLASHES),
            ("reject_all", "", Reject::ALL),
        ];
        let bad_value = |at, w: &str| WordsError::new(WordsErrorKind::BadValue, at, w, None, true);
        for (at, w) in split(text) {
            if is(w, "strict") {
                escapes.set(at, w, false, true)?;
            } else if is(w, "lenient") {
                escapes.set(at, w, true, true)?;
            } else if is(w, "plus") || is(w, "plus_as_space") {
                plus.set(at, w, (), true)?;
            } else if is(w, "lossy") {
                utf8.set(at, w, Utf8Mode::Lossy, true)?;
            } else if let Some(v) = value(w, "utf8") {
                let mode = match () {
                    _ if is(v, "bytes") => Utf8Mode::Bytes,
                    _ if is(v, "strict") => Utf8Mode::Strict,
                    _ if is(v, "lossy") => Utf8Mode::Lossy,
                    _ => return Err(bad_value(at, w)),
                };
                utf8.set(at, w, mode, true)?;
            } else if is(w, "legacy_u") {
                legacy_u.set(at, w, (), true)?;
            } else if let Some(v) = value(w, "keep_encoded") {
                keep.set(at, w, keep_set(v).ok_or_else(|| bad_value(at, w))?, true)?;
            } else if let Some(i) =
                REJECTS.iter().position(|&(a, b, _)| is(w, a) || (!b.is_empty() && is(w, b)))
            {
                rejects[i].set(at, w, (), true)?;
            } else {
                return Err(WordsError::new(WordsErrorKind::Unknown, at, w, None, true));
            }
        }
        let reject = REJECTS
            .iter()
            .zip(&rejects)
            .filter(|(_, s)| s.get().is_some())
            .fold(Reject::NONE, |r, (c, _)| r | c.2);
        let dec = Decoder::new()
            .lenient(escapes.get() == Some(true))
            .plus_as_space(plus.get().is_some())
            .utf8(utf8.get().unwrap_or(Utf8Mode::Bytes))
            .legacy_u(legacy_u.get().is_some())
            .reject(reject);
        Ok(match keep.get() {
            Some(set) => dec.keep_encoded(set),
            None => dec,
        })
    }
}

impl FromStr for Encoder {
    type Err = WordsError;

    /// Parses encoder words (see [the module](crate::words)): one set name and options.
    fn from_str(text: &str) -> Result<Encoder, WordsError> {
        let mut set = Slot::<Set>::new();
        let mut space_as_plus = Slot::<()>::new();
        let mut lowercase = Slot::<()>::new();
        let mut requote = Slot::<()>::new();
        let mut iri = Slot::<()>::new();
        for (at, w) in split(text) {
            if is(w, "space_as_plus") {
                space_as_plus.set(at, w, (), false)?;
            } else if is(w, "lowercase") {
                lowercase.set(at, w, (), false)?;
            } else if is(w, "requote") || is(w, "keep_escapes") {
                requote.set(at, w, (), false)?;
            } else if is(w, "iri") {
                iri.set(at, w, (), false)?;
            } else if let Some(s) = Set::by_name(w) {
                set.set(at, w, s, false)?;
            } else {
                return Err(WordsError::new(WordsErrorKind::Unknown, at, w, None, false));
            }
        }
        let Some(mut s) = set.get() else {
            return Err(WordsError::new(WordsErrorKind::NoSet, text.len(), "", None, false));
        };
        if space_as_plus.get().is_some() {
            s = s.with_space_as_plus(true);
        }
        if iri.get().is_some() {
            s = s.with_iri(true);
        }
        Ok(Encoder::new(s).lowercase(lowercase.get().is_some()).keep_escapes(requote.get().is_some()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sets;

    fn dec(words: &str) -> Decoder {
        words.parse().unwrap_or_else(|e| panic!("{words:?}: {e}"))
    }

    fn fails(words: &str) -> (WordsErrorKind, usize, String) {
        let e = words.parse::<Decoder>().unwrap_err();
        (e.kind(), e.offset(), e.to_string())
    }

    #[test]
    fn each_decoder_word_sets_one_thing() {
        assert_eq!(dec(""), Decoder::new());
        assert_eq!(dec("strict"), Decoder::new());
        assert_eq!(dec("lenient"), Decoder::new().lenient(true));
        assert_eq!(dec("plus"), Decoder::new().plus_as_space(true));
        assert_eq!(dec("PLUS-AS-SPACE"), Decoder::new().plus_as_space(true));
        // `lossy` is UTF-8 only: escapes stay strict.
        assert_eq!(dec("lossy"), Decoder::new().utf8(Utf8Mode::Lossy));
        assert!(dec("lossy").decode("%zz").is_err());
        assert_eq!(dec("utf8=lossy"), dec("lossy"));
        assert_eq!(dec("Utf8=Strict"), Decoder::new().utf8(Utf8Mode::Strict));
        assert_eq!(dec("utf8=bytes"), Decoder::new());
        assert_eq!(dec("legacy_u"), Decoder::new().legacy_u(true));
        assert_eq!(dec("reject_nul"), Decoder::new().reject(Reject::NUL));
        assert_eq!(dec("reject-controls"), Decoder::new().reject(Reject::CONTROLS));
        assert_eq!(dec("reject_crlf"), dec("reject_cr_lf"));
        assert_eq!(dec("reject_crlf"), Decoder::new().reject(Reject::CR_LF));
        assert_eq!(dec("reject_slashes"), Decoder::new().reject(Reject::SLASHES));
        assert_eq!(dec("reject_all reject_nul"), Decoder::new().reject(Reject::ALL));
        assert_eq!(dec("keep_encoded=uri_reserved"), Decoder::URI.utf8(Utf8Mode::Bytes));
        assert_eq!(dec("keep_encoded=path"), Decoder::new().keep_encoded(sets::PATH));
        assert_eq!(
            dec(" lenient,plus\tutf8=lossy\n"),
            Decoder::new().lenient(true).plus_as_space(true).utf8(Utf8Mode::Lossy)
        );
    }

    #[test]
    fn clashes_name_both_words() {
        let cases: &[(&str, WordsErrorKind, usize, &str)] = &[
            ("strict lenient", WordsErrorKind::Contradiction, 7, "`lenient` contradicts `strict`"),
            (
                "utf8=strict utf8=lossy",
                WordsErrorKind::Contradiction,
                12,
                "`utf8=lossy` contradicts `utf8=strict`",
            ),
            ("lossy utf8=strict", WordsErrorKind::Contradiction, 6, "`utf8=strict` contradicts `lossy`"),
            ("lossy,UTF8=LOSSY", WordsErrorKind::Repeated, 6, "`UTF8=LOSSY` repeats `lossy`"),
            ("plus plus", WordsErrorKind::Repeated, 5, "`plus` repeats `plus`"),
            (
                "reject_crlf reject-cr-lf",
                WordsErrorKind::Repeated,
                12,
                "`reject-cr-lf` repeats `reject_crlf`",
            ),
            ("keep_encoded=path keep_encoded=query", WordsErrorKind::Contradiction, 18, "contradicts"),
            (
                "strict loose",
                WordsErrorKind::Unknown,
                7,
                "unknown word `loose` (at offset 7): expected strict",
            ),
            ("utf8=latin1", WordsErrorKind::BadValue, 0, "bad value in `utf8=latin1`"),
            ("utf8=", WordsErrorKind::BadValue, 0, "bad value"),
            ("keep_encoded=nope", WordsErrorKind::BadValue, 0, "uri_reserved or rfc3986"),
            ("space_as_plus", WordsErrorKind::Unknown, 0, "unknown word"),
            ("\u{e9}", WordsErrorKind::Unknown, 0, "unknown word `\u{e9}`"),
        ];
        for &(words, kind, at, message) in cases {
            let (k, o, m) = fails(words);
            assert_eq!((k, o), (kind, at), "{words:?}: {m}");
            assert!(m.contains(message), "{words:?}: {m}");
        }
    }

    #[test]
    fn encoder_words() {
        let enc = |w: &str| w.parse::<Encoder>().unwrap_or_else(|e| panic!("{w:?}: {e}"));
        assert_eq!(enc("component"), Encoder::new(sets::COMPONENT));
        assert_eq!(enc("URI_COMPONENT"), Encoder::new(sets::COMPONENT));
        assert_eq!(enc("path space_as_plus"), Encoder::new(sets::PATH.with_space_as_plus(true)));
        assert_eq!(enc("lowercase,rfc3986"), Encoder::new(sets::RFC3986).lowercase(true));
        assert_eq!(enc("form requote"), Encoder::new(sets::FORM).keep_escapes(true));
        assert_eq!(enc("form keep-escapes"), enc("form requote"));
        assert_eq!(enc("component iri"), Encoder::new(sets::COMPONENT.with_iri(true)));
        let err = |w: &str| w.parse::<Encoder>().unwrap_err();
        assert_eq!(err("form component").kind(), WordsErrorKind::Contradiction);
        assert_eq!(err("form urlencoded").kind(), WordsErrorKind::Repeated);
        assert_eq!(err("form form").to_string(), "`form` repeats `form` (word at offset 5)");
        assert_eq!(err("form space_as_plus space_as_plus").kind(), WordsErrorKind::Repeated);
        assert_eq!(err("requote keep_escapes component").kind(), WordsErrorKind::Repeated);
        let e = err("lowercase");
        assert_eq!((e.kind(), e.offset()), (WordsErrorKind::NoSet, 9));
        assert!(e.to_string().contains("rfc3986, component"), "{e}");
        let e = err("fromm");
        assert!(
            e.to_string().starts_with("unknown word `fromm` (at offset 0): expected space_as_plus"),
            "{e}"
        );
        assert_eq!(err("form plus").kind(), WordsErrorKind::Unknown);
    }
}
