//! Every SIMD encoder this CPU has, pinned in-process against the scalar reference (the
//! decoders: `tests/decode_backends.rs`; the validators: `tests/validate.rs`): every
//! length around the vector sizes, every alignment, every byte value at every position near a
//! block boundary, every predefined set, every one-byte set, random sets; plus, IRI and
//! lowercase included.
//!
//! The backends that ran are printed. `PCTENC_EXPECT_BACKENDS` (a comma-separated list, set by
//! CI per machine) names backends that must be available: detection that silently lost one
//! fails here instead of quietly testing less; `PCTENC_EXPECT_DETECTED` names the backend
//! detection must choose (CI sets it when it runs the suite under `qemu-x86_64 -cpu MODEL`).

use std::borrow::Cow;

use pctenc::{Encoder, Engine, Set, sets};
use proptest::prelude::*;

mod common;
use common::{MIRI, cases, engines, engines_with_scalar, lengths, set_from_bits, thin};

/// The widest block any backend reads (AVX-512).
const WIDEST: usize = 64;

/// The longest random input (shorter under Miri).
const RANDOM_MAX: usize = if MIRI { 100 } else { 600 };

/// Encodes with `engine` into an exact-size slice followed by guard bytes, checks the guard,
/// the length and `encoded_len`, and compares everything with the scalar engine.
fn check(engine: Engine, input: &[u8], enc: Encoder) {
    let scalar = enc.engine(Engine::scalar());
    let fast = enc.engine(engine);
    let want = scalar.encode(input);
    let n = fast.encoded_len(input);
    assert_eq!(n, want.len(), "{:?} encoded_len of {input:?} with {:?}", engine.backend(), enc.set());
    let mut buf = vec![0xA5u8; n + 80];
    let written = fast.encode_slice(input, &mut buf[..n]).unwrap();
    assert_eq!(written, n);
    assert!(buf[n..].iter().all(|&b| b == 0xA5), "{:?} wrote past the output", engine.backend());
    // The owned forms: `encode` borrows exactly when nothing changes, and `encode_vec`
    // appends the same bytes after what the vector holds.
    let owned = fast.encode(input);
    let ctx = || format!("{:?} on {input:?} with {:?}", engine.backend(), enc.set());
    assert_eq!(owned, want, "encode: {}", ctx());
    assert_eq!(matches!(owned, Cow::Borrowed(_)), want.as_bytes() == input, "encode borrowing: {}", ctx());
    let mut vec = b"p=".to_vec();
    fast.encode_vec(input, &mut vec);
    assert_eq!(&vec[2..], want.as_bytes(), "encode_vec: {}", ctx());
    if buf[..n] != *want.as_bytes() {
        panic!(
            "{:?} differs from scalar on {input:?} with {:?}:\n  fast:   {:?}\n  scalar: {:?}",
            engine.backend(),
            enc.set(),
            String::from_utf8_lossy(&buf[..n]),
            want
        );
    }
}

fn pseudo_random(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// Inputs that exercise every path of a block: all kept, all escaped, mixed, spaces.
fn patterns(len: usize) -> Vec<Vec<u8>> {
    vec![
        vec![b'a'; len],
        vec![b'%'; len],
        vec![b' '; len],
        vec![0xE9; len],
        (0..len).map(|i| b"ab c/d~e"[i % 8]).collect(),
        "中文 é".bytes().cycle().take(len).collect(),
        pseudo_random(len as u64, len),
        pseudo_random(len as u64 + 1000, len).iter().map(|b| b & 0x7F).collect(),
    ]
}

fn all_encoders() -> Vec<Encoder> {
    let mut out = Vec::new();
    for named in sets::NAMED {
        for iri in [false, true] {
            out.push(Encoder::new(named.set.with_iri(iri)));
        }
    }
    out.push(Encoder::new(sets::FORM).lowercase(true));
    out.push(Encoder::new(sets::COMPONENT).lowercase(true));
    out.push(Encoder::new(Set::ALL));
    out.push(Encoder::new(Set::EMPTY));
    out.push(Encoder::new(Set::EMPTY.with_space_as_plus(true)));
    out
}

#[test]
fn every_length_and_pattern_with_every_set() {
    for engine in engines() {
        let encoders = all_encoders();
        for (e, enc) in encoders.iter().copied().enumerate() {
            for len in lengths(3 * WIDEST + 1) {
                // Under Miri, one encoder and one pattern per length, in turn.
                if MIRI && e != len * 7 % encoders.len() {
                    continue;
                }
                let patterns = patterns(len).into_iter().enumerate();
                for (_, input) in patterns.filter(|(p, _)| !MIRI || *p == len % 8) {
                    check(engine, &input, enc);
                    // The same behind 256 bytes of plain text (a multiple of every block size,
                    // and past the length where a backend may hand short inputs to scalar).
                    if !MIRI || len == 65 {
                        let long: Vec<u8> = [&[b'q'; 256][..], &input].concat();
                        check(engine, &long, enc);
                    }
                }
            }
        }
    }
}

#[test]
fn every_alignment() {
    for engine in engines() {
        let buf = pseudo_random(7, 4 * WIDEST + 64 + 256);
        let text: Vec<u8> = "a-b c/é_中~".bytes().cycle().take(4 * WIDEST + 64 + 256).collect();
        for offset in thin(0..64, 21) {
            for len in thin([0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 3 * WIDEST + 1], 7) {
                for source in [&buf, &text] {
                    for enc in thin([Encoder::new(sets::RFC3986), Encoder::new(sets::FORM)], 2) {
                        check(engine, &source[offset..offset + len], enc);
                        if !MIRI {
                            check(engine, &source[offset..offset + len + 256], enc);
                        }
                    }
                }
            }
        }
    }
}

/// Every byte value at every position of inputs whose lengths straddle each block size
/// (under Miri: a byte of each class at the first and last positions of a few lengths).
#[test]
fn every_byte_at_every_position_near_block_boundaries() {
    let lengths = thin([15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64, 65, 127, 128, 129], 4);
    let bytes =
        if MIRI { vec![b'a', b' ', b'%', b'+', 0x7F, 0x80, 0xE9, 0xFF] } else { (0..=255u8).collect() };
    for engine in engines() {
        for enc in thin(
            [
                Encoder::new(sets::COMPONENT),
                Encoder::new(sets::FORM),
                Encoder::new(sets::PATH.with_iri(true)).lowercase(true),
            ],
            2,
        ) {
            for &len in &lengths {
                for base in [vec![b'a'; len], vec![b'%'; len]].into_iter().take(if MIRI { 1 } else { 2 }) {
                    for pos in thin(0..len, len) {
                        let mut input = base.clone();
                        for &b in &bytes {
                            input[pos] = b;
                            check(engine, &input, enc);
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn every_one_byte_set_and_its_complement() {
    let input: Vec<u8> = (0..=255u8).chain(0..=255u8).chain(*b"    ").collect();
    for engine in engines() {
        for b in thin(0..128u8, 37) {
            for set in [Set::EMPTY.add(b), Set::EMPTY.add(b).complement()] {
                for plus in [false, true] {
                    if !MIRI {
                        check(engine, &input, Encoder::new(set.with_space_as_plus(plus)));
                    }
                    check(engine, &input[7..150], Encoder::new(set.with_space_as_plus(plus)).lowercase(true));
                }
            }
        }
    }
}

/// `encode_vec`, `encode_string` and `encode` write into spare capacity and grow it when it
/// runs out, which happens where the start of an input misled the estimate of its length:
/// the output is the same wherever the room runs out, on every backend. Long plain text
/// (more than the estimate's sample), then dense escapes, into vectors of every capacity up
/// to the output's (under Miri, a few around where room runs out); and for `encode`, the same
/// behind one escape, so that nothing is borrowed and the estimate is too small.
#[test]
fn owned_output_wherever_the_room_runs_out() {
    let dense = pseudo_random(7, if MIRI { 300 } else { 700 });
    let input: Vec<u8> = [&[b'a'; 600][..], &dense, b"tail"].concat();
    for enc in [Encoder::new(sets::COMPONENT), Encoder::new(sets::FORM).lowercase(true)] {
        let want = enc.engine(Engine::scalar()).encode(&input).into_owned();
        let escaped_first: Vec<u8> = [&b"/"[..], &input].concat();
        let want_escaped_first = enc.engine(Engine::scalar()).encode(&escaped_first).into_owned();
        let rooms = if MIRI {
            (want.len() / 2..=want.len() + 1).step_by(61)
        } else {
            (0..=want.len() + 1).step_by(3)
        };
        for engine in engines_with_scalar() {
            let fast = enc.engine(engine);
            assert_eq!(fast.encode(&escaped_first), want_escaped_first, "{:?} encode", engine.backend());
            for room in rooms.clone() {
                let mut vec = Vec::with_capacity(room + 2);
                vec.extend_from_slice(b"p=");
                fast.encode_vec(&input, &mut vec);
                assert!(vec[2..] == *want.as_bytes(), "{:?} into {room} bytes of room", engine.backend());
                let mut string = String::with_capacity(room + 2);
                string.push_str("p=");
                fast.encode_string(&input, &mut string);
                assert!(string[2..] == want, "{:?} into a string, {room} bytes of room", engine.backend());
            }
        }
    }
}

/// `encoded_lens` of the parts of `input` at `bounds` on `engine` (and on scalar) against
/// the scalar `encoded_len` of each part.
fn check_lens(engine: Engine, input: &[u8], bounds: &[usize], enc: Encoder) {
    let scalar = enc.engine(Engine::scalar());
    let want: Vec<usize> = bounds.windows(2).map(|w| scalar.encoded_len(&input[w[0]..w[1]])).collect();
    for e in [engine, Engine::scalar()] {
        let got = enc.engine(e).encoded_lens(input, bounds);
        assert_eq!(
            got,
            want,
            "{:?} encoded_lens at {bounds:?} of {input:?} with {:?}",
            e.backend(),
            enc.set()
        );
    }
}

/// Bounds from `start` on, parts of the lengths `parts` gives in turn (not all 0), up to `end`.
fn bounds(start: usize, end: usize, parts: &[usize]) -> Vec<usize> {
    let mut out = vec![start];
    for &len in parts.iter().cycle() {
        let at = (out[out.len() - 1] + len).min(end);
        out.push(at);
        if at == end {
            return out;
        }
    }
    unreachable!()
}

#[test]
fn encoded_lens_of_parts_of_every_length() {
    let parts =
        thin([&[0, 0, 1][..], &[1], &[5, 0, 17], &[63, 64, 65], &[16, 31, 33, 2], &[200], &[1000]], 3);
    // Past 256 bytes, where SSE2 stops handing the work to scalar code.
    let len = if MIRI { 300 } else { 3 * WIDEST + 1 + 256 };
    for engine in engines() {
        // Under Miri, a few encoders, one pattern each.
        // Re-quoting too, which measures part by part.
        let encoders = [all_encoders(), vec![Encoder::new(sets::PATH).keep_escapes(true)]].concat();
        for (e, enc) in thin(encoders, 16).into_iter().enumerate() {
            for (p, input) in patterns(len).into_iter().enumerate() {
                if MIRI && p != e % 8 {
                    continue;
                }
                for lens in &parts {
                    // Parts from an odd offset to before the end, over all of the input,
                    // and within one block.
                    for (start, end) in thin([(7, len - 3), (0, len), (3, 9)], 2) {
                        check_lens(engine, &input, &bounds(start, end, lens), enc);
                    }
                }
            }
            check_lens(engine, b"abc", &[], enc);
            check_lens(engine, b"abc", &[2], enc);
            check_lens(engine, b"", &[0, 0], enc);
        }
    }
}

#[test]
#[should_panic(expected = "not ascending")]
fn encoded_lens_rejects_bounds_that_go_back() {
    Encoder::new(sets::FORM).encoded_lens("abc", &[0, 2, 1]);
}

#[test]
#[should_panic(expected = "past the input")]
fn encoded_lens_rejects_bounds_past_the_input() {
    Encoder::new(sets::FORM).encoded_lens("abc", &[0, 4]);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(512), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_sets_and_inputs(
        bits in any::<u128>(),
        plus in any::<bool>(),
        iri in any::<bool>(),
        lowercase in any::<bool>(),
        input in proptest::collection::vec(prop_oneof![any::<u8>(), Just(b' '), Just(b'%'), 0x20u8..0x7F], 0..RANDOM_MAX),
    ) {
        let set = set_from_bits(bits).with_space_as_plus(plus).with_iri(iri);
        for engine in engines() {
            check(engine, &input, Encoder::new(set).lowercase(lowercase));
        }
    }

    #[test]
    fn random_parts(
        bits in any::<u128>(),
        plus in any::<bool>(),
        iri in any::<bool>(),
        input in proptest::collection::vec(prop_oneof![any::<u8>(), Just(b' '), Just(b'%'), 0x20u8..0x7F], 0..RANDOM_MAX),
        cuts in proptest::collection::vec(any::<proptest::sample::Index>(), 0..40),
    ) {
        let set = set_from_bits(bits).with_space_as_plus(plus).with_iri(iri);
        let mut bounds: Vec<usize> = cuts.iter().map(|c| c.index(input.len() + 1)).collect();
        bounds.sort_unstable();
        for engine in engines() {
            check_lens(engine, &input, &bounds, Encoder::new(set));
        }
    }
}
