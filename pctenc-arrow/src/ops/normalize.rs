//! Normalizing as a row operation: [`pctenc::normalize_slice`] over each row.

use crate::row::{Row, RowOp, span};

pub(crate) struct NormalizeOp;

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
