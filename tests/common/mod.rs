//! Shared by the tests: an independent reference model of the decoder (written from
//! `DECODING.md` and the doc comments, not from the library's code), a checker that runs
//! every decoding API of the library on one input and compares each against the model, and
//! small helpers for property tests.

#![allow(dead_code)]

use pctenc::{Backend, DecodeError, DecodeErrorKind, Decoder, Engine, Reject, Set, StreamDecoder, Utf8Mode};

/// The set that escapes exactly the ASCII bytes whose bits are set in `bits`.
pub fn set_from_bits(bits: u128) -> Set {
    (0..128u8).fold(Set::EMPTY, |set, b| if bits >> b & 1 == 1 { set.add(b) } else { set })
}

/// RFC 3987 section 2.2, `ucschar`, range by range as the ABNF lists them.
pub const UCSCHAR: &[(u32, u32)] = &[
    (0xA0, 0xD7FF),
    (0xF900, 0xFDCF),
    (0xFDF0, 0xFFEF),
    (0x10000, 0x1FFFD),
    (0x20000, 0x2FFFD),
    (0x30000, 0x3FFFD),
    (0x40000, 0x4FFFD),
    (0x50000, 0x5FFFD),
    (0x60000, 0x6FFFD),
    (0x70000, 0x7FFFD),
    (0x80000, 0x8FFFD),
    (0x90000, 0x9FFFD),
    (0xA0000, 0xAFFFD),
    (0xB0000, 0xBFFFD),
    (0xC0000, 0xCFFFD),
    (0xD0000, 0xDFFFD),
    (0xE1000, 0xEFFFD),
];

/// The bidirectional formatting characters, which RFC 3987 section 4.1 says an IRI must not
/// use although `ucschar` has them: the characters of Unicode's `Bidi_Control` property, as
/// `PropList.txt` lists them: ALM, LRM, RLM, LRE, RLE, PDF, LRO, RLO, and the isolates LRI,
/// RLI, FSI, PDI (ALM and the isolates came after the RFC). Written out here from
/// PropList.txt, not taken from the library's table.
pub const BIDI_FORMATTING: &[u32] =
    &[0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069];

/// Whether an IRI set keeps the non-ASCII character `c` raw: the model, from the two lists
/// above (the library decides it in `src/iri.rs`).
pub fn iri_keeps(c: char) -> bool {
    let cp = u32::from(c);
    UCSCHAR.iter().any(|&(lo, hi)| (lo..=hi).contains(&cp)) && !BIDI_FORMATTING.contains(&cp)
}

/// For each byte of `input`, whether an IRI set keeps it raw: non-ASCII bytes of valid UTF-8
/// characters that [`iri_keeps`] keeps. (ASCII bytes are `false`: the set decides them.)
pub fn iri_kept_bytes(input: &[u8]) -> Vec<bool> {
    let mut kept = Vec::with_capacity(input.len());
    for chunk in input.utf8_chunks() {
        for c in chunk.valid().chars() {
            kept.extend(std::iter::repeat_n(!c.is_ascii() && iri_keeps(c), c.len_utf8()));
        }
        kept.extend(std::iter::repeat_n(false, chunk.invalid().len()));
    }
    kept
}

/// `PROPTEST_CASES` if set, else `default` (at most 3 under Miri).
pub fn cases(default: u32) -> u32 {
    let default = if MIRI { default.min(3) } else { default };
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Whether the tests run under Miri. Miri interprets every operation, about a million times
/// slower than native code, so the tests then try a sample of what they try natively that
/// keeps every vector boundary and every code path (`docs/TESTING.md`).
pub const MIRI: bool = cfg!(miri);

/// `all` natively; under Miri, the first, the last and every `every`-th in between.
pub fn thin<T>(all: impl IntoIterator<Item = T>, every: usize) -> Vec<T> {
    let all: Vec<T> = all.into_iter().collect();
    if !MIRI {
        return all;
    }
    let last = all.len().saturating_sub(1);
    all.into_iter().enumerate().filter(|&(i, _)| i % every == 0 || i == last).map(|(_, x)| x).collect()
}

/// The lengths `0..=max` natively; under Miri, those next to a multiple of a block size (16,
/// 32 or 64 bytes).
pub fn lengths(max: usize) -> Vec<usize> {
    if !MIRI {
        return (0..=max).collect();
    }
    [0, 1, 2, 15, 16, 17, 31, 32, 33, 63, 64, 65, 66, 127, 128, 129, 130, 191, 192, 193]
        .into_iter()
        .filter(|&len| len <= max)
        .collect()
}

/// A decoding result with the error as `(offset, kind)`.
pub type Outcome = Result<Vec<u8>, (usize, DecodeErrorKind)>;

/// Turns a library result into an [`Outcome`].
pub fn outcome<T: AsRef<[u8]>>(r: Result<T, DecodeError>) -> Outcome {
    r.map(|v| v.as_ref().to_vec()).map_err(|e| (e.offset(), e.kind()))
}

/// Every combination of the three switches: lenient or strict `%`, `+` as space or not, and
/// the three UTF-8 modes.
pub fn all_decoders() -> Vec<Decoder> {
    let mut all = Vec::new();
    for lenient in [false, true] {
        for plus in [false, true] {
            for utf8 in [Utf8Mode::Bytes, Utf8Mode::Strict, Utf8Mode::Lossy] {
                all.push(Decoder::new().lenient(lenient).plus_as_space(plus).utf8(utf8));
            }
        }
    }
    all
}

/// Decoders with the options that act on escapes: each combination of the three switches
/// with four choices of kept set, `%u` escapes and rejected classes, between them covering
/// every option and several of their interactions.
pub fn option_decoders() -> Vec<Decoder> {
    let keep_high = Set::EMPTY.add(b'/').add(b'%');
    let options: [(Set, bool, Reject); 4] = [
        (Decoder::new().keep_encoded_value(), true, Reject::NONE),
        (Decoder::URI_RESERVED, true, Reject::SLASHES | Reject::NUL),
        (keep_high, false, Reject::CONTROLS),
        (pctenc::sets::RFC3986.with_iri(true), true, Reject::CR_LF),
    ];
    let mut all = Vec::new();
    for base in all_decoders() {
        for (keep, legacy_u, reject) in options {
            all.push(base.keep_encoded(keep).legacy_u(legacy_u).reject(reject));
        }
    }
    all
}

/// The value of an ASCII hex digit.
fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// The byte-level decoding of the model: the bytes decoded before the first error that
/// stops decoding (all of them when there is none), the input offset each decoded byte comes
/// from (for the bytes of a multi-byte `%u` escape or of an escape kept as written: the
/// offset of its `%`), and that error, if any: a malformed `%` (strict), a lone surrogate
/// (strict) or a rejected byte.
pub struct Bytes {
    pub bytes: Vec<u8>,
    pub sources: Vec<usize>,
    pub error: Option<(usize, DecodeErrorKind)>,
}

/// Whether the decoder rejects `byte` when an escape decodes to it, from the documented
/// classes of `Reject`.
pub fn model_rejects(dec: Decoder, byte: u8) -> bool {
    let r = dec.reject_value();
    (r.contains(Reject::NUL) && byte == 0)
        || (r.contains(Reject::CONTROLS) && (byte < 0x20 || byte == 0x7F))
        || (r.contains(Reject::CR_LF) && (byte == b'\r' || byte == b'\n'))
        || (r.contains(Reject::SLASHES) && (byte == b'/' || byte == b'\\'))
}

/// The UTF-16 code unit of `%uHHHH` at `input[i..]` (a lowercase `u`, four hex digits).
fn model_unit(input: &[u8], i: usize) -> Option<u32> {
    let e = input.get(i..i + 6)?;
    if e[0] != b'%' || e[1] != b'u' {
        return None;
    }
    e[2..].iter().try_fold(0u32, |acc, &d| Some(acc * 16 + u32::from(hex(d)?)))
}

pub fn model_bytes(input: &[u8], dec: Decoder) -> Bytes {
    let (lenient, plus, legacy_u) = (dec.is_lenient(), dec.is_plus_as_space(), dec.is_legacy_u());
    let mut out = Bytes { bytes: Vec::new(), sources: Vec::new(), error: None };
    let mut i = 0;
    while i < input.len() {
        let b = input[i];
        // What the bytes from `i` on decode to, and how many input bytes that is.
        let (decoded, used): (Vec<u8>, usize) = match b {
            b'%' => {
                let two = (input.get(i + 1).and_then(|&h| hex(h)), input.get(i + 2).and_then(|&l| hex(l)));
                let unit = if legacy_u { model_unit(input, i) } else { None };
                if let (Some(h), Some(l)) = two {
                    (vec![h * 16 + l], 3)
                } else if let Some(u) = unit {
                    let low = model_unit(input, i + 6).filter(|l| (0xDC00..0xE000).contains(l));
                    let (cp, used) = match (u, low) {
                        (0xD800..=0xDBFF, Some(low)) => (0x10000 + (u - 0xD800) * 0x400 + (low - 0xDC00), 12),
                        _ => (u, 6),
                    };
                    match char::from_u32(cp) {
                        Some(c) => (c.to_string().into_bytes(), used),
                        None if lenient => {
                            // A lone surrogate: U+FFFD, never kept, never rejected.
                            for &byte in "\u{FFFD}".as_bytes() {
                                out.bytes.push(byte);
                                out.sources.push(i);
                            }
                            i += 6;
                            continue;
                        }
                        None => {
                            out.error = Some((i, DecodeErrorKind::LoneSurrogate));
                            return out;
                        }
                    }
                } else if lenient {
                    (vec![b'%'], 1)
                } else {
                    // Truncated: the input ends before the escape could be complete, and what
                    // follows is hex digits (or `u` and hex digits with `%u`). Else: invalid.
                    // With `%u` escapes, a `%u` is one of them: it needs four hex digits.
                    let after = &input[i + 1..];
                    let all_hex = |s: &[u8]| s.iter().all(|&c| hex(c).is_some());
                    let kind = if legacy_u && after.first() == Some(&b'u') {
                        if after.len() < 5 && all_hex(&after[1..]) {
                            DecodeErrorKind::TruncatedUEscape
                        } else {
                            DecodeErrorKind::InvalidUEscape
                        }
                    } else if after.len() < 2 && all_hex(after) {
                        DecodeErrorKind::TruncatedEscape
                    } else {
                        DecodeErrorKind::InvalidEscape
                    };
                    out.error = Some((i, kind));
                    return out;
                }
            }
            b'+' if plus => (vec![b' '], 1),
            other => {
                out.bytes.push(other);
                out.sources.push(i);
                i += 1;
                continue;
            }
        };
        // An escape (or `+`, or a copied `%`, which are never kept nor rejected).
        let is_escape = b == b'%' && used > 1;
        let written: &[u8] = if is_escape && decoded.iter().all(|&d| dec.keep_encoded_value().contains(d)) {
            &input[i..i + used]
        } else if let Some(&bad) = decoded.iter().find(|&&d| is_escape && model_rejects(dec, d)) {
            out.error = Some((i, DecodeErrorKind::Forbidden(bad)));
            return out;
        } else {
            &decoded
        };
        for &byte in written {
            out.bytes.push(byte);
            out.sources.push(i);
        }
        i += used;
    }
    out
}

/// What decoding `input` with `dec` must give, per `DECODING.md` and the doc comment of
/// `Decoder` (the left-to-right error rule).
pub fn expected(dec: Decoder, input: &[u8]) -> Outcome {
    let m = model_bytes(input, dec);
    let utf8_error = |bytes: &[u8]| -> Option<(usize, bool)> {
        match std::str::from_utf8(bytes) {
            Ok(_) => None,
            Err(e) => Some((m.sources[e.valid_up_to()], e.error_len().is_some())),
        }
    };
    let err = |offset, kind| Err((offset, kind));
    if let Some((offset, kind)) = m.error {
        if dec.utf8_value() == Utf8Mode::Strict {
            // An invalid sequence that is known to be invalid before the bad `%` (or the lone
            // surrogate, or the rejected byte) comes first.
            if let Some((at, true)) = utf8_error(&m.bytes) {
                return err(at, DecodeErrorKind::InvalidUtf8);
            }
        }
        return err(offset, kind);
    }
    match dec.utf8_value() {
        Utf8Mode::Bytes => Ok(m.bytes),
        Utf8Mode::Strict => match utf8_error(&m.bytes) {
            Some((at, _)) => err(at, DecodeErrorKind::InvalidUtf8),
            None => Ok(m.bytes),
        },
        Utf8Mode::Lossy => Ok(String::from_utf8_lossy(&m.bytes).into_owned().into_bytes()),
    }
}

mod lossy;
pub use lossy::lossy_overflow;

/// Formats the inputs of a failing check.
pub fn show(input: &[u8]) -> String {
    input.escape_ascii().to_string()
}

fn same(what: &str, dec: Decoder, input: &[u8], got: &Outcome, want: &Outcome) {
    assert_eq!(got, want, "{what}: {dec:?} on b\"{}\"", show(input));
}

/// Feeds `input` to a `StreamDecoder` in the pieces given by the cut points `cuts` (offsets
/// into `input`, sorted; repeated cuts and cuts at 0 or at the end give empty pieces), then
/// finishes it. Checks the documented behaviour around errors on the way.
pub fn stream(dec: Decoder, input: &[u8], cuts: &[usize]) -> Outcome {
    let mut s = StreamDecoder::new(dec);
    let mut out = b"<prefix>".to_vec();
    let mut cuts: Vec<usize> = cuts.iter().map(|&c| c.min(input.len())).collect();
    cuts.sort_unstable();
    let mut from = 0;
    let ends = cuts.into_iter().chain(std::iter::once(input.len()));
    for to in ends {
        let piece = &input[from..to];
        let before = out.clone();
        if let Err(e) = s.feed(piece, &mut out) {
            assert_eq!(out, before, "feed must leave `out` as it was on error");
            // Every later call returns the same error.
            assert_eq!(s.feed(b"%41", &mut out), Err(e));
            assert_eq!(s.finish(&mut out), Err(e));
            assert_eq!(out, before);
            return Err((e.offset(), e.kind()));
        }
        assert_eq!(s.fed(), to, "fed() counts every byte fed");
        from = to;
    }
    let before = out.clone();
    match s.finish(&mut out) {
        Ok(()) => {
            assert_eq!(s.fed(), 0, "a finished stream starts again at zero");
            assert!(out.starts_with(b"<prefix>"));
            Ok(out[b"<prefix>".len()..].to_vec())
        }
        Err(e) => {
            assert_eq!(out, before, "finish must leave `out` as it was on error");
            assert_eq!(s.finish(&mut out), Err(e));
            Err((e.offset(), e.kind()))
        }
    }
}

/// Runs every decoding API of the library on `input` with `dec`, checks each against the
/// model (`expected`), with the stream decoder fed in the pieces `cuts` and one byte at a
/// time, and returns the expected result.
pub fn check_all_apis(dec: Decoder, input: &[u8], cuts: &[usize]) -> Outcome {
    let want = expected(dec, input);

    // decode: Cow, borrowed when nothing changes.
    let got = outcome(dec.decode(input));
    same("decode", dec, input, &got, &want);
    if let Ok(std::borrow::Cow::Borrowed(b)) = dec.decode(input) {
        assert!(std::ptr::eq(b, input), "a borrowed result is the input itself");
    }
    let verbatim = !input.contains(&b'%') && (!dec.is_plus_as_space() || !input.contains(&b'+'));
    if verbatim {
        let valid = std::str::from_utf8(input).is_ok();
        if dec.utf8_value() == Utf8Mode::Bytes || valid {
            assert!(
                matches!(dec.decode(input), Ok(std::borrow::Cow::Borrowed(_))),
                "nothing to decode must borrow: {dec:?} on b\"{}\"",
                show(input)
            );
        }
    }

    // decode_to_str: Bytes mode acts as Strict.
    let as_str = outcome(dec.decode_to_str(input).map(|c| c.into_owned().into_bytes()));
    let str_dec = if dec.utf8_value() == Utf8Mode::Bytes { dec.utf8(Utf8Mode::Strict) } else { dec };
    same("decode_to_str", dec, input, &as_str, &expected(str_dec, input));

    // decode_vec: appends; on error leaves `out` as it was.
    let mut out = b"keep me".to_vec();
    let got = dec.decode_vec(input, &mut out);
    let got = match got {
        Ok(()) => {
            assert!(out.starts_with(b"keep me"));
            Ok(out[7..].to_vec())
        }
        Err(e) => {
            assert_eq!(out, b"keep me", "decode_vec restores `out` on error");
            Err((e.offset(), e.kind()))
        }
    };
    same("decode_vec", dec, input, &got, &want);

    // decode_slice into a buffer large enough for any output (lossy: 3 bytes per byte).
    let mut buf = vec![0xA5u8; input.len() * 3 + 1];
    let got = outcome(dec.decode_slice(input, &mut buf).map(|n| buf[..n].to_vec()));
    same("decode_slice", dec, input, &got, &want);

    // decode_slice into exactly the right size, and one byte less. Never writes past the
    // slice it is given.
    if let Ok(v) = &want {
        let n = v.len();
        let mut buf = vec![0xA5u8; n + 8];
        let got = dec.decode_slice(input, &mut buf[..n]);
        assert_eq!(got, Ok(n), "decode_slice exact size: {dec:?} on b\"{}\"", show(input));
        assert_eq!(&buf[..n], &v[..]);
        assert!(buf[n..].iter().all(|&b| b == 0xA5), "decode_slice wrote past its slice");
        // Too small: BufferTooSmall, naming the input offset of the first byte whose output
        // did not fit. Every size for short outputs, one byte short for long ones.
        let m = model_bytes(input, dec);
        let rooms: Vec<usize> = if n <= 64 { (0..n).collect() } else { vec![0, n / 2, n - 1] };
        for room in rooms {
            let mut buf = vec![0xA5u8; n + 8];
            let err = dec.decode_slice(input, &mut buf[..room]).unwrap_err();
            let first_lost = if dec.utf8_value() == Utf8Mode::Lossy {
                lossy_overflow(&m.bytes, room).expect("something does not fit")
            } else {
                room
            };
            assert_eq!(
                (err.offset(), err.kind()),
                (m.sources[first_lost], DecodeErrorKind::BufferTooSmall),
                "decode_slice with room {room} of {n}: {dec:?} on b\"{}\"",
                show(input)
            );
            assert!(buf[room..].iter().all(|&b| b == 0xA5), "decode_slice wrote past its slice");
        }
    } else {
        // Any too-small buffer is still an error.
        let mut buf = vec![0u8; input.len() / 2];
        assert!(dec.decode_slice(input, &mut buf).is_err());
    }

    // decode_in_place: the buffer is the input, so a lossy output longer than the input does
    // not fit.
    let mut buf = input.to_vec();
    let got = outcome(dec.decode_in_place(&mut buf).map(|n| buf[..n].to_vec()));
    match &want {
        Ok(v) if v.len() > input.len() => {
            let m = model_bytes(input, dec);
            let index = lossy_overflow(&m.bytes, input.len()).expect("output longer than input");
            same(
                "decode_in_place (lossy growth)",
                dec,
                input,
                &got,
                &Err((index, DecodeErrorKind::BufferTooSmall)),
            );
        }
        _ => same("decode_in_place", dec, input, &got, &want),
    }

    // The stream decoder, in the given pieces, one byte at a time, and in one piece.
    same("stream (cuts)", dec, input, &stream(dec, input, cuts), &want);
    if input.len() <= 300 {
        let bytewise: Vec<usize> = (1..input.len()).collect();
        same("stream (1-byte pieces)", dec, input, &stream(dec, input, &bytewise), &want);
    }
    same("stream (one piece)", dec, input, &stream(dec, input, &[]), &want);
    same("stream (empty pieces)", dec, input, &stream(dec, input, &[0, 0, input.len()]), &want);

    want
}

/// [`check_all_apis`] when only the checks matter.
pub fn check(dec: Decoder, input: &[u8], cuts: &[usize]) {
    let _ = check_all_apis(dec, input, cuts);
}

/// The SIMD engines this CPU has (every backend but scalar), after printing which ran and
/// checking the expectations CI sets: `PCTENC_EXPECT_BACKENDS` (a comma-separated list of
/// backends that must be available: detection that silently lost one fails instead of
/// quietly testing less) and `PCTENC_EXPECT_DETECTED` (the backend detection must choose).
pub fn engines() -> Vec<Engine> {
    let available: Vec<Backend> = Backend::ALL.into_iter().filter(|b| b.is_available()).collect();
    static REPORT: std::sync::Once = std::sync::Once::new();
    REPORT.call_once(|| {
        eprintln!("backends available and tested: {available:?}; detected: {:?}", Backend::detect())
    });
    if let Ok(expected) = std::env::var("PCTENC_EXPECT_BACKENDS") {
        for name in expected.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let backend = Backend::from_name(name).unwrap_or_else(|| panic!("unknown backend {name:?}"));
            assert!(backend.is_available(), "{name} is expected on this machine but not detected");
        }
    }
    if let Ok(name) = std::env::var("PCTENC_EXPECT_DETECTED") {
        assert_eq!(Backend::detect().name(), name.trim(), "PCTENC_EXPECT_DETECTED");
    }
    let best = available.iter().copied().max().unwrap();
    assert_eq!(Backend::detect(), best, "detect() must pick the widest available backend");
    let mut tested: Vec<Backend> = available.into_iter().filter(|&b| b != Backend::Scalar).collect();
    // `PCTENC_TEST_BACKENDS` narrows a run to the backends it names, each of which must be
    // available: the second Miri run, with AVX2 enabled, leaves out SSE2, which the first ran.
    if let Ok(only) = std::env::var("PCTENC_TEST_BACKENDS") {
        let only: Vec<Backend> = only
            .split(',')
            .map(|name| Backend::from_name(name.trim()).unwrap_or_else(|| panic!("unknown backend {name:?}")))
            .collect();
        assert!(only.iter().all(|b| b.is_available()), "PCTENC_TEST_BACKENDS names a backend not available");
        tested.retain(|b| only.contains(b));
        static NARROWED: std::sync::Once = std::sync::Once::new();
        NARROWED.call_once(|| eprintln!("PCTENC_TEST_BACKENDS: testing only {tested:?}"));
    }
    tested.into_iter().map(|b| Engine::new(b).unwrap()).collect()
}

/// [`engines`] and the scalar engine: every backend this CPU has.
pub fn engines_with_scalar() -> Vec<Engine> {
    let mut all = engines();
    all.push(Engine::scalar());
    all
}

/// A set: one of the predefined ones, or a random one, possibly with `+` and IRI rules.
pub fn any_set() -> impl proptest::strategy::Strategy<Value = Set> {
    use pctenc::sets;
    use proptest::prelude::*;
    use proptest::sample::select;

    let named = select(sets::NAMED.iter().map(|n| n.set).collect::<Vec<_>>());
    let custom = (any::<u128>(), any::<bool>(), any::<bool>())
        .prop_map(|(bits, plus, iri)| set_from_bits(bits).with_space_as_plus(plus).with_iri(iri));
    prop_oneof![
        3 => named.clone(),
        1 => (named, any::<bool>()).prop_map(|(s, iri)| s.with_iri(iri)),
        2 => custom,
    ]
}
