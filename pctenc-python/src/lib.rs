//! `pctenc._pctenc`, the native module of the `pctenc` Python package: the drop-ins for
//! `urllib.parse` (`dropins.rs`), pctenc's own API (here), and `pctenc.arrow`'s kernels
//! (`arrow.rs`). Inputs of `RELEASE_GIL` bytes or more are worked on without the GIL, so that
//! threads run in parallel.

use std::borrow::Cow;

mod arrow;
mod dropins;
mod gil;
mod options;
mod panics;

use pctenc::{Decoder, Utf8Mode, ValidationErrorKind, sets};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};

use crate::gil::{RELEASE_GIL, run};
use crate::options::{DecodeError, ValidationError, encoder, named_set};

/// The text of a `str`, or `None` when it has lone surrogates (not UTF-8).
fn text<'a>(s: &'a Bound<'_, PyString>) -> Option<Cow<'a, str>> {
    s.to_cow().ok()
}

// ----------------------------------------------------------------------------------------
// pctenc's own API.

/// The bytes of `data`: a `str`'s UTF-8 (`true`: text in, text out), or the bytes of a
/// `bytes` or of any buffer.
fn input_of(data: &Bound<'_, PyAny>) -> PyResult<(Vec<u8>, bool)> {
    if let Ok(s) = data.cast::<PyString>() {
        return Ok((s.to_cow()?.into_owned().into_bytes(), true));
    }
    if let Ok(b) = data.cast::<PyBytes>() {
        return Ok((b.as_bytes().to_vec(), false));
    }
    // Any other buffer (bytearray, memoryview, array, ...): `memoryview(data).tobytes()` (the
    // stable ABI of CPython 3.9 has no buffer protocol).
    let view = data.py().import("builtins")?.getattr("memoryview")?.call1((data,)).map_err(|_| {
        let name = data.get_type().name().map(|n| n.to_string()).unwrap_or_default();
        PyTypeError::new_err(format!("expected str, bytes or a buffer, not {name}"))
    })?;
    let bytes = view.call_method0("tobytes")?;
    Ok((bytes.cast::<PyBytes>()?.as_bytes().to_vec(), false))
}

/// A lone surrogate (a surrogate code point, which a Python `str` may hold and UTF-8 cannot):
/// its byte offset in the text's UTF-8 (that of the text before it) and its code point.
#[derive(Clone, Copy)]
struct Surrogate {
    offset: usize,
    code: u32,
}

/// The bytes of `s` encoded with `surrogatepass`: UTF-8, with each lone surrogate written as
/// the three bytes UTF-8's pattern gives it (`ED A0..BF 80..BF`), which no valid UTF-8 holds.
fn surrogatepass(s: &Bound<'_, PyString>) -> PyResult<Vec<u8>> {
    let bytes = s.call_method1("encode", ("utf-8", "surrogatepass"))?;
    Ok(bytes.cast::<PyBytes>()?.as_bytes().to_vec())
}

/// The UTF-8 of `s` as the WHATWG URL Standard reads a string (a USVString, as
/// `URLSearchParams` does): each lone surrogate becomes U+FFFD. U+FFFD takes three bytes, as
/// a surrogate does with `surrogatepass`, so offsets after one are those of the text's own
/// UTF-8. With the first lone surrogate, if any.
fn usv_text<'a>(s: &'a Bound<'_, PyString>) -> PyResult<(Cow<'a, str>, Option<Surrogate>)> {
    if let Some(t) = text(s) {
        return Ok((t, None));
    }
    let mut bytes = surrogatepass(s)?;
    let mut first = None;
    let mut i = 0;
    while i + 2 < bytes.len() {
        if bytes[i] == 0xED && bytes[i + 1] >= 0xA0 {
            let code = 0xD000 | (u32::from(bytes[i + 1] & 0x3F) << 6) | u32::from(bytes[i + 2] & 0x3F);
            first.get_or_insert(Surrogate { offset: i, code });
            bytes[i..i + 3].copy_from_slice("\u{FFFD}".as_bytes());
            i += 3;
        } else {
            i += 1;
        }
    }
    let text = String::from_utf8(bytes)
        .map_err(|e| PyValueError::new_err(format!("not UTF-8 after replacing lone surrogates: {e}")))?;
    Ok((Cow::Owned(text), first))
}

fn output<'py>(py: Python<'py>, bytes: Vec<u8>, as_text: bool) -> PyResult<Bound<'py, PyAny>> {
    if as_text {
        let text = String::from_utf8(bytes).map_err(|_| PyValueError::new_err("output is not UTF-8"))?;
        Ok(PyString::new(py, &text).into_any())
    } else {
        Ok(PyBytes::new(py, &bytes).into_any())
    }
}

/// Percent-encodes `data` with a named set: `str` in, `str` out; `bytes` or a buffer in,
/// `bytes` out. A `str` with a lone surrogate (which has no UTF-8) raises
/// `UnicodeEncodeError`, as `urllib.parse.quote` does.
#[pyfunction]
#[pyo3(signature = (data, set = "component", *, space_as_plus = false, lowercase = false, keep_escapes = false, iri = false))]
fn encode<'py>(
    data: &Bound<'py, PyAny>,
    set: &str,
    space_as_plus: bool,
    lowercase: bool,
    keep_escapes: bool,
    iri: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let py = data.py();
    let enc = encoder(set, space_as_plus, lowercase, keep_escapes, iri)?;
    if let Ok(s) = data.cast::<PyString>() {
        let t = s.to_cow()?;
        let out = run(py, t.len(), || enc.encode(t.as_bytes()).into_owned());
        return Ok(PyString::new(py, &out).into_any());
    }
    let (bytes, _) = input_of(data)?;
    let out = run(py, bytes.len(), || enc.encode(&bytes).into_owned());
    Ok(PyBytes::new(py, out.as_bytes()).into_any())
}

/// `encode` on every `str` of a list, in one call (a lone surrogate raises
/// `UnicodeEncodeError`, as there).
#[pyfunction]
#[pyo3(signature = (items, set = "component", *, space_as_plus = false, lowercase = false, keep_escapes = false, iri = false))]
fn encode_many<'py>(
    items: &Bound<'py, PyAny>,
    set: &str,
    space_as_plus: bool,
    lowercase: bool,
    keep_escapes: bool,
    iri: bool,
) -> PyResult<Bound<'py, PyList>> {
    let py = items.py();
    let enc = encoder(set, space_as_plus, lowercase, keep_escapes, iri)?;
    let out = PyList::empty(py);
    let mut buf = String::new();
    for item in items.try_iter()? {
        let item = item?;
        let s = item.cast::<PyString>().map_err(|_| {
            PyTypeError::new_err(format!(
                "encode_many() expects str items, not {}",
                item.get_type().name().map(|n| n.to_string()).unwrap_or_default()
            ))
        })?;
        let t = s.to_cow()?;
        buf.clear();
        enc.encode_string(t.as_bytes(), &mut buf);
        out.append(PyString::new(py, &buf))?;
    }
    Ok(out)
}

fn decode_error(py: Python<'_>, e: pctenc::DecodeError) -> PyErr {
    let err = DecodeError::new_err(e.to_string());
    let value = err.value(py);
    let _ = value.setattr("offset", e.offset());
    let _ = value.setattr("kind", e.kind().name());
    err
}

/// Percent-decodes `data`: `str` in, `str` out (UTF-8 checked: `utf8=None` is `"strict"`
/// then); `bytes` or a buffer in, `bytes` out (`utf8=None`: no UTF-8 step). A lone
/// surrogate in a `str` (which has no UTF-8) is, as invalid UTF-8 is: with `utf8="strict"`,
/// a `DecodeError` of kind `"lone_surrogate"` at its offset; with `"lossy"`, U+FFFD.
#[pyfunction]
// The text signature says the default itself: from `Some("strict")` PyO3 would write `...`.
#[pyo3(
    signature = (data, *, strict = true, plus = false, utf8 = Some("strict")),
    text_signature = "(data, *, strict=True, plus=False, utf8='strict')"
)]
fn decode<'py>(
    data: &Bound<'py, PyAny>,
    strict: bool,
    plus: bool,
    utf8: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = data.py();
    let (bytes, as_text, surrogate) = match data.cast::<PyString>() {
        Ok(s) => {
            let (t, surrogate) = usv_text(s)?;
            (t.into_owned().into_bytes(), true, surrogate)
        }
        Err(_) => {
            let (bytes, as_text) = input_of(data)?;
            (bytes, as_text, None)
        }
    };
    let mode = match utf8 {
        Some("strict") => Utf8Mode::Strict,
        Some("lossy") => Utf8Mode::Lossy,
        None if as_text => Utf8Mode::Strict,
        None => Utf8Mode::Bytes,
        Some(other) => {
            return Err(PyValueError::new_err(format!(
                "utf8 must be 'strict', 'lossy' or None, not {other:?}"
            )));
        }
    };
    let dec = Decoder::new().lenient(!strict).plus_as_space(plus).utf8(mode);
    let out = run(py, bytes.len(), || dec.decode(&bytes).map(Cow::into_owned));
    // A lone surrogate has no UTF-8: in strict UTF-8 mode it is an error, unless decoding
    // failed before it (the U+FFFD that stands for it decodes as itself, so any error at or
    // after it is the surrogate's to report first).
    if let (Some(at), Utf8Mode::Strict) = (surrogate, mode)
        && !matches!(&out, Err(e) if e.offset() < at.offset)
    {
        return Err(lone_surrogate_error(py, at));
    }
    output(py, out.map_err(|e| decode_error(py, e))?, as_text)
}

fn lone_surrogate_error(py: Python<'_>, at: Surrogate) -> PyErr {
    let err = DecodeError::new_err(format!(
        "offset {}: lone surrogate U+{:04X} in the str: it has no UTF-8",
        at.offset, at.code
    ));
    let value = err.value(py);
    let _ = value.setattr("offset", at.offset);
    let _ = value.setattr("kind", "lone_surrogate");
    err
}

fn validation_kind(kind: ValidationErrorKind) -> String {
    format!("{kind:?}").chars().fold(String::new(), |mut s, c| {
        if c.is_ascii_uppercase() && !s.is_empty() {
            s.push('_');
        }
        s.push(c.to_ascii_lowercase());
        s
    })
}

fn check(
    data: &Bound<'_, PyAny>,
    set: &str,
    space_as_plus: bool,
    iri: bool,
) -> PyResult<Result<(), pctenc::ValidationError>> {
    let enc = encoder(set, space_as_plus, false, false, iri)?;
    // A lone surrogate is never encoded text: its `surrogatepass` bytes (0xED first) are
    // invalid UTF-8, which every set, IRI sets too, rejects at its offset.
    let bytes = match data.cast::<PyString>() {
        Ok(s) => match text(s) {
            Some(t) => t.into_owned().into_bytes(),
            None => surrogatepass(s)?,
        },
        Err(_) => input_of(data)?.0,
    };
    Ok(run(data.py(), bytes.len(), || enc.validate(&bytes)))
}

/// Raises `ValidationError` unless `data` is already encoded for the set. A lone surrogate
/// in a `str` is never encoded: the error is at its offset, with `byte` 0xED (the first
/// byte of its `surrogatepass` encoding).
#[pyfunction]
#[pyo3(signature = (data, set = "component", *, space_as_plus = false, iri = false))]
fn validate(data: &Bound<'_, PyAny>, set: &str, space_as_plus: bool, iri: bool) -> PyResult<()> {
    check(data, set, space_as_plus, iri)?.map_err(|e| {
        let err = ValidationError::new_err(e.to_string());
        let value = err.value(data.py());
        let _ = value.setattr("offset", e.offset());
        let _ = value.setattr("kind", validation_kind(e.kind()));
        let _ = value.setattr("byte", e.byte());
        err
    })
}

/// Whether `data` is already encoded for the set (never, with a lone surrogate).
#[pyfunction]
#[pyo3(signature = (data, set = "component", *, space_as_plus = false, iri = false))]
fn is_valid(data: &Bound<'_, PyAny>, set: &str, space_as_plus: bool, iri: bool) -> PyResult<bool> {
    Ok(check(data, set, space_as_plus, iri)?.is_ok())
}

/// RFC 3986 normalization (uppercase hex, unreserved escapes decoded). A `str` with a lone
/// surrogate raises `UnicodeEncodeError`.
#[pyfunction]
fn normalize<'py>(data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let (bytes, as_text) = input_of(data)?;
    let out = run(data.py(), bytes.len(), || pctenc::normalize(&bytes).into_owned());
    output(data.py(), out, as_text)
}

/// Encodes what needs it and keeps valid escapes (re-quoting), to a `str`. A `str` with a
/// lone surrogate raises `UnicodeEncodeError`, as `encode` does.
#[pyfunction]
#[pyo3(signature = (data, set = "component"))]
fn requote<'py>(data: &Bound<'py, PyAny>, set: &str) -> PyResult<Bound<'py, PyString>> {
    let set = named_set(set)?;
    let (bytes, _) = input_of(data)?;
    let out = run(data.py(), bytes.len(), || pctenc::requote(&bytes, &set).into_owned());
    Ok(PyString::new(data.py(), &out))
}

/// The named sets: `name`, `aliases`, `description`, `keeps` (the punctuation kept besides
/// letters and digits) and `space` (`"+"`, `"%20"` or `"kept"`).
#[pyfunction]
fn sets_info(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let list = PyList::empty(py);
    for named in sets::NAMED {
        let d = PyDict::new(py);
        d.set_item("name", named.name)?;
        d.set_item("aliases", named.aliases.to_vec())?;
        d.set_item("description", named.description)?;
        d.set_item("keeps", named.set.kept_punctuation().map(char::from).collect::<String>())?;
        d.set_item("space", named.set.space_label())?;
        list.append(d)?;
    }
    Ok(list)
}

/// `application/x-www-form-urlencoded` pairs, as `URLSearchParams` reads them (a lone
/// surrogate in a `str` is U+FFFD, as there).
#[pyfunction]
fn form_parse<'py>(data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    let py = data.py();
    let bytes = match data.cast::<PyString>() {
        Ok(s) => usv_text(s)?.0.into_owned().into_bytes(),
        Err(_) => input_of(data)?.0,
    };
    let list = PyList::empty(py);
    for (name, value) in pctenc::form::parse(&bytes) {
        list.append(PyTuple::new(py, [name.as_ref(), value.as_ref()])?)?;
    }
    Ok(list)
}

/// Pairs of `str` to a form body, as `URLSearchParams.toString()` writes it (a lone
/// surrogate is U+FFFD, as there).
#[pyfunction]
fn form_serialize(pairs: &Bound<'_, PyAny>) -> PyResult<String> {
    let mut out = pctenc::form::Serializer::new();
    for pair in pairs.try_iter()? {
        let (name, value): (Bound<'_, PyString>, Bound<'_, PyString>) = pair?.extract()?;
        out.append_pair(&usv_text(&name)?.0, &usv_text(&value)?.0);
    }
    Ok(out.finish())
}

#[pymodule]
fn _pctenc(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(dropins::quote, m)?)?;
    m.add_function(wrap_pyfunction!(dropins::quote_plus, m)?)?;
    m.add_function(wrap_pyfunction!(dropins::quote_from_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(dropins::unquote, m)?)?;
    m.add_function(wrap_pyfunction!(dropins::unquote_plus, m)?)?;
    m.add_function(wrap_pyfunction!(dropins::unquote_to_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(encode, m)?)?;
    m.add_function(wrap_pyfunction!(encode_many, m)?)?;
    m.add_function(wrap_pyfunction!(decode, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(is_valid, m)?)?;
    m.add_function(wrap_pyfunction!(normalize, m)?)?;
    m.add_function(wrap_pyfunction!(requote, m)?)?;
    m.add_function(wrap_pyfunction!(sets_info, m)?)?;
    m.add_function(wrap_pyfunction!(form_parse, m)?)?;
    m.add_function(wrap_pyfunction!(form_serialize, m)?)?;
    m.add_function(wrap_pyfunction!(arrow::arrow_kernel, m)?)?;
    dropins::load_urllib(m.py());
    // Class attributes, which the raised errors' own attributes hide: an error made by hand
    // (`DecodeError("x")`, as tests and wrappers do) has them too.
    let decode_error = m.py().get_type::<DecodeError>();
    let validation_error = m.py().get_type::<ValidationError>();
    for (class, names) in [
        (&decode_error, &["offset", "kind", "row", "chunk"][..]),
        (&validation_error, &["offset", "kind", "byte"][..]),
    ] {
        for name in names {
            class.setattr(*name, m.py().None())?;
        }
    }
    m.add("DecodeError", decode_error)?;
    m.add("ValidationError", validation_error)?;
    m.add("RELEASE_GIL", RELEASE_GIL)?;
    // pyproject.toml repeats it for the wheel; a test checks that they agree.
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
