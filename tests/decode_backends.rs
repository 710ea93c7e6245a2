//! Every SIMD decoder this CPU has, pinned in-process against the scalar one: every length
//! around the vector sizes, every alignment, `%` and malformed escapes at every position
//! (the last bytes of a vector included), every byte value raw and escaped, every mode
//! and the security options;
//! results, errors (offset and kind), exact-size and too-small output slices and stream
//! pieces must all be identical. A few inputs also go through every API against the
//! independent reference model of `tests/common`.
//!
//! The backends that ran are printed; `PCTENC_EXPECT_BACKENDS` / `PCTENC_EXPECT_DETECTED` as
//! in `tests/encode_backends.rs`.

use pctenc::{Decoder, Engine, Reject};
use proptest::prelude::*;

mod common;
use common::{MIRI, Outcome, all_decoders, cases, engines, lengths, outcome, show, stream, thin};

/// The widest block any backend reads (AVX-512), plus the two bytes it looks ahead.
const WIDEST: usize = 64;

/// Decodes `input` with `dec` on `engine` and on scalar through the APIs that reach the
/// vector code, and asserts the same results.
fn check(engine: Engine, dec: Decoder, input: &[u8]) {
    let fast = dec.engine(engine);
    let scalar = dec.engine(Engine::scalar());
    let fail = |api: &str, got: &Outcome, want: &Outcome| {
        panic!(
            "{:?} {api} differs from scalar with {dec:?} on b\"{}\":\n  fast:   {got:?}\n  scalar: {want:?}",
            engine.backend(),
            show(input),
        )
    };
    let want = outcome(scalar.decode(input));
    let got = outcome(fast.decode(input));
    if got != want {
        fail("decode", &got, &want);
    }
    // Slices: roomy, exact, and too small by one and by half. Nothing written past them.
    let mut sizes = vec![input.len() * 3 + 1];
    if let Ok(v) = &want {
        sizes.extend([v.len(), v.len().saturating_sub(1), v.len() / 2]);
    }
    for size in sizes {
        let mut a = vec![0xA5u8; size + WIDEST];
        let mut b = a.clone();
        let got = outcome(fast.decode_slice(input, &mut a[..size]).map(|n| a[..n].to_vec()));
        let want = outcome(scalar.decode_slice(input, &mut b[..size]).map(|n| b[..n].to_vec()));
        if got != want {
            fail(&format!("decode_slice (room {size})"), &got, &want);
        }
        assert!(a[size..].iter().all(|&x| x == 0xA5), "{:?} wrote past its slice", engine.backend());
    }
    for cut in [input.len() / 2, input.len().saturating_sub(1)] {
        let got = stream(fast, input, &[cut]);
        if got != want {
            fail(&format!("stream (cut at {cut})"), &got, &want);
        }
    }
}

/// Every combination of the three switches, and the security options (which the vector
/// decoders handle too) in strict, lenient and form mode.
fn decoders() -> Vec<Decoder> {
    let mut all = all_decoders();
    for dec in [Decoder::new(), Decoder::new().lenient(true), Decoder::FORM] {
        all.push(dec.reject(Reject::ALL));
        all.push(dec.reject(Reject::SLASHES));
    }
    all
}

/// Every decoder natively; under Miri, one of them in turn (by the input's length).
fn check_modes(engine: Engine, input: &[u8]) {
    let all = decoders();
    for (i, dec) in all.iter().enumerate() {
        if !MIRI || i == input.len() * 7 % all.len() {
            check(engine, *dec, input);
        }
    }
}

/// Inputs of `len` bytes built from a few tokens in turn, starting at token `phase`.
fn tokens(len: usize, phase: usize, tokens: &[&[u8]]) -> Vec<u8> {
    let mut v = Vec::with_capacity(len + 8);
    let mut i = phase;
    while v.len() < len {
        v.extend_from_slice(tokens[i % tokens.len()]);
        i += 1;
    }
    v.truncate(len);
    v
}

const PATTERNS: &[&[&[u8]]] = &[
    &[b"abcdefgh"],
    &[b"%C3%A9"],
    &[b"%E4%B8%AD%e6%96%87"],
    &[b"ab", b"%20", b"c+d", b"%2B"],
    &[b"%41", b"x"],
    &[b"%zz", b"%4", b"%%41", b"y"],
    &[b"100% ", b"%ff", b"+"],
    &[b"%F0%9F%98%80", b"%ED%A0%80", b"%C0%AF", b"\xFF"],
    &[b"a%2Fb", b"%5c", b"/", b"%00%0D%0A", b"\r\n"],
];

#[test]
fn every_length_and_pattern() {
    for engine in engines() {
        for (p, pattern) in PATTERNS.iter().enumerate() {
            for len in lengths(3 * WIDEST + 3) {
                // Under Miri, one pattern per length, in turn.
                if MIRI && len % PATTERNS.len() != p {
                    continue;
                }
                for phase in (0..pattern.len().min(3)).take(if MIRI { 1 } else { 3 }) {
                    check_modes(engine, &tokens(len, phase, pattern));
                }
            }
        }
    }
}

#[test]
fn every_alignment() {
    for engine in engines() {
        for pattern in thin(PATTERNS, 4) {
            let buf = tokens(5 * WIDEST, 0, pattern);
            for offset in thin(0..WIDEST, 21) {
                for len in [WIDEST + 2, WIDEST - 1, 3 * WIDEST + 1].into_iter().take(if MIRI { 1 } else { 3 })
                {
                    check_modes(engine, &buf[offset..offset + len]);
                }
            }
        }
    }
}

/// A valid escape, truncated ones and malformed ones at every position of inputs around the
/// block sizes, in text and among escapes: the `%` in the last one or two lanes of a block
/// included.
#[test]
fn escapes_and_malformed_escapes_at_every_position() {
    let inserts: &[&[u8]] = &[
        b"%41", b"%e9", b"%", b"%4", b"%z1", b"%4z", b"%%41", b"+", b"%2B", b"%u00e9", b"%2F", b"%00", b"%5C",
    ];
    for engine in engines() {
        for len in thin([15, 16, 17, 18, 31, 32, 33, 34, 63, 64, 65, 66, 67, 127, 128, 130], 7) {
            // Under Miri, one background per length, in turn.
            for (_, background) in [&b"abcdefgh"[..], b"%C3%A9"]
                .into_iter()
                .enumerate()
                .filter(|(b, _)| !MIRI || b % 2 == len % 2)
            {
                let base = tokens(len, 0, &[background]);
                for insert in thin(inserts, 6) {
                    for at in thin(0..=len, len.max(1)) {
                        let mut input = base[..at].to_vec();
                        input.extend_from_slice(insert);
                        input.extend_from_slice(&base[at..]);
                        check_modes(engine, &input);
                    }
                }
            }
        }
    }
}

/// Long runs of escapes (text in a non-Latin script) of every length up to 600 bytes, at
/// every phase, broken anywhere by a raw byte, three raw hex digits (where an escape stands,
/// only its missing `%` tells them apart), a malformed or truncated escape (with bytes
/// `0x80..=0xFF` whose low seven bits are a hex digit: `0xC1`, `0xB0`, `0xE6`), a `+`, an
/// escape the `Reject` options refuse, or invalid UTF-8.
#[test]
fn runs_of_escapes_broken_anywhere() {
    let run: &[&[u8]] = &[b"%E4", b"%B8", b"%AD", b"%e6", b"%96", b"%87", b"%20", b"%2f", b"%F0"];
    let breaks: &[&[u8]] = &[
        b"a",
        b"abc",
        b"%zz",
        b"%4",
        b"%",
        b"+",
        b"%2B",
        b"%2F",
        b"\xFF",
        b"%%41",
        b"%0g",
        b"%\xC1\xB0",
        b"%4\xE6",
    ];
    for engine in engines() {
        for len in (0..=3 * 200).step_by(if MIRI { 127 } else { 7 }) {
            for phase in 0..if MIRI { 1 } else { 3 } {
                check_modes(engine, &tokens(len, phase, run));
            }
        }
        // Breaks in the first, middle and last groups of a run of 3 x 160 bytes.
        let base = tokens(3 * 160, 0, run);
        for (b, insert) in thin(breaks, 4).into_iter().enumerate() {
            for at in thin(0..=base.len(), 97 + b) {
                let mut input = base[..at].to_vec();
                input.extend_from_slice(insert);
                input.extend_from_slice(&base[at..]);
                check_modes(engine, &input);
            }
        }
    }
}

/// Every byte value, raw and as an escape (upper and lower case), at every position of a
/// block and across its end.
#[test]
fn every_byte_value_raw_and_escaped() {
    let bytes = if MIRI { vec![b'%', 0xFF] } else { (0..=255u8).collect() };
    for engine in engines() {
        for byte in bytes.iter().copied() {
            let escaped = [format!("%{byte:02X}"), format!("%{byte:02x}")];
            for len in [16, 32, 64].into_iter().take(if MIRI { 1 } else { 3 }) {
                for at in thin(0..len + 3, len + 2) {
                    let mut raw = tokens(len + 8, 0, &[b"%41"]);
                    raw[at] = byte;
                    check(engine, Decoder::new().lenient(true), &raw);
                    check(engine, Decoder::new().plus_as_space(true), &raw);
                    check(engine, Decoder::new().reject(Reject::ALL), &raw);
                    for e in &escaped {
                        let mut input = tokens(at, 0, &[b"xy"]);
                        input.extend_from_slice(e.as_bytes());
                        input.extend_from_slice(&tokens(len, 0, &[b"%62"]));
                        check(engine, Decoder::new(), &input);
                        check(engine, Decoder::FORM, &input);
                        check(engine, Decoder::FORM.reject(Reject::ALL), &input);
                    }
                }
            }
        }
    }
}

/// A few inputs through every API against the independent model, on every backend.
#[test]
fn every_api_against_the_model() {
    for engine in engines() {
        for pattern in thin(PATTERNS, 8) {
            for len in [WIDEST + 2, 2 * WIDEST + 5].into_iter().take(if MIRI { 1 } else { 2 }) {
                let input = tokens(len, 1, pattern);
                for dec in thin(decoders(), 9) {
                    common::check(dec.engine(engine), &input, &[len / 3, len / 2]);
                }
            }
        }
    }
}

/// Pieces of input: `%` and `+` alone, hex digits, escapes, text, any byte, any characters.
/// (No regex strategies: compiling them is most of the time these tests take under Miri.)
fn token() -> impl Strategy<Value = Vec<u8>> {
    let hex = || proptest::sample::select(b"0123456789abcdefABCDEF".to_vec());
    prop_oneof![
        Just(b"%".to_vec()),
        Just(b"+".to_vec()),
        prop::collection::vec(hex(), 1..=2),
        (hex(), hex()).prop_map(|(h, l)| vec![b'%', h, l]),
        prop::collection::vec(proptest::sample::select(b"abcdefghijklmnopqrstuvwxyz ".to_vec()), 1..=40),
        any::<u8>().prop_map(|b| vec![b]),
        prop::collection::vec(any::<char>(), 1..=4)
            .prop_map(|c| c.into_iter().collect::<String>().into_bytes()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(256)))]

    #[test]
    fn random_inputs(parts in prop::collection::vec(token(), 0..if MIRI { 12 } else { 80 }), mode in 0usize..18) {
        let input: Vec<u8> = parts.concat();
        let dec = decoders()[mode];
        for engine in engines() {
            check(engine, dec, &input);
        }
    }
}
