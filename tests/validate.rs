//! `validate`: the rules, the error offsets and kinds, agreement with the encoder, and every
//! SIMD backend against scalar.

use pctenc::{Encoder, Engine, Set, ValidationErrorKind as Kind, sets};
use proptest::prelude::*;

mod common;
use common::{MIRI, cases, set_from_bits, thin};

fn err(input: &[u8], set: &Set) -> Option<(usize, Kind)> {
    pctenc::validate(input, set).err().map(|e| (e.offset(), e.kind()))
}

#[test]
fn rules() {
    let c = &sets::COMPONENT;
    assert_eq!(err(b"", c), None);
    assert_eq!(err(b"abc-_.!~*'()", c), None);
    assert_eq!(err(b"a%20b%c3%A9", c), None);
    assert_eq!(err(b"a b", c), Some((1, Kind::Unescaped)));
    assert_eq!(err(b"a/b", c), Some((1, Kind::Unescaped)));
    assert_eq!(err(b"\xC3\xA9", c), Some((0, Kind::Unescaped)));
    assert_eq!(err(b"100%", c), Some((3, Kind::TruncatedEscape)));
    assert_eq!(err(b"%4", c), Some((0, Kind::TruncatedEscape)));
    assert_eq!(err(b"%zz", c), Some((0, Kind::InvalidEscape)));
    assert_eq!(err(b"%4z", c), Some((0, Kind::InvalidEscape)));
    assert_eq!(err(b"%%41", c), Some((0, Kind::InvalidEscape)));
    // Form: `+` stands for a space; a raw space is wrong.
    assert_eq!(err(b"a+b%2B", &sets::FORM), None);
    assert_eq!(err(b"a b", &sets::FORM), Some((1, Kind::Unescaped)));
    // A set that keeps `%` still requires every `%` to start an escape.
    assert_eq!(err(b"a%41/b", &sets::PATH), None);
    assert_eq!(err(b"100%", &sets::PATH), Some((3, Kind::TruncatedEscape)));
    // Escapes of letters in a set that escapes letters: the digits are part of the escape.
    assert_eq!(err(b"%41%62", &Set::ALL), None);
    assert_eq!(err(b"%41b", &Set::ALL), Some((3, Kind::Unescaped)));
    // IRI: raw non-ASCII must be valid UTF-8.
    let iri = sets::COMPONENT.with_iri(true);
    assert_eq!(err("café%20x".as_bytes(), &iri), None);
    assert_eq!(err(b"caf\xE9", &iri), Some((3, Kind::Unescaped)));
    assert_eq!(err(b"a b\xFF", &iri), Some((1, Kind::Unescaped)));
    let e = pctenc::validate("ok ", c).unwrap_err();
    assert_eq!(e.byte(), b' ');
    assert_eq!(e.to_string(), "offset 2: byte 0x20 (' ') must be percent-encoded");
}

fn engines() -> Vec<Engine> {
    common::engines()
}

/// The scalar result, checked against every backend.
fn check(input: &[u8], set: &Set) -> Option<(usize, Kind)> {
    let on = |engine: Engine| {
        Encoder::new(*set).engine(engine).validate(input).err().map(|e| (e.offset(), e.kind()))
    };
    let want = on(Engine::scalar());
    for engine in engines() {
        let got = on(engine);
        assert_eq!(got, want, "{:?} on {input:?} with {set:?}", engine.backend());
    }
    want
}

/// A problem at every position of inputs around every block size, behind 256 bytes of valid
/// text (so that every backend's vector path runs; 64 under Miri), for every backend.
#[test]
fn every_problem_at_every_position() {
    let valid = b"ab%41-%c3%A9._";
    let pad = if MIRI { 64 } else { 256 };
    for set in thin([sets::COMPONENT, sets::FORM, sets::PATH, Set::ALL, sets::RFC3986.with_iri(true)], 2) {
        for len in thin([15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 130], 7) {
            // Whole tokens of valid text, padded with letters to the length wanted.
            let mut base = Vec::new();
            while base.len() + valid.len() <= pad + len {
                base.extend_from_slice(valid);
            }
            base.resize(pad + len, b'a');
            assert_eq!(check(&base, &set), if set == Set::ALL { Some((0, Kind::Unescaped)) } else { None });
            for pos in thin(pad - 6..base.len(), 17) {
                for bad in thin([b' ', b'%', b'/', 0xFF, b'+', b'Z'], 3) {
                    let mut input = base.clone();
                    input[pos] = bad;
                    check(&input, &set);
                }
            }
        }
    }
}

/// The rules of `validate` for a set without the IRI rule, written from the documentation
/// a byte at a time with `Set::contains`: the model the validators are checked against.
fn model(input: &[u8], set: &Set) -> Option<(usize, Kind)> {
    let hex = |b: u8| b.is_ascii_hexdigit();
    let mut i = 0;
    while i < input.len() {
        let b = input[i];
        if b == b'%' {
            match input.get(i + 1..i + 3) {
                Some(&[h, l]) if hex(h) && hex(l) => i += 3,
                _ if input[i + 1..].len() < 2 && input[i + 1..].iter().all(|&d| hex(d)) => {
                    return Some((i, Kind::TruncatedEscape));
                }
                _ => return Some((i, Kind::InvalidEscape)),
            }
            continue;
        }
        // A `+` where it stands for a space is what the encoder writes, not a raw byte.
        if set.contains(b) && !(set.space_as_plus() && b == b'+') {
            return Some((i, Kind::Unescaped));
        }
        i += 1;
    }
    None
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(512), failure_persistence: None, ..ProptestConfig::default() })]

    /// Every validator (scalar and each backend) agrees with the model, on any bytes and sets
    /// (the `+` rule included, with the set escaping `+` or not).
    #[test]
    fn validators_match_model(
        input in proptest::collection::vec(prop_oneof![any::<u8>(), Just(b'%'), Just(b'+'), Just(b' ')], 0..if MIRI { 100 } else { 300 }),
        bits in any::<u128>(),
        plus in any::<bool>(),
    ) {
        let set = set_from_bits(bits).with_space_as_plus(plus);
        prop_assert_eq!(check(&input, &set), model(&input, &set));
    }

    /// What an encoder writes always validates, for every set that escapes `%`.
    #[test]
    fn encoder_output_validates(input in proptest::collection::vec(any::<u8>(), 0..if MIRI { 100 } else { 400 }), bits in any::<u128>(), plus in any::<bool>(), iri in any::<bool>()) {
        let set = set_from_bits(bits).add(b'%').with_space_as_plus(plus).with_iri(iri);
        let set = if set.space_as_plus() { set.add(b'+') } else { set };
        let encoded = Encoder::new(set).encode(&input);
        prop_assert_eq!(check(encoded.as_bytes(), &set), None);
    }

    /// Backends agree with scalar on inputs full of escapes, near-escapes and raw bytes.
    #[test]
    fn backends_agree(
        tokens in proptest::collection::vec(prop_oneof![
            Just(&b"%"[..]), Just(&b"%4"[..]), Just(&b"%41"[..]), Just(&b"%zz"[..]), Just(&b"a"[..]),
            Just(&b" "[..]), Just(&b"+"[..]), Just(&b"\xC3\xA9"[..]), Just(&b"\xFF"[..]), Just(&b"~"[..]),
        ], 0..if MIRI { 40 } else { 200 }),
        which in 0..4usize,
    ) {
        let input: Vec<u8> = tokens.concat();
        let set = [sets::COMPONENT, sets::FORM, sets::PATH.with_iri(true), Set::ALL][which];
        let padded: Vec<u8> = [&b"q".repeat(if MIRI { 64 } else { 256 })[..], &input].concat();
        check(&input, &set);
        check(&padded, &set);
    }
}
