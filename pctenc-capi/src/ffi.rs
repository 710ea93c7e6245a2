//! The C side of every call: pointers and lengths checked and turned into slices, overlapping
//! buffers refused, handles borrowed, boxed and stored, byte sets read.

use core::ptr;
use std::alloc::{Layout, alloc};

use pctenc_core::Set;

use crate::error::{Failure, Outcome};

/// The size of a byte set given to `pctenc_encoder_new_custom` and `pctenc_decoder_new`:
/// 256 bits, bit `b % 8` of byte `b / 8` standing for byte value `b`.
pub const PCTENC_SET_BYTES: usize = 32;

/// The C buffer `(ptr, len)` as a slice: empty when `len` is 0 whatever `ptr`, an error when
/// `ptr` is NULL with a length, or when `len` exceeds `isize::MAX` (no object is that large).
///
/// # Safety
///
/// When `ptr` is not NULL and `len > 0`, it is valid for reads of `len` bytes for `'a`, and
/// nothing writes them meanwhile.
pub(crate) unsafe fn input<'a>(ptr: *const u8, len: usize) -> Result<&'a [u8], Failure> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() || len > isize::MAX as usize {
        return Err(Failure::bad_argument());
    }
    // SAFETY: non-NULL, `len` bytes readable (the caller's contract), `len <= isize::MAX`.
    Ok(unsafe { core::slice::from_raw_parts(ptr, len) })
}

/// [`input`] for an output buffer.
///
/// # Safety
///
/// When `ptr` is not NULL and `len > 0`, it is valid for reads and writes of `len` bytes for
/// `'a`, and nothing else accesses them meanwhile.
pub(crate) unsafe fn output<'a>(ptr: *mut u8, len: usize) -> Result<&'a mut [u8], Failure> {
    if len == 0 {
        return Ok(&mut []);
    }
    if ptr.is_null() || len > isize::MAX as usize {
        return Err(Failure::bad_argument());
    }
    // SAFETY: non-NULL, `len` bytes readable and writable, used by nobody else (the caller's
    // contract), `len <= isize::MAX`.
    Ok(unsafe { core::slice::from_raw_parts_mut(ptr, len) })
}

/// Whether the non-empty byte ranges `[a, a + a_len)` and `[b, b + b_len)` overlap. Only
/// addresses are compared; nothing is read.
pub(crate) fn overlap(a: *const u8, a_len: usize, b: *const u8, b_len: usize) -> bool {
    if a_len == 0 || b_len == 0 {
        return false;
    }
    let (a, b) = (a as usize, b as usize);
    a < b.wrapping_add(b_len) && b < a.wrapping_add(a_len)
}

/// A handle as a reference.
///
/// # Safety
///
/// `ptr` is NULL or a handle from this library, not freed, valid for `'a`.
pub(crate) unsafe fn handle<'a, T>(ptr: *const T) -> Result<&'a T, Failure> {
    // SAFETY: the caller's contract: NULL, or a live handle.
    unsafe { ptr.as_ref() }.ok_or(Failure::bad_argument())
}

/// Stores `value` in `*out`.
///
/// # Safety
///
/// `out` is NULL (an error) or valid for a write of a `T`.
pub(crate) unsafe fn store<T>(out: *mut T, value: T) -> Outcome {
    if out.is_null() {
        return Err(Failure::bad_argument());
    }
    // SAFETY: the caller's contract: non-NULL `out` is writable.
    unsafe { ptr::write(out, value) };
    Ok(())
}

/// A 256-bit set from C as a `Set`: the ASCII half bit for bit; the upper half (bytes 0x80 to
/// 0xFF) all set (escaped, kept encoded) or all clear (an IRI set: kept raw, decoded). Any
/// other upper half cannot be expressed: `None`.
pub(crate) fn set_from_bits(bits: &[u8; PCTENC_SET_BYTES]) -> Option<Set> {
    let mut set = Set::EMPTY;
    for b in 0u8..128 {
        if bits[usize::from(b / 8)] >> (b % 8) & 1 != 0 {
            set = set.add(b);
        }
    }
    match &bits[16..] {
        high if high.iter().all(|&x| x == 0xFF) => Some(set),
        high if high.iter().all(|&x| x == 0) => Some(set.with_iri(true)),
        _ => None,
    }
}

/// Reads the 32 bytes of a C set.
///
/// # Safety
///
/// `bits` is NULL (an error) or valid for reads of 32 bytes.
pub(crate) unsafe fn read_set(bits: *const u8) -> Result<[u8; PCTENC_SET_BYTES], Failure> {
    if bits.is_null() {
        return Err(Failure::bad_argument());
    }
    let mut copy = [0u8; PCTENC_SET_BYTES];
    // SAFETY: the caller's contract: 32 readable bytes; `copy` is a distinct local.
    unsafe { ptr::copy_nonoverlapping(bits, copy.as_mut_ptr(), PCTENC_SET_BYTES) };
    Ok(copy)
}

/// Boxes `value` and stores the pointer in `*out` (NULL first, in case of a failure).
/// Memory that cannot be had is `PCTENC_OUT_OF_MEMORY`: `Box::new` would abort the process,
/// and a proxy that rebuilds its handles on a reload must live through that.
///
/// # Safety
///
/// `out` is NULL (an error) or valid for a write of a pointer.
pub(crate) unsafe fn new_handle<T>(out: *mut *mut T, make: impl FnOnce() -> Result<T, Failure>) -> Outcome {
    if out.is_null() {
        return Err(Failure::bad_argument());
    }
    // SAFETY: `out` is writable (the caller's contract).
    unsafe { ptr::write(out, ptr::null_mut()) };
    let value = make()?;
    let boxed = try_box(value).ok_or(Failure::out_of_memory(0))?;
    // SAFETY: as above.
    unsafe { ptr::write(out, boxed) };
    Ok(())
}

/// `Box::into_raw(Box::new(value))`, or `None` when the allocator has no memory for it. The
/// pointer is freed with `Box::from_raw`, as a `Box`'s is: same allocator, same layout.
fn try_box<T>(value: T) -> Option<*mut T> {
    let layout = Layout::new::<T>();
    if layout.size() == 0 {
        return Some(Box::into_raw(Box::new(value)));
    }
    // SAFETY: the layout's size is not zero.
    let raw = unsafe { alloc(layout) }.cast::<T>();
    if raw.is_null() {
        return None;
    }
    // SAFETY: `raw` is a fresh allocation of `T`'s layout, aligned and not yet initialized:
    // writing a `T` into it makes it what `Box::into_raw` gives.
    unsafe { ptr::write(raw, value) };
    Some(raw)
}

/// Parses `(words, len)` with `parse` (the core's `FromStr` for a decoder or an encoder),
/// writing the error's message, or an empty one on success, into `message` (see
/// `pctenc_decoder_from_words`).
///
/// # Safety
///
/// `words` as for [`input`]; `message` is NULL or valid for writes of `message_cap` bytes.
pub(crate) unsafe fn from_words<T>(
    words: *const u8,
    len: usize,
    message: *mut core::ffi::c_char,
    message_cap: usize,
    parse: impl FnOnce(&str) -> Result<T, pctenc_core::WordsError>,
) -> Result<T, Failure> {
    let write = |text: &str| {
        if !message.is_null() && message_cap > 0 {
            let n = text.len().min(message_cap - 1);
            // SAFETY: the caller's contract: `message` is writable for `message_cap` bytes,
            // and `n + 1 <= message_cap`; `text` is a distinct Rust string.
            unsafe {
                ptr::copy_nonoverlapping(text.as_ptr(), message.cast::<u8>(), n);
                message.add(n).write(0);
            }
        }
    };
    // SAFETY: the caller's contract on `words` and `len`.
    let bytes = match unsafe { input(words, len) } {
        Ok(bytes) => bytes,
        Err(failure) => {
            write("the words are NULL with a length above 0");
            return Err(failure);
        }
    };
    let text = match core::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let at = e.valid_up_to();
            write(&format!("the words are not UTF-8 (byte at offset {at})"));
            return Err(Failure::bad_word(at));
        }
    };
    match parse(text) {
        Ok(value) => {
            write("");
            Ok(value)
        }
        Err(e) => {
            write(&e.to_string());
            Err(Failure::bad_word(e.offset()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boxed_handles_free_as_boxes() {
        let p = try_box([7u64; 4]).unwrap();
        // SAFETY: `p` comes from `try_box`, freed once, as the `_free` functions free handles.
        assert_eq!(*unsafe { Box::from_raw(p) }, [7u64; 4]);
        let z = try_box(()).unwrap();
        // SAFETY: as above, a zero-sized value.
        drop(unsafe { Box::from_raw(z) });
    }

    #[test]
    fn set_bits_round_trip() {
        let mut bits = [0u8; 32];
        bits[16..].fill(0xFF);
        bits[4] = 1; // b' ' = 32
        let set = set_from_bits(&bits).unwrap();
        assert!(set.contains(b' ') && !set.contains(b'a') && set.contains(0x80) && !set.is_iri());
        bits[16..].fill(0);
        assert!(set_from_bits(&bits).unwrap().is_iri());
        bits[31] = 1;
        assert!(set_from_bits(&bits).is_none());
    }

    #[test]
    fn overlap_is_by_address() {
        let buf = [0u8; 8];
        let p = buf.as_ptr();
        assert!(overlap(p, 4, p.wrapping_add(3), 4));
        assert!(!overlap(p, 4, p.wrapping_add(4), 4));
        assert!(!overlap(p, 0, p, 4));
    }
}
