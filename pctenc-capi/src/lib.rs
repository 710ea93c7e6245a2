//! libpctenc: the C API of pctenc.
//!
//! A thin layer over the Rust API: every function checks its arguments, converts them into
//! slices, calls `pctenc_core` and writes the result back. The header, `include/pctenc.h`, is
//! generated from this crate's modules by cbindgen (`cbindgen.toml`); their documentation
//! comments become its comments, so they are written for C programmers.
//!
//! Rules for every function, stated once in the header's preamble:
//! - buffers are a pointer and a length, never NUL-terminated; NULL with length 0 is an
//!   empty buffer, NULL with a length above 0 is `PCTENC_BAD_ARGUMENT`;
//! - nothing is written past a capacity the caller gives;
//! - no Rust panic crosses the boundary: each entry point catches one and returns
//!   `PCTENC_INTERNAL_ERROR` (none is known to be reachable).
#![allow(non_camel_case_types)]
#![deny(missing_docs)]

// cbindgen reads the modules in the order they are declared, and the header's items of each
// kind (constants, functions) come in that order: blank lines keep rustfmt from sorting them.
mod info;

mod error;

mod encoder;

mod decoder;

mod ffi;

mod normalize;

mod form;

mod stream;

pub use crate::decoder::*;
pub use crate::encoder::*;
pub use crate::error::{
    pctenc_error, pctenc_error_kind, pctenc_error_kind_str, pctenc_status, pctenc_status_str,
};
pub use crate::ffi::PCTENC_SET_BYTES;
pub use crate::form::*;
pub use crate::info::*;
pub use crate::normalize::*;
pub use crate::stream::*;
