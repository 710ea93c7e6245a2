//! The C API (`pctenc-capi`) against the Rust API, through its `extern "C"` entry points,
//! with arbitrary options as C passes them (set names, 256-bit sets and flag words, valid or
//! not) and arbitrary output capacities: a handle is refused exactly when the options are
//! bad; `pctenc_encoded_len`, `pctenc_encode`, `pctenc_validate`, `pctenc_decoded_len`,
//! `pctenc_decode` and `pctenc_decode_in_place` give Rust's bytes, errors and offsets; the
//! size reported equals the bytes written; nothing is written past the capacity.
#![no_main]

use core::ptr;

use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use pctenc::{
    DecodeError, DecodeErrorKind, Decoder, Encoder, Reject, Set, Utf8Mode, ValidationErrorKind, sets,
};
use pctenc_capi::*;

/// Canary bytes after the capacity given.
const CANARY: usize = 16;

fn blank() -> pctenc_error {
    pctenc_error {
        status: pctenc_status::PCTENC_INTERNAL_ERROR,
        kind: pctenc_error_kind::PCTENC_KIND_OTHER,
        offset: usize::MAX,
        byte: 0xEE,
    }
}

const OK: pctenc_error = pctenc_error {
    status: pctenc_status::PCTENC_OK,
    kind: pctenc_error_kind::PCTENC_KIND_NONE,
    offset: 0,
    byte: 0,
};

/// The C error for a Rust decoding error.
fn c_error(e: DecodeError) -> pctenc_error {
    use pctenc_error_kind::*;
    let (status, kind, byte) = match e.kind() {
        DecodeErrorKind::BufferTooSmall => {
            (pctenc_status::PCTENC_BUFFER_TOO_SMALL, PCTENC_KIND_BUFFER_TOO_SMALL, 0)
        }
        DecodeErrorKind::TruncatedEscape => {
            (pctenc_status::PCTENC_INVALID_INPUT, PCTENC_KIND_TRUNCATED_ESCAPE, 0)
        }
        DecodeErrorKind::InvalidEscape => {
            (pctenc_status::PCTENC_INVALID_INPUT, PCTENC_KIND_INVALID_ESCAPE, 0)
        }
        DecodeErrorKind::InvalidUtf8 => (pctenc_status::PCTENC_INVALID_INPUT, PCTENC_KIND_INVALID_UTF8, 0),
        DecodeErrorKind::LoneSurrogate => {
            (pctenc_status::PCTENC_INVALID_INPUT, PCTENC_KIND_LONE_SURROGATE, 0)
        }
        DecodeErrorKind::Forbidden(b) => (pctenc_status::PCTENC_INVALID_INPUT, PCTENC_KIND_FORBIDDEN_BYTE, b),
        DecodeErrorKind::TruncatedUEscape => {
            (pctenc_status::PCTENC_INVALID_INPUT, PCTENC_KIND_TRUNCATED_U_ESCAPE, 0)
        }
        DecodeErrorKind::InvalidUEscape => {
            (pctenc_status::PCTENC_INVALID_INPUT, PCTENC_KIND_INVALID_U_ESCAPE, 0)
        }
        _ => (pctenc_status::PCTENC_INVALID_INPUT, PCTENC_KIND_OTHER, 0),
    };
    pctenc_error { status, kind, offset: e.offset(), byte }
}

/// The Rust set for 32 bytes of C set, or `None` when C must refuse them.
fn rust_set(bits: &[u8; 32]) -> Option<Set> {
    let ascii = u128::from_le_bytes(bits[..16].try_into().unwrap());
    let mut set = Set::EMPTY;
    for b in 0..128u8 {
        if ascii >> b & 1 != 0 {
            set = set.add(b);
        }
    }
    if bits[16..].iter().all(|&b| b == 0xFF) {
        Some(set)
    } else if bits[16..].iter().all(|&b| b == 0) {
        Some(set.with_iri(true))
    } else {
        None
    }
}

/// A flag word: mostly valid bits, sometimes anything.
fn flags(u: &mut Unstructured, valid: u32) -> Result<u32> {
    let raw: u32 = u.arbitrary()?;
    Ok(if u.ratio(1, 8)? { raw } else { raw & valid })
}

/// Builds an encoder both ways; `None` when C refused it (after checking that it had to).
fn encoder(u: &mut Unstructured) -> Result<Option<(*mut pctenc_encoder, Encoder)>> {
    let flags = flags(u, 0xF)?;
    let mut handle = ptr::null_mut();
    let mut err = blank();
    let (status, set) = if u.arbitrary()? {
        let mut bits: [u8; 32] = u.arbitrary()?;
        match u.int_in_range(0..=2u8)? {
            0 => bits[16..].fill(0xFF),
            1 => bits[16..].fill(0),
            _ => {}
        }
        // SAFETY: 32 readable bytes, writable out pointers.
        (unsafe { pctenc_encoder_new_custom(bits.as_ptr(), flags, &mut handle, &mut err) }, rust_set(&bits))
    } else {
        let name: Vec<u8> = if u.ratio(7, 8)? {
            let named = u.choose(sets::NAMED)?;
            let alias = u.choose(&[&[named.name][..], named.aliases].concat())?.to_string();
            if u.arbitrary()? {
                alias.to_ascii_uppercase().replace('-', "_").into_bytes()
            } else {
                alias.into_bytes()
            }
        } else {
            u.arbitrary()?
        };
        let set = core::str::from_utf8(&name).ok().and_then(Set::by_name);
        // SAFETY: `name.len()` readable bytes, writable out pointers.
        (unsafe { pctenc_encoder_new(name.as_ptr().cast(), name.len(), flags, &mut handle, &mut err) }, set)
    };
    let Some(set) = set.filter(|_| flags & !0xF == 0) else {
        assert_eq!(status, pctenc_status::PCTENC_BAD_ARGUMENT);
        assert!(handle.is_null());
        assert_eq!(err.kind, pctenc_error_kind::PCTENC_KIND_BAD_ARGUMENT);
        return Ok(None);
    };
    assert_eq!((status, err), (pctenc_status::PCTENC_OK, OK));
    let on = |f: u32| flags & f != 0;
    let set = set.with_space_as_plus(set.space_as_plus() || on(PCTENC_ENCODE_SPACE_AS_PLUS));
    let set = set.with_iri(set.is_iri() || on(PCTENC_ENCODE_IRI));
    let rust =
        Encoder::new(set).lowercase(on(PCTENC_ENCODE_LOWERCASE)).keep_escapes(on(PCTENC_ENCODE_KEEP_ESCAPES));
    Ok(Some((handle, rust)))
}

/// Builds a decoder both ways; `None` when C refused it (after checking that it had to).
fn decoder(u: &mut Unstructured) -> Result<Option<(*mut pctenc_decoder, Decoder)>> {
    let flags = flags(u, 0x1FF << 8)?;
    let keep: Option<[u8; 32]> = if u.ratio(1, 4)? {
        let mut bits: [u8; 32] = u.arbitrary()?;
        match u.int_in_range(0..=4u8)? {
            0 | 1 => bits[16..].fill(0xFF),
            2 | 3 => bits[16..].fill(0),
            _ => {}
        }
        Some(bits)
    } else {
        None
    };
    let mut handle = ptr::null_mut();
    let mut err = blank();
    let keep_ptr = keep.as_ref().map_or(ptr::null(), |k| k.as_ptr());
    // SAFETY: NULL or 32 readable bytes; writable out pointers.
    let status = unsafe { pctenc_decoder_new(flags, keep_ptr, &mut handle, &mut err) };
    let on = |f: u32| flags & f != 0;
    let keep_set = keep.as_ref().map(rust_set);
    let valid = flags & !(0x1FF << 8) == 0
        && !(on(PCTENC_DECODE_UTF8_STRICT) && on(PCTENC_DECODE_UTF8_LOSSY))
        && keep_set != Some(None);
    if !valid {
        assert_eq!(status, pctenc_status::PCTENC_BAD_ARGUMENT);
        assert!(handle.is_null());
        return Ok(None);
    }
    assert_eq!((status, err), (pctenc_status::PCTENC_OK, OK));
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
    let mut rust = Decoder::new()
        .lenient(on(PCTENC_DECODE_LENIENT))
        .plus_as_space(on(PCTENC_DECODE_PLUS_AS_SPACE))
        .utf8(utf8)
        .legacy_u(on(PCTENC_DECODE_LEGACY_U))
        .reject(reject);
    if let Some(Some(set)) = keep_set {
        rust = rust.keep_encoded(set);
    }
    Ok(Some((handle, rust)))
}

fn check_encode(c: *const pctenc_encoder, rust: &Encoder, input: &[u8], cap: usize) {
    let size = rust.encoded_len(input);
    // SAFETY: a live handle, a valid input.
    assert_eq!(unsafe { pctenc_encoded_len(c, input.as_ptr(), input.len()) }, size, "pctenc_encoded_len");
    let mut buf = vec![0xA5u8; cap + CANARY];
    let (mut written, mut err) = (usize::MAX, blank());
    // SAFETY: room for `cap` bytes; distinct buffers.
    let st = unsafe {
        pctenc_encode(c, input.as_ptr(), input.len(), buf.as_mut_ptr(), cap, &mut written, &mut err)
    };
    assert!(buf[cap..].iter().all(|&b| b == 0xA5), "pctenc_encode wrote past cap");
    assert_eq!(written, size, "pctenc_encode: written or needed against pctenc_encoded_len");
    if cap >= size {
        assert_eq!((st, err), (pctenc_status::PCTENC_OK, OK));
        let mut want = vec![0u8; size];
        rust.encode_slice(input, &mut want).unwrap();
        assert_eq!(&buf[..size], &want[..], "pctenc_encode bytes");
    } else {
        assert_eq!(
            (st, err.kind),
            (pctenc_status::PCTENC_BUFFER_TOO_SMALL, pctenc_error_kind::PCTENC_KIND_BUFFER_TOO_SMALL)
        );
    }
    let mut err = blank();
    // SAFETY: a live handle, a valid input.
    let st = unsafe { pctenc_validate(c, input.as_ptr(), input.len(), &mut err) };
    match rust.validate(input) {
        Ok(()) => assert_eq!((st, err), (pctenc_status::PCTENC_OK, OK)),
        Err(e) => {
            let kind = match e.kind() {
                ValidationErrorKind::Unescaped => pctenc_error_kind::PCTENC_KIND_UNESCAPED_BYTE,
                ValidationErrorKind::TruncatedEscape => pctenc_error_kind::PCTENC_KIND_TRUNCATED_ESCAPE,
                _ => pctenc_error_kind::PCTENC_KIND_INVALID_ESCAPE,
            };
            assert_eq!((st, err.kind, err.offset), (pctenc_status::PCTENC_INVALID_INPUT, kind, e.offset()));
        }
    }
}

fn check_decode(c: *const pctenc_decoder, rust: &Decoder, input: &[u8], cap: usize) {
    let whole = rust.decode(input).map(|v| v.into_owned());
    let (mut size, mut err) = (usize::MAX, blank());
    // SAFETY: a live handle, a valid input, writable outputs.
    let st = unsafe { pctenc_decoded_len(c, input.as_ptr(), input.len(), &mut size, &mut err) };
    match &whole {
        Ok(bytes) => {
            assert_eq!((st, err, size), (pctenc_status::PCTENC_OK, OK, bytes.len()), "pctenc_decoded_len");
            // SAFETY: a live handle.
            assert!(bytes.len() <= unsafe { pctenc_decoded_len_max(c, input.len()) });
        }
        Err(e) => assert_eq!((st, err, size), (c_error(*e).status, c_error(*e), 0), "pctenc_decoded_len"),
    }
    let mut buf = vec![0xA5u8; cap + CANARY];
    let (mut written, mut err) = (usize::MAX, blank());
    // SAFETY: room for `cap` bytes; distinct buffers.
    let st = unsafe {
        pctenc_decode(c, input.as_ptr(), input.len(), buf.as_mut_ptr(), cap, &mut written, &mut err)
    };
    assert!(buf[cap..].iter().all(|&b| b == 0xA5), "pctenc_decode wrote past cap");
    let mut out = vec![0u8; cap];
    match (&whole, rust.decode_slice(input, &mut out)) {
        (_, Ok(n)) => {
            assert_eq!((st, err, written), (pctenc_status::PCTENC_OK, OK, n), "pctenc_decode");
            assert_eq!(&buf[..n], &out[..n], "pctenc_decode bytes");
        }
        (Ok(bytes), Err(e)) => {
            assert_eq!(e.kind(), DecodeErrorKind::BufferTooSmall);
            assert_eq!(
                (st, err, written),
                (pctenc_status::PCTENC_BUFFER_TOO_SMALL, c_error(e), bytes.len()),
                "pctenc_decode short"
            );
        }
        (Err(first), Err(_)) => {
            assert_eq!(
                (st, err, written),
                (c_error(*first).status, c_error(*first), 0),
                "pctenc_decode error"
            );
        }
    }
    let (mut c_buf, mut rust_buf) = (input.to_vec(), input.to_vec());
    let (mut written, mut err) = (usize::MAX, blank());
    // SAFETY: a live handle, a writable buffer.
    let st = unsafe { pctenc_decode_in_place(c, c_buf.as_mut_ptr(), c_buf.len(), &mut written, &mut err) };
    match rust.decode_in_place(&mut rust_buf) {
        Ok(n) => {
            assert_eq!((st, err, written), (pctenc_status::PCTENC_OK, OK, n), "pctenc_decode_in_place");
            assert_eq!(&c_buf[..n], &rust_buf[..n]);
        }
        // Too long in lossy mode: the size needed, and offset 0 (the input is gone).
        Err(e) if e.kind() == DecodeErrorKind::BufferTooSmall => {
            let want = pctenc_error { offset: 0, ..c_error(e) };
            assert_eq!((st, err, written), (want.status, want, e.needed().unwrap()), "pctenc_decode_in_place")
        }
        Err(e) => {
            assert_eq!((st, err, written), (c_error(e).status, c_error(e), 0), "pctenc_decode_in_place")
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let (Ok(enc), Ok(dec), Ok(room)) = (encoder(&mut u), decoder(&mut u), u.arbitrary::<u16>()) else {
        return;
    };
    let input = u.take_rest();
    let room = usize::from(room);
    if let Some((handle, rust)) = enc {
        let size = rust.encoded_len(input);
        for cap in [room % (size + 2), size, size.saturating_sub(1)] {
            check_encode(handle, &rust, input, cap);
        }
        // SAFETY: a live handle, freed once.
        unsafe { pctenc_encoder_free(handle) };
    }
    if let Some((handle, rust)) = dec {
        let bound = 3 * input.len() + 1;
        for cap in [room % (bound + 1), input.len(), 0] {
            check_decode(handle, &rust, input, cap);
        }
        // SAFETY: a live handle, freed once.
        unsafe { pctenc_decoder_free(handle) };
    }
});
