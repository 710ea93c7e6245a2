//! The drop-ins for `urllib.parse`'s quoting functions: `quote`, `quote_plus`,
//! `quote_from_bytes`, `unquote`, `unquote_plus` and `unquote_to_bytes`, with urllib's own
//! signatures, exported as they are (no Python frame in between).
//!
//! Most calls are short and many have nothing to change, so the common call (an exact `str`
//! or `bytes`, UTF-8, the default or a `str`/`bytes` `safe`) is answered here without a
//! Python object made on the way: the text is read where it lies (`PyUnicode_AsUTF8AndSize`),
//! and a value with nothing to change is returned as itself, as CPython returns it. Every
//! other call (another encoding, an `errors` handler that changes the output, a `str`
//! subclass, odd argument types and the exceptions they raise) goes to CPython's own code, so
//! that its result is CPython's by construction.
//!
//! That code is a private copy of `urllib.parse`, loaded once from its source, not the module
//! in `sys.modules`: the usual way to speed up third-party code is
//! `urllib.parse.quote = pctenc.quote`, after which the public module's functions would call
//! back into pctenc, and pctenc into them, without end.

use std::borrow::Cow;

use pctenc::{Decoder, Encoder, Set};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyByteArray, PyBytes, PyString};

use crate::gil::run;

/// An optional argument of a drop-in: `Default` when the call leaves it out, else what was
/// given. An explicit `None` is given, not the default: urllib's defaults are not all `None`
/// (`safe='/'`), and what CPython does with a `None` it was given is its own business.
pub(crate) enum Arg<'py> {
    Default,
    Given(Bound<'py, PyAny>),
}

impl<'a, 'py> FromPyObject<'a, 'py> for Arg<'py> {
    type Error = std::convert::Infallible;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> Result<Self, Self::Error> {
        Ok(Arg::Given(obj.to_owned()))
    }
}

impl<'py> Arg<'py> {
    /// The value to hand to CPython: what was given, or urllib's default (`None` for `None`).
    fn or(&self, py: Python<'py>, default: Option<&str>) -> Bound<'py, PyAny> {
        match (self, default) {
            (Arg::Given(v), _) => v.clone(),
            (Arg::Default, Some(d)) => PyString::new(py, d).into_any(),
            (Arg::Default, None) => py.None().into_bound(py),
        }
    }

    /// Left out, or `None`.
    fn is_default_or_none(&self) -> bool {
        match self {
            Arg::Default => true,
            Arg::Given(v) => v.is_none(),
        }
    }

    /// Left out, `None`, or a `str` equal to `word`.
    fn is_default_or(&self, word: &str) -> bool {
        match self {
            Arg::Default => true,
            Arg::Given(v) => v.is_none() || is_str(v, word),
        }
    }
}

/// The private copy of `urllib.parse` the fallbacks call (see the module's docs): the module
/// executed anew from its spec, at import ([`load_urllib`]), or at the first fallback if that
/// failed. A failure is not kept: the next fallback tries again (the public module, which
/// may be patched to these very functions, is never used).
fn urllib(py: Python<'_>) -> PyResult<&Bound<'_, PyModule>> {
    Ok(URLLIB.get_or_try_init(py, || private_urllib(py))?.bind(py))
}

static URLLIB: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

fn private_urllib(py: Python<'_>) -> PyResult<Py<PyModule>> {
    let util = py.import("importlib.util")?;
    let spec = util.call_method1("find_spec", ("urllib.parse",))?;
    let module = util.call_method1("module_from_spec", (&spec,))?;
    spec.getattr("loader")?.call_method1("exec_module", (&module,))?;
    Ok(module.cast_into::<PyModule>()?.unbind())
}

/// Loads the private copy of `urllib.parse` now, at import, before any code could have
/// patched or broken the way to it; an error is left for the first fallback to meet again.
pub(crate) fn load_urllib(py: Python<'_>) {
    let _ = urllib(py);
}

/// `v` as an exact `str` (not a subclass, whose methods CPython's code would call).
fn exact_str<'a, 'py>(v: &'a Bound<'py, PyAny>) -> Option<&'a Bound<'py, PyString>> {
    if v.is_exact_instance_of::<PyString>() { v.cast::<PyString>().ok() } else { None }
}

/// `v` as an exact `bytes`.
fn exact_bytes<'a, 'py>(v: &'a Bound<'py, PyAny>) -> Option<&'a Bound<'py, PyBytes>> {
    if v.is_exact_instance_of::<PyBytes>() { v.cast::<PyBytes>().ok() } else { None }
}

/// Whether `encoding` names UTF-8 in one of its usual spellings (others go to CPython).
fn is_utf8(encoding: &Bound<'_, PyAny>) -> bool {
    let Ok(name) = encoding.cast::<PyString>() else { return false };
    let Ok(name) = name.to_str() else { return false };
    matches!(name.to_ascii_lowercase().replace('_', "-").as_str(), "utf-8" | "utf8")
}

/// Left out, `None`, or a name of UTF-8.
fn utf8_encoding(encoding: &Arg<'_>) -> bool {
    match encoding {
        Arg::Default => true,
        Arg::Given(v) => v.is_none() || is_utf8(v),
    }
}

fn is_str(v: &Bound<'_, PyAny>, s: &str) -> bool {
    v.cast::<PyString>().ok().and_then(|v| v.to_str().ok().map(|t| t == s)).unwrap_or(false)
}

/// `quote`'s set with the default `safe='/'`.
const QUOTE: Set = Set::keeping(b"_.-~/");
/// `quote_plus`'s set with the default `safe=''`: a space written as `+`.
const QUOTE_PLUS: Set = Set::keeping(b"_.-~").with_space_as_plus(true);

/// `quote_from_bytes`'s set: letters, digits and `_.-~` kept, and the ASCII bytes of `safe`
/// (a `str`: its ASCII characters; `bytes` or `bytearray`: its bytes under 128). `None` for
/// another kind of `safe`, which CPython's code handles.
fn quote_set(safe: &Bound<'_, PyAny>) -> Option<Set> {
    let mut set = Set::keeping(b"_.-~");
    let mut keep = |bytes: &[u8]| {
        for &b in bytes.iter().filter(|b| b.is_ascii()) {
            set = set.remove(b);
        }
    };
    if let Some(s) = exact_str(safe) {
        keep(s.to_str().ok()?.as_bytes());
    } else if let Some(b) = exact_bytes(safe) {
        keep(b.as_bytes());
    } else if safe.is_exact_instance_of::<PyByteArray>() {
        keep(&safe.cast::<PyByteArray>().ok()?.to_vec());
    } else {
        return None;
    }
    Some(set)
}

/// The set of a `safe` argument, `default` when it is left out.
fn set_of(safe: &Arg<'_>, default: Set) -> Option<Set> {
    match safe {
        Arg::Default => Some(default),
        Arg::Given(v) => quote_set(v),
    }
}

/// `input` (the text or bytes of `object`) encoded with `set`, as a `str`: `object` itself
/// when it is a `str` with nothing to escape.
fn quoted<'py>(object: &Bound<'py, PyAny>, input: &[u8], set: Set) -> Bound<'py, PyAny> {
    let py = object.py();
    let enc = Encoder::new(set);
    match run(py, input.len(), || enc.encode(input)) {
        Cow::Borrowed(_) if object.is_exact_instance_of::<PyString>() => object.clone(),
        out => PyString::new(py, &out).into_any(),
    }
}

/// `quote_from_bytes` of a `bytes` or `bytearray`, else CPython's answer or error.
fn quote_bytes<'py>(bs: &Bound<'py, PyAny>, safe: &Arg<'py>) -> PyResult<Bound<'py, PyAny>> {
    let py = bs.py();
    let fallback = || urllib(py)?.getattr("quote_from_bytes")?.call1((bs, safe.or(py, Some("/"))));
    if let Some(b) = exact_bytes(bs) {
        return match set_of(safe, QUOTE) {
            Some(set) => Ok(quoted(bs, b.as_bytes(), set)),
            None => fallback(),
        };
    }
    if bs.is_exact_instance_of::<PyByteArray>() {
        let bytes = bs.cast::<PyByteArray>()?.to_vec();
        return match set_of(safe, QUOTE) {
            Some(set) if !bytes.is_empty() => Ok(quoted(bs, &bytes, set)),
            Some(_) => Ok(PyString::new(py, "").into_any()),
            None => fallback(),
        };
    }
    if bs.is_instance_of::<PyBytes>() || bs.is_instance_of::<PyByteArray>() {
        return fallback(); // a subclass: CPython's code, which calls its methods
    }
    Err(PyTypeError::new_err("quote_from_bytes() expected bytes"))
}

/// `urllib.parse.quote_from_bytes`: percent-encode `bytes` but `safe` (and letters, digits
/// and `_.-~`), to a `str`.
#[pyfunction]
#[pyo3(signature = (bs, safe = Arg::Default), text_signature = "(bs, safe='/')")]
pub(crate) fn quote_from_bytes<'py>(bs: &Bound<'py, PyAny>, safe: Arg<'py>) -> PyResult<Bound<'py, PyAny>> {
    quote_bytes(bs, &safe)
}

/// `urllib.parse.quote`: percent-encode `string` (`str` or `bytes`) but `safe` (and letters,
/// digits and `_.-~`), the text as `encoding` (UTF-8) writes it. A `str` with nothing to
/// escape is returned as itself.
#[pyfunction]
#[pyo3(
    signature = (string, safe = Arg::Default, encoding = Arg::Default, errors = Arg::Default),
    text_signature = "(string, safe='/', encoding=None, errors=None)"
)]
pub(crate) fn quote<'py>(
    string: &Bound<'py, PyAny>,
    safe: Arg<'py>,
    encoding: Arg<'py>,
    errors: Arg<'py>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = string.py();
    let plain = utf8_encoding(&encoding) && errors.is_default_or("strict");
    if let Some(s) = exact_str(string)
        && plain
        && let Ok(text) = s.to_str()
        && let Some(set) = set_of(&safe, QUOTE)
    {
        return Ok(quoted(string, text.as_bytes(), set));
    }
    if string.is_instance_of::<PyString>() {
        // Another encoding or errors handler, lone surrogates, a `str` subclass or an odd
        // `safe`: CPython's code.
        let args = (string, safe.or(py, Some("/")), encoding.or(py, None), errors.or(py, None));
        return urllib(py)?.getattr("quote")?.call1(args);
    }
    if !encoding.is_default_or_none() {
        return Err(PyTypeError::new_err("quote() doesn't support 'encoding' for bytes"));
    }
    if !errors.is_default_or_none() {
        return Err(PyTypeError::new_err("quote() doesn't support 'errors' for bytes"));
    }
    quote_bytes(string, &safe)
}

/// `urllib.parse.quote_plus`: as `quote`, with spaces written as `+` (and `safe=''`).
#[pyfunction]
#[pyo3(
    signature = (string, safe = Arg::Default, encoding = Arg::Default, errors = Arg::Default),
    text_signature = "(string, safe='', encoding=None, errors=None)"
)]
pub(crate) fn quote_plus<'py>(
    string: &Bound<'py, PyAny>,
    safe: Arg<'py>,
    encoding: Arg<'py>,
    errors: Arg<'py>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = string.py();
    // A space-as-plus set, where `safe` leaves `+` escaped (else a raw `+` could not be told
    // from a space, and CPython's replace of spaces after quoting is the rule).
    let plus_set = set_of(&safe, QUOTE_PLUS)
        .filter(|s| s.contains(b'+') && s.contains(b' '))
        .map(|s| s.with_space_as_plus(true));
    if let Some(s) = exact_str(string)
        && utf8_encoding(&encoding)
        && errors.is_default_or("strict")
        && let Ok(text) = s.to_str()
        && let Some(set) = plus_set
    {
        return Ok(quoted(string, text.as_bytes(), set));
    }
    if let Some(b) = exact_bytes(string)
        && encoding.is_default_or_none()
        && errors.is_default_or_none()
        && let Some(set) = plus_set
    {
        return Ok(quoted(string, b.as_bytes(), set));
    }
    urllib(py)?.getattr("quote_plus")?.call1((
        string,
        safe.or(py, Some("")),
        encoding.or(py, None),
        errors.or(py, None),
    ))
}

/// Lenient percent-decoding to bytes (`+` a space or not), as `unquote_to_bytes` does.
fn unquote_bytes(py: Python<'_>, input: &[u8], plus: bool) -> Vec<u8> {
    let dec = Decoder::new().lenient(true).plus_as_space(plus);
    run(py, input.len(), || dec.decode(input).map(Cow::into_owned).unwrap_or_default())
}

/// `unquote` and `unquote_plus`.
fn unquote_with<'py>(
    string: &Bound<'py, PyAny>,
    encoding: &Arg<'py>,
    errors: &Arg<'py>,
    plus: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let py = string.py();
    let fallback = || {
        let name = if plus { "unquote_plus" } else { "unquote" };
        urllib(py)?.getattr(name)?.call1((
            string,
            encoding.or(py, Some("utf-8")),
            errors.or(py, Some("replace")),
        ))
    };
    if let Some(s) = exact_str(string) {
        let Ok(text) = s.to_str() else { return fallback() };
        let bytes = text.as_bytes();
        let changes = if plus { memchr::memchr2(b'%', b'+', bytes) } else { memchr::memchr(b'%', bytes) };
        if changes.is_none() {
            // CPython returns the string itself, whatever `encoding` and `errors` are.
            return Ok(string.clone());
        }
        // CPython hands `encoding` and `errors` to `bytes.decode`, which wants `str`s.
        let errors_str = match errors {
            Arg::Default => true,
            Arg::Given(v) => v.is_none() || v.is_instance_of::<PyString>(),
        };
        if !utf8_encoding(encoding) || !errors_str {
            return fallback();
        }
        let decoded = unquote_bytes(py, bytes, plus);
        return match String::from_utf8(decoded) {
            Ok(t) => Ok(PyString::new(py, &t).into_any()),
            Err(e) if errors.is_default_or("replace") => {
                Ok(PyString::new(py, &String::from_utf8_lossy(e.as_bytes())).into_any())
            }
            Err(_) => fallback(),
        };
    }
    if let Some(b) = exact_bytes(string)
        && !plus
    {
        let (encoding, errors) = (encoding.or(py, Some("utf-8")), errors.or(py, Some("replace")));
        if is_utf8(&encoding) && errors.is_instance_of::<PyString>() {
            return match String::from_utf8(unquote_bytes(py, b.as_bytes(), false)) {
                Ok(text) => Ok(PyString::new(py, &text).into_any()),
                Err(e) => PyBytes::new(py, e.as_bytes()).call_method1("decode", (encoding, errors)),
            };
        }
    }
    fallback()
}

/// `urllib.parse.unquote`: decode `%xx` escapes (leniently), the bytes read as `encoding`
/// (UTF-8) with `errors` (`'replace'`). A `str` with no `%` is returned as itself.
#[pyfunction]
#[pyo3(
    signature = (string, encoding = Arg::Default, errors = Arg::Default),
    text_signature = "(string, encoding='utf-8', errors='replace')"
)]
pub(crate) fn unquote<'py>(
    string: &Bound<'py, PyAny>,
    encoding: Arg<'py>,
    errors: Arg<'py>,
) -> PyResult<Bound<'py, PyAny>> {
    unquote_with(string, &encoding, &errors, false)
}

/// `urllib.parse.unquote_plus`: as `unquote`, with `+` read as a space. A `str` with no `%`
/// and no `+` is returned as itself.
#[pyfunction]
#[pyo3(
    signature = (string, encoding = Arg::Default, errors = Arg::Default),
    text_signature = "(string, encoding='utf-8', errors='replace')"
)]
pub(crate) fn unquote_plus<'py>(
    string: &Bound<'py, PyAny>,
    encoding: Arg<'py>,
    errors: Arg<'py>,
) -> PyResult<Bound<'py, PyAny>> {
    unquote_with(string, &encoding, &errors, true)
}

/// `urllib.parse.unquote_to_bytes`: decode `%xx` escapes (leniently) to `bytes`.
#[pyfunction]
pub(crate) fn unquote_to_bytes<'py>(string: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let py = string.py();
    if let Some(s) = exact_str(string)
        && let Ok(text) = s.to_str()
    {
        let bytes = text.as_bytes();
        if memchr::memchr(b'%', bytes).is_none() {
            return Ok(PyBytes::new(py, bytes).into_any()); // its UTF-8, as CPython gives
        }
        return Ok(PyBytes::new(py, &unquote_bytes(py, bytes, false)).into_any());
    }
    if let Some(b) = exact_bytes(string) {
        if memchr::memchr(b'%', b.as_bytes()).is_none() {
            return Ok(string.clone()); // as CPython: the input itself
        }
        return Ok(PyBytes::new(py, &unquote_bytes(py, b.as_bytes(), false)).into_any());
    }
    urllib(py)?.getattr("unquote_to_bytes")?.call1((string,))
}
