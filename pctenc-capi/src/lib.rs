//! libpctenc: the C API of pctenc.
//!
//! A thin layer over the Rust API: every function checks its arguments, converts them into
//! slices, calls `pctenc_core` and writes the result back. The header, `include/pctenc.h`, is
//! generated from this file by cbindgen (`cbindgen.toml`); the documentation comments below
//! become its comments, so they are written for C programmers.
//!
//! Rules for every function, stated once in the header's preamble:
//! - buffers are a pointer and a length, never NUL-terminated; NULL with length 0 is an
//!   empty buffer, NULL with a length above 0 is `PCTENC_BAD_ARGUMENT`;
//! - nothing is written past a capacity the caller gives;
//! - no Rust panic crosses the boundary: each entry point catches one and returns
//!   `PCTENC_INTERNAL_ERROR` (none is known to be reachable).
#![allow(non_camel_case_types)]
#![deny(missing_docs)]

use core::ffi::{c_char, c_int, c_void};
use core::panic::{AssertUnwindSafe, UnwindSafe};
use core::ptr;
use std::panic::catch_unwind;

use pctenc_core::{DecodeErrorKind, Decoder, Encoder, Reject, Set, Utf8Mode, ValidationErrorKind};

mod stream;
pub use stream::*;

/// What a function did. Every function that can fail returns one, and stores the same value
/// in `pctenc_error.status` when it is given an error struct.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum pctenc_status {
    /// Success.
    PCTENC_OK = 0,
    /// The input is not valid for the operation; `pctenc_error.kind` says why and
    /// `pctenc_error.offset` where.
    PCTENC_INVALID_INPUT = 1,
    /// The output buffer is too small. Nothing past its capacity was written; the size it
    /// needs is stored in `*written` when it is known (see each function).
    PCTENC_BUFFER_TOO_SMALL = 2,
    /// An argument is wrong: a NULL pointer with a length above 0, a NULL handle or output
    /// pointer, an unknown set name, an unknown or contradictory flag, overlapping buffers.
    PCTENC_BAD_ARGUMENT = 3,
    /// A bug in pctenc was caught before it crossed into C. Nothing is known about the output.
    PCTENC_INTERNAL_ERROR = 4,
    /// Memory could not be allocated (`pctenc_form_parse`: for a piece that changes when
    /// decoded). Nothing was allocated that is still held.
    PCTENC_OUT_OF_MEMORY = 5,
    /// `pctenc_form_parse`: the callback returned non-zero and the parse stopped there;
    /// `pctenc_error.offset` is where the unparsed rest of the input starts.
    PCTENC_STOPPED = 6,
}

/// Why a function failed: the detail behind a `pctenc_status`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum pctenc_error_kind {
    /// No error.
    PCTENC_KIND_NONE = 0,
    /// A `%` at the end of the input with fewer than two bytes after it, all hex digits
    /// (`"100%"`, `"%4"`): more input could have made it an escape.
    PCTENC_KIND_TRUNCATED_ESCAPE = 1,
    /// A `%` not followed by two hex digits (`"%zz"`, `"%4g"`).
    PCTENC_KIND_INVALID_ESCAPE = 2,
    /// The decoded bytes are not valid UTF-8 (`PCTENC_DECODE_UTF8_STRICT`); the offset is
    /// the input byte where the invalid sequence starts.
    PCTENC_KIND_INVALID_UTF8 = 3,
    /// An escape decodes to a byte the decoder rejects (`PCTENC_DECODE_REJECT_*`); the byte
    /// is in `pctenc_error.byte`, the offset is that of its `%`.
    PCTENC_KIND_FORBIDDEN_BYTE = 4,
    /// A `%uHHHH` escape of half a UTF-16 surrogate pair (`PCTENC_DECODE_LEGACY_U`, strict).
    PCTENC_KIND_LONE_SURROGATE = 5,
    /// `pctenc_validate`: a byte the set escapes appears raw; the byte is in
    /// `pctenc_error.byte`.
    PCTENC_KIND_UNESCAPED_BYTE = 6,
    /// The output buffer is too small (status `PCTENC_BUFFER_TOO_SMALL`).
    PCTENC_KIND_BUFFER_TOO_SMALL = 7,
    /// An argument is wrong (status `PCTENC_BAD_ARGUMENT`).
    PCTENC_KIND_BAD_ARGUMENT = 8,
    /// A bug in pctenc was caught (status `PCTENC_INTERNAL_ERROR`).
    PCTENC_KIND_INTERNAL = 9,
    /// Invalid input of a kind this version of the header does not name.
    PCTENC_KIND_OTHER = 10,
    /// A `%u` at the end of the input with fewer than four hex digits after it
    /// (`PCTENC_DECODE_LEGACY_U`, strict): `"%u00"`.
    PCTENC_KIND_TRUNCATED_U_ESCAPE = 11,
    /// A `%u` not followed by four hex digits (`PCTENC_DECODE_LEGACY_U`, strict): `"%u00zz"`.
    PCTENC_KIND_INVALID_U_ESCAPE = 12,
    /// Memory could not be allocated (status `PCTENC_OUT_OF_MEMORY`).
    PCTENC_KIND_OUT_OF_MEMORY = 13,
    /// The callback asked to stop (status `PCTENC_STOPPED`).
    PCTENC_KIND_STOPPED = 14,
}

/// Where and why a call failed. Pass NULL wherever a `pctenc_error *` is taken if the detail
/// is not wanted. Every function that takes one overwrites all of its fields, on success too
/// (`PCTENC_OK`, `PCTENC_KIND_NONE`, offset 0, byte 0). Plain data: copy it, keep it, no
/// need to free it.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct pctenc_error {
    /// The status the function returned.
    pub status: pctenc_status,
    /// The detail.
    pub kind: pctenc_error_kind,
    /// For `PCTENC_INVALID_INPUT`: the byte offset in the input of the problem (the `%` of a
    /// bad escape). For `PCTENC_BUFFER_TOO_SMALL` from `pctenc_decode`: the offset of the
    /// first input byte whose output did not fit (from `pctenc_decode_in_place`, 0: see
    /// there). For `PCTENC_OUT_OF_MEMORY` and `PCTENC_STOPPED`: see `pctenc_form_parse`.
    /// Otherwise 0.
    pub offset: usize,
    /// For `PCTENC_KIND_FORBIDDEN_BYTE`: the byte the escape decodes to. For
    /// `PCTENC_KIND_UNESCAPED_BYTE`: the raw byte found. Otherwise 0.
    pub byte: u8,
}

/// An encoder: a set of bytes to escape and how to write the escapes. Built by
/// `pctenc_encoder_new` or `pctenc_encoder_new_custom`, freed by `pctenc_encoder_free`.
/// Immutable once built: any number of threads may use one handle at the same time.
pub struct pctenc_encoder(Encoder);

/// A decoder: strict or lenient, `+` as space, UTF-8 mode, kept and rejected escapes. Built
/// by `pctenc_decoder_new`, freed by `pctenc_decoder_free`. Immutable once built: any number
/// of threads may use one handle at the same time.
pub struct pctenc_decoder(Decoder);

/// Encoder flag: write a space as `+` (HTML forms). The `"form"` and `"python-quote-plus"`
/// sets do this already.
pub const PCTENC_ENCODE_SPACE_AS_PLUS: u32 = 1 << 0;
/// Encoder flag: write escapes with lowercase hex digits (`%c3`), not uppercase (`%C3`).
pub const PCTENC_ENCODE_LOWERCASE: u32 = 1 << 1;
/// Encoder flag: re-quote. A valid `%HH` in the input is kept as written, a `%` that starts
/// no escape becomes `%25`: for half-encoded input (a URL typed by a user).
pub const PCTENC_ENCODE_KEEP_ESCAPES: u32 = 1 << 2;
/// Encoder flag: IRI (RFC 3987). Non-ASCII characters of its `ucschar` are kept raw, less
/// Unicode's bidi controls (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069), which its
/// section 4.1 forbids; C1 controls, private use characters, noncharacters and bytes that are
/// not part of valid UTF-8 are still escaped.
pub const PCTENC_ENCODE_IRI: u32 = 1 << 3;
const ENCODE_FLAGS: u32 =
    PCTENC_ENCODE_SPACE_AS_PLUS | PCTENC_ENCODE_LOWERCASE | PCTENC_ENCODE_KEEP_ESCAPES | PCTENC_ENCODE_IRI;

/// Decoder flag: a `%` that starts no valid escape is copied as it is (browsers), instead of
/// being an error.
pub const PCTENC_DECODE_LENIENT: u32 = 1 << 0;
/// Decoder flag: `+` decodes to a space (form bodies, query strings).
pub const PCTENC_DECODE_PLUS_AS_SPACE: u32 = 1 << 1;
/// Decoder flag: the decoded bytes must be valid UTF-8, else `PCTENC_KIND_INVALID_UTF8`.
pub const PCTENC_DECODE_UTF8_STRICT: u32 = 1 << 2;
/// Decoder flag: each invalid UTF-8 sequence of the output becomes U+FFFD (three bytes: the
/// output can be longer than the input). Not with `PCTENC_DECODE_UTF8_STRICT`.
pub const PCTENC_DECODE_UTF8_LOSSY: u32 = 1 << 3;
/// Decoder flag: `%uHHHH` decodes to the UTF-8 of that UTF-16 code unit (JavaScript's
/// `unescape`).
pub const PCTENC_DECODE_LEGACY_U: u32 = 1 << 4;
/// Decoder flag: an escape that decodes to NUL (`%00`) is `PCTENC_KIND_FORBIDDEN_BYTE`.
/// Only escapes are checked: a raw NUL byte in the input passes to the output as it is, so
/// this flag alone does not mean "no NUL in the output"; check raw bytes yourself where they
/// matter (see examples/proxy.c).
pub const PCTENC_DECODE_REJECT_NUL: u32 = 1 << 5;
/// Decoder flag: an escape that decodes to CR or LF (`%0D`, `%0A`) is forbidden. Only
/// escapes are checked: a raw CR or LF in the input passes to the output as it is.
pub const PCTENC_DECODE_REJECT_CR_LF: u32 = 1 << 6;
/// Decoder flag: an escape that decodes to an ASCII control (0x00 to 0x1F, 0x7F) is forbidden.
/// Only escapes are checked: a raw control byte in the input passes to the output as it is.
pub const PCTENC_DECODE_REJECT_CONTROLS: u32 = 1 << 7;
/// Decoder flag: an escape that decodes to `/` or `\` (`%2F`, `%5C`) is forbidden: what a
/// proxy or a file server checks in a decoded path. Only escapes are checked: a raw `/` or
/// `\` in the input passes to the output as it is (`../../etc/passwd` decodes without an
/// error), and `.` and `..` are not looked at; check those yourself (see examples/proxy.c).
pub const PCTENC_DECODE_REJECT_SLASHES: u32 = 1 << 8;
const DECODE_FLAGS: u32 = (1 << 9) - 1;

/// The major version of the library this header belongs to (`pctenc_version()` gives that
/// of the library linked at run time).
pub const PCTENC_VERSION_MAJOR: u32 = 0;
/// The minor version of the library this header belongs to.
pub const PCTENC_VERSION_MINOR: u32 = 1;
/// The patch version of the library this header belongs to.
pub const PCTENC_VERSION_PATCH: u32 = 0;
/// The decimal number at the start of `s[from..]` and the index after it (compile time).
const fn version_part(s: &[u8], from: usize) -> (u32, usize) {
    let (mut n, mut i) = (0u32, from);
    while i < s.len() && s[i].is_ascii_digit() {
        n = n * 10 + (s[i] - b'0') as u32;
        i += 1;
    }
    (n, i + 1)
}

// The header's version macros are the package's version: the build fails when they drift.
// (PCTENC_VERSION_STRING, which cbindgen cannot generate, is in cbindgen.toml; the unit test
// `version_string_is_the_package_version` and tests/capi.c check it.)
const _: () = {
    let v = env!("CARGO_PKG_VERSION").as_bytes();
    let (major, i) = version_part(v, 0);
    let (minor, i) = version_part(v, i);
    let (patch, _) = version_part(v, i);
    assert!(major == PCTENC_VERSION_MAJOR && minor == PCTENC_VERSION_MINOR && patch == PCTENC_VERSION_PATCH);
};

/// The size of a byte set given to `pctenc_encoder_new_custom` and `pctenc_decoder_new`:
/// 256 bits, bit `b % 8` of byte `b / 8` standing for byte value `b`.
pub const PCTENC_SET_BYTES: usize = 32;

// ----------------------------------------------------------------------------------------
// Plumbing.

/// A failure inside a call: the status and the error to report.
struct Failure {
    status: pctenc_status,
    kind: pctenc_error_kind,
    offset: usize,
    byte: u8,
}

impl Failure {
    const fn bad_argument() -> Failure {
        Failure {
            status: pctenc_status::PCTENC_BAD_ARGUMENT,
            kind: pctenc_error_kind::PCTENC_KIND_BAD_ARGUMENT,
            offset: 0,
            byte: 0,
        }
    }

    const fn internal() -> Failure {
        Failure {
            status: pctenc_status::PCTENC_INTERNAL_ERROR,
            kind: pctenc_error_kind::PCTENC_KIND_INTERNAL,
            offset: 0,
            byte: 0,
        }
    }

    const fn out_of_memory(offset: usize) -> Failure {
        Failure {
            status: pctenc_status::PCTENC_OUT_OF_MEMORY,
            kind: pctenc_error_kind::PCTENC_KIND_OUT_OF_MEMORY,
            offset,
            byte: 0,
        }
    }

    const fn stopped(offset: usize) -> Failure {
        Failure {
            status: pctenc_status::PCTENC_STOPPED,
            kind: pctenc_error_kind::PCTENC_KIND_STOPPED,
            offset,
            byte: 0,
        }
    }

    const fn too_small(offset: usize) -> Failure {
        Failure {
            status: pctenc_status::PCTENC_BUFFER_TOO_SMALL,
            kind: pctenc_error_kind::PCTENC_KIND_BUFFER_TOO_SMALL,
            offset,
            byte: 0,
        }
    }

    fn decode(e: pctenc_core::DecodeError) -> Failure {
        use pctenc_error_kind::*;
        let (kind, byte) = match e.kind() {
            DecodeErrorKind::TruncatedEscape => (PCTENC_KIND_TRUNCATED_ESCAPE, 0),
            DecodeErrorKind::InvalidEscape => (PCTENC_KIND_INVALID_ESCAPE, 0),
            DecodeErrorKind::InvalidUtf8 => (PCTENC_KIND_INVALID_UTF8, 0),
            DecodeErrorKind::BufferTooSmall => return Failure::too_small(e.offset()),
            DecodeErrorKind::LoneSurrogate => (PCTENC_KIND_LONE_SURROGATE, 0),
            DecodeErrorKind::Forbidden(b) => (PCTENC_KIND_FORBIDDEN_BYTE, b),
            DecodeErrorKind::TruncatedUEscape => (PCTENC_KIND_TRUNCATED_U_ESCAPE, 0),
            DecodeErrorKind::InvalidUEscape => (PCTENC_KIND_INVALID_U_ESCAPE, 0),
            _ => (PCTENC_KIND_OTHER, 0),
        };
        Failure { status: pctenc_status::PCTENC_INVALID_INPUT, kind, offset: e.offset(), byte }
    }

    fn validate(e: pctenc_core::ValidationError) -> Failure {
        use pctenc_error_kind::*;
        let (kind, byte) = match e.kind() {
            ValidationErrorKind::Unescaped => (PCTENC_KIND_UNESCAPED_BYTE, e.byte()),
            ValidationErrorKind::TruncatedEscape => (PCTENC_KIND_TRUNCATED_ESCAPE, 0),
            ValidationErrorKind::InvalidEscape => (PCTENC_KIND_INVALID_ESCAPE, 0),
            _ => (PCTENC_KIND_OTHER, e.byte()),
        };
        Failure { status: pctenc_status::PCTENC_INVALID_INPUT, kind, offset: e.offset(), byte }
    }
}

type Outcome = Result<(), Failure>;

/// Stores `error` in `*err` when `err` is not NULL.
///
/// # Safety
///
/// `err` is NULL or valid for a write of a `pctenc_error` (it need not be initialized).
unsafe fn report(
    err: *mut pctenc_error,
    status: pctenc_status,
    kind: pctenc_error_kind,
    offset: usize,
    byte: u8,
) {
    if !err.is_null() {
        // SAFETY: the caller's contract: `err` is valid for writes. `write` reads nothing, so
        // an uninitialized struct is fine.
        unsafe { ptr::write(err, pctenc_error { status, kind, offset, byte }) };
    }
}

/// Runs `body`, catches a panic, reports the outcome in `*err` and returns its status.
///
/// # Safety
///
/// `err` is NULL or valid for a write of a `pctenc_error`.
unsafe fn run(err: *mut pctenc_error, body: impl FnOnce() -> Outcome + UnwindSafe) -> pctenc_status {
    let failure = match catch_unwind(body) {
        Ok(Ok(())) => {
            // SAFETY: the caller's contract on `err`.
            unsafe { report(err, pctenc_status::PCTENC_OK, pctenc_error_kind::PCTENC_KIND_NONE, 0, 0) };
            return pctenc_status::PCTENC_OK;
        }
        Ok(Err(failure)) => failure,
        Err(_) => Failure::internal(),
    };
    // SAFETY: the caller's contract on `err`.
    unsafe { report(err, failure.status, failure.kind, failure.offset, failure.byte) };
    failure.status
}

/// The C buffer `(ptr, len)` as a slice: empty when `len` is 0 whatever `ptr`, an error when
/// `ptr` is NULL with a length, or when `len` exceeds `isize::MAX` (no object is that large).
///
/// # Safety
///
/// When `ptr` is not NULL and `len > 0`, it is valid for reads of `len` bytes for `'a`, and
/// nothing writes them meanwhile.
unsafe fn input<'a>(ptr: *const u8, len: usize) -> Result<&'a [u8], Failure> {
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
unsafe fn output<'a>(ptr: *mut u8, len: usize) -> Result<&'a mut [u8], Failure> {
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
fn overlap(a: *const u8, a_len: usize, b: *const u8, b_len: usize) -> bool {
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
unsafe fn handle<'a, T>(ptr: *const T) -> Result<&'a T, Failure> {
    // SAFETY: the caller's contract: NULL, or a live handle.
    unsafe { ptr.as_ref() }.ok_or(Failure::bad_argument())
}

/// Stores `value` in `*out`.
///
/// # Safety
///
/// `out` is NULL (an error) or valid for a write of a `T`.
unsafe fn store<T>(out: *mut T, value: T) -> Outcome {
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
fn set_from_bits(bits: &[u8; PCTENC_SET_BYTES]) -> Option<Set> {
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
unsafe fn read_set(bits: *const u8) -> Result<[u8; PCTENC_SET_BYTES], Failure> {
    if bits.is_null() {
        return Err(Failure::bad_argument());
    }
    let mut copy = [0u8; PCTENC_SET_BYTES];
    // SAFETY: the caller's contract: 32 readable bytes; `copy` is a distinct local.
    unsafe { ptr::copy_nonoverlapping(bits, copy.as_mut_ptr(), PCTENC_SET_BYTES) };
    Ok(copy)
}

fn encoder_with_flags(set: Set, flags: u32) -> Result<Encoder, Failure> {
    if flags & !ENCODE_FLAGS != 0 {
        return Err(Failure::bad_argument());
    }
    let mut set = set;
    if flags & PCTENC_ENCODE_SPACE_AS_PLUS != 0 {
        set = set.with_space_as_plus(true);
    }
    if flags & PCTENC_ENCODE_IRI != 0 {
        set = set.with_iri(true);
    }
    Ok(Encoder::new(set)
        .lowercase(flags & PCTENC_ENCODE_LOWERCASE != 0)
        .keep_escapes(flags & PCTENC_ENCODE_KEEP_ESCAPES != 0))
}

/// Boxes `value` and stores the pointer in `*out` (NULL first, in case of a failure).
///
/// # Safety
///
/// `out` is NULL (an error) or valid for a write of a pointer.
unsafe fn new_handle<T>(out: *mut *mut T, make: impl FnOnce() -> Result<T, Failure>) -> Outcome {
    if out.is_null() {
        return Err(Failure::bad_argument());
    }
    // SAFETY: `out` is writable (the caller's contract).
    unsafe { ptr::write(out, ptr::null_mut()) };
    let value = make()?;
    // SAFETY: as above.
    unsafe { ptr::write(out, Box::into_raw(Box::new(value))) };
    Ok(())
}

// ----------------------------------------------------------------------------------------
// Library information.

/// The version of libpctenc, as `"MAJOR.MINOR.PATCH"`: a static NUL-terminated string, never
/// NULL, never to be freed. Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn pctenc_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// The name of the SIMD backend pctenc chose for this CPU (`"avx512"`, `"avx2"`, `"ssse3"`,
/// `"sse2"`, `"neon"` or `"scalar"`): a static NUL-terminated string, never NULL, never to be
/// freed. Every handle uses this backend. Thread-safe; the first call detects the CPU.
#[unsafe(no_mangle)]
pub extern "C" fn pctenc_backend_name() -> *const c_char {
    let name = catch_unwind(|| pctenc_core::Backend::detect().name()).unwrap_or("scalar");
    let name: &'static core::ffi::CStr = match name {
        "sse2" => c"sse2",
        "ssse3" => c"ssse3",
        "avx2" => c"avx2",
        "avx512" => c"avx512",
        "neon" => c"neon",
        _ => c"scalar",
    };
    name.as_ptr()
}

/// A short English description of `status` (a `pctenc_status` value; any other number gives
/// `"unknown status"`): a static NUL-terminated string, never NULL, never to be freed.
/// Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn pctenc_status_str(status: c_int) -> *const c_char {
    let text: &'static core::ffi::CStr = match status {
        0 => c"success",
        1 => c"invalid input",
        2 => c"output buffer too small",
        3 => c"bad argument",
        4 => c"internal error",
        5 => c"out of memory",
        6 => c"stopped by the callback",
        _ => c"unknown status",
    };
    text.as_ptr()
}

/// A short English description of `kind` (a `pctenc_error_kind` value; any other number
/// gives `"unknown error kind"`): a static NUL-terminated string, never NULL, never to be
/// freed. Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn pctenc_error_kind_str(kind: c_int) -> *const c_char {
    let text: &'static core::ffi::CStr = match kind {
        0 => c"no error",
        1 => c"truncated percent-escape: `%` needs two hex digits",
        2 => c"invalid percent-escape: `%` not followed by two hex digits",
        3 => c"decoded bytes are not valid UTF-8",
        4 => c"rejected byte: an escape decodes to a forbidden byte",
        5 => c"lone surrogate: `%u` escape of half a UTF-16 surrogate pair",
        6 => c"a byte that must be percent-encoded appears raw",
        7 => c"output buffer too small",
        8 => c"bad argument",
        9 => c"internal error",
        10 => c"invalid input",
        11 => c"truncated `%u` escape: `%u` needs four hex digits",
        12 => c"invalid `%u` escape: `%u` not followed by four hex digits",
        13 => c"out of memory",
        14 => c"stopped by the callback",
        _ => c"unknown error kind",
    };
    text.as_ptr()
}

// ----------------------------------------------------------------------------------------
// Encoders.

/// Builds an encoder for the predefined set named by `name` (`name_len` bytes, not
/// NUL-terminated; ASCII case is ignored and `_` equals `-`): `"rfc3986"`, `"component"`,
/// `"uri"`, `"form"`, `"fragment"`, `"query"`, `"special-query"`, `"path"`, `"userinfo"`,
/// `"c0-control"`, `"python-quote"`, `"python-quote-plus"`, `"go-path"`,
/// `"non-alphanumeric"`, or one of their aliases (as `pctenc sets` lists them). `flags` is 0
/// or a union of `PCTENC_ENCODE_*` flags, which add to what the set does.
///
/// Writes: `*out`, the new handle (NULL on failure); `*err` when `err` is not NULL.
/// Returns `PCTENC_OK`, or `PCTENC_BAD_ARGUMENT` for a NULL `out`, a NULL `name` with
/// `name_len > 0`, an unknown name or an unknown flag.
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
/// Returns `PCTENC_OK` or `PCTENC_BAD_ARGUMENT` (NULL `set` or `out`, an upper half neither
/// all set nor all clear, an unknown flag).
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
/// Writes: `dst[0..*written)`; `*written` (0 on a bad argument); `*err` when not NULL.
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

// ----------------------------------------------------------------------------------------
// Decoders.

/// Builds a decoder. `flags` is 0 (strict, `+` kept, bytes as they are: JavaScript's
/// `decodeURIComponent` without its UTF-8 check) or a union of `PCTENC_DECODE_*` flags.
/// `keep` is NULL, or `PCTENC_SET_BYTES` (32) bytes naming the bytes whose escapes are kept
/// as written instead of decoded (as `decodeURI` keeps `%2F`), laid out as for
/// `pctenc_encoder_new_custom`: bytes 0x80 to 0xFF all set (their escapes kept) or all clear
/// (decoded).
///
/// Writes: `*out`, the new handle (NULL on failure); `*err` when `err` is not NULL.
/// Returns `PCTENC_OK` or `PCTENC_BAD_ARGUMENT` (NULL `out`, an unknown flag, both
/// `PCTENC_DECODE_UTF8_STRICT` and `PCTENC_DECODE_UTF8_LOSSY`, a `keep` upper half neither
/// all set nor all clear).
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
                let strict_and_lossy = PCTENC_DECODE_UTF8_STRICT | PCTENC_DECODE_UTF8_LOSSY;
                if flags & !DECODE_FLAGS != 0 || flags & strict_and_lossy == strict_and_lossy {
                    return Err(Failure::bad_argument());
                }
                let on = |flag: u32| flags & flag != 0;
                let utf8 = if on(PCTENC_DECODE_UTF8_STRICT) {
                    Utf8Mode::Strict
                } else if on(PCTENC_DECODE_UTF8_LOSSY) {
                    Utf8Mode::Lossy
                } else {
                    Utf8Mode::Bytes
                };
                let mut reject = Reject::NONE;
                for (flag, class) in [
                    (PCTENC_DECODE_REJECT_NUL, Reject::NUL),
                    (PCTENC_DECODE_REJECT_CR_LF, Reject::CR_LF),
                    (PCTENC_DECODE_REJECT_CONTROLS, Reject::CONTROLS),
                    (PCTENC_DECODE_REJECT_SLASHES, Reject::SLASHES),
                ] {
                    if on(flag) {
                        reject |= class;
                    }
                }
                let mut dec = Decoder::new()
                    .lenient(on(PCTENC_DECODE_LENIENT))
                    .plus_as_space(on(PCTENC_DECODE_PLUS_AS_SPACE))
                    .utf8(utf8)
                    .legacy_u(on(PCTENC_DECODE_LEGACY_U))
                    .reject(reject);
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
/// Writes: `dst[0..*written)`; `*written` (0 on errors other than
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

// ----------------------------------------------------------------------------------------
// Normalization and forms.

/// Percent-encoding normalization of `src` into `dst` (room for `cap` bytes), the two rules
/// of RFC 3986 sections 6.2.2.1 and 6.2.2.2 and nothing else: escapes get uppercase hex
/// digits, escapes of unreserved characters (letters, digits, `-._~`) are decoded, every
/// other byte is copied (raw bytes are never changed: no case folding of a scheme or host).
/// Dot segments are NOT removed (section 6.2.2.3, the algorithm of section 5.2.4): the
/// output can hold `.` and `..` segments, and can gain them (`/a/%2e%2e/b` becomes
/// `/a/../b`). Before routing on a path or opening a file, remove the dot segments of the
/// output or refuse them (examples/proxy.c shows how). The output is never longer than the
/// input, so `cap = len` always fits. Never fails on input.
///
/// Never writes past `dst + cap`. When the output does not fit, returns
/// `PCTENC_BUFFER_TOO_SMALL` and sets `*written` to the size needed. `src` and `dst` must
/// not overlap (see `pctenc_normalize_in_place`).
///
/// Writes: `dst[0..*written)`; `*written`; `*err` when not NULL.
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

#[cfg(test)]
mod tests {
    use super::*;

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

    /// A panic inside an entry point becomes `PCTENC_INTERNAL_ERROR`, reported in the error
    /// struct, and does not unwind into the caller.
    #[test]
    fn a_panic_is_caught() {
        let mut err = pctenc_error {
            status: pctenc_status::PCTENC_OK,
            kind: pctenc_error_kind::PCTENC_KIND_NONE,
            offset: 7,
            byte: 7,
        };
        // SAFETY: `err` is writable.
        let status = unsafe { run(&mut err, || panic!("a bug")) };
        assert_eq!(status, pctenc_status::PCTENC_INTERNAL_ERROR);
        assert_eq!(
            (err.status, err.kind, err.offset, err.byte),
            (status, pctenc_error_kind::PCTENC_KIND_INTERNAL, 0, 0)
        );
    }

    /// The header's PCTENC_VERSION_STRING, written in cbindgen.toml, is the package's version.
    #[test]
    fn version_string_is_the_package_version() {
        let line = format!("#define PCTENC_VERSION_STRING \"{}\"", env!("CARGO_PKG_VERSION"));
        assert!(include_str!("../cbindgen.toml").contains(&line), "cbindgen.toml lacks {line}");
        assert!(include_str!("../include/pctenc.h").contains(&line), "pctenc.h lacks {line}");
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
