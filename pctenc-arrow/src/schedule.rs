//! Scheduling: cutting an array's rows into chunks of about equal size, running an
//! operation over each (on the rayon pool above [`PAR_THRESHOLD`] bytes)
//! into one buffer, and gathering the rows' lengths and validity.

use rayon::prelude::*;

use crate::error::KernelError;
use crate::memory;
use crate::row::{OnError, Row, RowOp};

/// Arrays with at least this many bytes of values are processed in chunks on the rayon pool
/// (pctenc's own threshold for encoding, [`pctenc::PAR_ENCODE_THRESHOLD`]).
///
/// ```
/// assert_eq!(pctenc_arrow::PAR_THRESHOLD, 256 * 1024);
/// ```
pub const PAR_THRESHOLD: usize = pctenc::PAR_ENCODE_THRESHOLD;

/// The error of an output of `size` bytes, more than 32-bit offsets address: the kinds that
/// hold it named as Arrow's format and pyarrow name them.
pub(crate) fn too_large(size: usize) -> KernelError {
    KernelError::whole(format!(
        "output of {size} bytes, over the 2 GiB that 32-bit offsets address: use a large kind \
         (large_string, large_binary) or a view kind (string_view, binary_view)"
    ))
}

/// The output of a run of rows: the bytes, the length of each row, and which rows are valid.
pub(crate) struct Piece {
    pub(crate) bytes: Vec<u8>,
    pub(crate) lens: Vec<usize>,
    /// `None`: every row valid as in the input; else the validity of each row.
    pub(crate) valid: Option<Vec<bool>>,
}

/// Runs `op` over `rows` rows whose values are `values[bounds[i]..bounds[i + 1]]`.
pub(crate) fn run_rows(
    op: &dyn RowOp,
    values: &[u8],
    bounds: &[usize],
    is_valid: &(dyn Fn(usize) -> bool + Sync),
    first_row: usize,
    on_error: OnError,
) -> Result<Piece, KernelError> {
    let rows = bounds.len() - 1;
    let mut bytes = memory::zeroed(op.reserve(values, bounds))?;
    let mut lens = memory::room_for(rows)?;
    let mut valid = memory::room_for(rows)?;
    let mut nulled = false;
    let mut written = 0;
    for i in 0..rows {
        let row = first_row + i;
        if !is_valid(row) {
            lens.push(0);
            valid.push(false);
            continue;
        }
        let input = &values[bounds[i]..bounds[i + 1]];
        let n = loop {
            match op.row(input, &mut bytes[written..]) {
                Row::Written(n) => break Some(n),
                Row::Grow(needed) => {
                    // Room for this row and, at the same rate, for the rest.
                    let rest = bounds[rows] - bounds[i + 1];
                    let more = needed.saturating_add(rest.saturating_mul(3));
                    let len =
                        written.checked_add(more).ok_or_else(|| KernelError::whole("output too large"))?;
                    bytes
                        .try_reserve(len.saturating_sub(bytes.len()))
                        .map_err(|_| memory::out_of_memory(len))?;
                    bytes.resize(len.max(bytes.len()), 0);
                }
                Row::Fail(offset, message) => match on_error {
                    OnError::Fail => return Err(KernelError::at(row, offset, message)),
                    OnError::Null => break None,
                },
            }
        };
        written += n.unwrap_or(0);
        lens.push(n.unwrap_or(0));
        valid.push(n.is_some());
        nulled |= n.is_none();
    }
    let valid = nulled.then_some(valid);
    bytes.truncate(written);
    Ok(Piece { bytes, lens, valid })
}

/// The chunks of a run of `rows` rows holding `total` bytes of values, row `i` starting at
/// value offset `bound(i)`: from [`PAR_THRESHOLD`] bytes on (and with two threads or more),
/// runs of about equal size, a few a thread so that uneven rows even out, to run in parallel
/// (`true`); else one run of every row. The row indices where runs start, and `rows` at the
/// end.
pub(crate) fn chunks(rows: usize, total: usize, bound: impl Fn(usize) -> usize) -> (Vec<usize>, bool) {
    let threads = rayon::current_num_threads();
    if total >= PAR_THRESHOLD && threads >= 2 && rows >= 2 {
        (cut(rows, bound, (total / (threads * 4)).max(PAR_THRESHOLD / 4)), true)
    } else {
        (vec![0, rows], false)
    }
}

/// Cuts `rows` rows, row `i` starting at value offset `bound(i)`, into runs of about `target`
/// bytes each: the row indices where runs start, and `rows` at the end.
fn cut(rows: usize, bound: impl Fn(usize) -> usize, target: usize) -> Vec<usize> {
    let mut cuts = vec![0];
    let mut start = bound(0);
    for i in 1..rows {
        let at = bound(i);
        if at - start >= target {
            cuts.push(i);
            start = at;
        }
    }
    cuts.push(rows);
    cuts
}

/// The output of a run of rows written into its slot of the shared buffer: bytes written,
/// row lengths, row validity (`None`: as the input).
pub(crate) struct Slot {
    written: usize,
    lens: Vec<usize>,
    valid: Option<Vec<bool>>,
}

/// A chunk's output: in its slot of the shared buffer, or in a buffer of its own.
pub(crate) enum Done {
    Slot(Slot),
    Own(Piece),
}

impl Done {
    fn len(&self) -> usize {
        match self {
            Done::Slot(s) => s.written,
            Done::Own(p) => p.bytes.len(),
        }
    }

    fn lens(&self) -> &[usize] {
        match self {
            Done::Slot(s) => &s.lens,
            Done::Own(p) => &p.lens,
        }
    }

    fn valid(&self) -> Option<&[bool]> {
        match self {
            Done::Slot(s) => s.valid.as_deref(),
            Done::Own(p) => p.valid.as_deref(),
        }
    }
}

/// Runs `op` over the rows of `bounds` (as [`run_rows`]) into `out`, a slot sized by
/// [`RowOp::reserve`]: `Ok(None)` when a row needs more room than the slot has left.
pub(crate) fn run_rows_into(
    op: &dyn RowOp,
    values: &[u8],
    bounds: &[usize],
    is_valid: &(dyn Fn(usize) -> bool + Sync),
    first_row: usize,
    on_error: OnError,
    out: &mut [u8],
) -> Result<Option<Slot>, KernelError> {
    let rows = bounds.len() - 1;
    let mut lens = memory::room_for(rows)?;
    let mut valid = memory::room_for(rows)?;
    let mut nulled = false;
    let mut written = 0;
    for i in 0..rows {
        let row = first_row + i;
        if !is_valid(row) {
            lens.push(0);
            valid.push(false);
            continue;
        }
        let n = match op.row(&values[bounds[i]..bounds[i + 1]], &mut out[written..]) {
            Row::Written(n) => Some(n),
            Row::Grow(_) => return Ok(None),
            Row::Fail(offset, message) => match on_error {
                OnError::Fail => return Err(KernelError::at(row, offset, message)),
                OnError::Null => None,
            },
        };
        written += n.unwrap_or(0);
        lens.push(n.unwrap_or(0));
        valid.push(n.is_some());
        nulled |= n.is_none();
    }
    Ok(Some(Slot { written, lens, valid: nulled.then_some(valid) }))
}

/// About this many bytes of values go through [`RowOp::chunk`] at a time: few enough to
/// stay in the core's cache between the passes a chunk makes (measuring the rows, then
/// transforming them), so that the values are read from memory once.
pub(crate) const RUN: usize = 64 * 1024;

/// Runs `op` over a chunk's rows (as [`run_rows`]) into `out`, a slot sized by
/// [`RowOp::reserve`]: in runs of about [`RUN`] bytes of values, each through
/// [`RowOp::chunk`] where that can be done and row by row where not. `Ok(None)` when a row
/// needs more room than the slot has left.
pub(crate) fn run_chunk(
    op: &dyn RowOp,
    values: &[u8],
    bounds: &[usize],
    is_valid: &(dyn Fn(usize) -> bool + Sync),
    first_row: usize,
    on_error: OnError,
    out: &mut [u8],
) -> Result<Option<Slot>, KernelError> {
    let rows = bounds.len() - 1;
    let mut lens = memory::room_for(rows)?;
    // Filled in (with the input's validity before it) once a row becomes null.
    let mut valid: Option<Vec<bool>> = None;
    let mut written = 0;
    let mut start = 0;
    while start < rows {
        // At least one row; rows up to RUN bytes.
        let mut end = start + 1;
        while end < rows && bounds[end + 1] - bounds[start] <= RUN {
            end += 1;
        }
        let run = &bounds[start..=end];
        let (n, run_valid) = match op.chunk(values, run, &mut out[written..]) {
            Some((n, run_lens)) => {
                lens.extend_from_slice(&run_lens);
                (n, None)
            }
            None => {
                let at = first_row + start;
                match run_rows_into(op, values, run, is_valid, at, on_error, &mut out[written..])? {
                    Some(slot) => {
                        lens.extend_from_slice(&slot.lens);
                        (slot.written, slot.valid)
                    }
                    None => return Ok(None),
                }
            }
        };
        match (&mut valid, run_valid) {
            (Some(v), Some(rv)) => v.extend_from_slice(&rv),
            (Some(v), None) => v.extend((first_row + start..first_row + end).map(is_valid)),
            (None, Some(rv)) => {
                let mut v: Vec<bool> = (first_row..first_row + start).map(is_valid).collect();
                v.extend_from_slice(&rv);
                valid = Some(v);
            }
            (None, None) => {}
        }
        written += n;
        start = end;
    }
    Ok(Some(Slot { written, lens, valid }))
}

/// A chunk of [`run_all`]: its rows (`cuts[k]..=cuts[k + 1]`), its slot of the output, and
/// its rows' lengths if they were measured.
type Job<'a> = ((&'a [usize], &'a mut [u8]), Option<Vec<usize>>);

/// Runs `op` over all the rows, in parallel chunks when there are enough bytes: the output
/// bytes, the row lengths, the row validity (`None`: as the input).
///
/// The output is one buffer, allocated once: each chunk writes into its own slot, sized by
/// [`RowOp::measure`] (exact: plain encoding, whose rows are measured in the same pass) or
/// [`RowOp::reserve`] (exact for strict decoding of rows that decode), and the slots are
/// then moved together within the buffer. A chunk in which some row needs more room than
/// its slot has (lossy decoding of invalid UTF-8) goes through [`run_rows`], which grows a
/// buffer of its own, and the outputs are then gathered.
///
/// `limit` is the most output the array kind addresses (`i32::MAX` bytes for 32-bit
/// offsets): where the size is measured exactly (plain encoding), a larger output fails
/// here, before any of it is allocated or written ([`too_large`]).
pub(crate) fn run_all(
    op: &dyn RowOp,
    values: &[u8],
    bounds: &[usize],
    is_valid: &(dyn Fn(usize) -> bool + Sync),
    on_error: OnError,
    limit: usize,
) -> Result<Piece, KernelError> {
    let rows = bounds.len() - 1;
    let total = bounds[rows] - bounds[0];
    // What the rows' bookkeeping will ask for (the core's measure and these lengths, a word a
    // row each), asked for once first: a column of hundreds of millions of rows that cannot
    // have it is an error here, where an allocation inside the core would abort.
    drop(memory::room_for::<usize>(rows.saturating_mul(2))?);
    let (cuts, parallel) = chunks(rows, total, |i| bounds[i]);
    // Each chunk's rows measured exactly (their lengths), or its output's size bounded.
    let size_of = |w: &[usize]| {
        let rows = &bounds[w[0]..=w[1]];
        match op.measure(values, rows) {
            Some(lens) => (lens.iter().sum(), Some(lens)),
            None => (op.reserve(values, rows), None),
        }
    };
    let (sizes, measured): (Vec<usize>, Vec<Option<Vec<usize>>>) = if parallel {
        cuts.par_windows(2).map(size_of).unzip()
    } else {
        cuts.windows(2).map(size_of).unzip()
    };
    let size = sizes
        .iter()
        .try_fold(0usize, |a, &b| a.checked_add(b))
        .ok_or_else(|| KernelError::whole("output too large"))?;
    if size > limit && measured.iter().all(Option::is_some) {
        return Err(too_large(size));
    }
    let mut bytes = memory::zeroed(size)?;
    let mut slots = Vec::with_capacity(sizes.len());
    let mut rest = &mut bytes[..];
    for &n in &sizes {
        let (head, tail) = rest.split_at_mut(n);
        slots.push(head);
        rest = tail;
    }
    // A chunk whose slot turns out too small (lossy replacements, Java's) goes through
    // `run_rows` on its own, into a buffer of its own that grows.
    let work = |((w, slot), measured): Job<'_>| -> Result<Done, KernelError> {
        let rows = &bounds[w[0]..=w[1]];
        if let Some(lens) = measured {
            // Written in one call; every row is transformed (validity as the input).
            let span = &values[rows[0]..rows[rows.len() - 1]];
            if let Some(written) = op.write(span, slot).filter(|&n| n == slot.len()) {
                return Ok(Done::Slot(Slot { written, lens, valid: None }));
            }
            // Not reached for a consistent op: the rows, one by one, into a buffer that grows.
            return run_rows(op, values, rows, is_valid, w[0], on_error).map(Done::Own);
        }
        match run_chunk(op, values, rows, is_valid, w[0], on_error, slot)? {
            Some(slot) => Ok(Done::Slot(slot)),
            None => run_rows(op, values, rows, is_valid, w[0], on_error).map(Done::Own),
        }
    };
    // Every chunk's result, in order: the error to report is the first row's, not the first
    // found.
    let all: Vec<Result<Done, KernelError>> = if parallel {
        cuts.par_windows(2).zip(slots.into_par_iter()).zip(measured.into_par_iter()).map(work).collect()
    } else {
        cuts.windows(2).zip(slots).zip(measured).map(work).collect()
    };
    let done = all.into_iter().collect::<Result<Vec<Done>, KernelError>>()?;
    let written: usize = done.iter().map(Done::len).sum();
    if done.iter().all(|d| matches!(d, Done::Slot(_))) {
        // Move the slots together (nothing to move where the sizes were exact).
        let (mut from, mut to) = (0, 0);
        for (d, &n) in done.iter().zip(&sizes) {
            if from != to {
                bytes.copy_within(from..from + d.len(), to);
            }
            to += d.len();
            from += n;
        }
        bytes.truncate(to);
    } else {
        // Some chunk has a buffer of its own: gather them all into one of the right size.
        let mut out = memory::zeroed(written)?;
        let (mut from, mut to) = (0, 0);
        for (d, &n) in done.iter().zip(&sizes) {
            let src = match d {
                Done::Slot(slot) => &bytes[from..from + slot.written],
                Done::Own(piece) => &piece.bytes[..],
            };
            out[to..to + src.len()].copy_from_slice(src);
            to += src.len();
            from += n;
        }
        bytes = out;
    }
    let mut lens = memory::room_for(rows)?;
    let any_null = done.iter().any(|d| d.valid().is_some());
    let mut valid = if any_null { Some(memory::room_for(rows)?) } else { None };
    for (w, d) in cuts.windows(2).zip(&done) {
        lens.extend_from_slice(d.lens());
        if let Some(v) = valid.as_mut() {
            match d.valid() {
                Some(sv) => v.extend_from_slice(sv),
                None => v.extend((w[0]..w[1]).map(is_valid)),
            }
        }
    }
    Ok(Piece { bytes, lens, valid })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::row::{Row, span};

    /// An op that measures each row at three times its length and must never be run.
    struct Measured;

    impl RowOp for Measured {
        fn reserve(&self, values: &[u8], bounds: &[usize]) -> usize {
            3 * span(values, bounds).len()
        }
        fn row(&self, _: &[u8], _: &mut [u8]) -> Row {
            panic!("a row was transformed past the limit")
        }
        fn measure(&self, _: &[u8], bounds: &[usize]) -> Option<Vec<usize>> {
            Some(bounds.windows(2).map(|w| 3 * (w[1] - w[0])).collect())
        }
        fn write(&self, _: &[u8], _: &mut [u8]) -> Option<usize> {
            panic!("a run was written past the limit")
        }
    }

    /// A measured output over the kind's limit fails before anything is written, serial and
    /// parallel alike.
    #[test]
    fn a_measured_output_over_the_limit_fails_before_writing() {
        for rows in [10, PAR_THRESHOLD / 64] {
            let values = vec![b'a'; rows * 100];
            let bounds: Vec<usize> = (0..=rows).map(|i| i * 100).collect();
            let err = run_all(&Measured, &values, &bounds, &|_| true, OnError::Fail, 3 * values.len() - 1)
                .err()
                .expect("over the limit");
            assert!(err.to_string().contains("large_string"), "{err}");
        }
    }
}
