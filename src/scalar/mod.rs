//! The scalar reference kernels: encoding, decoding and validation a byte at a time. Every
//! SIMD backend must give exactly their bytes, steps and errors, and they are the path of
//! short inputs and of the scalar backend. Both the kernels (`crate::simd`) and the API
//! modules call them; they use only what kernels take and give back (`crate::kernel_io`), the
//! sets, the hex tables, the IRI rules and the errors.

mod bits;
pub(crate) mod decode;
pub(crate) mod encode;
pub(crate) mod validate;
