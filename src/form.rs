//! `application/x-www-form-urlencoded`: name-value pairs as HTML forms submit them and query
//! strings carry them (`a=1&b=two+words`).
//!
//! A form body is more than one encoded string: pairs are joined by `&`, each name is split
//! from its value at the first `=`, a space is written as `+`, and the reader must skip empty
//! pairs and survive malformed escapes and bytes that are not UTF-8. This module does that
//! framing exactly as the WHATWG URL Standard specifies it, on top of [`sets::FORM`] and
//! [`Decoder::FORM`]:
//!
//! - [`parse`] is the standard's application/x-www-form-urlencoded parser, what
//!   `new URLSearchParams(body)` and the `form_urlencoded` crate's `parse` (and so
//!   `url::Url::query_pairs`) do. Like them it never fails, and like `form_urlencoded` it
//!   borrows every name and value that needs no decoding; it is checked against both
//!   (the web-platform-tests data, and property tests against the crate).
//! - [`Serializer`] and [`serialize`] are the standard's serializer, what
//!   `URLSearchParams.toString()` and `form_urlencoded::Serializer` write, byte for byte.
//!
//! Two differences from `URLSearchParams`: its constructor drops one leading `?` from a string,
//! and [`parse`] does not (so `?a=b` has the name `?a`, as with `form_urlencoded::parse`);
//! [`parse_query`] does, for `location.search` and the query of a URL. And `URLSearchParams`
//! is a mutable list of pairs; here parsing is an iterator and serializing appends to a `String`, so collect the
//! pairs into whatever container suits you.
//!
//! ```
//! use pctenc::form;
//!
//! let pairs: Vec<_> = form::parse("q=rust+simd&lang=fr&empty&x=%E2%9C%93").collect();
//! assert_eq!(pairs, [("q".into(), "rust simd".into()), ("lang".into(), "fr".into()),
//!                    ("empty".into(), "".into()), ("x".into(), "✓".into())]);
//!
//! let body = form::serialize([("q", "rust simd"), ("x", "✓")]);
//! assert_eq!(body, "q=rust+simd&x=%E2%9C%93");
//! ```

use alloc::borrow::{Borrow, Cow};
use alloc::string::String;
use core::fmt;
use core::iter::FusedIterator;

#[cfg(feature = "encoding")]
use crate::charset::Charset;
use crate::{decode::Decoder, encode::Encoder, sets};

/// Parses an `application/x-www-form-urlencoded` byte string into its `(name, value)` pairs,
/// as the WHATWG URL Standard specifies, so that a server reads a form body or query string
/// exactly as the browser that wrote it meant it.
///
/// The input is split on `&` and empty pieces are skipped; the first `=` of a piece splits the
/// name from the value (a piece without `=` has the empty value); then in both `+` becomes a
/// space, escapes are decoded leniently (a `%` that does not start `%HH` stays as it is) and
/// the bytes are decoded as UTF-8 with each invalid sequence replaced by U+FFFD, as
/// [`String::from_utf8_lossy`] does (a byte order mark is kept). This is [`Decoder::FORM`] on
/// each name and value. Nothing can fail, and a leading `?` is part of the first name: this
/// is the parser of the standard and of `form_urlencoded::parse`, for a form body; for a
/// query string that may start with `?`, as `new URLSearchParams("?a=1")` takes it, use
/// [`parse_query`].
///
/// Each name and value is [`Cow::Borrowed`] from `input` when it has no `%` and no `+` and is
/// valid UTF-8, so parsing plain input allocates nothing.
///
/// ```
/// use std::borrow::Cow;
/// use pctenc::form;
///
/// let mut pairs = form::parse("a=1&&b=%zz+%41&c&=d&e==");
/// assert_eq!(pairs.next(), Some(("a".into(), "1".into())));
/// assert_eq!(pairs.next(), Some(("b".into(), "%zz A".into())));
/// assert_eq!(pairs.next(), Some(("c".into(), "".into())));
/// assert_eq!(pairs.next(), Some(("".into(), "d".into())));
/// assert_eq!(pairs.next(), Some(("e".into(), "=".into())));
/// assert_eq!(pairs.next(), None);
///
/// // Invalid UTF-8 is replaced, raw or escaped.
/// let (name, _) = form::parse(b"caf\xE9=%FF").next().unwrap();
/// assert_eq!(name, "caf\u{FFFD}");
///
/// // Borrowed when nothing needs decoding.
/// let (name, value) = form::parse("plain=text").next().unwrap();
/// assert!(matches!((name, value), (Cow::Borrowed("plain"), Cow::Borrowed("text"))));
/// ```
pub fn parse<I: AsRef<[u8]> + ?Sized>(input: &I) -> Pairs<'_> {
    Pairs {
        rest: input.as_ref(),
        #[cfg(feature = "encoding")]
        charset: Charset::UTF_8,
    }
}

/// [`parse`] for a form body that a page in a legacy encoding sent: each name and value is
/// decoded from `charset` (lossily, as [`parse`] decodes UTF-8: each malformed sequence
/// becomes U+FFFD). The reverse of [`serialize_in`]; with [`Charset::UTF_8`] this is
/// [`parse`]. Behind the feature `encoding`.
///
/// ```
/// use pctenc::charset::Charset;
/// use pctenc::form;
///
/// let pairs: Vec<_> = form::parse_in("q=%8C%9F%8D%F5&page=2", Charset::SHIFT_JIS).collect();
/// assert_eq!(pairs, [("q".into(), "検索".into()), ("page".into(), "2".into())]);
/// // Bytes that are not Shift_JIS become U+FFFD.
/// assert_eq!(form::parse_in("q=%82", Charset::SHIFT_JIS).next().unwrap().1, "\u{FFFD}");
/// ```
#[cfg(feature = "encoding")]
pub fn parse_in<I: AsRef<[u8]> + ?Sized>(input: &I, charset: Charset) -> Pairs<'_> {
    Pairs { rest: input.as_ref(), charset }
}

/// Parses a query string as `new URLSearchParams(string)` does: one leading `?` is dropped,
/// then the rest is [`parse`]d. For `location.search`, or the query of a URL with its `?`;
/// only one `?` is dropped, so `??a=1` has the name `?a`, as in browsers. A form body, which
/// never starts with a `?` that is not data, goes to [`parse`] instead, which keeps it (the
/// standard's parser and `form_urlencoded::parse` keep it too: `?a=1` has the name `?a`).
///
/// ```
/// use pctenc::form;
///
/// let pairs: Vec<_> = form::parse_query("?q=rust+simd&page=2").collect();
/// assert_eq!(pairs, [("q".into(), "rust simd".into()), ("page".into(), "2".into())]);
/// // One `?` only, as URLSearchParams; `parse` keeps it.
/// assert_eq!(form::parse_query("??a=1").next().unwrap().0, "?a");
/// assert_eq!(form::parse("?a=1").next().unwrap().0, "?a");
/// // Without a `?`, the same as `parse`.
/// assert!(form::parse_query("a=1&b").eq(form::parse("a=1&b")));
/// ```
#[doc(alias = "URLSearchParams")]
pub fn parse_query<I: AsRef<[u8]> + ?Sized>(input: &I) -> Pairs<'_> {
    let input = input.as_ref();
    parse(input.strip_prefix(b"?").unwrap_or(input))
}

/// The `(name, value)` pairs of a form body, in order: what [`parse`] returns.
///
/// It exists so that parsing is lazy: a pair is decoded only when it is asked for, and a
/// search for one name stops at the first match without decoding the rest. It is `Clone`
/// (restart from where it stands) and fused.
///
/// ```
/// let body = "user=ada&token=s3cr%3Dt&lang=en";
/// let token = pctenc::form::parse(body).find(|(name, _)| name == "token").map(|(_, v)| v);
/// assert_eq!(token.as_deref(), Some("s3cr=t"));
/// ```
#[derive(Clone)]
pub struct Pairs<'a> {
    /// The input not yet parsed.
    rest: &'a [u8],
    /// What the escapes' bytes are in.
    #[cfg(feature = "encoding")]
    charset: Charset,
}

impl<'a> Pairs<'a> {
    /// The part of the input not parsed yet, starting after the `&` that ended the last pair
    /// returned; empty once the iterator is done. Useful to report where a bad pair was, or to
    /// hand the rest to another parser.
    ///
    /// ```
    /// let mut pairs = pctenc::form::parse("a=1&b=2&c=3");
    /// pairs.next();
    /// assert_eq!(pairs.remaining(), b"b=2&c=3");
    /// ```
    pub fn remaining(&self) -> &'a [u8] {
        self.rest
    }
}

impl fmt::Debug for Pairs<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pairs").field("remaining", &String::from_utf8_lossy(self.rest)).finish()
    }
}

impl<'a> Iterator for Pairs<'a> {
    type Item = (Cow<'a, str>, Cow<'a, str>);

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.rest.is_empty() {
                return None;
            }
            let piece = match memchr::memchr(b'&', self.rest) {
                Some(amp) => {
                    let piece = &self.rest[..amp];
                    self.rest = &self.rest[amp + 1..];
                    piece
                }
                None => core::mem::take(&mut self.rest),
            };
            if piece.is_empty() {
                continue;
            }
            let (name, value) = match memchr::memchr(b'=', piece) {
                Some(eq) => (&piece[..eq], &piece[eq + 1..]),
                None => (piece, &b""[..]),
            };
            return Some((self.decode(name), self.decode(value)));
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        // Every pair but the last needs a byte of its own and an `&`.
        let max = self.rest.len().div_ceil(2);
        (0, Some(max))
    }
}

impl FusedIterator for Pairs<'_> {}

impl<'a> Pairs<'a> {
    /// A name or value: `+` as space, lenient escapes, lossy UTF-8 (or the charset).
    fn decode(&self, bytes: &'a [u8]) -> Cow<'a, str> {
        #[cfg(feature = "encoding")]
        if self.charset != Charset::UTF_8 {
            return match Decoder::FORM.decode_to_str_in(bytes, self.charset) {
                Ok(text) => text,
                // As below: lenient and lossy.
                Err(_) => unreachable!("Decoder::FORM never fails"),
            };
        }
        decode(bytes)
    }
}

/// A name or value: `+` as space, lenient escapes, lossy UTF-8.
fn decode(bytes: &[u8]) -> Cow<'_, str> {
    match Decoder::FORM.decode_to_str(bytes) {
        Ok(text) => text,
        // Lenient decoding has no malformed-escape error and lossy UTF-8 no invalid-UTF-8
        // one: `Decoder::FORM` never fails (as `decode_lenient` relies on too).
        Err(_) => unreachable!("Decoder::FORM never fails"),
    }
}

/// Writes `(name, value)` pairs as an `application/x-www-form-urlencoded` string, the way
/// `URLSearchParams.toString()` does, so that a browser's form parser, [`parse`], or any
/// server reads back exactly the pairs you wrote.
///
/// Each name and value is encoded with [`sets::FORM`] (letters, digits and `*-._` kept, a space
/// written as `+`, every other byte as `%HH`), and pairs are joined by `&` as `name=value`,
/// even when the value is empty (`name=`). The output is byte for byte that of
/// `form_urlencoded::Serializer`.
///
/// ```
/// use pctenc::form::Serializer;
///
/// let mut form = Serializer::new();
/// form.append_pair("name", "Ada Lovelace").append_pair("note", "1+1=2 & ∞");
/// assert_eq!(form.finish(), "name=Ada+Lovelace&note=1%2B1%3D2+%26+%E2%88%9E");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Serializer {
    out: String,
    /// Where the pairs start in `out`: the first pair appended there gets no `&`.
    start: usize,
    /// What names and values are encoded in before they are percent-encoded.
    #[cfg(feature = "encoding")]
    charset: Option<Charset>,
}

impl Serializer {
    /// An empty serializer, to build a form body or query string from scratch.
    ///
    /// ```
    /// assert_eq!(pctenc::form::Serializer::new().finish(), "");
    /// ```
    pub const fn new() -> Serializer {
        Serializer {
            out: String::new(),
            start: 0,
            #[cfg(feature = "encoding")]
            charset: None,
        }
    }

    /// A serializer that appends to `target`, to write the query string after a URL's `?`
    /// without a second allocation. What `target` holds is kept as it is and the first pair
    /// gets no leading `&`, as with `form_urlencoded::Serializer::for_suffix(target,
    /// target.len())` (its `new(target)` would write a `&` after a non-empty target): to
    /// continue a query that already has pairs, end `target` with `&`.
    ///
    /// ```
    /// use pctenc::form::Serializer;
    ///
    /// let mut url = Serializer::append_to(String::from("https://example.org/search?"));
    /// url.append_pair("q", "percent encoding").append_pair("page", "2");
    /// assert_eq!(url.finish(), "https://example.org/search?q=percent+encoding&page=2");
    /// ```
    pub fn append_to(target: String) -> Serializer {
        let start = target.len();
        Serializer {
            out: target,
            start,
            #[cfg(feature = "encoding")]
            charset: None,
        }
    }

    /// Encodes the names and values appended from now on in `charset` before percent-encoding
    /// them, as a form of a page in that encoding is submitted (what
    /// `form_urlencoded::Serializer::encoding_override` is for): characters that `charset`
    /// cannot represent are written as `%26%23N%3B`, UTF-16 and `replacement` as UTF-8. See
    /// [`Encoder::encode_in`]. Behind the feature `encoding`.
    ///
    /// ```
    /// use pctenc::charset::Charset;
    /// use pctenc::form::Serializer;
    ///
    /// let mut form = Serializer::new();
    /// form.charset(Charset::WINDOWS_1252).append_pair("city", "Zürich").append_pair("s", "☃");
    /// assert_eq!(form.finish(), "city=Z%FCrich&s=%26%239731%3B");
    /// ```
    #[cfg(feature = "encoding")]
    pub fn charset(&mut self, charset: Charset) -> &mut Serializer {
        self.charset = Some(charset);
        self
    }

    /// Appends one pair, so that pairs can come from anywhere (a loop, conditions) in order.
    /// Returns `self` to chain calls.
    ///
    /// # Panics
    ///
    /// Only where any `String` growth panics: when the output's length overflows `usize`.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut form = pctenc::form::Serializer::new();
    /// form.append_pair("a", "").append_pair("", "b").append_pair("c&d", "e=f");
    /// assert_eq!(form.as_str(), "a=&=b&c%26d=e%3Df");
    /// ```
    pub fn append_pair(&mut self, name: &str, value: &str) -> &mut Serializer {
        const FORM: Encoder = Encoder::new(sets::FORM);
        if self.out.len() > self.start {
            self.out.push('&');
        }
        #[cfg(feature = "encoding")]
        if let Some(charset) = self.charset {
            FORM.encode_string_in(name, charset, &mut self.out);
            self.out.push('=');
            FORM.encode_string_in(value, charset, &mut self.out);
            return self;
        }
        FORM.encode_string(name, &mut self.out);
        self.out.push('=');
        FORM.encode_string(value, &mut self.out);
        self
    }

    /// Appends every pair of `pairs` in order, so that a slice, `Vec` or map of pairs can be
    /// written in one call. Items may be `(K, V)` or `&(K, V)` with `K` and `V` anything that
    /// is a `&str` (`&str`, `String`, `Cow<str>`, ...), so [`parse`]'s output fits too.
    ///
    /// ```
    /// let mut form = pctenc::form::Serializer::new();
    /// form.extend_pairs(&[("a", "1"), ("b", "2")]).extend_pairs(vec![("c".to_string(), "3 4")]);
    /// assert_eq!(form.finish(), "a=1&b=2&c=3+4");
    /// ```
    pub fn extend_pairs<I, K, V>(&mut self, pairs: I) -> &mut Serializer
    where
        I: IntoIterator,
        I::Item: Borrow<(K, V)>,
        K: AsRef<str>,
        V: AsRef<str>,
    {
        for pair in pairs {
            let (name, value) = pair.borrow();
            self.append_pair(name.as_ref(), value.as_ref());
        }
        self
    }

    /// The output so far, to look at it without ending the serializer.
    ///
    /// ```
    /// let mut form = pctenc::form::Serializer::new();
    /// form.append_pair("a b", "c");
    /// assert_eq!(form.as_str(), "a+b=c");
    /// ```
    pub fn as_str(&self) -> &str {
        &self.out
    }

    /// Ends the serializer and returns the output: the target it started with, if any,
    /// followed by the pairs.
    ///
    /// ```
    /// let mut form = pctenc::form::Serializer::new();
    /// form.append_pair("k", "v");
    /// let body: String = form.finish();
    /// assert_eq!(body, "k=v");
    /// ```
    pub fn finish(self) -> String {
        self.out
    }
}

/// Serializes `pairs` as an `application/x-www-form-urlencoded` string: the one-call form of
/// [`Serializer`], for when all pairs are at hand. Items may be `(K, V)` or `&(K, V)`, `K` and
/// `V` anything that is a `&str`.
///
/// # Panics
///
/// Only where any `String` growth panics: when the output's length overflows `usize`.
///
/// # Examples
///
/// ```
/// use pctenc::form;
///
/// assert_eq!(form::serialize([("q", "C++ & C#"), ("page", "2")]), "q=C%2B%2B+%26+C%23&page=2");
/// assert_eq!(form::serialize(&[("é", "~")]), "%C3%A9=%7E");
///
/// // parse reads back what serialize writes.
/// let pairs = [("a b", "x&y=z"), ("", "")];
/// let body = form::serialize(&pairs);
/// assert_eq!(body, "a+b=x%26y%3Dz&=");
/// let parsed: Vec<_> = form::parse(&body).collect();
/// assert_eq!(parsed, [("a b".into(), "x&y=z".into()), ("".into(), "".into())]);
/// ```
pub fn serialize<I, K, V>(pairs: I) -> String
where
    I: IntoIterator,
    I::Item: Borrow<(K, V)>,
    K: AsRef<str>,
    V: AsRef<str>,
{
    let mut form = Serializer::new();
    form.extend_pairs(pairs);
    form.finish()
}

/// [`serialize`] in a legacy encoding: names and values are encoded in `charset` before they
/// are percent-encoded ([`Serializer::charset`]). Behind the feature `encoding`.
///
/// ```
/// use pctenc::charset::Charset;
/// use pctenc::form;
///
/// let body = form::serialize_in([("q", "서울 날씨")], Charset::EUC_KR);
/// assert_eq!(body, "q=%BC%AD%BF%EF+%B3%AF%BE%BE");
/// assert!(form::parse_in(&body, Charset::EUC_KR).eq([("q".into(), "서울 날씨".into())]));
/// ```
#[cfg(feature = "encoding")]
pub fn serialize_in<I, K, V>(pairs: I, charset: Charset) -> String
where
    I: IntoIterator,
    I::Item: Borrow<(K, V)>,
    K: AsRef<str>,
    V: AsRef<str>,
{
    let mut form = Serializer::new();
    form.charset(charset).extend_pairs(pairs);
    form.finish()
}
