//! The C streams against the C one-shot functions: for every predefined set with every encoder
//! flag combination, and for random decoder options, an input cut at every point (and at
//! random points into several pieces), fed through `*_stream_update` with random output
//! capacities and ended by `*_stream_finish`, gives exactly the one-shot output, or the
//! one-shot error at the same stream offset. Every call stays within its capacity and within
//! `*_stream_max_output`, and consumes all of its input when given that much room.

use core::ptr;

use pctenc::*;
use pctenc_core::sets;
use proptest::prelude::*;

/// Bytes that exercise the rules: `%`, hex digits, `u`, `+`, controls, UTF-8 and invalid
/// bytes, and escapes of any of them (including `%u` escapes of surrogates).
fn input() -> impl Strategy<Value = Vec<u8>> {
    let byte = prop_oneof![
        4 => prop::sample::select(b"%%%+ /aF09zuU\0\r\n".to_vec()),
        2 => prop::sample::select(vec![0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x98, 0x80, 0xED, 0xA0, 0xFF]),
        1 => any::<u8>(),
    ];
    let escape = (prop::sample::select(b"0123456789abcdefABCDEFgu".to_vec()), any::<u8>())
        .prop_map(|(a, b)| vec![b'%', a, b"0123456789abcdefDdEe"[usize::from(b) % 20]]);
    let u_escape = prop::sample::select(vec!["%uD83D", "%uDE00", "%u00E9", "%ud800", "%u20AC", "%uDC0"])
        .prop_map(|s| s.as_bytes().to_vec());
    let piece = prop_oneof![3 => byte.prop_map(|b| vec![b]), 2 => escape, 1 => u_escape];
    prop::collection::vec(piece, 0..40).prop_map(|pieces| pieces.concat())
}

fn decoder_flags() -> impl Strategy<Value = u32> {
    // The nine decoder flags: bits 8 to 16.
    (0u32..(1 << 9)).prop_map(|f| f << 8).prop_filter("strict and lossy", |f| {
        f & (PCTENC_DECODE_UTF8_STRICT | PCTENC_DECODE_UTF8_LOSSY)
            != PCTENC_DECODE_UTF8_STRICT | PCTENC_DECODE_UTF8_LOSSY
    })
}

fn blank() -> pctenc_error {
    pctenc_error {
        status: pctenc_status::PCTENC_INTERNAL_ERROR,
        kind: pctenc_error_kind::PCTENC_KIND_OTHER,
        offset: usize::MAX,
        byte: 0xEE,
    }
}

/// What one direction's stream functions are, so that one driver runs both.
struct Api<S> {
    max_output: unsafe extern "C" fn(*const S, usize) -> usize,
    update: unsafe extern "C" fn(
        *mut S,
        *const u8,
        usize,
        *mut u8,
        usize,
        *mut usize,
        *mut usize,
        *mut pctenc_error,
    ) -> pctenc_status,
    finish: unsafe extern "C" fn(*mut S, *mut u8, usize, *mut usize, *mut pctenc_error) -> pctenc_status,
    free: unsafe extern "C" fn(*mut S),
}

const ENCODE: Api<pctenc_encode_stream> = Api {
    max_output: pctenc_encode_stream_max_output,
    update: pctenc_encode_stream_update,
    finish: pctenc_encode_stream_finish,
    free: pctenc_encode_stream_free,
};

const DECODE: Api<pctenc_decode_stream> = Api {
    max_output: pctenc_decode_stream_max_output,
    update: pctenc_decode_stream_update,
    finish: pctenc_decode_stream_finish,
    free: pctenc_decode_stream_free,
};

/// Feeds `pieces` to `stream` with output capacities taken from `caps` in turn (each at least
/// what one input byte needs, and grown to that when a call says it is too small), then
/// finishes; the output, or the first error. Frees the stream.
fn drive<S>(
    api: &Api<S>,
    stream: *mut S,
    pieces: &[&[u8]],
    caps: &[usize],
) -> Result<Result<Vec<u8>, pctenc_error>, TestCaseError> {
    let mut out = Vec::new();
    let mut calls = 0usize;
    let result = 'run: {
        for piece in pieces {
            let mut rest = *piece;
            loop {
                let cap = caps[calls % caps.len()];
                calls += 1;
                // SAFETY: a live stream.
                let (bound_all, bound_one) =
                    unsafe { ((api.max_output)(stream, rest.len()), (api.max_output)(stream, 1)) };
                let mut buf = vec![0xA5u8; cap + 16];
                let (mut consumed, mut written, mut err) = (usize::MAX, usize::MAX, blank());
                // SAFETY: a live stream, `rest` readable, `buf` writable for `cap` bytes, distinct.
                let st = unsafe {
                    (api.update)(
                        stream,
                        rest.as_ptr(),
                        rest.len(),
                        buf.as_mut_ptr(),
                        cap,
                        &mut consumed,
                        &mut written,
                        &mut err,
                    )
                };
                prop_assert!(buf[cap..].iter().all(|&b| b == 0xA5), "update wrote past cap");
                prop_assert_eq!(err.status, st);
                match st {
                    pctenc_status::PCTENC_OK => {
                        prop_assert!(written <= cap);
                        prop_assert!(consumed <= rest.len());
                        if cap >= bound_all {
                            prop_assert_eq!(consumed, rest.len(), "room for all, yet not all consumed");
                        }
                        prop_assert!(consumed > 0 || rest.is_empty());
                        out.extend_from_slice(&buf[..written]);
                        rest = &rest[consumed..];
                    }
                    pctenc_status::PCTENC_BUFFER_TOO_SMALL => {
                        prop_assert!(!rest.is_empty() && cap < bound_one, "too small with room for a byte");
                        // One fixed capacity: refused once, refused for ever.
                        prop_assert!(caps.len() > 1, "stuck: {} bytes of room take no byte", cap);
                        prop_assert_eq!((consumed, written), (0, 0));
                    }
                    pctenc_status::PCTENC_INVALID_INPUT => {
                        prop_assert_eq!((consumed, written), (0, 0));
                        // The stream is over: the same error again.
                        let mut again = blank();
                        let (mut c2, mut w2) = (0, 0);
                        // SAFETY: as above, with an empty input.
                        let st2 = unsafe {
                            (api.update)(
                                stream,
                                ptr::null(),
                                0,
                                buf.as_mut_ptr(),
                                cap,
                                &mut c2,
                                &mut w2,
                                &mut again,
                            )
                        };
                        prop_assert_eq!((st2, again), (st, err));
                        break 'run Err(err);
                    }
                    other => prop_assert!(false, "update returned {:?}", other),
                }
                if rest.is_empty() {
                    break;
                }
            }
        }
        // SAFETY: a live stream.
        let need = unsafe { (api.max_output)(stream, 0) };
        if need > 0 {
            let mut buf = vec![0xA5u8; need + 15];
            let (mut written, mut err) = (usize::MAX, blank());
            // SAFETY: `buf` has room for `need - 1` bytes.
            let st = unsafe { (api.finish)(stream, buf.as_mut_ptr(), need - 1, &mut written, &mut err) };
            prop_assert!(buf[need - 1..].iter().all(|&b| b == 0xA5), "finish wrote past cap");
            prop_assert_eq!((st, written), (pctenc_status::PCTENC_BUFFER_TOO_SMALL, need));
        }
        let mut buf = vec![0xA5u8; need + 16];
        let (mut written, mut err) = (usize::MAX, blank());
        // SAFETY: `buf` has room for `need` bytes.
        let st = unsafe { (api.finish)(stream, buf.as_mut_ptr(), need, &mut written, &mut err) };
        prop_assert!(buf[need..].iter().all(|&b| b == 0xA5), "finish wrote past cap");
        match st {
            pctenc_status::PCTENC_OK => {
                out.extend_from_slice(&buf[..written]);
                // Ended: the stream starts again as new.
                // SAFETY: a live stream.
                prop_assert_eq!(unsafe { (api.max_output)(stream, 0) }, 0);
                Ok(out)
            }
            pctenc_status::PCTENC_INVALID_INPUT => Err(err),
            other => {
                prop_assert!(false, "finish returned {:?}", other);
                unreachable!()
            }
        }
    };
    // SAFETY: a live stream, freed once.
    unsafe { (api.free)(stream) };
    Ok(result)
}

/// The one-shot encoding, through `pctenc_encode`.
fn encode_whole(enc: *const pctenc_encoder, input: &[u8]) -> Vec<u8> {
    // SAFETY: a live encoder and a valid input.
    let size = unsafe { pctenc_encoded_len(enc, input.as_ptr(), input.len()) };
    let mut out = vec![0u8; size];
    let mut written = 0;
    // SAFETY: `out` has room for `size` bytes.
    let st = unsafe {
        pctenc_encode(enc, input.as_ptr(), input.len(), out.as_mut_ptr(), size, &mut written, ptr::null_mut())
    };
    assert_eq!((st, written), (pctenc_status::PCTENC_OK, size));
    out
}

/// The one-shot decoding, through `pctenc_decode`.
fn decode_whole(dec: *const pctenc_decoder, input: &[u8]) -> Result<Vec<u8>, pctenc_error> {
    // SAFETY: a live decoder.
    let size = unsafe { pctenc_decoded_len_max(dec, input.len()) };
    let mut out = vec![0u8; size];
    let (mut written, mut err) = (0, blank());
    // SAFETY: `out` has room for `size` bytes.
    let st = unsafe {
        pctenc_decode(dec, input.as_ptr(), input.len(), out.as_mut_ptr(), size, &mut written, &mut err)
    };
    match st {
        pctenc_status::PCTENC_OK => Ok(out[..written].to_vec()),
        _ => Err(err),
    }
}

/// `input` cut at `cuts` (sorted, each at most its length).
fn pieces<'a>(input: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
    let mut at = 0;
    let mut out = Vec::new();
    for &cut in cuts {
        out.push(&input[at..cut]);
        at = cut;
    }
    out.push(&input[at..]);
    out
}

/// Every single cut, and one cut into four random pieces (with empty ones).
fn cuts(input: &[u8], random: &[prop::sample::Index]) -> Vec<Vec<usize>> {
    let mut all: Vec<Vec<usize>> = (0..=input.len()).map(|i| vec![i]).collect();
    let mut four: Vec<usize> = random.iter().map(|i| i.index(input.len() + 1)).collect();
    four.sort_unstable();
    all.push(four);
    all
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

    /// Every predefined set with every encoder flag combination.
    #[test]
    fn encode_stream_equals_one_shot(input in input(), random in prop::collection::vec(any::<prop::sample::Index>(), 3), small in 3usize..12) {
        for named in sets::NAMED {
            for flags in 0u32..16 {
                let mut enc = ptr::null_mut();
                // SAFETY: a valid name buffer and out pointer.
                let st = unsafe { pctenc_encoder_new(named.name.as_ptr().cast(), named.name.len(), flags, &mut enc, ptr::null_mut()) };
                prop_assert_eq!(st, pctenc_status::PCTENC_OK);
                let want = encode_whole(enc, &input);
                // Every cut with room for all; the four pieces with small buffers too.
                let all_cuts = cuts(&input, &random);
                for (i, cut) in all_cuts.iter().enumerate() {
                    let caps: &[usize] = if i + 1 == all_cuts.len() { &[small, 3 * input.len() + 9, small + 1] } else { &[3 * input.len() + 9] };
                    let mut stream = ptr::null_mut();
                    // SAFETY: a live encoder, a valid out pointer.
                    let st = unsafe { pctenc_encode_stream_new(enc, &mut stream, ptr::null_mut()) };
                    prop_assert_eq!(st, pctenc_status::PCTENC_OK);
                    let got = drive(&ENCODE, stream, &pieces(&input, cut), caps)?;
                    prop_assert_eq!(got, Ok(want.clone()), "{} flags {} cut {:?}", named.name, flags, cut);
                }
                // SAFETY: a live encoder, freed once.
                unsafe { pctenc_encoder_free(enc) };
            }
        }
    }

    /// Random decoder options.
    #[test]
    fn decode_stream_equals_one_shot(input in input(), flags in decoder_flags(), random in prop::collection::vec(any::<prop::sample::Index>(), 3), small in 3usize..12) {
        let mut dec = ptr::null_mut();
        // SAFETY: no kept set, a valid out pointer.
        let st = unsafe { pctenc_decoder_new(flags, ptr::null(), &mut dec, ptr::null_mut()) };
        prop_assert_eq!(st, pctenc_status::PCTENC_OK);
        let want = decode_whole(dec, &input);
        let all_cuts = cuts(&input, &random);
        for (i, cut) in all_cuts.iter().enumerate() {
            let caps: &[usize] = if i + 1 == all_cuts.len() { &[small, 3 * input.len() + 40, small + 1] } else { &[3 * input.len() + 40] };
            let mut stream = ptr::null_mut();
            // SAFETY: a live decoder, a valid out pointer.
            let st = unsafe { pctenc_decode_stream_new(dec, &mut stream, ptr::null_mut()) };
            prop_assert_eq!(st, pctenc_status::PCTENC_OK);
            let got = drive(&DECODE, stream, &pieces(&input, cut), caps)?;
            prop_assert_eq!(got, want.clone(), "flags {:#x} cut {:?}", flags, cut);
        }
        // SAFETY: a live decoder, freed once.
        unsafe { pctenc_decoder_free(dec) };
    }
}

/// A fixed output buffer of `PCTENC_STREAM_MIN_CAPACITY` bytes always takes another byte:
/// every cut of inputs that hold back the most (`%u` pairs in lossy lenient decoding, IRI and
/// re-quoting tails when encoding) goes through with no call refused for room.
#[test]
fn a_minimal_fixed_buffer_never_gets_stuck() {
    let cap = [PCTENC_STREAM_MIN_CAPACITY];
    let inputs: [&[u8]; 4] =
        [b"%uD83D%uDE00%uD83D%uDE0", b"x%uD83D%uDE0%F0%9F%98%ff\xff", b"caf\xc3\xa9%4", b"%E2%82%AC%4"];
    for flags in [
        PCTENC_DECODE_LEGACY_U | PCTENC_DECODE_UTF8_LOSSY | PCTENC_DECODE_LENIENT,
        PCTENC_DECODE_LEGACY_U | PCTENC_DECODE_LENIENT,
        PCTENC_DECODE_UTF8_LOSSY | PCTENC_DECODE_LENIENT,
    ] {
        let mut dec = ptr::null_mut();
        // SAFETY: no kept set, a valid out pointer.
        let st = unsafe { pctenc_decoder_new(flags, ptr::null(), &mut dec, ptr::null_mut()) };
        assert_eq!(st, pctenc_status::PCTENC_OK);
        for input in inputs {
            let want = decode_whole(dec, input);
            for cut in 0..=input.len() {
                let mut stream = ptr::null_mut();
                // SAFETY: a live decoder.
                let st = unsafe { pctenc_decode_stream_new(dec, &mut stream, ptr::null_mut()) };
                assert_eq!(st, pctenc_status::PCTENC_OK);
                let got = drive(&DECODE, stream, &pieces(input, &[cut]), &cap).unwrap();
                assert_eq!(got, want, "flags {flags:#x}, cut {cut}");
            }
        }
        // SAFETY: a live decoder, freed once.
        unsafe { pctenc_decoder_free(dec) };
    }
    for (name, flags) in [("path", PCTENC_ENCODE_IRI), ("component", PCTENC_ENCODE_KEEP_ESCAPES)] {
        let mut enc = ptr::null_mut();
        // SAFETY: a valid name and out pointer.
        let st =
            unsafe { pctenc_encoder_new(name.as_ptr().cast(), name.len(), flags, &mut enc, ptr::null_mut()) };
        assert_eq!(st, pctenc_status::PCTENC_OK);
        for input in inputs {
            let want = encode_whole(enc, input);
            for cut in 0..=input.len() {
                let mut stream = ptr::null_mut();
                // SAFETY: a live encoder.
                let st = unsafe { pctenc_encode_stream_new(enc, &mut stream, ptr::null_mut()) };
                assert_eq!(st, pctenc_status::PCTENC_OK);
                assert_eq!(drive(&ENCODE, stream, &pieces(input, &[cut]), &cap).unwrap(), Ok(want.clone()));
            }
        }
        // SAFETY: a live encoder, freed once.
        unsafe { pctenc_encoder_free(enc) };
    }
}

/// Inputs in pieces that the one-shot functions, called piece by piece, get wrong.
#[test]
fn pieces_that_one_shot_calls_get_wrong() {
    let decode = |flags: u32, parts: &[&[u8]]| {
        let mut dec = ptr::null_mut();
        // SAFETY: no kept set, a valid out pointer.
        let st = unsafe { pctenc_decoder_new(flags, ptr::null(), &mut dec, ptr::null_mut()) };
        assert_eq!(st, pctenc_status::PCTENC_OK);
        let mut stream = ptr::null_mut();
        // SAFETY: a live decoder.
        let st = unsafe { pctenc_decode_stream_new(dec, &mut stream, ptr::null_mut()) };
        assert_eq!(st, pctenc_status::PCTENC_OK);
        // SAFETY: a live decoder, freed once (the stream keeps a copy).
        unsafe { pctenc_decoder_free(dec) };
        drive(&DECODE, stream, parts, &[64]).unwrap()
    };
    assert_eq!(decode(PCTENC_DECODE_UTF8_LOSSY, &[b"caf%C3", b"%A9"]), Ok("café".as_bytes().to_vec()));
    assert_eq!(decode(PCTENC_DECODE_UTF8_STRICT, &[b"caf%C3", b"%A9"]), Ok("café".as_bytes().to_vec()));
    assert_eq!(decode(PCTENC_DECODE_LEGACY_U, &[b"x%uD83D", b"%uDE00"]), Ok("x😀".as_bytes().to_vec()));
    // A truncated tail is the error it is, at its stream offset, reported by finish.
    let err = decode(PCTENC_DECODE_UTF8_STRICT, &[b"caf", b"%C3"]).unwrap_err();
    assert_eq!((err.kind, err.offset), (pctenc_error_kind::PCTENC_KIND_INVALID_UTF8, 3));
    let err = decode(0, &[b"ab", b"cd%4"]).unwrap_err();
    assert_eq!((err.kind, err.offset), (pctenc_error_kind::PCTENC_KIND_TRUNCATED_ESCAPE, 4));

    let encode = |name: &str, flags: u32, parts: &[&[u8]]| {
        let mut enc = ptr::null_mut();
        // SAFETY: a valid name and out pointer.
        let st =
            unsafe { pctenc_encoder_new(name.as_ptr().cast(), name.len(), flags, &mut enc, ptr::null_mut()) };
        assert_eq!(st, pctenc_status::PCTENC_OK);
        let mut stream = ptr::null_mut();
        // SAFETY: a live encoder.
        let st = unsafe { pctenc_encode_stream_new(enc, &mut stream, ptr::null_mut()) };
        assert_eq!(st, pctenc_status::PCTENC_OK);
        // SAFETY: a live encoder, freed once.
        unsafe { pctenc_encoder_free(enc) };
        drive(&ENCODE, stream, parts, &[64]).unwrap().unwrap()
    };
    assert_eq!(encode("path", PCTENC_ENCODE_IRI, &[b"caf\xc3", b"\xa9"]), "café".as_bytes());
    assert_eq!(encode("component", PCTENC_ENCODE_KEEP_ESCAPES, &[b"a%4", b"1"]), b"a%41");
}

/// NULL handles and pointers, zero lengths, short buffers: an error, never a crash.
#[test]
fn hostile_arguments() {
    let (mut consumed, mut written, mut err) = (7usize, 7usize, blank());
    let mut buf = [0u8; 8];
    // SAFETY: NULL stream: the functions check it.
    unsafe {
        assert_eq!(
            pctenc_encode_stream_update(
                ptr::null_mut(),
                b"a".as_ptr(),
                1,
                buf.as_mut_ptr(),
                8,
                &mut consumed,
                &mut written,
                &mut err
            ),
            pctenc_status::PCTENC_BAD_ARGUMENT
        );
        assert_eq!((consumed, written), (0, 0));
        assert_eq!(
            pctenc_decode_stream_finish(ptr::null_mut(), buf.as_mut_ptr(), 8, &mut written, ptr::null_mut()),
            pctenc_status::PCTENC_BAD_ARGUMENT
        );
        assert_eq!(pctenc_encode_stream_max_output(ptr::null(), 1), usize::MAX);
        assert_eq!(pctenc_decode_stream_max_output(ptr::null(), 0), usize::MAX);
        pctenc_encode_stream_free(ptr::null_mut());
        pctenc_decode_stream_free(ptr::null_mut());
        let mut stream = ptr::null_mut();
        assert_eq!(
            pctenc_encode_stream_new(ptr::null(), &mut stream, &mut err),
            pctenc_status::PCTENC_BAD_ARGUMENT
        );
        assert!(stream.is_null());
        assert_eq!(
            pctenc_decode_stream_new(ptr::null(), ptr::null_mut(), &mut err),
            pctenc_status::PCTENC_BAD_ARGUMENT
        );
    }
    let mut dec = ptr::null_mut();
    let mut stream = ptr::null_mut();
    // SAFETY: valid pointers throughout; NULL where the test says.
    unsafe {
        assert_eq!(pctenc_decoder_new(0, ptr::null(), &mut dec, ptr::null_mut()), pctenc_status::PCTENC_OK);
        assert_eq!(pctenc_decode_stream_new(dec, &mut stream, ptr::null_mut()), pctenc_status::PCTENC_OK);
        // NULL out-pointers, NULL input with a length, NULL output with a capacity.
        assert_eq!(
            pctenc_decode_stream_update(
                stream,
                b"a".as_ptr(),
                1,
                buf.as_mut_ptr(),
                8,
                ptr::null_mut(),
                &mut written,
                ptr::null_mut()
            ),
            pctenc_status::PCTENC_BAD_ARGUMENT
        );
        assert_eq!(
            pctenc_decode_stream_update(
                stream,
                b"a".as_ptr(),
                1,
                buf.as_mut_ptr(),
                8,
                &mut consumed,
                ptr::null_mut(),
                ptr::null_mut()
            ),
            pctenc_status::PCTENC_BAD_ARGUMENT
        );
        assert_eq!(
            pctenc_decode_stream_update(
                stream,
                ptr::null(),
                1,
                buf.as_mut_ptr(),
                8,
                &mut consumed,
                &mut written,
                ptr::null_mut()
            ),
            pctenc_status::PCTENC_BAD_ARGUMENT
        );
        assert_eq!(
            pctenc_decode_stream_update(
                stream,
                b"a".as_ptr(),
                1,
                ptr::null_mut(),
                8,
                &mut consumed,
                &mut written,
                ptr::null_mut()
            ),
            pctenc_status::PCTENC_BAD_ARGUMENT
        );
        // Overlapping buffers.
        assert_eq!(
            pctenc_decode_stream_update(
                stream,
                buf.as_ptr(),
                4,
                buf.as_mut_ptr().add(2),
                4,
                &mut consumed,
                &mut written,
                ptr::null_mut()
            ),
            pctenc_status::PCTENC_BAD_ARGUMENT
        );
        // Zero lengths: nothing to do, with NULL buffers.
        assert_eq!(
            pctenc_decode_stream_update(
                stream,
                ptr::null(),
                0,
                ptr::null_mut(),
                0,
                &mut consumed,
                &mut written,
                ptr::null_mut()
            ),
            pctenc_status::PCTENC_OK
        );
        assert_eq!((consumed, written), (0, 0));
        // No room at all for a byte: too small, nothing consumed.
        assert_eq!(
            pctenc_decode_stream_update(
                stream,
                b"abc".as_ptr(),
                3,
                buf.as_mut_ptr(),
                0,
                &mut consumed,
                &mut written,
                &mut err
            ),
            pctenc_status::PCTENC_BUFFER_TOO_SMALL
        );
        assert_eq!((consumed, written, err.kind), (0, 0, pctenc_error_kind::PCTENC_KIND_BUFFER_TOO_SMALL));
        // One byte of room: one byte at a time.
        assert_eq!(
            pctenc_decode_stream_update(
                stream,
                b"a%41".as_ptr(),
                4,
                buf.as_mut_ptr(),
                1,
                &mut consumed,
                &mut written,
                ptr::null_mut()
            ),
            pctenc_status::PCTENC_OK
        );
        assert_eq!((consumed, written, buf[0]), (1, 1, b'a'));
        pctenc_decode_stream_free(stream);
        pctenc_decoder_free(dec);
    }
}
