//! The C API against the Rust API, through the `extern "C"` functions: for every predefined
//! set and every combination of encoder flags, and for random decoder options, on random
//! inputs and output capacities, the same bytes, the same errors at the same offsets, and a
//! reported size that equals the bytes written.

use core::ffi::c_void;
use core::ptr;

use pctenc::*;
use pctenc_core::{DecodeErrorKind, Decoder, Encoder, Reject, Set, Utf8Mode, ValidationErrorKind, sets};
use proptest::prelude::*;

/// Bytes that exercise the rules: `%`, hex digits, `+`, space, slashes, controls, UTF-8 and
/// invalid bytes, mixed with any byte.
fn input() -> impl Strategy<Value = Vec<u8>> {
    let byte = prop_oneof![
        4 => prop::sample::select(b"%%%+ /\\aF09zZuU.~\0\r\n\x7f".to_vec()),
        2 => prop::sample::select(vec![0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x98, 0x80, 0xED, 0xA0, 0xFF]),
        1 => any::<u8>(),
    ];
    let escape = (prop::sample::select(b"0123456789abcdefABCDEFgu".to_vec()), any::<u8>())
        .prop_map(|(a, b)| vec![b'%', a, b"0123456789abcdefDdEe"[usize::from(b) % 20]]);
    let piece = prop_oneof![3 => byte.prop_map(|b| vec![b]), 2 => escape];
    prop::collection::vec(piece, 0..80).prop_map(|pieces| pieces.concat())
}

fn status_of(kind: pctenc_error_kind) -> pctenc_status {
    match kind {
        pctenc_error_kind::PCTENC_KIND_BUFFER_TOO_SMALL => pctenc_status::PCTENC_BUFFER_TOO_SMALL,
        _ => pctenc_status::PCTENC_INVALID_INPUT,
    }
}

/// The C error a Rust decoding error should give.
fn expected(e: pctenc_core::DecodeError) -> pctenc_error {
    use pctenc_error_kind::*;
    let (kind, byte) = match e.kind() {
        DecodeErrorKind::TruncatedEscape => (PCTENC_KIND_TRUNCATED_ESCAPE, 0),
        DecodeErrorKind::InvalidEscape => (PCTENC_KIND_INVALID_ESCAPE, 0),
        DecodeErrorKind::InvalidUtf8 => (PCTENC_KIND_INVALID_UTF8, 0),
        DecodeErrorKind::BufferTooSmall => (PCTENC_KIND_BUFFER_TOO_SMALL, 0),
        DecodeErrorKind::LoneSurrogate => (PCTENC_KIND_LONE_SURROGATE, 0),
        DecodeErrorKind::Forbidden(b) => (PCTENC_KIND_FORBIDDEN_BYTE, b),
        DecodeErrorKind::TruncatedUEscape => (PCTENC_KIND_TRUNCATED_U_ESCAPE, 0),
        DecodeErrorKind::InvalidUEscape => (PCTENC_KIND_INVALID_U_ESCAPE, 0),
        other => panic!("a kind the C API does not name: {other:?}"),
    };
    pctenc_error { status: status_of(kind), kind, offset: e.offset(), byte }
}

const OK: pctenc_error = pctenc_error {
    status: pctenc_status::PCTENC_OK,
    kind: pctenc_error_kind::PCTENC_KIND_NONE,
    offset: 0,
    byte: 0,
};

fn blank() -> pctenc_error {
    pctenc_error {
        status: pctenc_status::PCTENC_INTERNAL_ERROR,
        kind: pctenc_error_kind::PCTENC_KIND_OTHER,
        offset: usize::MAX,
        byte: 0xEE,
    }
}

/// A C handle and the Rust encoder it should be.
struct Enc(*mut pctenc_encoder);

impl Drop for Enc {
    fn drop(&mut self) {
        // SAFETY: a live handle, freed once.
        unsafe { pctenc_encoder_free(self.0) }
    }
}

fn c_encoder(name: &str, flags: u32) -> Enc {
    let mut enc = ptr::null_mut();
    // SAFETY: a valid name buffer and out pointer.
    let st =
        unsafe { pctenc_encoder_new(name.as_ptr().cast(), name.len(), flags, &mut enc, ptr::null_mut()) };
    assert_eq!(st, pctenc_status::PCTENC_OK, "{name}");
    Enc(enc)
}

fn rust_encoder(set: Set, flags: u32) -> Encoder {
    let on = |f: u32| flags & f != 0;
    let set = set.with_space_as_plus(set.space_as_plus() || on(PCTENC_ENCODE_SPACE_AS_PLUS));
    let set = set.with_iri(set.is_iri() || on(PCTENC_ENCODE_IRI));
    Encoder::new(set).lowercase(on(PCTENC_ENCODE_LOWERCASE)).keep_escapes(on(PCTENC_ENCODE_KEEP_ESCAPES))
}

/// Encodes through C with capacity `cap` (a buffer with a canary after it) and compares with
/// Rust; checks the size pass against the write pass.
fn check_encode(c: &Enc, rust: &Encoder, input: &[u8], cap: usize) -> Result<(), TestCaseError> {
    let mut want = vec![0u8; rust.encoded_len(input)];
    let n = rust.encode_slice(input, &mut want).unwrap();
    prop_assert_eq!(n, want.len());
    // SAFETY: a live handle and a valid input buffer.
    let size = unsafe { pctenc_encoded_len(c.0, input.as_ptr(), input.len()) };
    prop_assert_eq!(size, want.len(), "pctenc_encoded_len");

    let mut buf = vec![0xA5u8; cap + 16];
    let (mut written, mut err) = (usize::MAX, blank());
    // SAFETY: `buf` has room for `cap` bytes; the buffers are distinct.
    let st = unsafe {
        pctenc_encode(c.0, input.as_ptr(), input.len(), buf.as_mut_ptr(), cap, &mut written, &mut err)
    };
    prop_assert!(buf[cap..].iter().all(|&b| b == 0xA5), "wrote past cap");
    prop_assert_eq!(written, size, "reported size against written (or needed)");
    if cap >= size {
        prop_assert_eq!((st, err), (pctenc_status::PCTENC_OK, OK));
        prop_assert_eq!(&buf[..written], &want[..]);
    } else {
        prop_assert_eq!(st, pctenc_status::PCTENC_BUFFER_TOO_SMALL);
        prop_assert_eq!(err.kind, pctenc_error_kind::PCTENC_KIND_BUFFER_TOO_SMALL);
        let rust_err = rust.encode_slice(input, &mut vec![0; cap]).unwrap_err();
        prop_assert_eq!(rust_err.needed(), written);
    }

    // Validation: the encoder's own output passes, and the input gives Rust's answer.
    for text in [&want[..], input] {
        let mut err = blank();
        // SAFETY: as above.
        let st = unsafe { pctenc_validate(c.0, text.as_ptr(), text.len(), &mut err) };
        match rust.validate(text) {
            Ok(()) => prop_assert_eq!((st, err), (pctenc_status::PCTENC_OK, OK)),
            Err(e) => {
                let (kind, byte) = match e.kind() {
                    ValidationErrorKind::Unescaped => {
                        (pctenc_error_kind::PCTENC_KIND_UNESCAPED_BYTE, e.byte())
                    }
                    ValidationErrorKind::TruncatedEscape => {
                        (pctenc_error_kind::PCTENC_KIND_TRUNCATED_ESCAPE, 0)
                    }
                    ValidationErrorKind::InvalidEscape => (pctenc_error_kind::PCTENC_KIND_INVALID_ESCAPE, 0),
                    other => panic!("{other:?}"),
                };
                let want = pctenc_error {
                    status: pctenc_status::PCTENC_INVALID_INPUT,
                    kind,
                    offset: e.offset(),
                    byte,
                };
                prop_assert_eq!((st, err), (pctenc_status::PCTENC_INVALID_INPUT, want));
            }
        }
    }
    Ok(())
}

fn rust_decoder(flags: u32, keep: Option<Set>) -> Decoder {
    let on = |f: u32| flags & f != 0;
    let utf8 = if on(PCTENC_DECODE_UTF8_STRICT) {
        Utf8Mode::Strict
    } else if on(PCTENC_DECODE_UTF8_LOSSY) {
        Utf8Mode::Lossy
    } else {
        Utf8Mode::Bytes
    };
    let mut reject = Reject::NONE;
    if on(PCTENC_DECODE_REJECT_NUL) {
        reject |= Reject::NUL;
    }
    if on(PCTENC_DECODE_REJECT_CR_LF) {
        reject |= Reject::CR_LF;
    }
    if on(PCTENC_DECODE_REJECT_CONTROLS) {
        reject |= Reject::CONTROLS;
    }
    if on(PCTENC_DECODE_REJECT_SLASHES) {
        reject |= Reject::SLASHES;
    }
    let dec = Decoder::new()
        .lenient(on(PCTENC_DECODE_LENIENT))
        .plus_as_space(on(PCTENC_DECODE_PLUS_AS_SPACE))
        .utf8(utf8)
        .legacy_u(on(PCTENC_DECODE_LEGACY_U))
        .reject(reject);
    match keep {
        Some(set) => dec.keep_encoded(set),
        None => dec,
    }
}

/// A random set as C gives it (32 bytes) and as Rust builds it.
fn keep_set() -> impl Strategy<Value = Option<([u8; 32], Set)>> {
    prop::option::of((any::<u128>(), any::<bool>()).prop_map(|(ascii, high)| {
        let mut bits = [0u8; 32];
        bits[..16].copy_from_slice(&ascii.to_le_bytes());
        let mut set = Set::EMPTY;
        for b in 0..128u8 {
            if ascii >> b & 1 != 0 {
                set = set.add(b);
            }
        }
        if high {
            bits[16..].fill(0xFF);
        } else {
            set = set.with_iri(true);
        }
        (bits, set)
    }))
}

fn decoder_flags() -> impl Strategy<Value = u32> {
    // The nine decoder flags: bits 8 to 16.
    (0u32..(1 << 9)).prop_map(|f| f << 8).prop_filter("strict and lossy", |f| {
        f & (PCTENC_DECODE_UTF8_STRICT | PCTENC_DECODE_UTF8_LOSSY)
            != PCTENC_DECODE_UTF8_STRICT | PCTENC_DECODE_UTF8_LOSSY
    })
}

struct Dec(*mut pctenc_decoder);

impl Drop for Dec {
    fn drop(&mut self) {
        // SAFETY: a live handle, freed once.
        unsafe { pctenc_decoder_free(self.0) }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

    /// Every predefined set with every encoder flag combination, on each input.
    #[test]
    fn encode_matches_rust(input in input(), cap in any::<prop::sample::Index>()) {
        for named in sets::NAMED {
            for flags in 0u32..16 {
                let c = c_encoder(named.name, flags);
                let rust = rust_encoder(named.set, flags);
                let size = rust.encoded_len(&input);
                // Capacities around the exact size, and anywhere below it.
                for cap in [size, size + 1, size.saturating_sub(1), cap.index(size + 1), 0] {
                    check_encode(&c, &rust, &input, cap)?;
                }
            }
        }
    }

    /// A custom set as 256 bits, with random flags.
    #[test]
    fn custom_encoder_matches_rust(input in input(), keep in keep_set(), flags in 0u32..16) {
        let Some((bits, set)) = keep else { return Ok(()) };
        let mut enc = ptr::null_mut();
        // SAFETY: 32 readable bytes and a valid out pointer.
        let st = unsafe { pctenc_encoder_new_custom(bits.as_ptr(), flags, &mut enc, ptr::null_mut()) };
        prop_assert_eq!(st, pctenc_status::PCTENC_OK);
        let c = Enc(enc);
        let rust = rust_encoder(set, flags);
        let size = rust.encoded_len(&input);
        for cap in [size, size.saturating_sub(1), 0] {
            check_encode(&c, &rust, &input, cap)?;
        }
    }

    /// Random decoder options, inputs and capacities: `pctenc_decoded_len`, `pctenc_decode`
    /// and `pctenc_decode_in_place` against `Decoder::decode`, `decode_slice` and
    /// `decode_in_place`.
    #[test]
    fn decode_matches_rust(input in input(), flags in decoder_flags(), keep in keep_set(), cap in any::<prop::sample::Index>()) {
        let rust = rust_decoder(flags, keep.map(|(_, set)| set));
        let mut handle = ptr::null_mut();
        let keep_ptr = keep.as_ref().map_or(ptr::null(), |(bits, _)| bits.as_ptr());
        // SAFETY: `keep_ptr` is NULL or 32 readable bytes; a valid out pointer.
        let st = unsafe { pctenc_decoder_new(flags, keep_ptr, &mut handle, ptr::null_mut()) };
        prop_assert_eq!(st, pctenc_status::PCTENC_OK);
        let c = Dec(handle);

        let whole = rust.decode(&input).map(|v| v.into_owned());
        // The size pass.
        let (mut size, mut err) = (usize::MAX, blank());
        // SAFETY: a live handle, a valid input, writable outputs.
        let st = unsafe { pctenc_decoded_len(c.0, input.as_ptr(), input.len(), &mut size, &mut err) };
        match &whole {
            Ok(bytes) => {
                prop_assert_eq!((st, err, size), (pctenc_status::PCTENC_OK, OK, bytes.len()));
                // SAFETY: a live handle.
                let bound = unsafe { pctenc_decoded_len_max(c.0, input.len()) };
                prop_assert!(bytes.len() <= bound, "{} > bound {}", bytes.len(), bound);
            }
            Err(e) => prop_assert_eq!((st, err, size), (status_of(expected(*e).kind), expected(*e), 0)),
        }

        // The write pass, at several capacities.
        let need = whole.as_ref().map_or(input.len() * 3, |b| b.len());
        for cap in [need, need + 1, need.saturating_sub(1), cap.index(need + 1), 0] {
            let mut buf = vec![0xA5u8; cap + 16];
            let (mut written, mut err) = (usize::MAX, blank());
            // SAFETY: `buf` has room for `cap` bytes; distinct buffers.
            let st = unsafe { pctenc_decode(c.0, input.as_ptr(), input.len(), buf.as_mut_ptr(), cap, &mut written, &mut err) };
            prop_assert!(buf[cap..].iter().all(|&b| b == 0xA5), "wrote past cap");
            let mut out = vec![0u8; cap];
            match (&whole, rust.decode_slice(&input, &mut out)) {
                (_, Ok(n)) => {
                    prop_assert_eq!((st, err), (pctenc_status::PCTENC_OK, OK));
                    prop_assert_eq!(&buf[..written], &out[..n]);
                    prop_assert_eq!(Ok(&out[..n]), whole.as_deref().map_err(|_| ()));
                }
                (Ok(bytes), Err(e)) => {
                    // Too small for a valid input: the size needed, and Rust's offset.
                    prop_assert_eq!(e.kind(), DecodeErrorKind::BufferTooSmall);
                    prop_assert!(bytes.len() > cap);
                    prop_assert_eq!((st, err, written), (pctenc_status::PCTENC_BUFFER_TOO_SMALL, expected(e), bytes.len()));
                }
                (Err(first), Err(e)) => {
                    // An invalid input: its own error, even when the buffer filled up first.
                    if e.kind() != DecodeErrorKind::BufferTooSmall {
                        prop_assert_eq!(e, *first);
                    }
                    prop_assert_eq!((st, err, written), (status_of(expected(*first).kind), expected(*first), 0));
                }
            }
        }

        // In place.
        let mut c_buf = input.clone();
        let mut rust_buf = input.clone();
        let (mut written, mut err) = (usize::MAX, blank());
        // SAFETY: a live handle and a writable buffer of `len` bytes.
        let st = unsafe { pctenc_decode_in_place(c.0, c_buf.as_mut_ptr(), c_buf.len(), &mut written, &mut err) };
        match rust.decode_in_place(&mut rust_buf) {
            Ok(n) => {
                prop_assert_eq!((st, err, written), (pctenc_status::PCTENC_OK, OK, n));
                prop_assert_eq!(&c_buf[..n], &rust_buf[..n]);
            }
            // Too long in lossy mode: the size needed, and offset 0 (the input is gone).
            Err(e) if e.kind() == DecodeErrorKind::BufferTooSmall => {
                let want = pctenc_error { offset: 0, ..expected(e) };
                prop_assert_eq!((st, err, written), (pctenc_status::PCTENC_BUFFER_TOO_SMALL, want, e.needed().unwrap()));
            }
            Err(e) => prop_assert_eq!((st, err, written), (status_of(expected(e).kind), expected(e), 0)),
        }
    }

    /// `pctenc_normalize` and `pctenc_normalize_in_place` against the Rust functions.
    #[test]
    fn normalize_matches_rust(input in input(), cap in any::<prop::sample::Index>()) {
        let want = pctenc_core::normalize(&input).into_owned();
        for cap in [input.len(), want.len(), want.len().saturating_sub(1), cap.index(input.len() + 1)] {
            let mut buf = vec![0xA5u8; cap + 16];
            let (mut written, mut err) = (usize::MAX, blank());
            // SAFETY: `buf` has room for `cap` bytes.
            let st = unsafe { pctenc_normalize(input.as_ptr(), input.len(), buf.as_mut_ptr(), cap, &mut written, &mut err) };
            prop_assert!(buf[cap..].iter().all(|&b| b == 0xA5), "wrote past cap");
            prop_assert_eq!(written, want.len());
            if cap >= want.len() {
                prop_assert_eq!((st, err), (pctenc_status::PCTENC_OK, OK));
                prop_assert_eq!(&buf[..written], &want[..]);
            } else {
                prop_assert_eq!(st, pctenc_status::PCTENC_BUFFER_TOO_SMALL);
            }
        }
        let mut buf = input.clone();
        let mut written = usize::MAX;
        // SAFETY: a writable buffer of `len` bytes.
        let st = unsafe { pctenc_normalize_in_place(buf.as_mut_ptr(), buf.len(), &mut written, ptr::null_mut()) };
        prop_assert_eq!(st, pctenc_status::PCTENC_OK);
        prop_assert_eq!(&buf[..written], &want[..]);
    }

    /// `pctenc_form_parse` against `form::parse`, with a callback that may stop early.
    #[test]
    fn form_matches_rust(input in input(), stop in 0usize..6) {
        struct Seen { pairs: Vec<(Vec<u8>, Vec<u8>)>, stop: usize }
        /// The callback: records each pair, and stops after `stop` of them.
        ///
        /// # Safety
        /// `user` must point to a `Seen`, and `name` and `value` to `name_len` and
        /// `value_len` readable bytes (what `pctenc_form_parse` passes).
        unsafe extern "C" fn collect(user: *mut c_void, name: *const u8, name_len: usize, value: *const u8, value_len: usize) -> i32 {
            // SAFETY: `user` is the `Seen` passed below; the pieces are valid for the call.
            unsafe {
                let seen = &mut *user.cast::<Seen>();
                // Never NULL, even when empty.
                assert!(!name.is_null() && !value.is_null());
                let piece = |p: *const u8, n: usize| if n == 0 { Vec::new() } else { core::slice::from_raw_parts(p, n).to_vec() };
                seen.pairs.push((piece(name, name_len), piece(value, value_len)));
                i32::from(seen.pairs.len() == seen.stop)
            }
        }
        let mut seen = Seen { pairs: Vec::new(), stop };
        let mut err = blank();
        // SAFETY: a valid input, a callback of the right type and its user pointer.
        let st = unsafe { pctenc_form_parse(input.as_ptr(), input.len(), Some(collect), (&raw mut seen).cast(), &mut err) };
        let mut pairs = pctenc_core::form::parse(&input);
        let mut want = Vec::new();
        let mut rest = None;
        for (n, v) in pairs.by_ref() {
            want.push((n.as_bytes().to_vec(), v.as_bytes().to_vec()));
            if want.len() == stop {
                // Stopped: the offset where the rest starts.
                rest = Some(input.len() - pairs.remaining().len());
                break;
            }
        }
        match rest {
            Some(offset) => prop_assert_eq!(
                (st, err.kind, err.offset),
                (pctenc_status::PCTENC_STOPPED, pctenc_error_kind::PCTENC_KIND_STOPPED, offset)
            ),
            None => prop_assert_eq!((st, err), (pctenc_status::PCTENC_OK, OK)),
        }
        prop_assert_eq!(seen.pairs, want);
    }
}
