//! Re-quoting (`Encoder::keep_escapes`, `requote`): every output form on every backend against
//! a byte-by-byte model, and the properties that make it safe to apply to any input: the output
//! is a correct encoding for the set, a correct encoding is left alone, and the decoded meaning
//! is kept.

use std::borrow::Cow;

use pctenc::{Backend, Decoder, Encoder, Engine, Set, sets};
use proptest::prelude::*;
use proptest::sample::select;

mod common;
use common::{any_set, cases, show};

fn valid_escape(input: &[u8], i: usize) -> bool {
    matches!(input.get(i..i + 3), Some(&[b'%', hi, lo]) if hi.is_ascii_hexdigit() && lo.is_ascii_hexdigit())
}

/// The rules byte by byte: a valid escape is copied, a stray `%` is `%25`, a `+` of a
/// space-as-plus set is kept, and every other byte is encoded as the set says (for an IRI set,
/// non-ASCII bytes of valid UTF-8 characters of RFC 3987's `ucschar`, but the bidi formatting
/// ones, are kept: `common::iri_kept_bytes`).
fn model(input: &[u8], set: &Set, lowercase: bool) -> Vec<u8> {
    let in_utf8 = common::iri_kept_bytes(input);
    let escape = |b: u8| if lowercase { format!("%{b:02x}") } else { format!("%{b:02X}") }.into_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < input.len() {
        let b = input[i];
        if b == b'%' {
            if valid_escape(input, i) {
                out.extend_from_slice(&input[i..i + 3]);
                i += 3;
            } else {
                out.extend_from_slice(b"%25");
                i += 1;
            }
            continue;
        }
        let escaped = if b < 0x80 { set.contains(b) } else { !(set.is_iri() && in_utf8[i]) };
        if set.space_as_plus() && (b == b' ' || b == b'+') {
            out.push(b'+');
        } else if escaped {
            out.extend(escape(b));
        } else {
            out.push(b);
        }
        i += 1;
    }
    out
}

fn engines() -> Vec<Engine> {
    Backend::ALL.into_iter().filter(|b| b.is_available()).map(|b| Engine::new(b).unwrap()).collect()
}

/// Every output form of a re-quoting encoder, on every backend, against the model.
fn check(input: &[u8], set: &Set, lowercase: bool) -> Vec<u8> {
    let want = model(input, set, lowercase);
    let what = |form: &str, engine: Engine| {
        format!("{form} on {:?}: {set:?} on b\"{}\"", engine.backend(), show(input))
    };
    for engine in engines() {
        let enc = Encoder::new(*set).engine(engine).lowercase(lowercase).keep_escapes(true);
        assert!(enc.is_keeping_escapes());
        let cow = enc.encode(input);
        assert_eq!(cow.as_bytes(), &want[..], "{}", what("encode", engine));
        assert_eq!(matches!(cow, Cow::Borrowed(_)), want == input, "{}", what("borrowing", engine));
        assert_eq!(enc.encoded_len(input), want.len(), "{}", what("encoded_len", engine));
        assert_eq!(enc.checked_encoded_len(input), Some(want.len()));

        let mut s = String::from("pre");
        enc.encode_string(input, &mut s);
        assert_eq!(&s.as_bytes()[3..], &want[..], "{}", what("encode_string", engine));
        let mut v = b"pre".to_vec();
        enc.encode_vec(input, &mut v);
        assert_eq!(&v[3..], &want[..], "{}", what("encode_vec", engine));

        let n = want.len();
        let mut buf = vec![0xA5u8; n + 8];
        assert_eq!(enc.encode_slice(input, &mut buf[..n]), Ok(n), "{}", what("encode_slice", engine));
        assert_eq!(&buf[..n], &want[..]);
        assert!(buf[n..].iter().all(|&b| b == 0xA5), "{}", what("encode_slice wrote past", engine));
        if n > 0 {
            let mut buf = vec![0xA5u8; n + 8];
            let err = enc.encode_slice(input, &mut buf[..n - 1]).unwrap_err();
            assert_eq!((err.needed(), err.available()), (n, n - 1));
            assert!(buf[n - 1..].iter().all(|&b| b == 0xA5), "{}", what("encode_slice wrote past", engine));
        }

        let lazy: String = enc.lazy(input).collect();
        assert_eq!(lazy.as_bytes(), &want[..], "{}", what("lazy", engine));
        assert_eq!(enc.lazy(input).to_string().as_bytes(), &want[..]);

        if let Ok(text) = std::str::from_utf8(input) {
            let units: Vec<u16> = text.encode_utf16().collect();
            assert_eq!(enc.encode_utf16(&units).unwrap().as_bytes(), &want[..], "{}", what("utf16", engine));
        }
    }
    if !lowercase {
        assert_eq!(pctenc::requote(input, set).as_bytes(), &want[..]);
    }
    want
}

#[test]
fn examples() {
    let c = &sets::COMPONENT;
    // DECODING.md: the operation, and how it differs from plain encoding.
    assert_eq!(check(b"100% %41 %zz", c, false), b"100%25%20%41%20%25zz");
    assert_eq!(pctenc::encode("100% %41 %zz", c), "100%25%20%2541%20%25zz");
    // Escapes keep their case; the encoder's own escapes follow `lowercase`.
    assert_eq!(check(b"%c3%A9 /", c, false), b"%c3%A9%20%2F");
    assert_eq!(check(b"%c3%A9 /", c, true), b"%c3%A9%20%2f");
    // Stray `%` at the end, twice, before a non-hex, between escapes.
    assert_eq!(check(b"%", c, false), b"%25");
    assert_eq!(check(b"%4", c, false), b"%254");
    assert_eq!(check(b"%%41", c, false), b"%25%41");
    assert_eq!(check(b"%4%41%4g", c, false), b"%254%41%254g");
    // A set that keeps `%`: a stray `%` is still `%25`, so that the output is valid.
    assert_eq!(check(b"/100%/%7e x", &sets::PATH, false), b"/100%25/%7e%20x");
    assert_eq!(check(b"%", &sets::C0_CONTROL, false), b"%25");
    // Space-as-plus sets: `+` is an encoded space and stays; a raw space becomes `+`.
    assert_eq!(check(b"a+b c%2B&", &sets::FORM, false), b"a+b+c%2B%26");
    assert_eq!(check(b"C++ 50%", &sets::PYTHON_QUOTE_PLUS, false), b"C+++50%25");
    // IRI: valid UTF-8 stays raw, broken UTF-8 is escaped, escapes are kept.
    let iri = sets::COMPONENT.with_iri(true);
    assert_eq!(
        check("café %C3%A9 \u{1F600}".as_bytes(), &iri, false),
        "café%20%C3%A9%20\u{1F600}".as_bytes()
    );
    assert_eq!(check(b"\xC3%41\xA9", &iri, false), b"%C3%41%A9");
    // Sets that escape letters or hex digits: escapes are still whole tokens.
    assert_eq!(check(b"%41a", &Set::ALL, false), b"%41%61");
    // Empty input, and input with nothing to do.
    assert_eq!(check(b"", c, false), b"");
    assert_eq!(check(b"plain-text_~", c, false), b"plain-text_~");
}

/// The escape of every byte in both cases is kept by every named set, and every stray `%` is
/// `%25`, around every block size of the SIMD encoders.
#[test]
fn escapes_and_strays_at_every_position() {
    for named in sets::NAMED {
        for len in [0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 255, 256, 257, 300] {
            let mut input = b"a b/c".repeat(len / 5 + 1);
            input.truncate(len);
            let mut with = input.clone();
            with.extend_from_slice(b"%e9%C3%%zz%4");
            with.extend_from_slice(&input);
            let out = check(&with, &named.set, false);
            assert!(pctenc::validate(&out, &named.set).is_ok(), "{}", named.name);
        }
    }
    for b in 0..=255u8 {
        let input = format!("x%{b:02x}y%{b:02X}");
        let out = check(input.as_bytes(), &sets::RFC3986, false);
        assert_eq!(out, input.as_bytes());
    }
}

/// Without `keep_escapes` nothing changes.
#[test]
fn off_by_default() {
    let enc = Encoder::new(sets::COMPONENT);
    assert!(!enc.is_keeping_escapes());
    assert_eq!(enc.encode("%41 %"), "%2541%20%25");
    assert_eq!(enc.keep_escapes(true).keep_escapes(false), enc);
    assert_eq!(Encoder::new(sets::FORM).encode("a+b"), "a%2Bb");
}

/// Half-encoded input: escapes, stray `%`s, hex digits, `+`, spaces, text and broken UTF-8.
fn input() -> impl Strategy<Value = Vec<u8>> {
    let token = prop_oneof![
        3 => select(vec![&b"%"[..], b"%4", b"%41", b"%e9", b"%2B", b"%25", b"%zz", b"%%"]).prop_map(|b| b.to_vec()),
        2 => select(b"0123456789abcdefABCDEF+ ".to_vec()).prop_map(|b| vec![b]),
        3 => (0x20u8..0x7F).prop_map(|b| vec![b]),
        1 => any::<u8>().prop_map(|b| vec![b]),
        1 => any::<char>().prop_map(|c| c.to_string().into_bytes()),
        1 => select(vec![&b"\xC3"[..], b"\xE2\x82", b"\x80", b"\xFF"]).prop_map(|b| b.to_vec()),
    ];
    prop::collection::vec(token, 0..48).prop_map(|t| t.concat())
}

/// The decoder that undoes the set's encoding: lenient, `+` as space for space-as-plus sets.
fn decoder(set: &Set) -> Decoder {
    Decoder::new().lenient(true).plus_as_space(set.space_as_plus())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(1024), failure_persistence: None, ..ProptestConfig::default() })]

    /// Every form and backend against the model; long inputs run the vector paths.
    #[test]
    fn agrees_with_the_model(input in input(), set in any_set(), lowercase in any::<bool>(), long in any::<bool>()) {
        let input = if long { [&b"q r/".repeat(70)[..], &input, b"s t"].concat() } else { input };
        check(&input, &set, lowercase);
    }

    /// The output is a correct encoding for the set, whatever the set and the input.
    #[test]
    fn output_validates(input in input(), set in any_set()) {
        let out = pctenc::requote(&input, &set);
        prop_assert!(pctenc::validate(out.as_bytes(), &set).is_ok(), "{:?}: b\"{}\" -> {}", set, show(&input), out);
    }

    /// Input is left as it is exactly when it is a correct encoding already; so re-quoting
    /// twice is re-quoting once.
    #[test]
    fn correct_encodings_are_left_alone(input in input(), set in any_set()) {
        let out = pctenc::requote(&input, &set);
        prop_assert_eq!(matches!(out, Cow::Borrowed(_)), pctenc::validate(&input, &set).is_ok());
        prop_assert_eq!(out.as_bytes() == &input[..], pctenc::validate(&input, &set).is_ok());
        let again = pctenc::requote(&*out, &set);
        prop_assert!(matches!(again, Cow::Borrowed(_)), "not idempotent: {}", again);
        // Plain encoding output is a correct encoding for sets that escape `%` (and `+` when a
        // space is `+`): re-quoting leaves it alone.
        let set = set.add(b'%');
        let set = if set.space_as_plus() { set.add(b'+') } else { set };
        let encoded = pctenc::encode(&input, &set);
        let requoted = pctenc::requote(&*encoded, &set).into_owned();
        prop_assert_eq!(requoted, encoded.into_owned());
    }

    /// What the output decodes to is what the input decodes to: escapes are kept, stray `%`s
    /// and raw bytes are encoded as themselves, `+` keeps its meaning in a space-as-plus set.
    #[test]
    fn keeps_the_meaning(input in input(), set in any_set()) {
        let out = pctenc::requote(&input, &set);
        let dec = decoder(&set);
        prop_assert_eq!(dec.decode(out.as_bytes()).unwrap(), dec.decode(&input).unwrap(), "{:?}: b\"{}\" -> {}", set, show(&input), out);
    }
}
