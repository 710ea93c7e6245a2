//! What the module's functions share: its exceptions, and the encoder a set name and the
//! keyword switches build.

use pctenc::{Encoder, Set};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

pyo3::create_exception!(
    _pctenc,
    DecodeError,
    PyValueError,
    "Decoding failed: `offset` says where (a byte offset), `kind` why; both are None on an \
     error made by hand. From `pctenc.arrow`, `row` is the failing row of the whole input and \
     `chunk` the index of its chunk (None for an array); `kind` is None there, the message \
     says why."
);
pyo3::create_exception!(
    _pctenc,
    ValidationError,
    PyValueError,
    "The input is not encoded for the set: `offset`, `kind` and `byte` say where and what; \
     they are None on an error made by hand."
);

pub(crate) fn named_set(name: &str) -> PyResult<Set> {
    name.parse::<Set>().map_err(|e| PyValueError::new_err(e.to_string()))
}

pub(crate) fn encoder(
    set: &str,
    space_as_plus: bool,
    lowercase: bool,
    keep_escapes: bool,
    iri: bool,
) -> PyResult<Encoder> {
    let mut s = named_set(set)?;
    if space_as_plus {
        s = s.with_space_as_plus(true);
    }
    if iri {
        s = s.with_iri(true);
    }
    Ok(Encoder::new(s).lowercase(lowercase).keep_escapes(keep_escapes))
}
