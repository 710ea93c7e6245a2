//! Arrow plumbing: turning the rows' outputs back into an array of the input's kind (offsets
//! checked against the kind's range, nulls merged, views rebuilt).

use std::sync::Arc;

use arrow_array::types::{BinaryViewType, ByteViewType, StringViewType};
use arrow_array::{
    Array, ArrayRef, BinaryViewArray, GenericBinaryArray, GenericByteViewArray, GenericStringArray,
    OffsetSizeTrait, StringViewArray,
};
use arrow_buffer::{BooleanBufferBuilder, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::DataType;

use crate::error::KernelError;
use crate::row::{OnError, RowOp};
use crate::schedule::run_all;
use crate::utf8::{NOT_UTF8, check_utf8, ends_at};

/// The offsets of rows of lengths `lens`, checked against `O`'s range.
pub(crate) fn offsets<O: OffsetSizeTrait>(lens: &[usize]) -> Result<OffsetBuffer<O>, KernelError> {
    let mut out = Vec::with_capacity(lens.len() + 1);
    let mut at = 0usize;
    out.push(O::usize_as(0));
    for &len in lens {
        at += len;
        out.push(O::from_usize(at).ok_or_else(|| {
            KernelError::whole(format!(
                "output of {at} bytes too large for {}-bit offsets: use the Large or View kind",
                if O::IS_LARGE { 64 } else { 32 }
            ))
        })?);
    }
    Ok(OffsetBuffer::new(ScalarBuffer::from(out)))
}

pub(crate) fn null_buffer(input: Option<&NullBuffer>, valid: Option<Vec<bool>>) -> Option<NullBuffer> {
    match valid {
        None => input.cloned(),
        Some(v) => {
            let mut b = BooleanBufferBuilder::new(v.len());
            b.append_slice(&v);
            Some(NullBuffer::new(b.finish()))
        }
    }
}

/// Applies `op` to an offset-based array (string when `utf8`): values, offsets and nulls.
pub(crate) fn apply_offsets<O: OffsetSizeTrait>(
    op: &dyn RowOp,
    values: &[u8],
    offs: &OffsetBuffer<O>,
    nulls: Option<&NullBuffer>,
    on_error: OnError,
) -> Result<(OffsetBuffer<O>, Buffer, Option<NullBuffer>), KernelError> {
    let bounds: Vec<usize> = offs.iter().map(|o| o.as_usize()).collect();
    let is_valid = |i: usize| nulls.is_none_or(|n| n.is_valid(i));
    let piece = run_all(op, values, &bounds, &is_valid, on_error)?;
    let offsets = offsets::<O>(&piece.lens)?;
    Ok((offsets, Buffer::from_vec(piece.bytes), null_buffer(nulls, piece.valid)))
}

/// Applies `op` to a view array: rows through one scratch buffer into a view builder.
pub(crate) fn apply_views<T: ByteViewType>(
    op: &dyn RowOp,
    array: &GenericByteViewArray<T>,
    on_error: OnError,
) -> Result<ArrayRef, KernelError> {
    // Gather the rows' bounds over one contiguous copy of their bytes, so that the
    // offset-based driver (chunks, parallelism, sizing) does the work.
    let mut values = Vec::new();
    let mut bounds = Vec::with_capacity(array.len() + 1);
    bounds.push(0);
    for i in 0..array.len() {
        if array.is_valid(i) {
            let v: &[u8] = array.value(i).as_ref();
            values.extend_from_slice(v);
        }
        bounds.push(values.len());
    }
    let nulls = array.nulls();
    let is_valid = |i: usize| nulls.is_none_or(|n| n.is_valid(i));
    let piece = run_all(op, &values, &bounds, &is_valid, on_error)?;
    let nulls = null_buffer(nulls, piece.valid);
    let (all, nulls) = (&piece.bytes[..], &nulls);
    let rows = || {
        let mut at = 0;
        piece.lens.iter().enumerate().map(move |(i, &len)| {
            let bytes = &all[at..at + len];
            at += len;
            (i, nulls.as_ref().is_none_or(|n| n.is_valid(i)).then_some(bytes))
        })
    };
    if T::IS_UTF8 {
        let mut out = arrow_array::builder::StringViewBuilder::with_capacity(array.len());
        for (i, row) in rows() {
            match row {
                None => out.append_null(),
                Some(bytes) => out.append_value(
                    std::str::from_utf8(bytes).map_err(|e| KernelError::at(i, e.valid_up_to(), NOT_UTF8))?,
                ),
            }
        }
        Ok(Arc::new(out.finish()))
    } else {
        let mut out = arrow_array::builder::BinaryViewBuilder::with_capacity(array.len());
        for (_, row) in rows() {
            match row {
                None => out.append_null(),
                Some(bytes) => out.append_value(bytes),
            }
        }
        Ok(Arc::new(out.finish()))
    }
}

/// Applies `op` to any of the six kinds, giving the same kind.
pub(crate) fn apply(array: &dyn Array, op: &dyn RowOp, on_error: OnError) -> Result<ArrayRef, KernelError> {
    macro_rules! offsets_kind {
        ($arr:ty, $utf8:expr) => {{
            let a = array.as_any().downcast_ref::<$arr>().expect("kind checked");
            let (offsets, values, nulls) = apply_offsets(op, a.values(), a.offsets(), a.nulls(), on_error)?;
            if $utf8 {
                if op.output_is_utf8() {
                    // The UTF-8 check's other half; the rows' UTF-8, in tests.
                    ends_at(&values, &offsets)?;
                    debug_assert!(check_utf8(&values, &offsets).is_ok(), "output_is_utf8 but not UTF-8");
                } else {
                    check_utf8(&values, &offsets)?;
                }
                if nulls.as_ref().is_some_and(|n| n.len() != offsets.len() - 1) {
                    return Err(KernelError::whole("null buffer of the wrong length"));
                }
                // SAFETY: `GenericStringArray::try_new` would not fail (its checks, done here
                // in one parallel pass rather than again by Arrow): `offsets` is an
                // `OffsetBuffer` (non-negative, increasing) whose last offset is the length
                // of `values` (`ends_at`, in `check_utf8` too), every row is UTF-8
                // (`check_utf8`, or the op's output always is: `output_is_utf8`), and the
                // null buffer has one bit per row.
                let out = unsafe { GenericStringArray::new_unchecked(offsets, values, nulls) };
                Ok(Arc::new(out) as ArrayRef)
            } else {
                Ok(Arc::new(GenericBinaryArray::try_new(offsets, values, nulls)?) as ArrayRef)
            }
        }};
    }
    match array.data_type() {
        DataType::Utf8 => offsets_kind!(GenericStringArray<i32>, true),
        DataType::LargeUtf8 => offsets_kind!(GenericStringArray<i64>, true),
        DataType::Binary => offsets_kind!(GenericBinaryArray<i32>, false),
        DataType::LargeBinary => offsets_kind!(GenericBinaryArray<i64>, false),
        DataType::Utf8View => apply_views::<StringViewType>(
            op,
            array.as_any().downcast_ref::<StringViewArray>().expect("kind"),
            on_error,
        ),
        DataType::BinaryView => apply_views::<BinaryViewType>(
            op,
            array.as_any().downcast_ref::<BinaryViewArray>().expect("kind"),
            on_error,
        ),
        other => Err(KernelError::whole(format!(
            "expected a string or binary array (Utf8, LargeUtf8, Utf8View, Binary, LargeBinary, BinaryView), got {other}"
        ))),
    }
}
