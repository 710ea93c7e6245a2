//! pctenc's percent-encoding over whole Apache Arrow arrays: columnar kernels for any
//! program that holds Arrow data (a Parquet pipeline, a query engine, a Python dataframe
//! through the Arrow C interfaces), with nothing of a query engine around them.
//!
//! Encoding or decoding a column a row at a time costs a call, an allocation and a copy per
//! row. These kernels take the column whole: one output buffer sized once, the rows cut into
//! chunks that run on the rayon pool when the column is large, and an error that names the
//! row and the byte offset. `pctenc-datafusion` registers them as SQL functions; the Python
//! package's `pctenc.arrow` calls them on pyarrow, Polars and DuckDB data.
//!
//! Every kernel takes any of the six byte-array kinds (`Utf8`, `LargeUtf8`, `Utf8View`,
//! `Binary`, `LargeBinary`, `BinaryView`) and returns an array of the same kind (a
//! [`BooleanArray`] for [`validate`]). A dictionary array of one of them (Parquet's
//! dictionary columns, categoricals) is transformed once per dictionary value: plain
//! encoding, which never gives two values one output, keeps the dictionary, and the other
//! kernels give the plain array of the value kind. Nulls stay null. An element that cannot be decoded
//! fails the call with a [`KernelError`] naming its row and byte offset, or becomes null in
//! the `try_` kernels.
//!
//! The output is written into one buffer, sized once for the whole array (exactly for plain
//! encoding and pctenc's strict decoding), and the offsets are rebuilt: no allocation per row
//! (a chunk of rows that outgrows its part of the buffer, through lossy replacements, gets a
//! buffer of its own, gathered after). The output of `Utf8` and `LargeUtf8` is checked as
//! UTF-8 once, in parallel, rather than again by Arrow. Rows never interact: an escape or a
//! UTF-8 sequence never spans two rows (a `%` at the end of a row is truncated there,
//! whatever the next row holds). Where that changes nothing, a whole chunk of values is
//! transformed in one call: plain encoding (no re-quoting, no IRI set) treats each byte on
//! its own, so it measures the rows (a count of their escapes) and encodes the values;
//! strict decoding decodes the values when no `%` sits in a row's last two bytes and each
//! row's output starts at a character boundary, and goes row by row otherwise (or when a row
//! fails, to name it). Above [`PAR_THRESHOLD`] bytes of values the rows are cut into chunks
//! of about equal size that run on the rayon pool.
//!
//! Spark's `url_encode`, `url_decode` and `try_url_decode` are kernels too ([`url_encode`],
//! [`url_decode`], [`try_url_decode`]), with `java.net.URLDecoder`'s rules in [`spark`].
//!
//! The crate depends on Arrow's array, buffer and schema crates only, not on `arrow` with
//! its compute kernels.
//!
//! ```
//! use arrow_array::{Array, StringArray};
//! use pctenc::{sets, Decoder, Encoder};
//!
//! let paths = StringArray::from(vec![Some("/a b"), None, Some("/café")]);
//! let encoded = pctenc_arrow::encode(&paths, &Encoder::new(sets::COMPONENT)).unwrap();
//! let encoded = encoded.as_any().downcast_ref::<StringArray>().unwrap();
//! assert_eq!(encoded.value(0), "%2Fa%20b");
//! assert!(encoded.is_null(1));
//! assert_eq!(encoded.value(2), "%2Fcaf%C3%A9");
//!
//! let bad = StringArray::from(vec!["ok", "100%"]);
//! let err = pctenc_arrow::decode(&bad, &Decoder::new()).unwrap_err();
//! assert_eq!((err.row(), err.offset()), (Some(1), Some(3)));
//! let nulls = pctenc_arrow::try_decode(&bad, &Decoder::new()).unwrap();
//! assert!(nulls.is_valid(0) && nulls.is_null(1));
//! ```

mod arrays;
mod dictionary;
mod error;
mod layout;
mod memory;
mod mode;
mod ops;
mod row;
mod schedule;
pub mod spark;
mod utf8;

use arrow_array::{
    Array, ArrayRef, BinaryViewArray, BooleanArray, GenericBinaryArray, GenericStringArray, StringViewArray,
};
use arrow_schema::DataType;
use pctenc::{Decoder, Encoder};
use rayon::prelude::*;

use crate::arrays::{apply, is_kind};
use crate::dictionary::{apply_dictionary, validate_dictionary};
pub use crate::error::KernelError;
pub use crate::layout::check_layout;
pub use crate::mode::decoder_for_mode;
use crate::ops::decode::{DecodeOp, decoder_for};
use crate::ops::encode::encode_op;
use crate::ops::normalize::NormalizeOp;
use crate::ops::spark::{UrlDecodeOp, UrlEncodeOp};
use crate::row::OnError;
use crate::row::RowOp;
pub use crate::schedule::PAR_THRESHOLD;
use crate::utf8::is_utf8;

/// Encodes every element with `enc`. Encoding never fails on the content; the error is for
/// an output too large for the array kind's offsets, or an input that is not one of the six
/// kinds.
///
/// ```
/// use arrow_array::{Array, BinaryArray};
/// use pctenc::{sets, Encoder};
///
/// let raw = BinaryArray::from_vec(vec![b"a\xFF", b"+"]);
/// let out = pctenc_arrow::encode(&raw, &Encoder::new(sets::FORM)).unwrap();
/// let out = out.as_any().downcast_ref::<BinaryArray>().unwrap();
/// assert_eq!((out.value(0), out.value(1)), (&b"a%FF"[..], &b"%2B"[..]));
/// ```
pub fn encode(array: &dyn Array, enc: &Encoder) -> Result<ArrayRef, KernelError> {
    run(array, &encode_op(enc), OnError::Fail)
}

/// Decodes every element with `dec`. For the string kinds the output must be UTF-8: a
/// decoder in [`Utf8Mode::Bytes`](pctenc::Utf8Mode::Bytes) works as in
/// [`Utf8Mode::Strict`](pctenc::Utf8Mode::Strict) there (use a binary kind for raw bytes, or
/// [`Utf8Mode::Lossy`](pctenc::Utf8Mode::Lossy)).
///
/// # Errors
///
/// The first element that does not decode, by row and byte offset (the decoder's
/// [`DecodeError`](pctenc::DecodeError)); an input that is not one of the six kinds.
///
/// ```
/// use arrow_array::{Array, LargeStringArray};
/// use pctenc::Decoder;
///
/// let query = LargeStringArray::from(vec!["q=caf%C3%A9+cr%C3%A8me", "page=2"]);
/// let out = pctenc_arrow::decode(&query, &Decoder::FORM).unwrap();
/// let out = out.as_any().downcast_ref::<LargeStringArray>().unwrap();
/// assert_eq!(out.value(0), "q=café crème");
///
/// let err = pctenc_arrow::decode(&LargeStringArray::from(vec!["ok", "%zz"]), &Decoder::new()).unwrap_err();
/// assert_eq!((err.row(), err.offset()), (Some(1), Some(0)));
/// ```
pub fn decode(array: &dyn Array, dec: &Decoder) -> Result<ArrayRef, KernelError> {
    run(array, &DecodeOp { dec: decoder_for(array.data_type(), dec) }, OnError::Fail)
}

/// [`decode`], with null for each element that does not decode.
///
/// ```
/// use arrow_array::{Array, StringViewArray};
/// use pctenc::Decoder;
///
/// let values = StringViewArray::from(vec!["a%20b", "%E9", "c"]);
/// let out = pctenc_arrow::try_decode(&values, &Decoder::new()).unwrap();
/// assert_eq!((out.is_valid(0), out.is_null(1), out.is_valid(2)), (true, true, true));
/// ```
pub fn try_decode(array: &dyn Array, dec: &Decoder) -> Result<ArrayRef, KernelError> {
    run(array, &DecodeOp { dec: decoder_for(array.data_type(), dec) }, OnError::Null)
}

/// [`pctenc::normalize`] on every element: hex digits uppercased, escapes of unreserved
/// bytes decoded. Never fails on the content (the output of UTF-8 is UTF-8).
///
/// ```
/// use arrow_array::{Array, StringArray};
///
/// let out = pctenc_arrow::normalize(&StringArray::from(vec!["%7euser/%c3%a9"])).unwrap();
/// let out = out.as_any().downcast_ref::<StringArray>().unwrap();
/// assert_eq!(out.value(0), "~user/%C3%A9");
/// ```
pub fn normalize(array: &dyn Array) -> Result<ArrayRef, KernelError> {
    run(array, &NormalizeOp, OnError::Fail)
}

/// Whether each element is a correct encoding for `enc`'s set ([`Encoder::validate`]); null
/// stays null.
///
/// ```
/// use arrow_array::{Array, StringArray};
/// use pctenc::{sets, Encoder};
///
/// let values = StringArray::from(vec![Some("a%20b"), Some("a b"), None]);
/// let ok = pctenc_arrow::validate(&values, &Encoder::new(sets::COMPONENT)).unwrap();
/// assert_eq!((ok.value(0), ok.value(1), ok.is_null(2)), (true, false, true));
/// ```
pub fn validate(array: &dyn Array, enc: &Encoder) -> Result<BooleanArray, KernelError> {
    macro_rules! each {
        ($arr:ty) => {{
            let a = array.as_any().downcast_ref::<$arr>().expect("kind checked");
            // A null row's value is never read: its offsets or view may point anywhere.
            let check = |i: usize| {
                a.is_valid(i) && {
                    let v: &[u8] = a.value(i).as_ref();
                    enc.validate(v).is_ok()
                }
            };
            let bits: Vec<bool> = if a.len() >= 4096 && a.get_buffer_memory_size() >= PAR_THRESHOLD {
                (0..a.len()).into_par_iter().map(check).collect()
            } else {
                (0..a.len()).map(check).collect()
            };
            Ok(BooleanArray::new(bits.into(), a.nulls().cloned()))
        }};
    }
    match array.data_type() {
        DataType::Utf8 => each!(GenericStringArray<i32>),
        DataType::LargeUtf8 => each!(GenericStringArray<i64>),
        DataType::Binary => each!(GenericBinaryArray<i32>),
        DataType::LargeBinary => each!(GenericBinaryArray<i64>),
        DataType::Utf8View => each!(StringViewArray),
        DataType::BinaryView => each!(BinaryViewArray),
        DataType::Dictionary(_, values) if is_kind(values) => {
            validate_dictionary(array, |v| validate(v, enc))
        }
        other => Err(KernelError::whole(format!("expected a string or binary array, got {other}"))),
    }
}

/// Spark's `url_encode`: `java.net.URLEncoder.encode(s, UTF_8)`, which is pctenc's `form`
/// set (`A-Za-z0-9.-*_` kept, space as `+`, the rest as uppercase `%HH` of its UTF-8). A
/// binary value is the string Spark casts it to ([`crate::spark::java_string`]: malformed
/// UTF-8 as U+FFFD), so `X'FF'` gives `%EF%BF%BD`.
///
/// ```
/// use arrow_array::{Array, StringArray};
///
/// let out = pctenc_arrow::url_encode(&StringArray::from(vec!["Jürgen & Björk ~*"])).unwrap();
/// let out = out.as_any().downcast_ref::<StringArray>().unwrap();
/// assert_eq!(out.value(0), "J%C3%BCrgen+%26+Bj%C3%B6rk+%7E*");
/// ```
pub fn url_encode(array: &dyn Array) -> Result<ArrayRef, KernelError> {
    run(array, &UrlEncodeOp { binary: !is_utf8(array.data_type()) }, OnError::Fail)
}

/// Spark's `url_decode`: `java.net.URLDecoder.decode(s, UTF_8)` byte for byte, quirks
/// included (see [`crate::spark`]; a binary value is the string Spark casts it to). A
/// malformed escape fails the call with Spark's `CANNOT_DECODE_URL` message, the row and the
/// offset of its `%`.
///
/// ```
/// use arrow_array::{Array, StringArray};
///
/// let out = pctenc_arrow::url_decode(&StringArray::from(vec!["a+b%26c"])).unwrap();
/// let out = out.as_any().downcast_ref::<StringArray>().unwrap();
/// assert_eq!(out.value(0), "a b&c");
///
/// let err = pctenc_arrow::url_decode(&StringArray::from(vec!["ok", "100%"])).unwrap_err();
/// assert_eq!((err.row(), err.offset()), (Some(1), Some(3)));
/// assert!(err.message().starts_with("[CANNOT_DECODE_URL]"));
/// ```
pub fn url_decode(array: &dyn Array) -> Result<ArrayRef, KernelError> {
    run(array, &UrlDecodeOp { binary: !is_utf8(array.data_type()) }, OnError::Fail)
}

/// Spark's `try_url_decode`: [`url_decode`] with null where it fails.
///
/// ```
/// use arrow_array::{Array, BinaryArray};
///
/// let out = pctenc_arrow::try_url_decode(&BinaryArray::from_vec(vec![b"a+b", b"%G0"])).unwrap();
/// assert_eq!((out.is_valid(0), out.is_null(1)), (true, true));
/// ```
pub fn try_url_decode(array: &dyn Array) -> Result<ArrayRef, KernelError> {
    run(array, &UrlDecodeOp { binary: !is_utf8(array.data_type()) }, OnError::Null)
}

/// Whether the kernels take arrays of type `dt`: one of the six string and binary kinds, or
/// a dictionary of one (what a caller checks before handing over a column).
///
/// ```
/// use arrow_schema::DataType;
///
/// assert!(pctenc_arrow::takes(&DataType::Utf8View));
/// assert!(pctenc_arrow::takes(&DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Binary))));
/// assert!(!pctenc_arrow::takes(&DataType::Int64));
/// ```
pub fn takes(dt: &DataType) -> bool {
    match dt {
        DataType::Dictionary(_, values) => is_kind(values),
        other => is_kind(other),
    }
}

/// Runs `op` over an array of the six kinds, or a dictionary of one.
fn run(array: &dyn Array, op: &dyn RowOp, on_error: OnError) -> Result<ArrayRef, KernelError> {
    match array.data_type() {
        DataType::Dictionary(_, values) if is_kind(values) => apply_dictionary(array, op, on_error),
        _ => apply(array, op, on_error),
    }
}

/// The README's examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
