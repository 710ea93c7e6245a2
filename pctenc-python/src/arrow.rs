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
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
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

/// The column to work on: the array itself, or the one column of a table's record batches
/// (a pyarrow `Table`, a DuckDB result), which arrive as struct arrays.
fn column(op: &str, array: ArrayRef, field: FieldRef) -> PyResult<(ArrayRef, FieldRef)> {
    let (array, field) = match field.data_type() {
        DataType::Struct(fields) if fields.len() == 1 => {
            let s = array.as_any().downcast_ref::<StructArray>().expect("a struct array");
            (Arc::clone(s.column(0)), Arc::clone(&fields[0]))
        }
        DataType::Struct(fields) => {
            return Err(PyTypeError::new_err(format!(
                "pctenc.arrow.{op}() takes one column, not a table of {} columns: select one",
                fields.len()
            )));
        }
        _ => (array, field),
    };
    match field.data_type() {
        DataType::Utf8
        | DataType::LargeUtf8
        | DataType::Utf8View
        | DataType::Binary
        | DataType::LargeBinary
        | DataType::BinaryView => Ok((array, field)),
        other => Err(PyTypeError::new_err(format!("pctenc.arrow.{op}() takes {KINDS} arrays, not {other}"))),
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
    let any: AnyArray = data.extract().map_err(|_| {
        let name = data.get_type().name().map(|n| n.to_string()).unwrap_or_default();
        PyTypeError::new_err(format!("pctenc.arrow.{op}() takes {ACCEPTED}, not {name}"))
    })?;
    match any {
        AnyArray::Array(array) => {
            let (array, field) = array.into_inner();
            let (array, field) = column(op, array, field)?;
            let out = py.detach(|| kernel.run(array.as_ref())).map_err(|e| error(py, e, None))?;
            let field = field_of(&field, &out);
            (PyArray::new(out, field), false).into_pyobject(py)
        }
        AnyArray::Stream(reader) => {
            let (chunks, field) = reader.into_chunked_array()?.into_inner();
            let mut outs = Vec::with_capacity(chunks.len());
            let mut out_field = None;
            let mut first = 0;
            for (index, chunk) in chunks.into_iter().enumerate() {
                let (chunk, field) = column(op, chunk, Arc::clone(&field))?;
                let rows = chunk.len();
                let out = py
                    .detach(|| kernel.run(chunk.as_ref()))
                    .map_err(|e| error(py, e, Some((index, first))))?;
                out_field.get_or_insert_with(|| field_of(&field, &out));
                outs.push(out);
                first += rows;
            }
            // No chunk: the output type is what an empty one gives.
            let field = match out_field {
                Some(field) => field,
                None => {
                    let empty = arrow_array::new_empty_array(field.data_type());
                    let (empty, inner) = column(op, empty, Arc::clone(&field))?;
                    let out = kernel.run(empty.as_ref()).map_err(|e| error(py, e, None))?;
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
#[pyfunction]
#[pyo3(signature = (data, op, set = "component", mode = "strict", space_as_plus = false, lowercase = false, keep_escapes = false, iri = false))]
#[allow(clippy::too_many_arguments)] // The Python signature's keywords, one each.
pub(crate) fn arrow_kernel<'py>(
    data: &Bound<'py, PyAny>,
    op: &str,
    set: &str,
    mode: &str,
    space_as_plus: bool,
    lowercase: bool,
    keep_escapes: bool,
    iri: bool,
) -> PyResult<Bound<'py, PyTuple>> {
    let dec = || pctenc_arrow::decoder_for_mode(mode).map_err(PyValueError::new_err);
    let kernel = match op {
        "encode" => Kernel::Encode(encoder(set, space_as_plus, lowercase, keep_escapes, iri)?),
        "decode" => Kernel::Decode(dec()?),
        "try_decode" => Kernel::TryDecode(dec()?),
        "validate" => Kernel::Validate(encoder(set, space_as_plus, false, false, iri)?),
        "normalize" => Kernel::Normalize,
        "url_encode" => Kernel::UrlEncode,
        "url_decode" => Kernel::UrlDecode,
        "try_url_decode" => Kernel::TryUrlDecode,
        other => return Err(PyValueError::new_err(format!("no Arrow kernel {other:?}"))),
    };
    apply(data, op, kernel)
}
