//! Arrow plumbing: turning the rows' outputs back into an array of the input's kind (offsets
//! checked against the kind's range, nulls merged, views rebuilt).

use std::sync::Arc;

use arrow_array::builder::make_view;
use arrow_array::types::{BinaryViewType, ByteViewType, StringViewType};
use arrow_array::{
    Array, ArrayRef, BinaryViewArray, GenericBinaryArray, GenericByteViewArray, GenericStringArray,
    OffsetSizeTrait, StringViewArray,
};
use arrow_buffer::{BooleanBufferBuilder, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::DataType;

use crate::error::KernelError;
use crate::memory;
use crate::row::{OnError, RowOp};
use crate::schedule::{run_all, too_large};
use crate::utf8::{check_utf8, ends_at};

/// The offsets of rows of lengths `lens`, checked against `O`'s range.
pub(crate) fn offsets<O: OffsetSizeTrait>(lens: &[usize]) -> Result<OffsetBuffer<O>, KernelError> {
    let mut out = memory::room_for(lens.len() + 1)?;
    let mut at = 0usize;
    out.push(O::usize_as(0));
    for &len in lens {
        at += len;
        out.push(O::from_usize(at).ok_or_else(|| too_large(lens.iter().sum()))?);
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
    let mut bounds = memory::room_for(offs.len())?;
    bounds.extend(offs.iter().map(|o| o.as_usize()));
    let is_valid = |i: usize| nulls.is_none_or(|n| n.is_valid(i));
    let limit = if O::IS_LARGE { i64::MAX as usize } else { i32::MAX as usize };
    let piece = run_all(op, values, &bounds, &is_valid, on_error, limit)?;
    let offsets = offsets::<O>(&piece.lens)?;
    Ok((offsets, Buffer::from_vec(piece.bytes), null_buffer(nulls, piece.valid)))
}

/// Applies `op` to a view array. The rows' bytes are gathered into one buffer, so that the
/// offset-based driver (chunks, parallelism, sizing) does the work; the output stays in the
/// buffer the driver wrote, and each row gets a view of it ([`views`]).
pub(crate) fn apply_views<T: ByteViewType>(
    op: &dyn RowOp,
    array: &GenericByteViewArray<T>,
    on_error: OnError,
) -> Result<ArrayRef, KernelError> {
    // Sized first (a view's low 32 bits are its length), so that a large gather asks for
    // huge pages as the output does: most of its cost is faulting in fresh memory.
    let valid = |i: usize| array.is_valid(i);
    let total: usize =
        array.views().iter().enumerate().filter(|&(i, _)| valid(i)).map(|(_, &v)| v as u32 as usize).sum();
    let mut values = memory::zeroed(total)?;
    let mut bounds = memory::room_for(array.len() + 1)?;
    bounds.push(0);
    let mut at = 0;
    for i in 0..array.len() {
        if valid(i) {
            let v: &[u8] = array.value(i).as_ref();
            values[at..at + v.len()].copy_from_slice(v);
            at += v.len();
        }
        bounds.push(at);
    }
    let nulls = array.nulls();
    let is_valid = |i: usize| nulls.is_none_or(|n| n.is_valid(i));
    let piece = run_all(op, &values, &bounds, &is_valid, on_error, usize::MAX)?;
    drop(values);
    let nulls = null_buffer(nulls, piece.valid);
    if T::IS_UTF8 {
        let offsets = offsets::<i64>(&piece.lens)?;
        if op.output_is_utf8() {
            ends_at(&piece.bytes, &offsets)?;
        } else {
            check_utf8(&piece.bytes, &offsets)?;
        }
    }
    let (views, blocks) = views(piece.bytes, &piece.lens, |i| nulls.as_ref().is_none_or(|n| n.is_valid(i)))?;
    if nulls.as_ref().is_some_and(|n| n.len() != views.len()) {
        return Err(KernelError::whole("null buffer of the wrong length"));
    }
    if T::IS_UTF8 {
        // SAFETY: `StringViewArray::try_new` would not fail (its checks, done here in one
        // parallel pass rather than again by Arrow, row by row): every view comes from
        // `make_view` of a row's bytes at its offset in its block (`views`), every row is
        // UTF-8 (`check_utf8` over the rows' offsets, or the op's output always is:
        // `output_is_utf8`), and the null buffer has one bit per view.
        let out = unsafe { GenericByteViewArray::<T>::new_unchecked(views, blocks, nulls) };
        Ok(Arc::new(out))
    } else {
        Ok(Arc::new(GenericByteViewArray::<T>::try_new(views, blocks, nulls)?))
    }
}

/// Views of the rows `bytes` holds one after another (row `i` is `lens[i]` bytes; a row that
/// is not `valid` gets the empty view), and the blocks they point into. The bytes stay where
/// the kernel wrote them: the blocks are slices of one buffer, cut at rows so that none is
/// over `u32::MAX` bytes (a view's offset is 32 bits), where a view builder would copy each
/// value again.
fn views(
    bytes: Vec<u8>,
    lens: &[usize],
    valid: impl Fn(usize) -> bool,
) -> Result<(ScalarBuffer<u128>, Vec<Buffer>), KernelError> {
    views_in_blocks(bytes, lens, valid, u32::MAX as usize)
}

/// [`views`] with blocks of at most `max` bytes (a test gives a small one).
fn views_in_blocks(
    bytes: Vec<u8>,
    lens: &[usize],
    valid: impl Fn(usize) -> bool,
    max: usize,
) -> Result<(ScalarBuffer<u128>, Vec<Buffer>), KernelError> {
    let whole = Buffer::from_vec(bytes);
    let mut views = memory::room_for(lens.len())?;
    let mut blocks = Vec::new();
    let (mut start, mut at) = (0, 0);
    for (i, &len) in lens.iter().enumerate() {
        if len > max {
            return Err(KernelError::at(i, 0, "value over 4 GiB, too long for a view array"));
        }
        if at + len - start > max {
            blocks.push(whole.slice_with_length(start, at - start));
            start = at;
        }
        let view = if valid(i) {
            make_view(&whole[at..at + len], blocks.len() as u32, (at - start) as u32)
        } else {
            0
        };
        views.push(view);
        at += len;
    }
    blocks.push(if start == 0 { whole } else { whole.slice_with_length(start, at - start) });
    Ok((views.into(), blocks))
}

/// Whether `dt` is one of the six kinds the kernels take.
pub(crate) fn is_kind(dt: &DataType) -> bool {
    matches!(
        dt,
        DataType::Utf8
            | DataType::LargeUtf8
            | DataType::Utf8View
            | DataType::Binary
            | DataType::LargeBinary
            | DataType::BinaryView
    )
}

/// Applies `op` to any of the six kinds, giving the same kind (a dictionary of one is
/// `dictionary.rs`'s, over this).
pub(crate) fn apply(array: &dyn Array, op: &dyn RowOp, on_error: OnError) -> Result<ArrayRef, KernelError> {
    if array.is_empty() {
        // No row, so nothing to read: a fresh empty array, whose buffers the rest can trust.
        // (An empty slice at an offset, imported through the C data interface, may come with
        // a values buffer cut to nothing under offsets that point past it.)
        return apply_rows(arrow_array::new_empty_array(array.data_type()).as_ref(), op, on_error);
    }
    apply_rows(array, op, on_error)
}

/// [`apply`] of an array with rows, or a fresh empty one.
fn apply_rows(array: &dyn Array, op: &dyn RowOp, on_error: OnError) -> Result<ArrayRef, KernelError> {
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
            "expected a string or binary array (Utf8, LargeUtf8, Utf8View, Binary, LargeBinary, BinaryView), \
             or a dictionary of one, got {other}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows cut into several blocks read back as they were: each view points into the block
    /// that holds its row, long rows and inline ones (12 bytes or fewer) alike, and a null row
    /// is the empty view.
    #[test]
    fn views_across_blocks() {
        let rows: [&[u8]; 7] =
            [b"a long row of text", b"short", b"", b"another long row", b"x", b"thirteen byte", b"null"];
        let bytes: Vec<u8> = rows.concat();
        let lens: Vec<usize> = rows.iter().map(|r| r.len()).collect();
        let valid = |i: usize| i != 6;
        for max in [20, 24, 40, 1 << 20] {
            let (views, blocks) = views_in_blocks(bytes.clone(), &lens, valid, max).unwrap();
            assert!(blocks.iter().all(|b| b.len() <= max), "max {max}");
            let nulls = NullBuffer::from((0..rows.len()).map(valid).collect::<Vec<_>>());
            let array = BinaryViewArray::try_new(views, blocks, Some(nulls)).unwrap();
            for (i, row) in rows.iter().enumerate() {
                assert_eq!(array.is_valid(i), valid(i));
                if valid(i) {
                    assert_eq!(array.value(i), *row, "row {i}, max {max}");
                }
            }
        }
        let err = views_in_blocks(vec![0; 30], &[10, 30], |_| true, 20).unwrap_err();
        assert_eq!(err.row(), Some(1));
    }
}
