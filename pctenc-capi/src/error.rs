//! What a call reports: the status it returns, the detail in `pctenc_error`, and how a
//! failure inside a call (or a panic) becomes both.

use core::ffi::{c_char, c_int};
use core::panic::UnwindSafe;
use core::ptr;
use std::panic::catch_unwind;

use pctenc_core::{DecodeErrorKind, ValidationErrorKind};

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
    /// Memory could not be allocated: for a handle or a stream (`pctenc_*_new`, which then
    /// store NULL), or in `pctenc_form_parse` for a piece that changes when decoded. Nothing
    /// was allocated that is still held, and the process goes on: pctenc never aborts on a
    /// failed allocation.
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
    /// `pctenc_decoder_from_words`, `pctenc_encoder_from_words`: a word that is unknown,
    /// repeated or contradicts an earlier one, or a bad value (`utf8=latin1`); the offset is
    /// where that word starts in the words (status `PCTENC_BAD_ARGUMENT`).
    PCTENC_KIND_BAD_WORD = 15,
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

/// A failure inside a call: the status and the error to report.
pub(crate) struct Failure {
    status: pctenc_status,
    kind: pctenc_error_kind,
    offset: usize,
    byte: u8,
}

impl Failure {
    pub(crate) const fn bad_argument() -> Failure {
        Failure {
            status: pctenc_status::PCTENC_BAD_ARGUMENT,
            kind: pctenc_error_kind::PCTENC_KIND_BAD_ARGUMENT,
            offset: 0,
            byte: 0,
        }
    }

    pub(crate) const fn bad_word(offset: usize) -> Failure {
        Failure {
            status: pctenc_status::PCTENC_BAD_ARGUMENT,
            kind: pctenc_error_kind::PCTENC_KIND_BAD_WORD,
            offset,
            byte: 0,
        }
    }

    pub(crate) const fn internal() -> Failure {
        Failure {
            status: pctenc_status::PCTENC_INTERNAL_ERROR,
            kind: pctenc_error_kind::PCTENC_KIND_INTERNAL,
            offset: 0,
            byte: 0,
        }
    }

    pub(crate) const fn out_of_memory(offset: usize) -> Failure {
        Failure {
            status: pctenc_status::PCTENC_OUT_OF_MEMORY,
            kind: pctenc_error_kind::PCTENC_KIND_OUT_OF_MEMORY,
            offset,
            byte: 0,
        }
    }

    pub(crate) const fn stopped(offset: usize) -> Failure {
        Failure {
            status: pctenc_status::PCTENC_STOPPED,
            kind: pctenc_error_kind::PCTENC_KIND_STOPPED,
            offset,
            byte: 0,
        }
    }

    pub(crate) const fn too_small(offset: usize) -> Failure {
        Failure {
            status: pctenc_status::PCTENC_BUFFER_TOO_SMALL,
            kind: pctenc_error_kind::PCTENC_KIND_BUFFER_TOO_SMALL,
            offset,
            byte: 0,
        }
    }

    pub(crate) fn decode(e: pctenc_core::DecodeError) -> Failure {
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

    pub(crate) fn validate(e: pctenc_core::ValidationError) -> Failure {
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

pub(crate) type Outcome = Result<(), Failure>;

/// Stores `error` in `*err` when `err` is not NULL.
///
/// # Safety
///
/// `err` is NULL or valid for a write of a `pctenc_error` (it need not be initialized).
pub(crate) unsafe fn report(
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
pub(crate) unsafe fn run(
    err: *mut pctenc_error,
    body: impl FnOnce() -> Outcome + UnwindSafe,
) -> pctenc_status {
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
        15 => c"bad option word",
        _ => c"unknown error kind",
    };
    text.as_ptr()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each C kind is the core's kind of the same name: `PCTENC_KIND_` and
    /// `DecodeErrorKind::name` in capitals (`_BYTE` added to the forbidden one), and its
    /// description is the core's message (the forbidden one's, which names the byte, aside).
    #[test]
    fn kinds_are_the_cores() {
        use core::ffi::CStr;
        use pctenc_core::{Decoder, Reject, Utf8Mode};

        let legacy = Decoder::new().legacy_u(true);
        let cases: [(Decoder, &[u8]); 7] = [
            (Decoder::new(), b"%4"),
            (Decoder::new(), b"%zz"),
            (Decoder::new().utf8(Utf8Mode::Strict), b"%FF"),
            (legacy, b"%u00"),
            (legacy, b"%u00zz"),
            (legacy, b"%uD800"),
            (Decoder::new().reject(Reject::NUL), b"%00"),
        ];
        for (dec, input) in cases {
            let e = dec.decode(input).unwrap_err();
            let kind = e.kind();
            let c_kind = Failure::decode(e).kind;
            let (c_name, name) = (format!("{c_kind:?}"), kind.name().to_ascii_uppercase());
            assert!(
                c_name == format!("PCTENC_KIND_{name}") || c_name == format!("PCTENC_KIND_{name}_BYTE"),
                "{c_name} for {name}"
            );
            // SAFETY: `pctenc_error_kind_str` returns a static NUL-terminated string.
            let text = unsafe { CStr::from_ptr(pctenc_error_kind_str(c_kind as c_int)) };
            if !matches!(kind, DecodeErrorKind::Forbidden(_)) {
                assert_eq!(text.to_str().unwrap(), kind.to_string());
            }
        }
    }

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
}
