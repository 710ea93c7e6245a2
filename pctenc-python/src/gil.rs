//! When the GIL is released: for inputs long enough that another thread's work is worth the
//! cost of letting it go and taking it back.

use pyo3::prelude::*;

/// Inputs at least this long are encoded or decoded with the GIL released.
pub(crate) const RELEASE_GIL: usize = 32 * 1024;

/// Runs `work` on `input`, without the GIL when the input is large.
pub(crate) fn run<T: Send>(py: Python<'_>, len: usize, work: impl FnOnce() -> T + Send) -> T {
    if len >= RELEASE_GIL { py.detach(work) } else { work() }
}
