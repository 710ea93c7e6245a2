//! What a kernel is made of: a transformation of rows ([`RowOp`]) that the scheduler runs
//! over an array, and what becomes of a failing row ([`OnError`]). Every operation, pctenc's
//! and Spark's, implements this one trait, so the scheduling and the Arrow plumbing are
//! written once.

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
    /// Whether distinct rows always give distinct outputs: then a dictionary's results are
    /// as unique as its values, and it stays a dictionary (see `dictionary.rs`). `false`
    /// (the default) when two inputs may give one output.
    fn injective(&self) -> bool {
        false
    }
}

/// The values of a run of rows.
pub(crate) fn span<'a>(values: &'a [u8], bounds: &[usize]) -> &'a [u8] {
    &values[bounds[0]..bounds[bounds.len() - 1]]
}
