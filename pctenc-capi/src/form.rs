//! Form bodies and query strings: pairs passed to a C callback, decoded without aborting when
//! memory runs out.

use core::ffi::{c_int, c_void};
use core::panic::AssertUnwindSafe;

use pctenc_core::Decoder;

use crate::error::{Failure, Outcome, pctenc_error, pctenc_status, run};
use crate::ffi::input;

/// The callback of `pctenc_form_parse`: called once per `(name, value)` pair, in order,
/// with the decoded name and value as pointer and length (not NUL-terminated).
///
/// The pointers are never NULL, but when a length is 0 the pointer is not to be dereferenced
/// (it may point just past the input, or be a placeholder address). A name or value that
/// decoding leaves unchanged points into the caller's `src`; one that changes points into
/// memory of pctenc's, valid only until the callback returns. Copy what you keep.
///
/// `user` is the pointer given to `pctenc_form_parse`. Return 0 to go on, anything else to
/// stop: `pctenc_form_parse` then returns `PCTENC_STOPPED`. The callback must not unwind
/// (C++ exceptions, `longjmp`) out of itself.
pub type pctenc_form_callback = Option<
    unsafe extern "C" fn(
        user: *mut c_void,
        name: *const u8,
        name_len: usize,
        value: *const u8,
        value_len: usize,
    ) -> c_int,
>;

/// Parses an application/x-www-form-urlencoded body or query string (`a=1&b=two+words`) as
/// `URLSearchParams` does: splits on `&` (empty pieces skipped) and on the first `=`, and
/// decodes each name and value leniently with `+` as space, invalid UTF-8 replaced by U+FFFD.
/// Calls `callback` for each pair, in order, until it returns non-zero. Never fails on input.
///
/// Memory: a name or value that needs no decoding (no `%`, no `+`, valid UTF-8) is passed
/// as a pointer into `src`. One that changes is decoded into a buffer of pctenc's, sized
/// exactly (the decoded name and value of one pair, which can be up to 3 times the encoded
/// size when invalid UTF-8 is replaced) and reused from pair to pair; it is freed before
/// the call returns. When that memory cannot be had, the call returns
/// `PCTENC_OUT_OF_MEMORY` instead of aborting, with `err->offset` the offset in `src` of the
/// pair that could not be decoded; the pairs before it have been passed to the callback.
///
/// Writes: nothing but `*err` (when not NULL); what the callback does is its own.
/// Returns `PCTENC_OK` (every pair passed to the callback); `PCTENC_STOPPED` (the callback
/// returned non-zero, even on the last pair; `err->offset` is the offset in `src` of the
/// rest not parsed, `len` when nothing is left); `PCTENC_OUT_OF_MEMORY`;
/// `PCTENC_BAD_ARGUMENT` (NULL `callback`, NULL `src` with `len > 0`).
/// Ownership: see the callback's type. Thread-safe: calls in several threads at once are
/// independent.
///
/// # Safety
///
/// `src` is readable for `len` bytes (or `len` is 0) and not written during the call;
/// `callback` is a function of the type above, safe to call with `user`; `err` is NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pctenc_form_parse(
    src: *const u8,
    len: usize,
    callback: pctenc_form_callback,
    user: *mut c_void,
    err: *mut pctenc_error,
) -> pctenc_status {
    let body = AssertUnwindSafe(|| {
        let callback = callback.ok_or(Failure::bad_argument())?;
        // SAFETY: the caller's contract on `src` and `len`.
        let src = unsafe { input(src, len)? };
        let mut scratch = Vec::new();
        form_pairs(src, &mut scratch, |name, value| {
            // SAFETY: the caller's contract: `callback` may be called with `user`; the
            // pieces are valid for the call.
            unsafe { callback(user, name.as_ptr(), name.len(), value.as_ptr(), value.len()) }
        })
    });
    // SAFETY: the caller's contract on `err`.
    unsafe { run(err, body) }
}

/// The pairs of a form body, as `pctenc_core::form::parse` gives them, passed to `f` until
/// it returns non-zero. Pieces that decoding changes are decoded into `scratch`, reserved
/// fallibly at their exact decoded size, so that a lack of memory is an error, not an abort.
fn form_pairs(src: &[u8], scratch: &mut Vec<u8>, mut f: impl FnMut(&[u8], &[u8]) -> c_int) -> Outcome {
    let dec = Decoder::FORM;
    let unchanged =
        |piece: &[u8]| !piece.iter().any(|&b| b == b'%' || b == b'+') && core::str::from_utf8(piece).is_ok();
    let mut at = 0;
    while at < src.len() {
        let piece_end = src[at..].iter().position(|&b| b == b'&').map_or(src.len(), |i| at + i);
        let piece = &src[at..piece_end];
        let pair_at = at;
        at = if piece_end < src.len() { piece_end + 1 } else { src.len() };
        if piece.is_empty() {
            continue;
        }
        let (name, value) = match piece.iter().position(|&b| b == b'=') {
            Some(eq) => (&piece[..eq], &piece[eq + 1..]),
            None => (piece, &piece[piece.len()..]),
        };
        // `None`: passed as it is; `Some(n)`: decodes to `n` bytes. `Decoder::FORM` is lenient
        // and lossy: it never fails, so an error here is a bug.
        let size = |part: &[u8]| -> Result<Option<usize>, Failure> {
            if unchanged(part) {
                Ok(None)
            } else {
                dec.decoded_len(part).map(Some).map_err(|_| Failure::internal())
            }
        };
        let (name_size, value_size) = (size(name)?, size(value)?);
        let name_len = name_size.unwrap_or(0);
        let total = name_len.saturating_add(value_size.unwrap_or(0));
        scratch.clear();
        if scratch.try_reserve_exact(total).is_err() {
            return Err(Failure::out_of_memory(pair_at));
        }
        // Within the capacity just reserved: no allocation.
        scratch.resize(total, 0);
        let (name_buf, value_buf) = scratch.split_at_mut(name_len);
        let decoded = |part: &'_ [u8], buf: &mut [u8]| match dec.decode_slice(part, buf) {
            Ok(n) if n == buf.len() => Ok(()),
            _ => Err(Failure::internal()),
        };
        let name = match name_size {
            Some(_) => decoded(name, name_buf).map(|()| &*name_buf)?,
            None => name,
        };
        let value = match value_size {
            Some(_) => decoded(value, value_buf).map(|()| &*value_buf)?,
            None => value,
        };
        if f(name, value) != 0 {
            return Err(Failure::stopped(at));
        }
    }
    Ok(())
}
