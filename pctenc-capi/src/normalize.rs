//! Normalization (RFC 3986 sections 6.2.2.1 and 6.2.2.2), into a buffer or in place.

use core::panic::AssertUnwindSafe;
use core::ptr;

use crate::error::{Failure, pctenc_error, pctenc_status, run};
use crate::ffi::{input, output, overlap, store};

/// Percent-encoding normalization of `src` into `dst` (room for `cap` bytes), the two rules
/// of RFC 3986 sections 6.2.2.1 and 6.2.2.2 and nothing else: escapes get uppercase hex
/// digits, escapes of unreserved characters (letters, digits, `-._~`) are decoded, every
/// other byte is copied (raw bytes are never changed: no case folding of a scheme or host).
/// Dot segments are NOT removed (section 6.2.2.3, the algorithm of section 5.2.4): the
/// output can hold `.` and `..` segments, and can gain them (`/a/%2e%2e/b` becomes
/// `/a/../b`). Before routing on a path or opening a file, remove the dot segments of the
/// output or refuse them (examples/proxy.c shows how). The output is never longer than the
/// input, so `cap = len` always fits. Never fails on input. The escape of a hex digit right
/// after a `%` that starts no escape stays as it is (`%%41` is kept, not made `%A`), so that
/// the output decodes, leniently, to what the input decodes to.
///
/// Never writes past `dst + cap`. When the output does not fit, returns
/// `PCTENC_BUFFER_TOO_SMALL` and sets `*written` to the size needed. `src` and `dst` must
/// not overlap (see `pctenc_normalize_in_place`).
///
/// Writes: `dst[0..*written)` (and, on success, possibly bytes after it, up to
/// `dst + cap`: the vector code stores whole registers); `*written`; `*err` when not NULL.
/// Returns `PCTENC_OK`, `PCTENC_BUFFER_TOO_SMALL` or `PCTENC_BAD_ARGUMENT` (NULL `written`,
/// a NULL buffer with a length, overlapping buffers). Thread-safe.
///
/// # Safety
///
/// `src` is readable for `len` bytes and `dst` writable for `cap` bytes (or the length is
/// 0); `written` and `err` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pctenc_normalize(
    src: *const u8,
    len: usize,
    dst: *mut u8,
    cap: usize,
    written: *mut usize,
    err: *mut pctenc_error,
) -> pctenc_status {
    let body = AssertUnwindSafe(|| {
        // SAFETY: the caller's contract on `written`.
        unsafe { store(written, 0)? };
        if overlap(src, len, dst, cap) {
            return Err(Failure::bad_argument());
        }
        // SAFETY: the caller's contract on the buffers, which do not overlap.
        let (src, dst) = unsafe { (input(src, len)?, output(dst, cap)?) };
        let (n, outcome) = match pctenc_core::normalize_slice(src, dst) {
            Ok(n) => (n, Ok(())),
            Err(e) => (e.needed(), Err(Failure::too_small(0))),
        };
        // SAFETY: checked non-NULL and writable above.
        unsafe { ptr::write(written, n) };
        outcome
    });
    // SAFETY: the caller's contract on `err`.
    unsafe { run(err, body) }
}

/// `pctenc_normalize` in place: the normalized bytes are `buf[0..*written)`. Never fails on
/// input (the output is never longer).
///
/// Writes: `buf[0..len)`; `*written`; `*err` when not NULL.
/// Returns `PCTENC_OK` or `PCTENC_BAD_ARGUMENT` (NULL `written`, NULL `buf` with `len > 0`).
/// Thread-safe (each thread with its own `buf`).
///
/// # Safety
///
/// `buf` is readable and writable for `len` bytes (or `len` is 0); `written` and `err` are
/// NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pctenc_normalize_in_place(
    buf: *mut u8,
    len: usize,
    written: *mut usize,
    err: *mut pctenc_error,
) -> pctenc_status {
    let body = AssertUnwindSafe(|| {
        // SAFETY: the caller's contract on `written` and the buffer.
        unsafe {
            store(written, 0)?;
            let buf = output(buf, len)?;
            ptr::write(written, pctenc_core::normalize_in_place(buf));
        }
        Ok(())
    });
    // SAFETY: the caller's contract on `err`.
    unsafe { run(err, body) }
}
