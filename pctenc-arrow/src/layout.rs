//! The layout check of an array that came from outside Rust (the Arrow C data interface, an
//! IPC file read without validation): what the kernels read must lie inside the buffers.
//!
//! An array built in Rust through arrow-rs's safe constructors already holds these rules. One
//! imported from C is taken as it came: offsets that go backwards or past the values, a view
//! that points past its buffer or names a buffer that is not there, a dictionary key past
//! the dictionary, would make any reader, these kernels included, read outside the buffers.

use arrow_array::cast::AsArray;
use arrow_array::types::ByteViewType;
use arrow_array::{Array, GenericByteViewArray, OffsetSizeTrait, downcast_dictionary_array};
use arrow_buffer::ArrowNativeType;
use arrow_schema::DataType;

use crate::error::KernelError;

/// Checks that every offset, view and dictionary key of `array` (one of the six kinds or a
/// dictionary of one) stays inside its buffers, in one pass over the rows (no value is
/// read): call it on an array that came through the C data interface before a kernel, or
/// anything else, reads it. The error names the first bad row. Whether a string column's
/// values are UTF-8 is not checked here (that is not a matter of reading outside a buffer):
/// each kernel checks what it needs of it.
///
/// ```
/// use arrow_array::StringArray;
///
/// assert!(pctenc_arrow::check_layout(&StringArray::from(vec!["a", "b"])).is_ok());
/// ```
pub fn check_layout(array: &dyn Array) -> Result<(), KernelError> {
    if array.is_empty() {
        return Ok(()); // no row: nothing is read (the kernels start again from a fresh array)
    }
    if let Some(nulls) = array.nulls()
        && nulls.len() != array.len()
    {
        return Err(KernelError::whole("null buffer of the wrong length"));
    }
    match array.data_type() {
        DataType::Utf8 => {
            offsets::<i32>(array.as_string::<i32>().offsets(), array.as_string::<i32>().values().len())
        }
        DataType::LargeUtf8 => {
            offsets::<i64>(array.as_string::<i64>().offsets(), array.as_string::<i64>().values().len())
        }
        DataType::Binary => {
            offsets::<i32>(array.as_binary::<i32>().offsets(), array.as_binary::<i32>().values().len())
        }
        DataType::LargeBinary => {
            offsets::<i64>(array.as_binary::<i64>().offsets(), array.as_binary::<i64>().values().len())
        }
        DataType::Utf8View => views(array.as_string_view()),
        DataType::BinaryView => views(array.as_binary_view()),
        DataType::Dictionary(..) => downcast_dictionary_array!(
            array => {
                let keys = array.keys();
                let len = array.values().len();
                let bad = (0..keys.len())
                    .find(|&row| keys.is_valid(row) && keys.value(row).to_usize().is_none_or(|k| k >= len));
                if let Some(row) = bad {
                    return Err(KernelError::in_row(row, format!("dictionary key out of range (of {len} values)")));
                }
                check_layout(array.values().as_ref())
            },
            other => Err(KernelError::whole(format!("no layout check for {other}")))
        ),
        other => Err(KernelError::whole(format!("no layout check for {other}"))),
    }
}

/// Offsets that start at 0 or more, never go backwards, and end within the values.
fn offsets<O: OffsetSizeTrait>(offsets: &[O], values: usize) -> Result<(), KernelError> {
    let Some(first) = offsets.first() else { return Ok(()) }; // no row (an empty import)
    if first.to_usize().is_none() {
        return Err(KernelError::in_row(0, "negative offset"));
    }
    for (row, w) in offsets.windows(2).enumerate() {
        if w[1] < w[0] {
            return Err(KernelError::in_row(row, "offsets go backwards"));
        }
    }
    let last = offsets[offsets.len() - 1].as_usize();
    if last > values {
        let row = offsets.iter().position(|o| o.as_usize() > values).map_or(0, |i| i.saturating_sub(1));
        return Err(KernelError::in_row(row, format!("offset {last} past the values' {values} bytes")));
    }
    Ok(())
}

/// Views whose bytes lie in a buffer that exists (a view of more than 12 bytes names a
/// buffer, an offset and a length); a null row's view is never read.
fn views<T: ByteViewType + ?Sized>(array: &GenericByteViewArray<T>) -> Result<(), KernelError> {
    let lens: Vec<usize> = array.data_buffers().iter().map(|b| b.len()).collect();
    view_bounds(array.views(), &lens, |row| array.is_valid(row))
}

/// [`views`] of the views and the buffers' lengths.
fn view_bounds(views: &[u128], buffers: &[usize], valid: impl Fn(usize) -> bool) -> Result<(), KernelError> {
    for (row, &view) in views.iter().enumerate() {
        let len = view as u32 as usize;
        if len <= 12 || !valid(row) {
            continue;
        }
        let index = (view >> 64) as u32 as usize;
        let offset = (view >> 96) as u32 as usize;
        let Some(&buffer) = buffers.get(index) else {
            return Err(KernelError::in_row(row, format!("view names buffer {index} of {}", buffers.len())));
        };
        if offset + len > buffer {
            return Err(KernelError::in_row(
                row,
                format!("view of {len} bytes at {offset} past its buffer's {buffer} bytes"),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use arrow_array::{BinaryViewArray, StringArray};

    use super::*;

    #[test]
    fn bad_offsets_and_views_name_the_row() {
        assert_eq!(offsets::<i32>(&[0, 2, 1, 3], 3).unwrap_err().row(), Some(1));
        assert_eq!(offsets::<i32>(&[0, 2, 5], 3).unwrap_err().row(), Some(1));
        assert!(offsets::<i32>(&[-1, 2], 3).is_err());
        assert!(offsets::<i32>(&[1, 1], 3).is_ok());
        assert!(offsets::<i32>(&[], 0).is_ok());
        let good = BinaryViewArray::from(vec![&b"a long value of many bytes"[..], b"short"]);
        assert!(views(&good).is_ok());
        let lens = [good.data_buffers()[0].len()];
        let mut v = good.views().to_vec();
        v[0] += 1 << 96; // one byte further: past the buffer's end
        assert_eq!(view_bounds(&v, &lens, |_| true).unwrap_err().row(), Some(0));
        assert!(view_bounds(&v, &lens, |row| row != 0).is_ok(), "a null row's view is not read");
        v[0] = (v[0] - (1 << 96)) + (1 << 64); // buffer 1, which is not there
        assert!(view_bounds(&v, &lens, |_| true).unwrap_err().message().contains("buffer 1 of 1"));
        assert!(check_layout(&StringArray::from(vec!["a", "bc"]).slice(1, 1)).is_ok());
    }
}
