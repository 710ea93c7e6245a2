//! Decoders: built from `PCTENC_DECODE_*` flags and a set of escapes to keep; decode into a
//! buffer or in place, size the output.

use core::panic::AssertUnwindSafe;
use core::ptr;

use pctenc_core::flags::DecodeFlag;
use pctenc_core::{DecodeErrorKind, Decoder, Reject, Utf8Mode};

use crate::error::{Failure, pctenc_error, pctenc_status, run};
use crate::ffi::{from_words, handle, input, new_handle, output, overlap, read_set, set_from_bits, store};

/// A decoder: strict or lenient, `+` as space, UTF-8 mode, kept and rejected escapes. Built
/// by `pctenc_decoder_new`, freed by `pctenc_decoder_free`. Immutable once built: any number
/// of threads may use one handle at the same time.
pub struct pctenc_decoder(pub(crate) Decoder);

/// Decoder flag: a `%` that starts no valid escape is copied as it is (browsers), instead of
/// being an error.
pub const PCTENC_DECODE_LENIENT: u32 = 1 << 8;
/// Decoder flag: `+` decodes to a space (form bodies, query strings).
pub const PCTENC_DECODE_PLUS_AS_SPACE: u32 = 1 << 9;
/// Decoder flag: the decoded bytes must be valid UTF-8, else `PCTENC_KIND_INVALID_UTF8`.
pub const PCTENC_DECODE_UTF8_STRICT: u32 = 1 << 10;
/// Decoder flag: each invalid UTF-8 sequence of the output becomes U+FFFD (three bytes: the
/// output can be longer than the input). Not with `PCTENC_DECODE_UTF8_STRICT`.
pub const PCTENC_DECODE_UTF8_LOSSY: u32 = 1 << 11;
/// Decoder flag: `%uHHHH` decodes to the UTF-8 of that UTF-16 code unit (JavaScript's
/// `unescape`), a surrogate pair (`%uD83D%uDE00`) to its character. A lone surrogate is
/// `PCTENC_KIND_LONE_SURROGATE`; with `PCTENC_DECODE_LENIENT` it becomes U+FFFD (EF BF BD),
/// whether or not `PCTENC_DECODE_UTF8_LOSSY` is set, as JavaScript's `unescape` would give it
/// to a UTF-8 encoder.
pub const PCTENC_DECODE_LEGACY_U: u32 = 1 << 12;
/// Decoder flag: an escape that decodes to NUL (`%00`) is `PCTENC_KIND_FORBIDDEN_BYTE`.
/// Only escapes are checked: a raw NUL byte in the input passes to the output as it is, so
/// this flag alone does not mean "no NUL in the output"; check raw bytes yourself where they
/// matter (see examples/proxy.c).
pub const PCTENC_DECODE_REJECT_NUL: u32 = 1 << 13;
/// Decoder flag: an escape that decodes to CR or LF (`%0D`, `%0A`) is forbidden. Only
/// escapes are checked: a raw CR or LF in the input passes to the output as it is.
pub const PCTENC_DECODE_REJECT_CR_LF: u32 = 1 << 14;
/// Decoder flag: an escape that decodes to an ASCII control (0x00 to 0x1F, 0x7F) is forbidden.
/// Only escapes are checked: a raw control byte in the input passes to the output as it is.
pub const PCTENC_DECODE_REJECT_CONTROLS: u32 = 1 << 15;
/// Decoder flag: an escape that decodes to `/` or `\` (`%2F`, `%5C`) is forbidden: what a
/// proxy or a file server checks in a decoded path. Only escapes are checked: a raw `/` or
/// `\` in the input passes to the output as it is (`../../etc/passwd` decodes without an
/// error), and `.` and `..` are not looked at; check those yourself (see examples/proxy.c).
pub const PCTENC_DECODE_REJECT_SLASHES: u32 = 1 << 16;
/// Where each `PCTENC_DECODE_*` flag sits, for `pctenc_core::flags`, which refuses the bits
/// it does not name and UTF-8 strict with lossy.
const DECODE_FLAGS: [(DecodeFlag, u32); 9] = [
    (DecodeFlag::Lenient, PCTENC_DECODE_LENIENT),
    (DecodeFlag::PlusAsSpace, PCTENC_DECODE_PLUS_AS_SPACE),
    (DecodeFlag::Utf8Strict, PCTENC_DECODE_UTF8_STRICT),
    (DecodeFlag::Utf8Lossy, PCTENC_DECODE_UTF8_LOSSY),
    (DecodeFlag::LegacyU, PCTENC_DECODE_LEGACY_U),
    (DecodeFlag::Reject(Reject::NUL), PCTENC_DECODE_REJECT_NUL),
    (DecodeFlag::Reject(Reject::CR_LF), PCTENC_DECODE_REJECT_CR_LF),
    (DecodeFlag::Reject(Reject::CONTROLS), PCTENC_DECODE_REJECT_CONTROLS),
    (DecodeFlag::Reject(Reject::SLASHES), PCTENC_DECODE_REJECT_SLASHES),
];

/// Builds a decoder. `flags` is 0 (strict, `+` kept, bytes as they are: JavaScript's
/// `decodeURIComponent` without its UTF-8 check) or a union of `PCTENC_DECODE_*` flags.
/// `keep` is NULL, or `PCTENC_SET_BYTES` (32) bytes naming the bytes whose escapes are kept
/// as written instead of decoded (as `decodeURI` keeps `%2F`), laid out as for
/// `pctenc_encoder_new_custom`: bytes 0x80 to 0xFF all set (their escapes kept) or all clear
/// (decoded).
///
/// Writes: `*out`, the new handle (NULL on failure); `*err` when `err` is not NULL.
/// Returns `PCTENC_OK`, `PCTENC_BAD_ARGUMENT` (NULL `out`, an unknown flag, an encoder flag
/// among them, both
/// `PCTENC_DECODE_UTF8_STRICT` and `PCTENC_DECODE_UTF8_LOSSY`, a `keep` upper half neither
/// all set nor all clear) or `PCTENC_OUT_OF_MEMORY` (no memory for the handle).
/// Ownership: the caller owns the handle (`pctenc_decoder_free`); `keep` is only read during
/// the call. Thread-safe.
///
/// # Safety
///
/// `keep` is NULL or readable for 32 bytes; `out` and `err` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pctenc_decoder_new(
    flags: u32,
    keep: *const u8,
    out: *mut *mut pctenc_decoder,
    err: *mut pctenc_error,
) -> pctenc_status {
    let body = AssertUnwindSafe(|| {
        // SAFETY: the caller's contract on `out` and `keep`.
        unsafe {
            new_handle(out, || {
                let mut dec =
                    pctenc_core::flags::decoder(&DECODE_FLAGS, flags).map_err(|_| Failure::bad_argument())?;
                if !keep.is_null() {
                    dec = dec.keep_encoded(set_from_bits(&read_set(keep)?).ok_or(Failure::bad_argument())?);
                }
                Ok(pctenc_decoder(dec))
            })
        }
    });
    // SAFETY: the caller's contract on `err`.
    unsafe { run(err, body) }
}

/// Builds a decoder from option words, the vocabulary the nginx module, SQL, Python, the CLI's
/// `--mode` and the web page share: `strict` (the default) or `lenient`; `plus`;
/// `utf8=bytes` (the default), `utf8=strict` or `utf8=lossy` (`lossy` alone is `utf8=lossy`,
/// and touches UTF-8 only); `legacy_u`; `reject_nul`, `reject_controls`, `reject_crlf`,
/// `reject_slashes`, `reject_all`; `keep_encoded=SET` (a set name or `uri_reserved`).
/// Words are separated by spaces or commas; ASCII case is ignored and `-` equals `_`.
/// A repeated word, or two words that contradict each other (`strict lenient`,
/// `lossy utf8=strict`), is an error naming both. `words` is `len` bytes, not
/// NUL-terminated; no words at all is strict decoding of bytes (flags 0).
///
/// ```c
/// char why[256];
/// pctenc_decoder *dec;
/// pctenc_error err;
/// if (pctenc_decoder_from_words("strict lenient", 14, &dec, why, sizeof why, &err) != PCTENC_OK)
///     fprintf(stderr, "%s\n", why); // `lenient` contradicts `strict` (word at offset 7)
/// ```
///
/// Writes: `*out`, the new handle (NULL on failure); `*err` when `err` is not NULL; when
/// `message` is not NULL and `message_cap > 0`, a NUL-terminated English message (cut to
/// `message_cap - 1` bytes), empty on success.
/// Returns `PCTENC_OK`; `PCTENC_BAD_ARGUMENT` for a NULL `out`, NULL `words` with `len > 0`,
/// or bad words, then with kind `PCTENC_KIND_BAD_WORD` and `err->offset` the offset in
/// `words` of the word at fault (of the first byte that is not UTF-8); or
/// `PCTENC_OUT_OF_MEMORY` (no memory for the handle).
/// Ownership: the caller owns the handle (`pctenc_decoder_free`); `words` is only read during
/// the call. Thread-safe.
///
/// # Safety
///
/// `words` is valid for reads of `len` bytes (or `len` is 0); `message` is NULL or writable
/// for `message_cap` bytes; `out` and `err` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pctenc_decoder_from_words(
    words: *const core::ffi::c_char,
    len: usize,
    out: *mut *mut pctenc_decoder,
    message: *mut core::ffi::c_char,
    message_cap: usize,
    err: *mut pctenc_error,
) -> pctenc_status {
    let body = AssertUnwindSafe(|| {
        // SAFETY: the caller's contract on `out`, `words`, `len`, `message`, `message_cap`.
        unsafe {
            new_handle(out, || {
                from_words(words.cast(), len, message, message_cap, str::parse::<Decoder>).map(pctenc_decoder)
            })
        }
    });
    // SAFETY: the caller's contract on `err`.
    unsafe { run(err, body) }
}

/// Frees a decoder. NULL is allowed and does nothing.
/// Ownership: takes back the handle; it must not be used afterwards, by any thread.
///
/// # Safety
///
/// `dec` is NULL or a handle from `pctenc_decoder_new` not freed yet, and no other thread is
/// using it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pctenc_decoder_free(dec: *mut pctenc_decoder) {
    if !dec.is_null() {
        // SAFETY: the caller's contract: a live handle from `Box::into_raw`, freed once.
        drop(unsafe { Box::from_raw(dec) });
    }
}

/// An upper bound of the decoded size of any `len`-byte input, without reading it: `len`,
/// or `3 * len` (saturating at `SIZE_MAX`) with `PCTENC_DECODE_UTF8_LOSSY`, where each
/// invalid byte can become the three bytes of U+FFFD. A `dst` of this size never gives
/// `PCTENC_BUFFER_TOO_SMALL`. Returns `SIZE_MAX` for a NULL `dec`. Writes nothing.
/// Thread-safe.
///
/// # Safety
///
/// `dec` is NULL or a live decoder.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pctenc_decoded_len_max(dec: *const pctenc_decoder, len: usize) -> usize {
    // SAFETY: the caller's contract on `dec`.
    match unsafe { dec.as_ref() } {
        Some(dec) if dec.0.utf8_value() == Utf8Mode::Lossy => len.saturating_mul(3),
        Some(_) => len,
        None => usize::MAX,
    }
}

/// The exact decoded size of `src`, found by reading it without allocating
/// (`pctenc_decoded_len_max` gives a bound without reading). An input that does not
/// decode gives its error, as `pctenc_decode` would.
///
/// Writes: `*out_len` (0 unless `PCTENC_OK`); `*err` when not NULL.
/// Returns `PCTENC_OK`, `PCTENC_INVALID_INPUT` (the error and its offset in `*err`), or
/// `PCTENC_BAD_ARGUMENT` (NULL `dec` or `out_len`, NULL `src` with `len > 0`).
/// Thread-safe: any number of threads may share `dec`.
///
/// # Safety
///
/// `dec` is NULL or a live decoder; `src` is readable for `len` bytes (or `len` is 0);
/// `out_len` and `err` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pctenc_decoded_len(
    dec: *const pctenc_decoder,
    src: *const u8,
    len: usize,
    out_len: *mut usize,
    err: *mut pctenc_error,
) -> pctenc_status {
    let body = AssertUnwindSafe(|| {
        // SAFETY: the caller's contract on every pointer.
        unsafe {
            store(out_len, 0)?;
            let (dec, src) = (handle(dec)?, input(src, len)?);
            let n = decoded_len(&dec.0, src)?;
            ptr::write(out_len, n);
        }
        Ok(())
    });
    // SAFETY: the caller's contract on `err`.
    unsafe { run(err, body) }
}

/// The decoded length of `src`, or its error (without allocating).
fn decoded_len(dec: &Decoder, src: &[u8]) -> Result<usize, Failure> {
    dec.decoded_len(src).map_err(Failure::decode)
}

/// Decodes `src` (`len` bytes) into `dst`, which has room for `cap` bytes.
///
/// Never writes past `dst + cap`. On success `*written` is the decoded length. When the
/// output does not fit, the whole input is decoded to find the size needed: if the input is
/// valid, returns `PCTENC_BUFFER_TOO_SMALL`, `*written` is the size needed and
/// `err->offset` the first input byte whose output did not fit; if the input has an error
/// (even one after the point where `dst` filled up), that error is returned, as
/// `pctenc_decoded_len` returns it. A buffer of `pctenc_decoded_len_max` bytes is always
/// large enough. After an error the contents of `dst[0..cap)` are unspecified. `src` and
/// `dst` must not overlap (see `pctenc_decode_in_place`).
///
/// Writes: `dst[0..*written)` (and, on success, possibly bytes after it, up to
/// `dst + cap`: the vector code stores whole registers); `*written` (0 on errors other than
/// `PCTENC_BUFFER_TOO_SMALL`); `*err` when not NULL.
/// Returns `PCTENC_OK`, `PCTENC_INVALID_INPUT` (kind and offset in `*err`; the kind is one
/// of truncated escape, invalid escape, invalid UTF-8, forbidden byte, lone surrogate),
/// `PCTENC_BUFFER_TOO_SMALL`, `PCTENC_BAD_ARGUMENT` (NULL `dec` or `written`, a NULL buffer
/// with a length, overlapping buffers).
/// Ownership: nothing is kept after the call. Thread-safe: any number of threads may share
/// `dec`.
///
/// # Safety
///
/// `dec` is NULL or a live decoder; `src` is readable for `len` bytes and `dst` writable for
/// `cap` bytes (or the length is 0); `written` and `err` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pctenc_decode(
    dec: *const pctenc_decoder,
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
        // SAFETY: the caller's contract on every pointer; the buffers do not overlap.
        let (dec, src, dst) = unsafe { (handle(dec)?, input(src, len)?, output(dst, cap)?) };
        match dec.0.decode_slice(src, dst) {
            Ok(n) => {
                // SAFETY: checked non-NULL and writable above.
                unsafe { ptr::write(written, n) };
                Ok(())
            }
            Err(e) if e.kind() == DecodeErrorKind::BufferTooSmall => {
                // `decode_slice` reports a lack of room only for input that decodes, with
                // the size it needs.
                let needed = match e.needed() {
                    Some(needed) => needed,
                    None => decoded_len(&dec.0, src)?,
                };
                // SAFETY: as above.
                unsafe { ptr::write(written, needed) };
                Err(Failure::too_small(e.offset()))
            }
            Err(e) => Err(Failure::decode(e)),
        }
    });
    // SAFETY: the caller's contract on `err`.
    unsafe { run(err, body) }
}

/// Decodes `buf` (`len` bytes) in place: on success the decoded bytes are `buf[0..*written)`.
/// Without `PCTENC_DECODE_UTF8_LOSSY` the output is never longer than the input, so this
/// fails only on invalid input. With it, a replacement that makes the output longer than
/// `len` is `PCTENC_BUFFER_TOO_SMALL`, with `*written` the size the whole output needs and
/// `err->offset` always 0: the input has been overwritten by then, so no input offset can be
/// given. To learn where the output stops fitting, decode a copy with `pctenc_decode` into
/// `len` bytes (its `err->offset` is that input offset), or size a buffer with
/// `pctenc_decoded_len` first. After an error `buf` holds unspecified bytes.
///
/// Writes: `buf[0..len)`; `*written` (the size needed on `PCTENC_BUFFER_TOO_SMALL`, else 0
/// on error); `*err` when not NULL.
/// Returns as `pctenc_decode`.
/// Thread-safe: any number of threads may share `dec` (each with its own `buf`).
///
/// # Safety
///
/// `dec` is NULL or a live decoder; `buf` is readable and writable for `len` bytes (or `len`
/// is 0); `written` and `err` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pctenc_decode_in_place(
    dec: *const pctenc_decoder,
    buf: *mut u8,
    len: usize,
    written: *mut usize,
    err: *mut pctenc_error,
) -> pctenc_status {
    let body = AssertUnwindSafe(|| {
        // SAFETY: the caller's contract on every pointer.
        unsafe {
            store(written, 0)?;
            let (dec, buf) = (handle(dec)?, output(buf, len)?);
            let n = match dec.0.decode_in_place(buf) {
                Ok(n) => n,
                Err(e) if e.kind() == DecodeErrorKind::BufferTooSmall => {
                    // The core's offset indexes the decoded bytes, not the input: not
                    // reported (see above).
                    ptr::write(written, e.needed().unwrap_or(0));
                    return Err(Failure::too_small(0));
                }
                Err(e) => return Err(Failure::decode(e)),
            };
            ptr::write(written, n);
        }
        Ok(())
    });
    // SAFETY: the caller's contract on `err`.
    unsafe { run(err, body) }
}
