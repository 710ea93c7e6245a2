//! Columnar kernels: pctenc's encoders and decoders over whole Arrow arrays.
//!
//! Every kernel takes any of the six byte-array kinds (`Utf8`, `LargeUtf8`, `Utf8View`,
//! `Binary`, `LargeBinary`, `BinaryView`) and returns an array of the same kind (a
//! [`BooleanArray`] for [`validate`]). Nulls stay null. An element that cannot be decoded
//! fails the call with a [`KernelError`] naming its row and byte offset, or becomes null in
//! the `try_` kernels.
//!
//! The output is written into one buffer, sized once for the whole array (exactly for plain
//! encoding and pctenc's strict decoding), and the offsets are rebuilt: no allocation per row
//! (a chunk of rows that outgrows its part of the buffer, through lossy replacements, gets a
//! buffer of its own, gathered after). The output of `Utf8` and `LargeUtf8` is checked as
//! UTF-8 once, in parallel, rather than again by Arrow. Rows never interact: an escape or a UTF-8 sequence
//! never spans two rows (a `%` at the end of a row is truncated there, whatever the next row
//! holds). Where that changes nothing, a whole chunk of values is transformed in one call:
//! plain encoding (no re-quoting, no IRI set) treats each byte on its own, so it measures the
//! rows (a count of their escapes) and encodes the values; strict decoding decodes the values
//! when no `%` sits in a row's last two bytes and each row's output starts at a character
//! boundary, and goes row by row otherwise (or when a row fails, to name it). Above
//! [`PAR_THRESHOLD`] bytes of values the rows are cut into chunks of about equal size that
//! run on the rayon pool.
//!
//! ```
//! use arrow::array::{Array, StringArray};
//! use pctenc::{sets, Decoder, Encoder};
//! use pctenc_datafusion::kernels;
//!
//! let paths = StringArray::from(vec![Some("/a b"), None, Some("/café")]);
//! let encoded = kernels::encode(&paths, &Encoder::new(sets::COMPONENT)).unwrap();
//! let encoded = encoded.as_any().downcast_ref::<StringArray>().unwrap();
//! assert_eq!(encoded.value(0), "%2Fa%20b");
//! assert!(encoded.is_null(1));
//! assert_eq!(encoded.value(2), "%2Fcaf%C3%A9");
//!
//! let bad = StringArray::from(vec!["ok", "100%"]);
//! let err = kernels::decode(&bad, &Decoder::new()).unwrap_err();
//! assert_eq!((err.row(), err.offset()), (Some(1), Some(3)));
//! let nulls = kernels::try_decode(&bad, &Decoder::new()).unwrap();
//! assert!(nulls.is_valid(0) && nulls.is_null(1));
//! ```

use std::fmt;
use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, BinaryViewArray, BooleanArray, BooleanBufferBuilder, GenericBinaryArray,
    GenericByteViewArray, GenericStringArray, OffsetSizeTrait, StringViewArray,
};
use arrow::buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow::datatypes::{BinaryViewType, ByteViewType, DataType, StringViewType};
use arrow::error::ArrowError;
use pctenc::{DecodeErrorKind, Decoder, Encoder, Utf8Mode};
use rayon::prelude::*;

use crate::{memory, spark};

/// Arrays with at least this many bytes of values are processed in chunks on the rayon pool
/// (pctenc's own threshold for encoding, [`pctenc::PAR_ENCODE_THRESHOLD`]).
pub const PAR_THRESHOLD: usize = pctenc::PAR_ENCODE_THRESHOLD;

/// The error of a kernel: the row and byte offset of the element that failed, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelError {
    row: Option<usize>,
    offset: Option<usize>,
    message: String,
}

impl KernelError {
    fn at(row: usize, offset: usize, message: impl Into<String>) -> KernelError {
        KernelError { row: Some(row), offset: Some(offset), message: message.into() }
    }

    pub(crate) fn in_row(row: usize, message: impl Into<String>) -> KernelError {
        KernelError { row: Some(row), offset: None, message: message.into() }
    }

    /// The same error with its row renumbered by `f` (from a part of an array to the whole).
    pub(crate) fn map_row(self, f: impl FnOnce(usize) -> usize) -> KernelError {
        KernelError { row: self.row.map(f), ..self }
    }

    fn whole(message: impl Into<String>) -> KernelError {
        KernelError { row: None, offset: None, message: message.into() }
    }

    /// The row (index in the array given, slice offset not counted) that failed, if one did.
    pub fn row(&self) -> Option<usize> {
        self.row
    }

    /// The byte offset in that row's value where the problem is.
    pub fn offset(&self) -> Option<usize> {
        self.offset
    }

    /// What went wrong, without the row and offset.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for KernelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.row, self.offset) {
            (Some(row), Some(offset)) => write!(f, "row {row}, offset {offset}: {}", self.message),
            (Some(row), None) => write!(f, "row {row}: {}", self.message),
            _ => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for KernelError {}

impl From<ArrowError> for KernelError {
    fn from(e: ArrowError) -> KernelError {
        KernelError::whole(e.to_string())
    }
}

impl From<KernelError> for ArrowError {
    fn from(e: KernelError) -> ArrowError {
        ArrowError::ComputeError(e.to_string())
    }
}

/// What one row's transformation gave.
pub(crate) enum Row {
    /// This many bytes written at the start of the output slice.
    Written(usize),
    /// The output slice is too small: it needs this many bytes.
    Grow(usize),
    /// The row fails: offset in the row and why (null for `try_` kernels).
    Fail(usize, String),
}

/// Whether a failing row fails the call or becomes null.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum OnError {
    Fail,
    Null,
}

/// A transformation of rows: an upper bound of the output size of a run of rows (their
/// values, contiguous), and the transformation of one row into a slice.
pub(crate) trait RowOp: Sync {
    /// The output size to reserve for a run of rows (values `values[bounds[0]..bounds[last]]`,
    /// row `i` at `bounds[i]..bounds[i + 1]`). Need not be exact: a row that does not fit asks
    /// for more ([`Row::Grow`]). Exact, the rows' outputs need not be moved together.
    fn reserve(&self, values: &[u8], bounds: &[usize]) -> usize;
    /// Transforms one row into the start of `out`.
    fn row(&self, input: &[u8], out: &mut [u8]) -> Row;
    /// Transforms a whole run of rows (values `values[bounds[0]..bounds[last]]`, row `i` at
    /// `bounds[i]..bounds[i + 1]`) into the start of `out` (room for [`reserve`]) in one go,
    /// where that gives exactly what the rows give one by one: the bytes written and each
    /// row's length. `None` (the default) when it cannot tell it would, or it does not: the
    /// rows are then transformed one by one. Rows under a null are transformed too (what an
    /// array holds under a null is unspecified), so that the values stay contiguous.
    ///
    /// [`reserve`]: RowOp::reserve
    fn chunk(&self, _values: &[u8], _bounds: &[usize], _out: &mut [u8]) -> Option<(usize, Vec<usize>)> {
        None
    }
    /// The exact output length of each row of a run (values `values[bounds[0]..bounds[last]]`,
    /// row `i` at `bounds[i]..bounds[i + 1]`), measured in one pass without transforming the
    /// rows, where the op can tell them and the run's output is the transformation of its
    /// values in one go ([`write`]). Such a run is sized and cut into rows by this alone.
    /// `None` (the default): the run is sized by [`reserve`] and transformed by [`chunk`] or
    /// row by row.
    ///
    /// [`write`]: RowOp::write
    /// [`reserve`]: RowOp::reserve
    /// [`chunk`]: RowOp::chunk
    fn measure(&self, _values: &[u8], _bounds: &[usize]) -> Option<Vec<usize>> {
        None
    }
    /// Transforms a measured run's values (contiguous) into `out`, which has the measured
    /// size: the bytes written, or `None` if they do not fit.
    fn write(&self, _span: &[u8], _out: &mut [u8]) -> Option<usize> {
        None
    }
    /// Whether every row's output is UTF-8 whatever the input: then a string kernel's output
    /// needs no UTF-8 check (one pass over the output less). `false` (the default) when that
    /// is not known.
    fn output_is_utf8(&self) -> bool {
        false
    }
}

/// The output of a run of rows: the bytes, the length of each row, and which rows are valid.
struct Piece {
    bytes: Vec<u8>,
    lens: Vec<usize>,
    /// `None`: every row valid as in the input; else the validity of each row.
    valid: Option<Vec<bool>>,
}

/// Runs `op` over `rows` rows whose values are `values[bounds[i]..bounds[i + 1]]`.
fn run_rows(
    op: &dyn RowOp,
    values: &[u8],
    bounds: &[usize],
    is_valid: &(dyn Fn(usize) -> bool + Sync),
    first_row: usize,
    on_error: OnError,
) -> Result<Piece, KernelError> {
    let rows = bounds.len() - 1;
    let mut bytes = memory::zeroed(op.reserve(values, bounds));
    let mut lens = Vec::with_capacity(rows);
    let mut valid = Vec::with_capacity(rows);
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
struct Slot {
    written: usize,
    lens: Vec<usize>,
    valid: Option<Vec<bool>>,
}

/// A chunk's output: in its slot of the shared buffer, or in a buffer of its own.
enum Done {
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
fn run_rows_into(
    op: &dyn RowOp,
    values: &[u8],
    bounds: &[usize],
    is_valid: &(dyn Fn(usize) -> bool + Sync),
    first_row: usize,
    on_error: OnError,
    out: &mut [u8],
) -> Result<Option<Slot>, KernelError> {
    let rows = bounds.len() - 1;
    let mut lens = Vec::with_capacity(rows);
    let mut valid = Vec::with_capacity(rows);
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
const RUN: usize = 64 * 1024;

/// Runs `op` over a chunk's rows (as [`run_rows`]) into `out`, a slot sized by
/// [`RowOp::reserve`]: in runs of about [`RUN`] bytes of values, each through
/// [`RowOp::chunk`] where that can be done and row by row where not. `Ok(None)` when a row
/// needs more room than the slot has left.
fn run_chunk(
    op: &dyn RowOp,
    values: &[u8],
    bounds: &[usize],
    is_valid: &(dyn Fn(usize) -> bool + Sync),
    first_row: usize,
    on_error: OnError,
    out: &mut [u8],
) -> Result<Option<Slot>, KernelError> {
    let rows = bounds.len() - 1;
    let mut lens = Vec::with_capacity(rows);
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
fn run_all(
    op: &dyn RowOp,
    values: &[u8],
    bounds: &[usize],
    is_valid: &(dyn Fn(usize) -> bool + Sync),
    on_error: OnError,
) -> Result<Piece, KernelError> {
    let rows = bounds.len() - 1;
    let total = bounds[rows] - bounds[0];
    let threads = rayon::current_num_threads();
    let parallel = total >= PAR_THRESHOLD && threads >= 2 && rows >= 2;
    // A few chunks a thread, so that uneven rows even out.
    let cuts = if parallel {
        cut(rows, |i| bounds[i], (total / (threads * 4)).max(PAR_THRESHOLD / 4))
    } else {
        vec![0, rows]
    };
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
    let mut bytes = memory::zeroed(size);
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
        let mut out = memory::zeroed(written);
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
    let mut lens = Vec::with_capacity(rows);
    let any_null = done.iter().any(|d| d.valid().is_some());
    let mut valid = any_null.then(|| Vec::with_capacity(rows));
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

/// The offsets of rows of lengths `lens`, checked against `O`'s range.
fn offsets<O: OffsetSizeTrait>(lens: &[usize]) -> Result<OffsetBuffer<O>, KernelError> {
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

fn null_buffer(input: Option<&NullBuffer>, valid: Option<Vec<bool>>) -> Option<NullBuffer> {
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
fn apply_offsets<O: OffsetSizeTrait>(
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
fn apply_views<T: ByteViewType>(
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
        let mut out = arrow::array::StringViewBuilder::with_capacity(array.len());
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
        let mut out = arrow::array::BinaryViewBuilder::with_capacity(array.len());
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

const NOT_UTF8: &str = "output is not valid UTF-8 (a binary kind would keep it)";

/// Whether every row of a run (values `values[bounds[0]..bounds[last]]`, row `i` at
/// `bounds[i]..bounds[i + 1]`) is UTF-8: the whole run is, and each row starts at one of its
/// character boundaries (a run of valid rows is valid, and a valid run cut at character
/// boundaries gives valid rows).
pub(crate) fn rows_are_utf8(values: &[u8], bounds: &[usize]) -> bool {
    let span = &values[bounds[0]..bounds[bounds.len() - 1]];
    simdutf8::basic::from_utf8(span).is_ok()
        && bounds.iter().all(|&b| values.get(b).is_none_or(|&c| !is_continuation(c)))
}

fn is_continuation(b: u8) -> bool {
    (0x80..0xC0).contains(&b)
}

/// Checks that the offsets end at the end of the values.
fn ends_at<O: OffsetSizeTrait>(values: &[u8], offsets: &OffsetBuffer<O>) -> Result<(), KernelError> {
    if offsets[offsets.len() - 1].as_usize() != values.len() {
        return Err(KernelError::whole("offsets do not end at the end of the values"));
    }
    Ok(())
}

/// Checks that every row of a string kernel's output is UTF-8 and that the offsets end at the
/// end of the values: the checks of `GenericStringArray::try_new`, in parallel above
/// [`PAR_THRESHOLD`] bytes. The error names the first row that is not UTF-8 and the offset in
/// it where the invalid sequence starts.
fn check_utf8<O: OffsetSizeTrait>(values: &[u8], offsets: &OffsetBuffer<O>) -> Result<(), KernelError> {
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
    let threads = rayon::current_num_threads();
    if values.len() >= PAR_THRESHOLD && threads >= 2 && rows >= 2 {
        // Runs of about equal size, a few a thread.
        let target = (values.len() / (threads * 4)).max(PAR_THRESHOLD / 4);
        let cuts = cut(rows, |i| bounds[i].as_usize(), target);
        // In order: the first failing row is reported.
        let results: Vec<Result<(), KernelError>> = cuts.par_windows(2).map(run).collect();
        results.into_iter().collect()
    } else {
        run(&[0, rows])
    }
}

/// Whether `dt` is a string kind (as opposed to binary).
pub(crate) fn is_utf8(dt: &DataType) -> bool {
    matches!(dt, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
}

struct EncodeOp<'a> {
    enc: &'a Encoder,
    /// Escapes are per byte (no re-quoting, no IRI): the count over the whole buffer is the
    /// sum of the rows' counts.
    plain: bool,
}

impl RowOp for EncodeOp<'_> {
    fn reserve(&self, values: &[u8], bounds: &[usize]) -> usize {
        let values = span(values, bounds);
        if self.plain {
            self.enc.encoded_len(values)
        } else {
            // Re-quoting and IRI sets look at neighbouring bytes: an upper bound.
            values.len().saturating_mul(3)
        }
    }

    fn row(&self, input: &[u8], out: &mut [u8]) -> Row {
        match self.enc.encode_slice(input, out) {
            Ok(n) => Row::Written(n),
            Err(e) => Row::Grow(e.needed()),
        }
    }

    /// Without re-quoting or an IRI set, each byte is kept or escaped on its own (no escape
    /// to copy, no character to keep), so the rows' outputs, one after the other, are the
    /// output of their values: measured in one pass ([`Encoder::encoded_lens`]), then
    /// encoded in one call.
    fn measure(&self, values: &[u8], bounds: &[usize]) -> Option<Vec<usize>> {
        self.plain.then(|| self.enc.encoded_lens(values, bounds))
    }

    fn write(&self, span: &[u8], out: &mut [u8]) -> Option<usize> {
        self.enc.encode_slice(span, out).ok()
    }

    /// An encoder's output is UTF-8 whatever its input (what `Encoder::encode` returning a
    /// `str` rests on): escapes are ASCII, a set other than IRI escapes every byte from 0x80
    /// on, and an IRI set keeps only whole valid UTF-8 characters.
    fn output_is_utf8(&self) -> bool {
        true
    }
}

fn encode_op(enc: &Encoder) -> EncodeOp<'_> {
    EncodeOp { enc, plain: !enc.is_keeping_escapes() && !enc.set().is_iri() }
}

/// Encodes every element with `enc`. Encoding never fails on the content; the error is for
/// an output too large for the array kind's offsets, or an input that is not one of the six
/// kinds.
///
/// ```
/// use arrow::array::{Array, BinaryArray};
/// use pctenc::{sets, Encoder};
///
/// let raw = BinaryArray::from_vec(vec![b"a\xFF", b"+"]);
/// let out = pctenc_datafusion::kernels::encode(&raw, &Encoder::new(sets::FORM)).unwrap();
/// let out = out.as_any().downcast_ref::<BinaryArray>().unwrap();
/// assert_eq!((out.value(0), out.value(1)), (&b"a%FF"[..], &b"%2B"[..]));
/// ```
pub fn encode(array: &dyn Array, enc: &Encoder) -> Result<ArrayRef, KernelError> {
    apply(array, &encode_op(enc), OnError::Fail)
}

struct DecodeOp {
    dec: Decoder,
}

impl RowOp for DecodeOp {
    fn reserve(&self, values: &[u8], bounds: &[usize]) -> usize {
        decoded_bound(&self.dec, values, bounds)
    }

    fn row(&self, input: &[u8], out: &mut [u8]) -> Row {
        match self.dec.decode_slice(input, out) {
            Ok(n) => Row::Written(n),
            Err(e) if e.kind() == DecodeErrorKind::BufferTooSmall => {
                Row::Grow(e.needed().unwrap_or(input.len().saturating_mul(3)))
            }
            Err(e) => Row::Fail(e.offset(), e.kind().to_string()),
        }
    }

    fn chunk(&self, values: &[u8], bounds: &[usize], out: &mut [u8]) -> Option<(usize, Vec<usize>)> {
        decode_chunk(&self.dec, values, bounds, out)
    }
}

/// [`RowOp::chunk`] for a decoder whose every escape is `%HH` and shortens the output by two
/// bytes (strict escapes, no `%u`, nothing kept encoded, UTF-8 checked or not at all): the
/// values of a run of rows decoded in one call. That equals decoding the rows one by one
/// when no escape can cross a row's end (no `%` in a row's last two bytes), the whole
/// decoding succeeds (every `%` starts an escape: each row's do), and, when UTF-8 is
/// checked, each row's output starts at a character boundary of the (valid) whole. Each
/// row's length is then its input's less two bytes a `%`. `None` otherwise, and for any
/// row that fails: the rows then go one by one, which finds the row, the offset and the
/// reason.
pub(crate) fn decode_chunk(
    dec: &Decoder,
    values: &[u8],
    bounds: &[usize],
    out: &mut [u8],
) -> Option<(usize, Vec<usize>)> {
    let utf8 = plain_decoder(dec)?;
    let mut lens = Vec::with_capacity(bounds.len() - 1);
    for r in bounds.windows(2) {
        let row = &values[r[0]..r[1]];
        if row.len() >= 2 && row[row.len() - 2..].contains(&b'%') || row.last() == Some(&b'%') {
            return None;
        }
        let escapes = count_percent(row);
        // More `%` than room for their escapes: the row cannot decode.
        lens.push(row.len().checked_sub(2 * escapes)?);
    }
    let n = dec.decode_slice(&values[bounds[0]..bounds[bounds.len() - 1]], out).ok()?;
    if utf8 {
        // The whole is valid UTF-8; each row is if it starts at a character boundary.
        let mut at = 0;
        for &len in &lens {
            if out.get(at).is_some_and(|&b| is_continuation(b)) {
                return None;
            }
            at += len;
        }
    }
    (lens.iter().sum::<usize>() == n).then_some((n, lens))
}

/// Whether every escape `dec` decodes is `%HH`, which gives one byte (strict escapes, no
/// `%u`, nothing kept encoded, UTF-8 checked or not at all: no replacement characters): then
/// a row either fails or decodes to its length less two bytes a `%`. `Some(whether UTF-8 is
/// checked)` for such a decoder.
fn plain_decoder(dec: &Decoder) -> Option<bool> {
    let utf8 = match dec.utf8_value() {
        Utf8Mode::Strict => true,
        Utf8Mode::Bytes => false,
        _ => return None,
    };
    let plain =
        !dec.is_lenient() && !dec.is_legacy_u() && (0..=255).all(|b| !dec.keep_encoded_value().contains(b));
    plain.then_some(utf8)
}

/// [`RowOp::reserve`] for decoding with `dec`: for a [`plain_decoder`], the rows' lengths
/// less two bytes a `%` (exact when every row decodes; a failing row counts as empty), so
/// that the chunks' outputs need not be moved together; else the values' length (never
/// exceeded but for lossy replacements, whose rows ask for more).
pub(crate) fn decoded_bound(dec: &Decoder, values: &[u8], bounds: &[usize]) -> usize {
    if plain_decoder(dec).is_none() {
        return span(values, bounds).len();
    }
    bounds
        .windows(2)
        .map(|r| {
            let row = &values[r[0]..r[1]];
            row.len().saturating_sub(2 * count_percent(row))
        })
        .sum()
}

/// The values of a run of rows.
pub(crate) fn span<'a>(values: &'a [u8], bounds: &[usize]) -> &'a [u8] {
    &values[bounds[0]..bounds[bounds.len() - 1]]
}

/// How many `%` bytes `bytes` holds. Counted in bytes, 64 at a time: the compiler turns
/// that into whole-register compares and byte adds (counting into a `usize` directly, it
/// widens every byte and goes several times slower).
fn count_percent(bytes: &[u8]) -> usize {
    let count = |block: &[u8]| usize::from(block.iter().fold(0u8, |n, &b| n + u8::from(b == b'%')));
    let blocks = bytes.chunks_exact(64);
    let rest = count(blocks.remainder());
    blocks.map(count).sum::<usize>() + rest
}

/// The decoder for an array of kind `dt`: for the string kinds, [`Utf8Mode::Bytes`] becomes
/// [`Utf8Mode::Strict`], since the output must be UTF-8.
fn decoder_for(dt: &DataType, dec: &Decoder) -> Decoder {
    if is_utf8(dt) && dec.utf8_value() == Utf8Mode::Bytes { dec.utf8(Utf8Mode::Strict) } else { *dec }
}

/// Decodes every element with `dec`. For the string kinds the output must be UTF-8: a
/// decoder in [`Utf8Mode::Bytes`] works as in [`Utf8Mode::Strict`] there (use a binary kind
/// for raw bytes, or [`Utf8Mode::Lossy`]).
///
/// # Errors
///
/// The first element that does not decode, by row and byte offset (the decoder's
/// [`DecodeError`](pctenc::DecodeError)); an input that is not one of the six kinds.
pub fn decode(array: &dyn Array, dec: &Decoder) -> Result<ArrayRef, KernelError> {
    apply(array, &DecodeOp { dec: decoder_for(array.data_type(), dec) }, OnError::Fail)
}

/// [`decode`], with null for each element that does not decode.
pub fn try_decode(array: &dyn Array, dec: &Decoder) -> Result<ArrayRef, KernelError> {
    apply(array, &DecodeOp { dec: decoder_for(array.data_type(), dec) }, OnError::Null)
}

struct NormalizeOp;

impl RowOp for NormalizeOp {
    fn reserve(&self, values: &[u8], bounds: &[usize]) -> usize {
        span(values, bounds).len()
    }

    fn row(&self, input: &[u8], out: &mut [u8]) -> Row {
        match pctenc::normalize_slice(input, out) {
            Ok(n) => Row::Written(n),
            Err(e) => Row::Grow(e.needed()),
        }
    }
}

/// [`pctenc::normalize`] on every element: hex digits uppercased, escapes of unreserved
/// bytes decoded. Never fails on the content (the output of UTF-8 is UTF-8).
pub fn normalize(array: &dyn Array) -> Result<ArrayRef, KernelError> {
    apply(array, &NormalizeOp, OnError::Fail)
}

/// Whether each element is a correct encoding for `enc`'s set ([`Encoder::validate`]); null
/// stays null.
pub fn validate(array: &dyn Array, enc: &Encoder) -> Result<BooleanArray, KernelError> {
    macro_rules! each {
        ($arr:ty) => {{
            let a = array.as_any().downcast_ref::<$arr>().expect("kind checked");
            let check = |i: usize| {
                let v: &[u8] = a.value(i).as_ref();
                enc.validate(v).is_ok()
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
        other => Err(KernelError::whole(format!("expected a string or binary array, got {other}"))),
    }
}

/// Spark's `url_encode`: `java.net.URLEncoder.encode(s, UTF_8)`, which is pctenc's `form`
/// set (`A-Za-z0-9.-*_` kept, space as `+`, the rest as uppercase `%HH` of its UTF-8). A
/// binary value is the string Spark casts it to ([`spark::java_string`]: malformed UTF-8 as
/// U+FFFD), so `X'FF'` gives `%EF%BF%BD`.
pub fn url_encode(array: &dyn Array) -> Result<ArrayRef, KernelError> {
    apply(array, &spark::UrlEncodeOp { binary: !is_utf8(array.data_type()) }, OnError::Fail)
}

/// Spark's `url_decode`: `java.net.URLDecoder.decode(s, UTF_8)` byte for byte, quirks
/// included (see [`crate::spark`]; a binary value is the string Spark casts it to). A malformed escape fails the call with Spark's
/// `CANNOT_DECODE_URL` message, the row and the offset of its `%`.
pub fn url_decode(array: &dyn Array) -> Result<ArrayRef, KernelError> {
    apply(array, &spark::UrlDecodeOp { binary: !is_utf8(array.data_type()) }, OnError::Fail)
}

/// Spark's `try_url_decode`: [`url_decode`] with null where it fails.
pub fn try_url_decode(array: &dyn Array) -> Result<ArrayRef, KernelError> {
    apply(array, &spark::UrlDecodeOp { binary: !is_utf8(array.data_type()) }, OnError::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_percent_counts_every_length() {
        let bytes: Vec<u8> =
            (0..300u32).map(|i| if i * 7 % 5 == 0 || i % 64 == 63 { b'%' } else { i as u8 }).collect();
        for start in 0..70 {
            for end in start..bytes.len() {
                let row = &bytes[start..end];
                assert_eq!(count_percent(row), row.iter().filter(|&&b| b == b'%').count(), "{start}..{end}");
            }
        }
        assert_eq!(count_percent(&[b'%'; 200]), 200);
    }

    /// The output check names the first row that is not UTF-8 and the offset in it, in one
    /// run and across parallel runs. (pctenc's encoders and decoders give UTF-8 for UTF-8, so
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
