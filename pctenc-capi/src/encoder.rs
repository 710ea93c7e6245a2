//! Encoders: built from a set name or 256 bits and `PCTENC_ENCODE_*` flags; encode, size,
//! validate.

use core::ffi::c_char;
use core::panic::AssertUnwindSafe;
use core::ptr;
use std::panic::catch_unwind;

use pctenc_core::flags::EncodeFlag;
use pctenc_core::{Encoder, Set};

use crate::error::{Failure, pctenc_error, pctenc_status, run};
use crate::ffi::{from_words, handle, input, new_handle, output, overlap, read_set, set_from_bits, store};

/// An encoder: a set of bytes to escape and how to write the escapes. Built by
/// `pctenc_encoder_new` or `pctenc_encoder_new_custom`, freed by `pctenc_encoder_free`.
/// Immutable once built: any number of threads may use one handle at the same time.
pub struct pctenc_encoder(pub(crate) Encoder);

/// Encoder flag: write a space as `+` (HTML forms). The `"form"` and `"python-quote-plus"`
/// sets do this already.
pub const PCTENC_ENCODE_SPACE_AS_PLUS: u32 = 1 << 0;
/// Encoder flag: write escapes with lowercase hex digits (`%c3`), not uppercase (`%C3`).
pub const PCTENC_ENCODE_LOWERCASE: u32 = 1 << 1;
/// Encoder flag: re-quote. A valid `%HH` in the input is kept as written, a `%` that starts
/// no escape becomes `%25`: for half-encoded input (a URL typed by a user).
pub const PCTENC_ENCODE_KEEP_ESCAPES: u32 = 1 << 2;
/// Encoder flag: IRI (RFC 3987). Valid UTF-8 of RFC 3987's `ucschar` is kept raw: U+00A0 to
/// U+D7FF, U+F900 to U+FDCF, U+FDF0 to U+FFEF, and U+10000 to U+EFFFD but the last two code
/// points of each plane (U+1FFFE, U+1FFFF, ...) and U+E0000 to U+E0FFF; less Unicode's 12
/// bidi controls (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069), which its
/// section 4.1 forbids. Everything else non-ASCII is escaped: C1 controls (U+0080 to U+009F),
/// private use (U+E000 to U+F8FF, U+F0000 to U+10FFFF), noncharacters (U+FDD0 to U+FDEF,
/// U+xFFFE, U+xFFFF), the specials U+FFF0 to U+FFFF, tags and variation selectors (U+E0000
/// to U+E0FFF), the bidi controls, and bytes that are not part of valid UTF-8.
pub const PCTENC_ENCODE_IRI: u32 = 1 << 3;

/// Where each `PCTENC_ENCODE_*` flag sits, for `pctenc_core::flags`, which refuses the bits
/// it does not name.
const ENCODE_FLAGS: [(EncodeFlag, u32); 4] = [
    (EncodeFlag::SpaceAsPlus, PCTENC_ENCODE_SPACE_AS_PLUS),
    (EncodeFlag::Lowercase, PCTENC_ENCODE_LOWERCASE),
    (EncodeFlag::KeepEscapes, PCTENC_ENCODE_KEEP_ESCAPES),
    (EncodeFlag::Iri, PCTENC_ENCODE_IRI),
];

fn encoder_with_flags(set: Set, flags: u32) -> Result<Encoder, Failure> {
    pctenc_core::flags::encoder(set, &ENCODE_FLAGS, flags).map_err(|_| Failure::bad_argument())
}

/// Builds an encoder for the predefined set named by `name` (`name_len` bytes, not
/// NUL-terminated; ASCII case is ignored and `_` equals `-`): `"rfc3986"`, `"component"`,
/// `"uri"`, `"form"`, `"fragment"`, `"query"`, `"special-query"`, `"path"`, `"userinfo"`,
/// `"c0-control"`, `"python-quote"`, `"python-quote-plus"`, `"go-path"`,
/// `"non-alphanumeric"`, or one of their aliases (as `pctenc sets` lists them). `flags` is 0
/// or a union of `PCTENC_ENCODE_*` flags, which add to what the set does.
///
/// Writes: `*out`, the new handle (NULL on failure); `*err` when `err` is not NULL.
/// Returns `PCTENC_OK`; `PCTENC_BAD_ARGUMENT` for a NULL `out`, a NULL `name` with
/// `name_len > 0`, an unknown name or an unknown flag (a decoder flag among them);
/// `PCTENC_OUT_OF_MEMORY` when there is
/// no memory for the handle (never an abort).
/// Ownership: the caller owns the handle and frees it with `pctenc_encoder_free`. `name` is
/// only read during the call. Thread-safe.
///
/// # Safety
///
/// `name` is valid for reads of `name_len` bytes (or `name_len` is 0); `out` is NULL or
/// writable; `err` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pctenc_encoder_new(
    name: *const c_char,
    name_len: usize,
    flags: u32,
    out: *mut *mut pctenc_encoder,
    err: *mut pctenc_error,
) -> pctenc_status {
    let body = AssertUnwindSafe(|| {
        // SAFETY: the caller's contract on `out`, `name` and `name_len`.
        unsafe {
            new_handle(out, || {
                let name = input(name.cast(), name_len)?;
                let set =
                    core::str::from_utf8(name).ok().and_then(Set::by_name).ok_or(Failure::bad_argument())?;
                encoder_with_flags(set, flags).map(pctenc_encoder)
            })
        }
    });
    // SAFETY: the caller's contract on `err`.
    unsafe { run(err, body) }
}

/// Builds an encoder for a custom set: `set` points to `PCTENC_SET_BYTES` (32) bytes, bit
/// `b % 8` of `set[b / 8]` set when byte value `b` is to be escaped. Bytes 0x80 to 0xFF must
/// be all escaped (`set[16..32]` all 0xFF) or all clear (an IRI set, as
/// `PCTENC_ENCODE_IRI`: valid UTF-8 kept raw, other bytes escaped); anything else is
/// `PCTENC_BAD_ARGUMENT`. `%` should be escaped unless `PCTENC_ENCODE_KEEP_ESCAPES` is given,
/// or the output cannot be decoded back. `flags` as for `pctenc_encoder_new`.
///
/// Writes: `*out`, the new handle (NULL on failure); `*err` when `err` is not NULL.
/// Returns `PCTENC_OK`, `PCTENC_BAD_ARGUMENT` (NULL `set` or `out`, an upper half neither
/// all set nor all clear, an unknown flag) or `PCTENC_OUT_OF_MEMORY` (no memory for the
/// handle).
/// Ownership: the caller owns the handle (`pctenc_encoder_free`); `set` is only read during
/// the call. Thread-safe.
///
/// # Safety
///
/// `set` is NULL or valid for reads of 32 bytes; `out` and `err` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pctenc_encoder_new_custom(
    set: *const u8,
    flags: u32,
    out: *mut *mut pctenc_encoder,
    err: *mut pctenc_error,
) -> pctenc_status {
    let body = AssertUnwindSafe(|| {
        // SAFETY: the caller's contract on `out` and `set`.
        unsafe {
            new_handle(out, || {
                let set = set_from_bits(&read_set(set)?).ok_or(Failure::bad_argument())?;
                encoder_with_flags(set, flags).map(pctenc_encoder)
            })
        }
    });
    // SAFETY: the caller's contract on `err`.
    unsafe { run(err, body) }
}

/// Builds an encoder from option words, the vocabulary the nginx module, SQL, Python, the
/// CLI's `--mode` and the web page share: exactly one set name (as `pctenc_encoder_new`
/// takes it) and any of `space_as_plus`, `lowercase`, `requote` and `iri` (the
/// `PCTENC_ENCODE_*` flags), separated by spaces or commas, ASCII case ignored, `-` as `_`.
/// A repeated word or a second set name is an error naming both words.
///
/// ```c
/// pctenc_encoder *enc;
/// pctenc_status st = pctenc_encoder_from_words("form lowercase", 14, &enc, NULL, 0, NULL);
/// ```
///
/// Writes, returns, ownership: as `pctenc_decoder_from_words` (no set name at all is
/// `PCTENC_KIND_BAD_WORD` at offset `len`).
///
/// # Safety
///
/// `words` is valid for reads of `len` bytes (or `len` is 0); `message` is NULL or writable
/// for `message_cap` bytes; `out` and `err` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pctenc_encoder_from_words(
    words: *const c_char,
    len: usize,
    out: *mut *mut pctenc_encoder,
    message: *mut c_char,
    message_cap: usize,
    err: *mut pctenc_error,
) -> pctenc_status {
    let body = AssertUnwindSafe(|| {
        // SAFETY: the caller's contract on `out`, `words`, `len`, `message`, `message_cap`.
        unsafe {
            new_handle(out, || {
                from_words(words.cast(), len, message, message_cap, str::parse::<Encoder>).map(pctenc_encoder)
            })
        }
    });
    // SAFETY: the caller's contract on `err`.
    unsafe { run(err, body) }
}

/// Frees an encoder. NULL is allowed and does nothing.
/// Ownership: takes back the handle; it must not be used afterwards, by any thread.
///
/// # Safety
///
/// `enc` is NULL or a handle from `pctenc_encoder_new*` not freed yet, and no other thread
/// is using it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pctenc_encoder_free(enc: *mut pctenc_encoder) {
    if !enc.is_null() {
        // SAFETY: the caller's contract: a live handle from `Box::into_raw`, freed once.
        drop(unsafe { Box::from_raw(enc) });
    }
}

/// The exact number of bytes `pctenc_encode` writes for this input: size a buffer with it,
/// then encode into it (as nginx's `ngx_escape_uri(NULL, ...)`). Reads the input; writes
/// nothing.
///
/// Returns the size, or `SIZE_MAX` for a bad argument (a NULL `enc`; a NULL `src` with
/// `len > 0`), or when the size does not fit in a `size_t`.
/// Thread-safe: any number of threads may share `enc`.
///
/// # Safety
///
/// `enc` is NULL or a live encoder; `src` is valid for reads of `len` bytes (or `len` is 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pctenc_encoded_len(enc: *const pctenc_encoder, src: *const u8, len: usize) -> usize {
    let body = AssertUnwindSafe(|| {
        // SAFETY: the caller's contract on `enc`, `src` and `len`.
        let (enc, src) = unsafe { (handle(enc).ok()?, input(src, len).ok()?) };
        enc.0.checked_encoded_len(src)
    });
    catch_unwind(body).ok().flatten().unwrap_or(usize::MAX)
}

/// Percent-encodes `src` (`len` bytes) into `dst`, which has room for `cap` bytes.
///
/// Never writes past `dst + cap`. When the encoding fits, `*written` is its length (exactly
/// `pctenc_encoded_len`). When it does not, returns `PCTENC_BUFFER_TOO_SMALL`, sets
/// `*written` to the size needed, and leaves unspecified bytes in `dst[0..cap)`; a size
/// query with `dst = NULL`, `cap = 0` works this way. `src` and `dst` must not overlap.
///
/// Writes: `dst[0..*written)` (and, on success, possibly bytes after it, up to
/// `dst + cap`: the vector code stores whole registers); `*written` (0 on a bad argument); `*err` when not NULL.
/// Returns `PCTENC_OK`, `PCTENC_BUFFER_TOO_SMALL`, or `PCTENC_BAD_ARGUMENT` (NULL `enc` or
/// `written`, a NULL buffer with a length, overlapping buffers). Encoding never fails on
/// input.
/// Ownership: nothing is kept after the call. Thread-safe: any number of threads may share
/// `enc`.
///
/// # Safety
///
/// `enc` is NULL or a live encoder; `src` is readable for `len` bytes and `dst` writable for
/// `cap` bytes (or the length is 0); `written` and `err` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pctenc_encode(
    enc: *const pctenc_encoder,
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
        let (enc, src, dst) = unsafe { (handle(enc)?, input(src, len)?, output(dst, cap)?) };
        let (n, outcome) = match enc.0.encode_slice(src, dst) {
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

/// Checks that `src` is already a correct encoding for the encoder's set: no byte the set
/// escapes appears raw (`+` is fine when the set writes a space as `+`; with an IRI set, raw
/// non-ASCII must be valid UTF-8), and every `%` starts a `%HH` escape. Reads the input;
/// writes only `*err`.
///
/// The `%` rule holds for every set, also for those that do not escape `%` (`"fragment"`,
/// `"query"`, `"special-query"`, `"path"`, `"userinfo"`, `"c0-control"`, and custom sets
/// without `%`): their `pctenc_encode` copies a raw `%` as it is, so the output of encoding
/// an input with a `%` that starts no escape (`"100%"`, `"%zz"`) does not validate with the
/// same encoder (`PCTENC_KIND_TRUNCATED_ESCAPE` or `PCTENC_KIND_INVALID_ESCAPE`). Validation
/// asks whether decoding gives back what was meant, and a stray `%` makes that ambiguous.
///
/// Returns `PCTENC_OK`; `PCTENC_INVALID_INPUT` with the first problem in `*err`
/// (`PCTENC_KIND_UNESCAPED_BYTE` and the byte, `PCTENC_KIND_TRUNCATED_ESCAPE` or
/// `PCTENC_KIND_INVALID_ESCAPE`, and its offset); `PCTENC_BAD_ARGUMENT`.
/// Thread-safe: any number of threads may share `enc`.
///
/// # Safety
///
/// `enc` is NULL or a live encoder; `src` is readable for `len` bytes (or `len` is 0); `err`
/// is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pctenc_validate(
    enc: *const pctenc_encoder,
    src: *const u8,
    len: usize,
    err: *mut pctenc_error,
) -> pctenc_status {
    let body = AssertUnwindSafe(|| {
        // SAFETY: the caller's contract on `enc`, `src` and `len`.
        let (enc, src) = unsafe { (handle(enc)?, input(src, len)?) };
        enc.0.validate(src).map_err(Failure::validate)
    });
    // SAFETY: the caller's contract on `err`.
    unsafe { run(err, body) }
}
