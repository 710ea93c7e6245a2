//! The predefined sets: every set of `SETS.md`, exact to the byte.
//!
//! Each set keeps ASCII letters and digits, escapes ASCII controls and every byte
//! `0x80..=0xFF`, and differs only in the punctuation it keeps. Which one to use:
//!
//! | you are writing | set |
//! |---|---|
//! | one URL component (a path segment, a query name or value), the strict RFC 3986 way | [`RFC3986`] |
//! | what JavaScript's `encodeURIComponent` writes | [`COMPONENT`] |
//! | a whole URL, keeping its delimiters (`encodeURI`) | [`URI`] |
//! | an HTML form body or `URLSearchParams` (space as `+`) | [`FORM`] |
//! | what a browser's URL parser writes into a path, query, fragment or userinfo | [`PATH`], [`QUERY`], [`SPECIAL_QUERY`], [`FRAGMENT`], [`USERINFO`] |
//! | what Python's `quote` / `quote_plus`, Go's `PathEscape` write | [`PYTHON_QUOTE`], [`PYTHON_QUOTE_PLUS`], [`GO_PATH`] |
//! | only controls and non-ASCII (WHATWG C0 control set) | [`C0_CONTROL`] |
//! | everything but letters and digits | [`NON_ALPHANUMERIC`] |
//!
//! The WHATWG URL-parser sets (`PATH`, `QUERY`, `SPECIAL_QUERY`, `FRAGMENT`, `USERINFO`,
//! `C0_CONTROL`) keep `%`: encoding with them leaves existing escapes alone, and is therefore not
//! undone by a decoder when the input already contained `%`.
//!
//! ```
//! use pctenc::sets;
//!
//! assert_eq!(pctenc::encode("Jürgen & Björk", &sets::COMPONENT), "J%C3%BCrgen%20%26%20Bj%C3%B6rk");
//! assert_eq!(pctenc::encode("Jürgen & Björk", &sets::FORM), "J%C3%BCrgen+%26+Bj%C3%B6rk");
//! ```

use core::fmt;

use crate::set::{ParseSetError, Set};

/// RFC 3986 section 2.3 unreserved characters: keeps letters, digits and `-._~`.
/// Python's `quote(s, safe="")`, the `urlencoding` crate, jq's `@uri`.
///
/// ```
/// assert_eq!(pctenc::encode("a/b?c=d~", &pctenc::sets::RFC3986), "a%2Fb%3Fc%3Dd~");
/// ```
pub const RFC3986: Set = Set::keeping(b"-._~");

/// JavaScript's `encodeURIComponent`, the WHATWG component percent-encode set: keeps letters,
/// digits and `!'()*-._~`.
///
/// ```
/// assert_eq!(pctenc::encode("C++ & C#", &pctenc::sets::COMPONENT), "C%2B%2B%20%26%20C%23");
/// ```
pub const COMPONENT: Set = Set::keeping(b"!'()*-._~");

/// JavaScript's `encodeURI`: keeps letters, digits and `!#$&'()*+,-./:;=?@_~`, so a whole URL
/// keeps its structure.
///
/// ```
/// assert_eq!(
///     pctenc::encode("https://x.org/a b?q=ü#f", &pctenc::sets::URI),
///     "https://x.org/a%20b?q=%C3%BC#f"
/// );
/// ```
pub const URI: Set = Set::keeping(b"!#$&'()*+,-./:;=?@_~");

/// `application/x-www-form-urlencoded` (WHATWG, `URLSearchParams`, the `form_urlencoded`
/// crate): keeps letters, digits and `*-._`; a space becomes `+`.
///
/// ```
/// assert_eq!(pctenc::encode("a b~c*", &pctenc::sets::FORM), "a+b%7Ec*");
/// ```
pub const FORM: Set = Set::keeping(b"*-._").with_space_as_plus(true);

/// WHATWG URL Standard fragment percent-encode set: keeps letters, digits and
/// ``!#$%&'()*+,-./:;=?@[\]^_{|}~``.
///
/// ```
/// assert_eq!(pctenc::encode("a b`<>", &pctenc::sets::FRAGMENT), "a%20b%60%3C%3E");
/// ```
pub const FRAGMENT: Set = Set::keeping(b"!#$%&'()*+,-./:;=?@[\\]^_{|}~");

/// WHATWG URL Standard query percent-encode set: keeps letters, digits and
/// ``!$%&'()*+,-./:;=?@[\]^_`{|}~``.
///
/// ```
/// assert_eq!(pctenc::encode("a b#'", &pctenc::sets::QUERY), "a%20b%23'");
/// ```
pub const QUERY: Set = Set::keeping(b"!$%&'()*+,-./:;=?@[\\]^_`{|}~");

/// WHATWG URL Standard special-query percent-encode set (the query of `http:`, `https:`,
/// `ws:`, `wss:`, `ftp:` and `file:` URLs): the query set that also escapes `'`.
///
/// ```
/// assert_eq!(pctenc::encode("a b#'", &pctenc::sets::SPECIAL_QUERY), "a%20b%23%27");
/// ```
pub const SPECIAL_QUERY: Set = Set::keeping(b"!$%&()*+,-./:;=?@[\\]^_`{|}~");

/// WHATWG URL Standard path percent-encode set: keeps letters, digits and
/// `!$%&'()*+,-./:;=@[\]_|~`. It escapes `^`, as the standard does since 2025 (Node 20 and
/// older browsers still keep it).
///
/// ```
/// assert_eq!(pctenc::encode("/a b/c?^", &pctenc::sets::PATH), "/a%20b/c%3F%5E");
/// ```
pub const PATH: Set = Set::keeping(b"!$%&'()*+,-./:;=@[\\]_|~");

/// WHATWG URL Standard userinfo percent-encode set: keeps letters, digits and
/// `!$%&'()*+,-._~`.
///
/// ```
/// assert_eq!(pctenc::encode("user:p@ss", &pctenc::sets::USERINFO), "user%3Ap%40ss");
/// ```
pub const USERINFO: Set = Set::keeping(b"!$%&'()*+,-._~");

/// WHATWG URL Standard C0 control percent-encode set: escapes only C0 controls, DEL and
/// non-ASCII bytes.
///
/// ```
/// assert_eq!(pctenc::encode("a b\t\u{e9}", &pctenc::sets::C0_CONTROL), "a b%09%C3%A9");
/// ```
pub const C0_CONTROL: Set = Set::keeping(b" !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~");

/// Python's `urllib.parse.quote(s)` with its default `safe="/"`: keeps letters, digits and
/// `-./_~`.
///
/// ```
/// assert_eq!(pctenc::encode("/a b/", &pctenc::sets::PYTHON_QUOTE), "/a%20b/");
/// ```
pub const PYTHON_QUOTE: Set = Set::keeping(b"-./_~");

/// Python's `urllib.parse.quote_plus(s)`, also Go's `url.QueryEscape` and curl's
/// `--data-urlencode`: keeps letters, digits and `-._~`; a space becomes `+`.
///
/// ```
/// assert_eq!(pctenc::encode("a b*~", &pctenc::sets::PYTHON_QUOTE_PLUS), "a+b%2A~");
/// ```
pub const PYTHON_QUOTE_PLUS: Set = Set::keeping(b"-._~").with_space_as_plus(true);

/// Go's `url.PathEscape` (one path segment): keeps letters, digits and `$&+-.:=@_~`.
///
/// ```
/// assert_eq!(pctenc::encode("a b/c:d", &pctenc::sets::GO_PATH), "a%20b%2Fc:d");
/// ```
pub const GO_PATH: Set = Set::keeping(b"$&+-.:=@_~");

/// Keeps letters and digits only (the `percent-encoding` crate's `NON_ALPHANUMERIC`).
///
/// ```
/// assert_eq!(pctenc::encode("a-b", &pctenc::sets::NON_ALPHANUMERIC), "a%2Db");
/// ```
pub const NON_ALPHANUMERIC: Set = Set::keeping(b"");

/// A predefined set with the names it is known by: what [`NAMED`] lists, to offer the sets by
/// name (in a configuration file, a command-line option, a help text).
///
/// ```
/// use pctenc::sets;
///
/// let form = sets::NAMED.iter().find(|named| named.name == "form").unwrap();
/// assert_eq!(form.set, sets::FORM);
/// assert!(form.aliases.contains(&"urlencoded"));
/// println!("{:<10} {}", form.name, form.description);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct NamedSet {
    /// The canonical name, as in `SETS.md` and the CLI (`"component"`).
    pub name: &'static str,
    /// Other accepted names (`"uri-component"`).
    pub aliases: &'static [&'static str],
    /// The set.
    pub set: Set,
    /// Where the set comes from, in a few words.
    pub description: &'static str,
}

impl NamedSet {
    /// Whether `name` names this set (ASCII case-insensitive; `_` and `-` are the same).
    ///
    /// ```
    /// let named = &pctenc::sets::NAMED[0];
    /// assert!(named.matches("RFC3986") && named.matches("unreserved"));
    /// ```
    pub fn matches(&self, name: &str) -> bool {
        let same = |a: &str| {
            a.len() == name.len()
                && a.bytes().zip(name.bytes()).all(|(x, y)| {
                    let norm = |c: u8| if c == b'_' { b'-' } else { c.to_ascii_lowercase() };
                    norm(x) == norm(y)
                })
        };
        same(self.name) || self.aliases.iter().any(|a| same(a))
    }
}

/// Every predefined set, in the order of `SETS.md`.
///
/// ```
/// for named in pctenc::sets::NAMED {
///     assert_eq!(pctenc::Set::by_name(named.name), Some(named.set));
/// }
/// ```
pub const NAMED: &[NamedSet] = &[
    NamedSet {
        name: "rfc3986",
        aliases: &["unreserved", "rfc-3986"],
        set: RFC3986,
        description: "RFC 3986 unreserved; Python quote(s, safe=\"\"); urlencoding crate",
    },
    NamedSet {
        name: "component",
        aliases: &["uri-component", "encodeuricomponent"],
        set: COMPONENT,
        description: "JavaScript encodeURIComponent; WHATWG component set",
    },
    NamedSet { name: "uri", aliases: &["encodeuri"], set: URI, description: "JavaScript encodeURI" },
    NamedSet {
        name: "form",
        aliases: &["urlencoded", "x-www-form-urlencoded", "www-form"],
        set: FORM,
        description: "application/x-www-form-urlencoded, URLSearchParams; space as +",
    },
    NamedSet { name: "fragment", aliases: &[], set: FRAGMENT, description: "WHATWG fragment set" },
    NamedSet { name: "query", aliases: &[], set: QUERY, description: "WHATWG query set" },
    NamedSet {
        name: "special-query",
        aliases: &[],
        set: SPECIAL_QUERY,
        description: "WHATWG special-query set (http, https, ws, wss, ftp, file)",
    },
    NamedSet { name: "path", aliases: &[], set: PATH, description: "WHATWG path set" },
    NamedSet { name: "userinfo", aliases: &[], set: USERINFO, description: "WHATWG userinfo set" },
    NamedSet {
        name: "c0-control",
        aliases: &["controls", "c0"],
        set: C0_CONTROL,
        description: "WHATWG C0 control set: controls and non-ASCII only",
    },
    NamedSet {
        name: "python-quote",
        aliases: &["quote"],
        set: PYTHON_QUOTE,
        description: "Python urllib.parse.quote(s), safe=\"/\"",
    },
    NamedSet {
        name: "python-quote-plus",
        aliases: &["quote-plus", "go-query"],
        set: PYTHON_QUOTE_PLUS,
        description: "Python quote_plus, Go url.QueryEscape; space as +",
    },
    NamedSet {
        name: "go-path",
        aliases: &["go-path-segment"],
        set: GO_PATH,
        description: "Go url.PathEscape",
    },
    NamedSet {
        name: "non-alphanumeric",
        aliases: &["alnum-only"],
        set: NON_ALPHANUMERIC,
        description: "everything but letters and digits (percent-encoding crate)",
    },
];

// Sets by name: a `Set` knows nothing of the names the predefined ones go by, so what
// needs them is here, beside them.

impl Set {
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
        NAMED.iter().find(|n| n.matches(name)).map(|n| n.set)
    }
}

impl Default for Set {
    /// [`RFC3986`], the strictest standard set.
    ///
    /// ```
    /// assert_eq!(pctenc::Set::default(), pctenc::sets::RFC3986);
    /// ```
    fn default() -> Set {
        RFC3986
    }
}

/// Parses a set name, as [`Set::by_name`] does: a name of [`NAMED`]
/// (the names of `SETS.md`, the CLI's `--set` and `pctenc sets`) or one of its aliases, in
/// any case, `_` and `-` alike. For sets read from a configuration file or a command line,
/// where a wrong name deserves an error that lists the right ones.
///
/// ```
/// use pctenc::{sets, Set};
///
/// let set: Set = "encodeURIComponent".parse().unwrap();
/// assert_eq!(set, sets::COMPONENT);
/// assert_eq!("FORM".parse::<Set>(), Ok(sets::FORM));
///
/// let err = "fromm".parse::<Set>().unwrap_err();
/// assert!(err.to_string().starts_with("unknown set `fromm`: expected one of rfc3986, component, "));
/// ```
impl core::str::FromStr for Set {
    type Err = ParseSetError;

    fn from_str(name: &str) -> Result<Set, ParseSetError> {
        Set::by_name(name).ok_or_else(|| ParseSetError::new(name))
    }
}

impl fmt::Display for ParseSetError {
    /// `unknown set `nope`: expected one of rfc3986, component, ...` (without `alloc`, the
    /// name is left out).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        #[cfg(feature = "alloc")]
        write!(f, "unknown set `{}`: expected one of ", self.name().escape_debug())?;
        #[cfg(not(feature = "alloc"))]
        f.write_str("unknown set name: expected one of ")?;
        for (i, named) in NAMED.iter().enumerate() {
            f.write_str(if i == 0 { "" } else { ", " })?;
            f.write_str(named.name)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    /// The builders keep every named set's tables in step (`Set`'s own test runs sets of
    /// every shape).
    #[test]
    #[cfg_attr(miri, ignore = "exhaustive check of safe table code, too slow for Miri: runs natively")]
    fn named_sets_through_every_builder() {
        let named: Vec<crate::set::Set> = super::NAMED.iter().map(|n| n.set).collect();
        crate::set::check_builders(&named);
    }
}
