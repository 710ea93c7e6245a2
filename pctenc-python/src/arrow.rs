//! `pctenc.arrow`'s native half: pctenc-arrow's kernels on whatever exports the Arrow
//! PyCapsule interface (`__arrow_c_array__`, `__arrow_c_stream__`): a pyarrow `Array`,
//! `ChunkedArray` or `Table` of one column, a Polars `Series`, a DuckDB relation or result,
//! nanoarrow. The data is read where it lies (no copy in, no Python object per row), the
//! kernels run without the GIL and on rayon's threads for a large column, and the result is
//! an object exporting the same interface, which `python/pctenc/arrow.py` turns into pyarrow
//! types when pyarrow is there.

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, StructArray};
use arrow_schema::{DataType, Field, FieldRef};
use pctenc::{Decoder, Encoder};
use pctenc_arrow::KernelError;
use pyo3::exceptions::{PyException, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyString, PyTuple};
use pyo3_arrow::input::AnyArray;
use pyo3_arrow::{PyArray, PyChunkedArray};

use crate::options::{DecodeError, encoder};

/// What a call of `pctenc.arrow` does to each array.
#[derive(Clone, Copy)]
enum Kernel {
    Encode(Encoder),
    Decode(Decoder),
    TryDecode(Decoder),
    Validate(Encoder),
    Normalize,
    UrlEncode,
    UrlDecode,
    TryUrlDecode,
}

impl Kernel {
    fn run(self, array: &dyn Array) -> Result<ArrayRef, KernelError> {
        match self {
            Kernel::Encode(enc) => pctenc_arrow::encode(array, &enc),
            Kernel::Decode(dec) => pctenc_arrow::decode(array, &dec),
            Kernel::TryDecode(dec) => pctenc_arrow::try_decode(array, &dec),
            Kernel::Validate(enc) => Ok(Arc::new(pctenc_arrow::validate(array, &enc)?)),
            Kernel::Normalize => pctenc_arrow::normalize(array),
            Kernel::UrlEncode => pctenc_arrow::url_encode(array),
            Kernel::UrlDecode => pctenc_arrow::url_decode(array),
            Kernel::TryUrlDecode => pctenc_arrow::try_url_decode(array),
        }
    }
}

const ACCEPTED: &str = "a pyarrow Array or ChunkedArray, a Polars Series, a DuckDB result, or any \
                        object with __arrow_c_array__ or __arrow_c_stream__";
const KINDS: &str = "string, large_string, string_view, binary, large_binary or binary_view";

/// Whether `data` is a table (a pyarrow `Table`, `RecordBatch` or `RecordBatchReader`, a
/// DuckDB relation, a Polars or pandas `DataFrame`): it has columns, where an array has none.
/// Its record batches arrive as struct arrays, as a struct column would; only a table's are
/// taken apart.
fn is_table(data: &Bound<'_, PyAny>) -> bool {
    let has = |name: &str| data.hasattr(name).unwrap_or(false);
    // A stream of a table's batches has a schema alone; so does a nanoarrow array, which is
    // not a table.
    let reader = data.get_type().name().is_ok_and(|n| n.to_str().is_ok_and(|n| n == "RecordBatchReader"));
    has("columns") || has("num_columns") || reader
}

/// The column to work on: the array itself, or the one column of a table's record batches.
fn column(
    op: &str,
    array: ArrayRef,
    field: FieldRef,
    data: &Bound<'_, PyAny>,
) -> PyResult<(ArrayRef, FieldRef)> {
    let table = is_table(data);
    let (array, field) = match field.data_type() {
        DataType::Struct(fields) if table && fields.len() == 1 => {
            let s = array.as_any().downcast_ref::<StructArray>().ok_or_else(|| {
                PyTypeError::new_err(format!("pctenc.arrow.{op}(): a struct type without a struct array"))
            })?;
            (Arc::clone(s.column(0)), Arc::clone(&fields[0]))
        }
        DataType::Struct(fields) if table => {
            return Err(PyTypeError::new_err(format!(
                "pctenc.arrow.{op}() takes one column, not a table of {} columns: select one",
                fields.len()
            )));
        }
        _ => (array, field),
    };
    if pctenc_arrow::takes(field.data_type()) {
        return Ok((array, field));
    }
    Err(PyTypeError::new_err(format!(
        "pctenc.arrow.{op}() takes {KINDS} columns, or a dictionary of one, not {}",
        type_name(data, field.data_type())
    )))
}

/// The column's type as its library writes it (pyarrow's `type`, Polars' and pandas'
/// `dtype`), else as Arrow's Rust crates do.
fn type_name(data: &Bound<'_, PyAny>, dt: &DataType) -> String {
    let own =
        ["type", "dtype"].iter().find_map(|attr| data.getattr(*attr).ok()?.str().ok().map(|s| s.to_string()));
    match own {
        Some(name) if !is_table(data) => name,
        _ => dt.to_string(),
    }
}

/// Checks the layout of an array that came through the C data interface before anything
/// reads it ([`pctenc_arrow::check_layout`]): a `ValueError` naming the first bad row.
fn check(op: &str, array: &dyn Array, chunk: Option<(usize, usize)>) -> PyResult<()> {
    pctenc_arrow::check_layout(array).map_err(|e| {
        let place = match (e.row(), chunk) {
            (Some(row), Some((index, first))) => {
                format!("row {} (chunk {index}, row {row} in it): ", first + row)
            }
            (Some(row), None) => format!("row {row}: "),
            (None, _) => String::new(),
        };
        PyValueError::new_err(format!("pctenc.arrow.{op}(): malformed Arrow data: {place}{}", e.message()))
    })
}

/// Runs `kernel` on `array` without the GIL, with the layout checked first, and any panic
/// (a bug: none is expected) turned into a `RuntimeError` that names the kernel.
fn run_kernel(
    py: Python<'_>,
    op: &str,
    kernel: Kernel,
    array: &dyn Array,
    chunk: Option<(usize, usize)>,
) -> PyResult<ArrayRef> {
    check(op, array, chunk)?;
    let out = py.detach(|| crate::panics::quietly(|| kernel.run(array)));
    match out {
        Ok(result) => result.map_err(|e| error(py, e, chunk)),
        Err(message) => Err(PyRuntimeError::new_err(format!("pctenc.arrow.{op}() failed: {message}"))),
    }
}

/// A kernel's error as Python sees it: `DecodeError` with `offset`, `row` (in the whole
/// input) and `chunk` (`None` for an array), or `ValueError` for an error of no row.
fn error(py: Python<'_>, e: KernelError, chunk: Option<(usize, usize)>) -> PyErr {
    let Some(row) = e.row() else { return PyValueError::new_err(e.to_string()) };
    let (index, first) = chunk.unwrap_or((0, 0));
    let whole = first + row;
    let place = match chunk {
        Some(_) => format!("row {whole} (chunk {index}, row {row} in it)"),
        None => format!("row {row}"),
    };
    let message = match e.offset() {
        Some(offset) => format!("{place}, offset {offset}: {}", e.message()),
        None => format!("{place}: {}", e.message()),
    };
    let err = DecodeError::new_err(message);
    let value = err.value(py);
    let _ = value.setattr("offset", e.offset());
    let _ = value.setattr("row", whole);
    let _ = value.setattr("chunk", chunk.map(|(index, _)| index));
    err
}

fn field_of(field: &FieldRef, out: &ArrayRef) -> FieldRef {
    Arc::new(Field::new(field.name(), out.data_type().clone(), true))
}

/// Runs `kernel` on `data`: an array gives `(PyArray, False)`, a stream of arrays (chunked
/// input) `(PyChunkedArray, True)`, chunk for chunk.
fn apply<'py>(data: &Bound<'py, PyAny>, op: &str, kernel: Kernel) -> PyResult<Bound<'py, PyTuple>> {
    let py = data.py();
    let exports = data.hasattr("__arrow_c_array__")? || data.hasattr("__arrow_c_stream__")?;
    if !exports {
        let name = data.get_type().name().map(|n| n.to_string()).unwrap_or_default();
        return Err(PyTypeError::new_err(format!("pctenc.arrow.{op}() takes {ACCEPTED}, not {name}")));
    }
    // Reading the data through the C data interface: arrow-rs's import can panic (a stream
    // whose batches do not match its schema), and errs with a bare Exception.
    let imported = crate::panics::quietly(|| data.extract::<AnyArray>());
    let unread = |why: String| {
        PyValueError::new_err(format!("pctenc.arrow.{op}(): the Arrow data could not be read: {why}"))
    };
    let any = match imported {
        Ok(Ok(any)) => any,
        // A TypeError says what is not accepted; KeyboardInterrupt and SystemExit are not
        // the data's fault.
        Ok(Err(e)) if e.is_instance_of::<PyTypeError>(py) || !e.is_instance_of::<PyException>(py) => {
            return Err(e);
        }
        Ok(Err(e)) => return Err(unread(e.to_string())),
        Err(message) => return Err(unread(message)),
    };
    match any {
        AnyArray::Array(array) => {
            let (array, field) = array.into_inner();
            let (array, field) = column(op, array, field, data)?;
            let out = run_kernel(py, op, kernel, array.as_ref(), None)?;
            let field = field_of(&field, &out);
            (PyArray::new(out, field), false).into_pyobject(py)
        }
        AnyArray::Stream(reader) => {
            let (chunks, field) = match crate::panics::quietly(|| reader.into_chunked_array()) {
                Ok(Ok(chunked)) => chunked.into_inner(),
                Ok(Err(e)) => {
                    let e = PyErr::from(e);
                    if !e.is_instance_of::<PyException>(py) {
                        return Err(e);
                    }
                    return Err(unread(e.to_string()));
                }
                Err(message) => return Err(unread(message)),
            };
            let mut outs = Vec::with_capacity(chunks.len());
            let mut out_field = None;
            let mut first = 0;
            for (index, chunk) in chunks.into_iter().enumerate() {
                let (chunk, field) = column(op, chunk, Arc::clone(&field), data)?;
                let rows = chunk.len();
                let out = run_kernel(py, op, kernel, chunk.as_ref(), Some((index, first)))?;
                out_field.get_or_insert_with(|| field_of(&field, &out));
                outs.push(out);
                first += rows;
            }
            // No chunk: the output type is what an empty one gives.
            let field = match out_field {
                Some(field) => field,
                None => {
                    let empty = arrow_array::new_empty_array(field.data_type());
                    let (empty, inner) = column(op, empty, Arc::clone(&field), data)?;
                    let out = run_kernel(py, op, kernel, empty.as_ref(), None)?;
                    field_of(&inner, &out)
                }
            };
            (PyChunkedArray::try_new(outs, field)?, true).into_pyobject(py)
        }
    }
}

/// `pctenc.arrow`'s one native entry: `op` names the kernel (`encode`, `decode`,
/// `try_decode`, `validate`, `normalize`, `url_encode`, `url_decode`, `try_url_decode`),
/// the other arguments are those `python/pctenc/arrow.py` documents.
/// A switch: left out (`None`) it is off, else it must be a `bool`, or a `TypeError` names it.
fn flag(op: &str, name: &str, value: Option<&Bound<'_, PyAny>>) -> PyResult<bool> {
    match value {
        None => Ok(false),
        Some(v) => v.cast::<PyBool>().map(|b| b.is_true()).map_err(|_| {
            let kind = v.get_type().name().map(|n| n.to_string()).unwrap_or_default();
            PyTypeError::new_err(format!("pctenc.arrow.{op}(): {name} must be True or False, not {kind}"))
        }),
    }
}

/// A keyword that must be a `str`: its text, or a `TypeError` naming it.
fn word<'a>(
    op: &str,
    name: &str,
    value: &'a Bound<'_, PyAny>,
    example: &str,
) -> PyResult<std::borrow::Cow<'a, str>> {
    let not = || {
        let kind = value.get_type().name().map(|n| n.to_string()).unwrap_or_default();
        PyTypeError::new_err(format!(
            "pctenc.arrow.{op}(): {name} must be a str such as {example}, not {kind}"
        ))
    };
    value.cast::<PyString>().map_err(|_| not())?.to_cow().map_err(|_| not())
}

/// `pctenc.arrow`'s one native entry: `op` names the kernel (`encode`, `decode`,
/// `try_decode`, `validate`, `normalize`, `url_encode`, `url_decode`, `try_url_decode`),
/// the other arguments are those `python/pctenc/arrow.py` documents.
#[pyfunction]
#[pyo3(signature = (data, op, set = None, mode = None, space_as_plus = None, lowercase = None, keep_escapes = None, iri = None))]
#[allow(clippy::too_many_arguments)] // The Python signature's keywords, one each.
pub(crate) fn arrow_kernel<'py>(
    data: &Bound<'py, PyAny>,
    op: &str,
    set: Option<&Bound<'py, PyAny>>,
    mode: Option<&Bound<'py, PyAny>>,
    space_as_plus: Option<&Bound<'py, PyAny>>,
    lowercase: Option<&Bound<'py, PyAny>>,
    keep_escapes: Option<&Bound<'py, PyAny>>,
    iri: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyTuple>> {
    let py = data.py();
    let none = py.None().into_bound(py);
    let space_as_plus = flag(op, "space_as_plus", space_as_plus)?;
    let lowercase = flag(op, "lowercase", lowercase)?;
    let keep_escapes = flag(op, "keep_escapes", keep_escapes)?;
    let iri = flag(op, "iri", iri)?;
    let set = || word(op, "set", set.unwrap_or(&none), "'component' or 'path'");
    let dec = || {
        let mode = word(op, "mode", mode.unwrap_or(&none), "'strict' or 'plus,lossy'")?;
        pctenc_arrow::decoder_for_mode(&mode).map_err(PyValueError::new_err)
    };
    let kernel = match op {
        "encode" => Kernel::Encode(encoder(&set()?, space_as_plus, lowercase, keep_escapes, iri)?),
        "decode" => Kernel::Decode(dec()?),
        "try_decode" => Kernel::TryDecode(dec()?),
        "validate" => Kernel::Validate(encoder(&set()?, space_as_plus, false, false, iri)?),
        "normalize" => Kernel::Normalize,
        "url_encode" => Kernel::UrlEncode,
        "url_decode" => Kernel::UrlDecode,
        "try_url_decode" => Kernel::TryUrlDecode,
        other => return Err(PyValueError::new_err(format!("no Arrow kernel {other:?}"))),
    };
    apply(data, op, kernel)
}
