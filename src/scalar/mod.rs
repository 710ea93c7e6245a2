//! The scalar reference kernels: encoding, decoding and validation a byte at a time. Every
//! SIMD backend must give exactly their bytes, steps and errors, and they are the path of
//! short inputs and of the scalar backend. Both the kernels (`crate::simd`) and the API
//! modules call them; they use only the sets, the hex tables, the IRI rules and the errors.

mod bits;
pub(crate) mod decode;
pub(crate) mod encode;
pub(crate) mod validate;

use core::mem::MaybeUninit;

/// Writes `src` to the start of `dst`, which must be at least as long (it panics if not).
/// The output of every encoder is written through this or a raw pointer: it may be spare
/// capacity, never read before it is written.
#[inline]
pub(crate) fn put(dst: &mut [MaybeUninit<u8>], src: &[u8]) {
    let dst = &mut dst[..src.len()];
    // SAFETY: `dst` has `src.len()` bytes, and a shared slice cannot overlap a mutable one;
    // the bytes written are initialised.
    unsafe { core::ptr::copy_nonoverlapping(src.as_ptr(), dst.as_mut_ptr().cast::<u8>(), src.len()) }
}

/// `out` as memory to write into: what the encoders and decoders take, so that they can
/// also write into a vector's spare capacity.
///
/// # Safety
/// Nothing uninitialised may be written through the result (the kernels write only bytes).
#[inline]
pub(crate) unsafe fn as_uninit(out: &mut [u8]) -> &mut [MaybeUninit<u8>] {
    // SAFETY: `MaybeUninit<u8>` has the layout of `u8`; the caller keeps the bytes initialised.
    unsafe { &mut *(core::ptr::from_mut::<[u8]>(out) as *mut [MaybeUninit<u8>]) }
}
