//! The inputs attackers send to proxies, each pinned to the answer `DECODING.md` gives: decoding
//! happens exactly once; UTF-8 that is overlong, a surrogate or out of range is an error in
//! strict mode; the bytes a proxy forbids are rejected at their `%`; sizes never wrap; nothing
//! panics.
//!
//! Every case runs through every decoding API (slices, in place, streams split everywhere,
//! the `io` adapters, the parallel decoder on a large input) on every backend, so a fast path
//! that forgets a check fails here by name.

use std::io::{Read, Write};

use pctenc::{DecodeErrorKind, Decoder, Encoder, Reject, StreamDecoder, Utf8Mode, sets};
use proptest::prelude::*;

mod common;
use common::{Outcome, all_decoders, cases, check_all_apis, engines_with_scalar, option_decoders};

/// The outcome of `dec` on `input` through the `io` adapters, in 7-byte writes and reads.
fn through_io(dec: Decoder, input: &[u8]) -> Outcome {
    let mut writer = pctenc::DecodeWriter::new(dec, Vec::new());
    let written = input.chunks(7).try_for_each(|piece| writer.write_all(piece));
    let by_writer = written.and_then(|()| writer.finish());
    let mut reader = pctenc::DecodeReader::new(dec, input);
    let mut read = Vec::new();
    let by_reader = reader.read_to_end(&mut read).map(|_| read);
    let as_outcome = |r: std::io::Result<Vec<u8>>| -> Outcome {
        r.map_err(|e| {
            let e = e.into_inner().expect("a decoding error").downcast::<pctenc::DecodeError>().unwrap();
            (e.offset(), e.kind())
        })
    };
    let (w, r) = (as_outcome(by_writer), as_outcome(by_reader));
    assert_eq!(w, r, "DecodeWriter and DecodeReader disagree on {input:?}");
    w
}

/// `want` from every API on every backend, and (feature `rayon`) from the parallel decoder
/// with `input` after just over its threshold of plain text (the error offsets moved by as
/// much; for strict decoders that are not lossy, which take every path of it, to keep the
/// emulated runs short).
fn assert_decodes(dec: Decoder, input: &[u8], want: Outcome) {
    let cuts: Vec<usize> = (0..=input.len()).step_by(2).collect();
    for engine in engines_with_scalar() {
        let dec = dec.engine(engine);
        let got = check_all_apis(dec, input, &cuts);
        assert_eq!(
            got,
            want,
            "{:?} with {dec:?} on {:?}",
            engine.backend(),
            input.escape_ascii().to_string()
        );
        assert_eq!(through_io(dec, input), want, "io adapters, {:?} with {dec:?}", engine.backend());
    }
    #[cfg(feature = "rayon")]
    if !dec.is_lenient() && dec.utf8_value() != Utf8Mode::Lossy {
        let pad = pctenc::PAR_DECODE_THRESHOLD + 64;
        let mut large = vec![b'a'; pad];
        large.extend_from_slice(input);
        let got = common::outcome(dec.par_decode(&large));
        let shifted = want.map(|v| [&large[..pad], &v[..]].concat()).map_err(|(at, kind)| (at + pad, kind));
        assert_eq!(got, shifted, "par_decode with {dec:?} on {pad} bytes then {input:?}");
    }
}

#[test]
fn decoding_happens_exactly_once() {
    for dec in all_decoders() {
        for (input, once) in [
            (&b"%252e"[..], &b"%2e"[..]),
            (b"%252E%252e%252F", b"%2E%2e%2F"),
            (b"..%252f..%252f", b"..%2f..%2f"),
            (b"%25%32%65", b"%2e"),
            (b"%2525", b"%25"),
        ] {
            assert_decodes(dec, input, Ok(once.to_vec()));
            // And the result decodes once more only when asked to.
            let twice = if once == b"%2525" { b"%".to_vec() } else { dec.decode(once).unwrap().into_owned() };
            assert_ne!(twice, once, "{once:?} is itself an escape");
        }
    }
    // Rejecting slashes does not look through a second layer either.
    let proxy = Decoder::new().reject(Reject::ALL);
    assert_decodes(proxy, b"/a/%252F%255C%2500", Ok(b"/a/%2F%5C%00".to_vec()));
}

/// Invalid UTF-8 in escapes, with where the error is: the `%` that starts the sequence.
const INVALID_UTF8: &[(&str, usize)] = &[
    // Overlong encodings of `.`, `/` and NUL, which naive decoders turn into those bytes.
    ("%C0%AE", 0),
    ("%C0%AF", 0),
    ("%C1%9C", 0),
    ("%C0%80", 0),
    ("%E0%80%AE", 0),
    ("%E0%80%AF", 0),
    ("%F0%80%80%AF", 0),
    ("a/%C0%AE%C0%AE/etc", 2),
    // UTF-16 surrogates, encoded as if they were characters (CESU-8 and WTF-8).
    ("%ED%A0%80", 0),
    ("%ED%BF%BF", 0),
    ("x%ED%A0%BD%ED%B8%80", 1),
    // Above U+10FFFF, and bytes that never occur in UTF-8.
    ("%F4%90%80%80", 0),
    ("%F5%80%80%80", 0),
    ("%F8%88%80%80%80", 0),
    ("%FF", 0),
    ("%FE%FF", 0),
    // Continuation bytes alone, and sequences cut short.
    ("%80", 0),
    ("%E2%82", 0),
    ("ok%E2%82%41", 2),
];

#[test]
fn invalid_utf8_is_an_error_in_strict_mode() {
    for &(input, at) in INVALID_UTF8 {
        for dec in [Decoder::new(), Decoder::new().lenient(true), Decoder::URI_COMPONENT] {
            let dec = dec.utf8(Utf8Mode::Strict);
            assert_decodes(dec, input.as_bytes(), Err((at, DecodeErrorKind::InvalidUtf8)));
        }
        // Lossy mode never lets the bytes through; bytes mode is asked for raw bytes.
        let lossy = Decoder::new().utf8(Utf8Mode::Lossy).decode(input).unwrap();
        assert!(std::str::from_utf8(&lossy).unwrap().contains('\u{FFFD}'), "{input}: {lossy:?}");
        let dangerous = |bytes: &[u8]| bytes.iter().filter(|b| b"./\0".contains(b)).count();
        assert_eq!(dangerous(&lossy), dangerous(input.as_bytes()), "{input}: {lossy:?}");
    }
    // The same bytes raw, not escaped, are as invalid.
    let raw = b"ab\xC0\xAEcd";
    assert_decodes(Decoder::URI_COMPONENT, raw, Err((2, DecodeErrorKind::InvalidUtf8)));
    // `%u` escapes of lone surrogates, with the legacy decoder.
    let legacy = Decoder::new().legacy_u(true).utf8(Utf8Mode::Strict);
    assert_decodes(legacy, b"a%uD800b", Err((1, DecodeErrorKind::LoneSurrogate)));
    assert_decodes(legacy, b"a%uDC00%uD800", Err((1, DecodeErrorKind::LoneSurrogate)));
}

#[test]
fn forbidden_bytes_are_rejected_at_their_escape() {
    let cases: &[(Reject, &str, usize, u8)] = &[
        (Reject::NUL, "file.txt%00.png", 8, 0),
        (Reject::CR_LF, "a%0D%0ASet-Cookie:%20x", 1, b'\r'),
        (Reject::CR_LF, "a%0aSet-Cookie", 1, b'\n'),
        (Reject::CONTROLS, "a%7F", 1, 0x7F),
        (Reject::CONTROLS, "%1b[31m", 0, 0x1B),
        (Reject::SLASHES, "/files/..%2F..%2Fetc", 9, b'/'),
        (Reject::SLASHES, "/files/..%2f", 9, b'/'),
        (Reject::SLASHES, "..%5c..%5cwindows", 2, b'\\'),
        (Reject::ALL, "ok/%2e%2e%2F", 9, b'/'),
    ];
    for &(reject, input, at, byte) in cases {
        for base in [Decoder::new(), Decoder::new().lenient(true).plus_as_space(true)] {
            for utf8 in [Utf8Mode::Bytes, Utf8Mode::Strict, Utf8Mode::Lossy] {
                let dec = base.utf8(utf8).reject(reject);
                assert_decodes(dec, input.as_bytes(), Err((at, DecodeErrorKind::Forbidden(byte))));
            }
        }
        // Without the option the byte comes through: the option is what stops it.
        assert!(Decoder::new().decode(input).is_ok());
    }
    // `%u` escapes are checked as well.
    let legacy = Decoder::new().legacy_u(true).reject(Reject::SLASHES);
    assert_decodes(legacy, b"..%u002F", Err((2, DecodeErrorKind::Forbidden(b'/'))));
    // Raw bytes are the input, not decoded: they pass.
    let proxy = Decoder::new().reject(Reject::ALL);
    assert_decodes(proxy, b"/a/b\\c", Ok(b"/a/b\\c".to_vec()));
    // A kept `%2F` produces no byte, so it is not rejected (`AllowEncodedSlashes NoDecode`).
    let keep = proxy.keep_encoded(pctenc::Set::EMPTY.add(b'/'));
    assert_decodes(keep, b"/a%2Fb", Ok(b"/a%2Fb".to_vec()));
    assert_decodes(keep, b"/a%5Cb", Err((2, DecodeErrorKind::Forbidden(b'\\'))));
}

#[test]
fn errors_say_where_and_why() {
    let err = Decoder::new().reject(Reject::CR_LF).decode("abc%0D%0A").unwrap_err();
    assert_eq!(err.to_string(), "offset 3: rejected byte: escape decodes to 0x0D");
    let err = Decoder::URI_COMPONENT.decode("x%C0%AE").unwrap_err();
    assert_eq!(err.to_string(), "offset 1: decoded bytes are not valid UTF-8");
}

#[test]
fn sizes_are_checked_not_wrapped() {
    // The size of an encoding is `len + 2 * escapes`; where that overflows `usize` the
    // library's unit test `encode::tests::escaped_len_is_checked` shows `None`. Inputs that
    // large cannot be allocated on a 64-bit target (on a 32-bit one,
    // `sizes_past_the_address_space_are_none_on_32_bit` reaches them), so here: the sizes of
    // real inputs are exact, and a buffer one byte short is an error that says how much is
    // needed, never a wrapped length.
    for engine in engines_with_scalar() {
        let enc = Encoder::new(sets::COMPONENT).engine(engine);
        for len in [0, 1, 63, 64, 65, 1000] {
            let input = vec![b' '; len];
            assert_eq!(enc.checked_encoded_len(&input), Some(3 * len));
            assert_eq!(enc.encoded_len(&input), 3 * len);
            let mut out = vec![0u8; (3 * len).saturating_sub(1)];
            if len > 0 {
                let err = enc.encode_slice(&input, &mut out).unwrap_err();
                assert_eq!((err.needed(), err.available()), (3 * len, 3 * len - 1));
            }
        }
    }
    // Error offsets moved past the end of the address space saturate instead of wrapping.
    let err = Decoder::new().decode("%zz").unwrap_err().shifted(usize::MAX);
    assert_eq!(err.offset(), usize::MAX);
    // A lossy decoding in place that would grow past the buffer (a raw invalid byte becomes
    // three) says where, instead of writing past it.
    let mut buf = *b"ab\xFFc";
    let err = Decoder::new().utf8(Utf8Mode::Lossy).decode_in_place(&mut buf).unwrap_err();
    assert_eq!((err.offset(), err.kind()), (2, DecodeErrorKind::BufferTooSmall));
}

/// On a 32-bit target an encoding can be longer than the address space, so the checks of
/// [`sizes_are_checked_not_wrapped`] are reached for real: `usize::MAX / 3` bytes that are
/// all escaped encode to exactly `usize::MAX` bytes, one byte more to more than fits. (The
/// input is 1.33 GiB of zeros that are never written: the pages are mapped, not filled.)
#[cfg(target_pointer_width = "32")]
#[test]
fn sizes_past_the_address_space_are_none_on_32_bit() {
    let len = usize::MAX / 3;
    let input = vec![0u8; len + 1];
    for engine in engines_with_scalar() {
        let enc = Encoder::new(sets::COMPONENT).engine(engine);
        assert_eq!(enc.checked_encoded_len(&input), None, "{engine:?}");
    }
    // The rest is the same arithmetic on every engine (each scan of 1.33 GiB takes seconds).
    let enc = Encoder::new(sets::COMPONENT);
    assert_eq!(enc.checked_encoded_len(&input[..len]), Some(usize::MAX));
    assert_eq!(pctenc::encoded_len(&input, &sets::COMPONENT), usize::MAX);
    let err = enc.encode_slice(&input, &mut [0u8; 64]).unwrap_err();
    assert_eq!((err.needed(), err.available()), (usize::MAX, 64));
}

#[test]
fn stream_decoder_offsets_count_from_the_start_of_the_stream() {
    let mut s = StreamDecoder::new(Decoder::new().reject(Reject::NUL));
    let mut out = Vec::new();
    s.feed(&[b'a'; 100], &mut out).unwrap();
    s.feed(b"%", &mut out).unwrap();
    let err = s.feed(b"00", &mut out).unwrap_err();
    assert_eq!((err.offset(), err.kind()), (100, DecodeErrorKind::Forbidden(0)));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(256)))]

    /// No input makes any public function panic, whatever the options. Escapes and UTF-8
    /// lead bytes are likely, so the error paths run.
    #[test]
    fn nothing_panics(
        input in proptest::collection::vec(
            prop_oneof![
                Just(b'%'), Just(b'+'), Just(b'u'), Just(0xC3), Just(0xED), Just(0xF4), Just(0x80),
                proptest::char::range('0', 'F').prop_map(|c| c as u8), any::<u8>(),
            ],
            0..200,
        ),
        room in 0usize..300,
        units in proptest::collection::vec(any::<u16>(), 0..20),
    ) {
        for dec in option_decoders() {
            let _ = dec.decode(&input);
            let _ = dec.decode_to_str(&input);
            let _ = dec.decode_slice(&input, &mut vec![0; room]);
            let _ = dec.decode_in_place(&mut input.clone());
            let mut s = StreamDecoder::new(dec);
            let mut out = Vec::new();
            for piece in input.chunks(room % 7 + 1) {
                let _ = s.feed(piece, &mut out);
            }
            let _ = s.finish(&mut out);
        }
        for named in sets::NAMED {
            let enc = Encoder::new(named.set).keep_escapes(room % 2 == 0);
            let _ = enc.encode(&input);
            let _ = enc.encode_slice(&input, &mut vec![0; room]);
            let _ = enc.validate(&input);
            let _ = enc.encode_utf16(&units);
            let _ = pctenc::requote(&input, &named.set);
        }
        let _ = pctenc::normalize(&input);
        let _ = pctenc::normalize_slice(&input, &mut vec![0; room]);
        let _ = pctenc::normalize_in_place(&mut input.clone());
        let _ = pctenc::form::parse(&input).count();
    }
}
