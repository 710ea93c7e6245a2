//! Dictionary arrays: Parquet's dictionary-encoded columns, pandas' and Polars' categoricals,
//! DuckDB's `ENUM`. Such a column holds each distinct value once and a key per row, so a
//! kernel runs on the dictionary's values, once each, and the keys say which result each
//! row gets.
//!
//! Whether the result stays a dictionary depends on the operation. One whose distinct
//! inputs always give distinct outputs ([`RowOp::injective`]: plain encoding with a set that
//! escapes `%`) keeps the keys and gets a dictionary of the results, as unique as the input's
//! were. Any other (decoding: `%41` and `A` both give `A`; normalization; re-quoting) could
//! give two keys the same value, which a categorical type does not allow, so the result is
//! the plain array of the value kind, gathered by the keys.
//!
//! A value that fails fails the call only if a row uses it: the error names that row (an
//! unused dictionary entry is no row's value), and in the `try_` kernels each row that uses
//! it is null.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    ArrowDictionaryKeyType, ByteArrayType, ByteViewType, GenericBinaryType, GenericStringType,
};
use arrow_array::types::{BinaryViewType, StringViewType};
use arrow_array::{
    Array, ArrayRef, BooleanArray, DictionaryArray, GenericByteArray, GenericByteViewArray, OffsetSizeTrait,
    PrimitiveArray, downcast_dictionary_array,
};
use arrow_buffer::{ArrowNativeType, Buffer, NullBuffer, ScalarBuffer};
use arrow_schema::DataType;

use crate::arrays::{apply, offsets};
use crate::error::KernelError;
use crate::memory::{out_of_memory, room_for};
use crate::row::{OnError, RowOp};

/// Applies `op` to a dictionary array of one of the six kinds: to its values, once each.
pub(crate) fn apply_dictionary(
    array: &dyn Array,
    op: &dyn RowOp,
    on_error: OnError,
) -> Result<ArrayRef, KernelError> {
    downcast_dictionary_array!(
        array => dictionary(array, op, on_error),
        other => Err(KernelError::whole(format!("expected a dictionary array, got {other}")))
    )
}

fn dictionary<K: ArrowDictionaryKeyType>(
    dict: &DictionaryArray<K>,
    op: &dyn RowOp,
    on_error: OnError,
) -> Result<ArrayRef, KernelError> {
    check_keys(dict)?;
    let values = dict.values();
    // Each distinct value once; one that fails is null here, and fails the call below only if
    // a row uses it.
    let out = apply(values.as_ref(), op, OnError::Null)?;
    if on_error == OnError::Fail {
        failing_row(dict, &out, |key| apply(values.slice(key, 1).as_ref(), op, OnError::Fail).err())?;
    }
    if op.injective() {
        return Ok(Arc::new(DictionaryArray::<K>::try_new(dict.keys().clone(), out)?));
    }
    gather(dict.keys(), &out)
}

/// The first row whose value failed (null in `out`, valid in the dictionary): its error,
/// which `error_of` gives for the value's index, with the row in place of that index.
fn failing_row<K: ArrowDictionaryKeyType>(
    dict: &DictionaryArray<K>,
    out: &ArrayRef,
    error_of: impl Fn(usize) -> Option<KernelError>,
) -> Result<(), KernelError> {
    let values = dict.values();
    if out.null_count() == values.null_count() {
        return Ok(()); // no value failed
    }
    let keys = dict.keys();
    for row in 0..keys.len() {
        if keys.is_null(row) {
            continue;
        }
        let key = keys.value(row).as_usize();
        if values.is_valid(key) && out.is_null(key) {
            let err = error_of(key).unwrap_or_else(|| KernelError::whole("a dictionary value failed"));
            return Err(err.map_row(|_| row));
        }
    }
    Ok(())
}

/// Checks that every key that is not null names one of the values (as
/// `DictionaryArray::try_new` does; data that came through the C data interface was not).
fn check_keys<K: ArrowDictionaryKeyType>(dict: &DictionaryArray<K>) -> Result<(), KernelError> {
    let (keys, len) = (dict.keys(), dict.values().len());
    match (0..keys.len())
        .find(|&row| keys.is_valid(row) && keys.value(row).to_usize().is_none_or(|k| k >= len))
    {
        Some(row) => Err(KernelError::in_row(row, format!("dictionary key out of range (of {len} values)"))),
        None => Ok(()),
    }
}

/// Which of a dictionary's values each row has: `None` for a null key, else the value's index.
fn slots<K: ArrowDictionaryKeyType>(keys: &PrimitiveArray<K>) -> impl Iterator<Item = Option<usize>> + '_ {
    (0..keys.len()).map(|row| keys.is_valid(row).then(|| keys.value(row).as_usize()))
}

/// The plain array of `out`'s kind whose row `i` is `out`'s value at key `i` (null where the
/// key or that value is null).
fn gather<K: ArrowDictionaryKeyType>(
    keys: &PrimitiveArray<K>,
    out: &ArrayRef,
) -> Result<ArrayRef, KernelError> {
    match out.data_type() {
        DataType::Utf8 => gather_bytes::<K, GenericStringType<i32>>(keys, out.as_string::<i32>()),
        DataType::LargeUtf8 => gather_bytes::<K, GenericStringType<i64>>(keys, out.as_string::<i64>()),
        DataType::Binary => gather_bytes::<K, GenericBinaryType<i32>>(keys, out.as_binary::<i32>()),
        DataType::LargeBinary => gather_bytes::<K, GenericBinaryType<i64>>(keys, out.as_binary::<i64>()),
        DataType::Utf8View => gather_views::<K, StringViewType>(keys, out.as_string_view()),
        DataType::BinaryView => gather_views::<K, BinaryViewType>(keys, out.as_binary_view()),
        DataType::Boolean => {
            let out = out.as_boolean();
            let bits: BooleanArray =
                slots(keys).map(|slot| slot.filter(|&k| out.is_valid(k)).map(|k| out.value(k))).collect();
            Ok(Arc::new(bits))
        }
        other => Err(KernelError::whole(format!("no gather of {other}"))),
    }
}

fn nulls_of<K: ArrowDictionaryKeyType>(
    keys: &PrimitiveArray<K>,
    out: &dyn Array,
) -> Result<Option<NullBuffer>, KernelError> {
    let mut valid = room_for(keys.len())?;
    valid.extend(slots(keys).map(|slot| slot.is_some_and(|k| out.is_valid(k))));
    let nulls = NullBuffer::from(valid);
    Ok((nulls.null_count() > 0).then_some(nulls))
}

/// [`gather`] for the offset kinds: the values copied row by row, the offsets checked
/// against the kind's range (many rows sharing a long value can outgrow 32-bit offsets).
fn gather_bytes<K, T>(keys: &PrimitiveArray<K>, out: &GenericByteArray<T>) -> Result<ArrayRef, KernelError>
where
    K: ArrowDictionaryKeyType,
    T: ByteArrayType,
    T::Offset: OffsetSizeTrait,
{
    let nulls = nulls_of(keys, out)?;
    let valid = |row: usize| nulls.as_ref().is_none_or(|n| n.is_valid(row));
    let value = |k: usize| -> &[u8] { out.value(k).as_ref() };
    let mut lens = room_for(keys.len())?;
    lens.extend(
        slots(keys).enumerate().map(|(row, slot)| slot.filter(|_| valid(row)).map_or(0, |k| value(k).len())),
    );
    let offsets = offsets::<T::Offset>(&lens)?;
    let total = offsets[offsets.len() - 1].as_usize();
    let mut bytes = Vec::new();
    bytes.try_reserve_exact(total).map_err(|_| out_of_memory(total))?;
    for (row, slot) in slots(keys).enumerate() {
        if let Some(k) = slot.filter(|_| valid(row)) {
            bytes.extend_from_slice(value(k));
        }
    }
    Ok(Arc::new(GenericByteArray::<T>::try_new(offsets, Buffer::from_vec(bytes), nulls)?))
}

/// [`gather`] for the view kinds: each row takes its value's view, which points into `out`'s
/// buffers, so no value is copied.
fn gather_views<K, T>(
    keys: &PrimitiveArray<K>,
    out: &GenericByteViewArray<T>,
) -> Result<ArrayRef, KernelError>
where
    K: ArrowDictionaryKeyType,
    T: ByteViewType + ?Sized,
{
    let nulls = nulls_of(keys, out)?;
    let mut views: Vec<u128> = room_for(keys.len())?;
    views.extend(slots(keys).enumerate().map(|(row, slot)| match slot {
        Some(k) if nulls.as_ref().is_none_or(|n| n.is_valid(row)) => out.views()[k],
        _ => 0,
    }));
    let array =
        GenericByteViewArray::<T>::try_new(ScalarBuffer::from(views), out.data_buffers().to_vec(), nulls)?;
    Ok(Arc::new(array))
}

/// [`crate::validate`] of a dictionary array: each value checked once, the answers gathered.
pub(crate) fn validate_dictionary(
    array: &dyn Array,
    check: impl Fn(&dyn Array) -> Result<BooleanArray, KernelError>,
) -> Result<BooleanArray, KernelError> {
    downcast_dictionary_array!(
        array => {
            check_keys(array)?;
            let answers: ArrayRef = Arc::new(check(array.values().as_ref())?);
            let out = gather(array.keys(), &answers)?;
            Ok(out.as_boolean().clone())
        },
        other => Err(KernelError::whole(format!("expected a dictionary array, got {other}")))
    )
}
