//! The row operations the kernels run: each turns one row (or a chunk of rows in one call,
//! where that gives the same) into its output.

pub(crate) mod decode;
pub(crate) mod encode;
pub(crate) mod normalize;
pub(crate) mod spark;
