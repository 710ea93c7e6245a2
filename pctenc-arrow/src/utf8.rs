//! The UTF-8 check of a string kernel's output, written once: the whole output in parallel,
//! then each row's start at a character boundary, so Arrow need not check it again.

use arrow_array::OffsetSizeTrait;
use arrow_buffer::OffsetBuffer;
use arrow_schema::DataType;
use rayon::prelude::*;

use crate::error::KernelError;
use crate::schedule::chunks;

pub(crate) const NOT_UTF8: &str = "output is not valid UTF-8 (a binary kind would keep it)";
pub(crate) const NOT_UTF8_INPUT: &str = "value of a string column is not valid UTF-8";

/// Whether every row of a run (values `values[bounds[0]..bounds[last]]`, row `i` at
/// `bounds[i]..bounds[i + 1]`) is UTF-8: the whole run is, and each row starts at one of its
/// character boundaries (a run of valid rows is valid, and a valid run cut at character
/// boundaries gives valid rows).
pub(crate) fn rows_are_utf8(values: &[u8], bounds: &[usize]) -> bool {
    let span = &values[bounds[0]..bounds[bounds.len() - 1]];
    simdutf8::basic::from_utf8(span).is_ok()
        && bounds.iter().all(|&b| values.get(b).is_none_or(|&c| !is_continuation(c)))
}

pub(crate) fn is_continuation(b: u8) -> bool {
    (0x80..0xC0).contains(&b)
}

/// Checks that the offsets end at the end of the values.
pub(crate) fn ends_at<O: OffsetSizeTrait>(
    values: &[u8],
    offsets: &OffsetBuffer<O>,
) -> Result<(), KernelError> {
    if offsets[offsets.len() - 1].as_usize() != values.len() {
        return Err(KernelError::whole("offsets do not end at the end of the values"));
    }
    Ok(())
}

/// Checks that every row of a string kernel's output is UTF-8 and that the offsets end at the
/// end of the values: the checks of `GenericStringArray::try_new`, in parallel above
/// [`PAR_THRESHOLD`](super::schedule::PAR_THRESHOLD) bytes. The error names the first row that is not UTF-8 and the offset in
/// it where the invalid sequence starts.
pub(crate) fn check_utf8<O: OffsetSizeTrait>(
    values: &[u8],
    offsets: &OffsetBuffer<O>,
) -> Result<(), KernelError> {
    ends_at(values, offsets)?;
    let bounds: &[O] = offsets;
    let rows = bounds.len() - 1;
    // Rows `w[0]..w[1]`: the whole run is UTF-8 and each row starts at a character boundary.
    let run = |w: &[usize]| -> Result<(), KernelError> {
        let run = &bounds[w[0]..=w[1]];
        let span = &values[run[0].as_usize()..run[run.len() - 1].as_usize()];
        // The run's end is the next run's first start: that run checks it.
        let starts = &run[..run.len() - 1];
        let starts_ok = starts.iter().all(|o| values.get(o.as_usize()).is_none_or(|&c| !is_continuation(c)));
        if starts_ok && simdutf8::basic::from_utf8(span).is_ok() {
            return Ok(());
        }
        for (i, r) in run.windows(2).enumerate() {
            if let Err(e) = std::str::from_utf8(&values[r[0].as_usize()..r[1].as_usize()]) {
                return Err(KernelError::at(w[0] + i, e.valid_up_to(), NOT_UTF8));
            }
        }
        // Not reached: a run whose rows are all UTF-8 is UTF-8 and starts each at a boundary.
        Err(KernelError::whole(NOT_UTF8))
    };
    let (cuts, parallel) = chunks(rows, values.len(), |i| bounds[i].as_usize());
    if parallel {
        // In order: the first failing row is reported.
        let results: Vec<Result<(), KernelError>> = cuts.par_windows(2).map(run).collect();
        results.into_iter().collect()
    } else {
        run(&cuts)
    }
}

/// The value type of a dictionary type, or `dt` itself.
pub(crate) fn value_type(dt: &DataType) -> &DataType {
    match dt {
        DataType::Dictionary(_, values) => values,
        other => other,
    }
}

/// Whether `dt` is a string kind (as opposed to binary), or a dictionary of one.
pub(crate) fn is_utf8(dt: &DataType) -> bool {
    matches!(value_type(dt), DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
}

#[cfg(test)]
mod tests {
    use arrow_buffer::ScalarBuffer;

    use super::*;
    use crate::schedule::PAR_THRESHOLD;

    /// no kernel call reaches this error: the check is what lets the string arrays be built
    /// without Arrow checking them again.)
    #[test]
    fn check_utf8_names_the_first_bad_row() {
        for filler in [3, PAR_THRESHOLD] {
            let mut values = Vec::new();
            let mut offsets = vec![0i32];
            let mut push = |row: &[u8]| {
                values.extend_from_slice(row);
                offsets.push(values.len() as i32);
            };
            for _ in 0..filler {
                push("aé".as_bytes());
            }
            push(b"ok\xC3");
            push(b"\xA9");
            push(b"\xFF");
            let bad = filler;
            let offsets = OffsetBuffer::new(ScalarBuffer::from(offsets));
            let err = check_utf8(&values, &offsets).unwrap_err();
            assert_eq!((err.row(), err.offset()), (Some(bad), Some(2)), "{err}");
            // A row that starts inside a sequence: the whole is valid, the row is not.
            let valid = &values[..3 * filler];
            let mut offsets: Vec<i32> = (0..filler as i32).map(|i| 3 * i).collect();
            offsets.extend([3 * filler as i32 - 1, 3 * filler as i32]);
            let offsets = OffsetBuffer::new(ScalarBuffer::from(offsets));
            let err = check_utf8(valid, &offsets).unwrap_err();
            assert_eq!((err.row(), err.offset()), (Some(filler - 1), Some(1)), "{err}");
            let offsets = OffsetBuffer::new(ScalarBuffer::from(vec![0i32, 2]));
            assert!(check_utf8(valid, &offsets).is_err(), "offsets that end before the values");
        }
    }
}
