//! Sets by name: [`Set::by_name`], `"component".parse::<Set>()` and its error, and the
//! default set. Above both [`Set`] and [`sets`], which it joins: a set knows nothing of the
//! names the predefined ones go by.

use core::fmt;

use crate::set::Set;
use crate::sets;

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
        sets::NAMED.iter().find(|n| n.matches(name)).map(|n| n.set)
    }
}

impl Default for Set {
    /// [`sets::RFC3986`](crate::sets::RFC3986), the strictest standard set.
    ///
    /// ```
    /// assert_eq!(pctenc::Set::default(), pctenc::sets::RFC3986);
    /// ```
    fn default() -> Set {
        sets::RFC3986
    }
}

/// Parses a set name, as [`Set::by_name`] does: a name of [`sets::NAMED`](crate::sets::NAMED)
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
    fn new(name: &str) -> ParseSetError {
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

impl fmt::Display for ParseSetError {
    /// `unknown set `nope`: expected one of rfc3986, component, ...` (without `alloc`, the
    /// name is left out).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        #[cfg(feature = "alloc")]
        write!(f, "unknown set `{}`: expected one of ", self.name.escape_debug())?;
        #[cfg(not(feature = "alloc"))]
        f.write_str("unknown set name: expected one of ")?;
        for (i, named) in sets::NAMED.iter().enumerate() {
            f.write_str(if i == 0 { "" } else { ", " })?;
            f.write_str(named.name)?;
        }
        Ok(())
    }
}

impl core::error::Error for ParseSetError {}
