//! Property tests against independent oracles (the `percent-encoding`, `form_urlencoded` and
//! `urlencoding` crates, `String::from_utf8_lossy`, and the reference model of
//! `tests/common`), round trips, agreement of every API, and an exhaustive test of all short
//! inputs over an alphabet that provokes every decoder rule.
//!
//! `PROPTEST_CASES` sets the number of cases of every property (defaults below).

mod common;

use std::borrow::Cow;
use std::sync::OnceLock;

use common::{
    all_decoders, any_set, cases, check, check_all_apis, expected, option_decoders, outcome, set_from_bits,
    stream,
};
use pctenc::{Decoder, Encoder, Reject, Set, Utf8Mode, sets};
use percent_encoding::AsciiSet;
use proptest::prelude::*;
use proptest::sample::{Index, select};

/// `PROPTEST_CASES` if set, else `default`.
fn config(default: u32) -> ProptestConfig {
    let cases = cases(default);
    // No regression files: a failure prints its minimal input, which belongs in a named test.
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

// ---------------------------------------------------------------------------------------
// Strategies

/// A set whose encoding a decoder undoes: it escapes `%` (a set that writes a space as `+`
/// escapes `+` of itself).
fn round_trip_set() -> impl Strategy<Value = Set> {
    any_set().prop_map(|s| s.add(b'%'))
}

/// Input to encode: bytes of every kind, text of every kind, and broken UTF-8.
fn encode_input() -> impl Strategy<Value = Vec<u8>> {
    let token = prop_oneof![
        3 => (0x20u8..0x7F).prop_map(|b| vec![b]),
        2 => any::<u8>().prop_map(|b| vec![b]),
        2 => any::<char>().prop_map(|c| c.to_string().into_bytes()),
        1 => select(vec![&b"\xC3"[..], b"\xE2\x82", b"\xF0\x9F\x98", b"\x80", b"\xFF", b"\xED\xA0\x80", b"\xC0\xAF"])
            .prop_map(|b| b.to_vec()),
        1 => Just(b" ".to_vec()),
        1 => Just(b"%".to_vec()),
        1 => Just(b"+".to_vec()),
    ];
    prop::collection::vec(token, 0..40).prop_map(|t| t.concat())
}

/// Bytes interesting as escapes: ASCII that matters, UTF-8 lead and continuation bytes,
/// and bytes that are never valid UTF-8.
const INTERESTING: &[u8] = &[
    b'A', b'+', b'%', b' ', b'/', 0x00, 0x7F, 0xC2, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x98, 0x80,
    0xBF, 0xC0, 0xC1, 0xAF, 0xED, 0xA0, 0x9F, 0xF4, 0x8F, 0x90, 0xF5, 0xFE, 0xFF,
];

/// Input to decode, biased towards what the decoder treats specially.
fn decode_input() -> impl Strategy<Value = Vec<u8>> {
    let escape = |b: u8, lower: bool| {
        if lower { format!("%{b:02x}").into_bytes() } else { format!("%{b:02X}").into_bytes() }
    };
    let token = prop_oneof![
        4 => Just(b"%".to_vec()),
        3 => select(b"0123456789abcdefABCDEF".to_vec()).prop_map(|b| vec![b]),
        2 => Just(b"+".to_vec()),
        5 => (select(INTERESTING.to_vec()), any::<bool>()).prop_map(move |(b, l)| escape(b, l)),
        1 => (any::<u8>(), any::<bool>()).prop_map(move |(b, l)| escape(b, l)),
        3 => select(vec![0xC3u8, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x98, 0x80, 0xC0, 0xED, 0xA0, 0xF4, 0x90, 0xFF])
            .prop_map(|b| vec![b]),
        2 => select(b"azgGx-.~ ".to_vec()).prop_map(|b| vec![b]),
        1 => any::<char>().prop_map(|c| c.to_string().into_bytes()),
        1 => any::<u8>().prop_map(|b| vec![b]),
    ];
    let tokens = prop::collection::vec(token, 0..32).prop_map(|t| t.concat());
    prop_oneof![
        9 => tokens.clone(),
        // Long inputs, for the buffers and pieces implementations use inside.
        1 => (tokens.clone(), 200usize..700, tokens).prop_map(|(a, n, b)| {
            let mut v = a;
            v.extend(std::iter::repeat_n(b'a', n));
            v.extend(b);
            v
        }),
    ]
}

/// Input to decode with the options that act on escapes: `%u` escapes (surrogates, halves
/// of pairs, ASCII units, units that decode to rejected bytes), pieces of them, escapes of
/// the bytes the kept sets and the rejected classes hold, besides what [`decode_input`] has.
fn decode_input_options() -> impl Strategy<Value = Vec<u8>> {
    const UNITS: [u16; 17] = [
        0x00, 0x0A, 0x0D, 0x1F, 0x20, 0x25, 0x2B, 0x2F, 0x41, 0x5C, 0x7E, 0x7F, 0x80, 0xE9, 0x20AC, 0xFFFD,
        0xFFFF,
    ];
    const BYTES: &[u8] =
        b"\x00\x01\x09\x0A\x0D\x1F\x20\x25\x2B\x2F\x5C\x7F\x3B\x3F\x23\x40\x7E\x41\x2E\xC3\xA9\xFF";
    const OTHER: [&[u8]; 12] = [b"%", b"u", b"D", b"d", b"8", b"C", b"0", b"+", b"/", b"\\", b"\0", b"\r\n"];
    let unit = prop_oneof![
        3 => 0xD800u16..0xE000,
        2 => select(UNITS.to_vec()),
        1 => any::<u16>(),
    ];
    // `%uHHHH`, and now and then `%UHHHH`, which is not an escape.
    let u_escape = (unit, any::<bool>(), prop::bool::weighted(0.1)).prop_map(|(u, lower, big_u)| {
        let hex = if lower { format!("{u:04x}") } else { format!("{u:04X}") };
        format!("%{}{hex}", if big_u { 'U' } else { 'u' }).into_bytes()
    });
    let escape = (select(BYTES.to_vec()), any::<bool>())
        .prop_map(|(b, lower)| if lower { format!("%{b:02x}") } else { format!("%{b:02X}") }.into_bytes());
    let pair = (0xD800u32..0xDC00, 0xDC00u32..0xE000).prop_map(|(h, l)| format!("%u{h:04X}%u{l:04x}"));
    let token = prop_oneof![
        6 => u_escape.clone(),
        // A `%u` escape cut short, and a pair.
        2 => (u_escape, 2usize..6).prop_map(|(e, n)| e[..n].to_vec()),
        2 => pair.prop_map(String::into_bytes),
        4 => escape,
        3 => select(OTHER.to_vec()).prop_map(|b| b.to_vec()),
        4 => decode_input().prop_map(|v| v.into_iter().take(6).collect()),
    ];
    prop::collection::vec(token, 0..24).prop_map(|t| t.concat())
}

/// A decoder with any combination of every option: the three switches, a kept set (none,
/// `decodeURI`'s, a named or random one, IRI or not), `%u` escapes, and rejected classes.
fn any_decoder() -> impl Strategy<Value = Decoder> {
    let keep = prop_oneof![
        2 => Just(Decoder::new().keep_encoded_value()),
        2 => Just(Decoder::URI_RESERVED),
        1 => select(sets::NAMED.iter().map(|n| n.set).collect::<Vec<_>>()),
        2 => (any::<u128>(), any::<u8>(), any::<bool>()).prop_map(|(bits, few, iri)| {
            // Sparse sets too: a random one keeps half the escapes.
            let bits = if few % 2 == 0 { bits & bits >> 7 & bits >> 13 } else { bits };
            set_from_bits(bits).with_iri(iri)
        }),
    ];
    let utf8 = select(vec![Utf8Mode::Bytes, Utf8Mode::Strict, Utf8Mode::Lossy]);
    (any::<bool>(), any::<bool>(), utf8, keep, any::<bool>(), 0u8..16).prop_map(
        |(lenient, plus, utf8, keep, legacy_u, classes)| {
            let reject = [Reject::NUL, Reject::CONTROLS, Reject::CR_LF, Reject::SLASHES]
                .into_iter()
                .enumerate()
                .filter(|(i, _)| classes >> i & 1 == 1)
                .fold(Reject::NONE, |r, (_, c)| r | c);
            Decoder::new()
                .lenient(lenient)
                .plus_as_space(plus)
                .utf8(utf8)
                .keep_encoded(keep)
                .legacy_u(legacy_u)
                .reject(reject)
        },
    )
}

/// Up to 7 cut points (so 1 to 8 pieces), resolved against the input length later.
fn cuts() -> impl Strategy<Value = Vec<Index>> {
    prop::collection::vec(any::<Index>(), 0..8)
}

fn resolve(cuts: &[Index], len: usize) -> Vec<usize> {
    let mut c: Vec<usize> = cuts.iter().map(|i| i.index(len + 1)).collect();
    c.sort_unstable();
    c
}

// ---------------------------------------------------------------------------------------
// Oracles

/// The `percent_encoding::AsciiSet` that escapes what `set` escapes below 0x80.
fn ascii_set(set: &Set) -> AsciiSet {
    (0..128u8).fold(AsciiSet::EMPTY, |a, b| if set.contains(b) { a.add(b) } else { a })
}

/// The `AsciiSet` of a random set, made once per set and kept in a table, so that the memory
/// stays reachable and AddressSanitizer's leak check stays quiet (`percent_encode` wants
/// `&'static`).
fn static_ascii_set(set: &Set) -> &'static AsciiSet {
    static SETS: std::sync::Mutex<std::collections::BTreeMap<u128, &'static AsciiSet>> =
        std::sync::Mutex::new(std::collections::BTreeMap::new());
    let mut sets = SETS.lock().unwrap();
    sets.entry(set.ascii_bits()).or_insert_with(|| Box::leak(Box::new(ascii_set(set))))
}

/// `AsciiSet`s of the predefined sets, made once (`percent_encode` wants `&'static`).
fn predefined_ascii_sets() -> &'static [(Set, &'static AsciiSet)] {
    static SETS: OnceLock<Vec<(Set, &'static AsciiSet)>> = OnceLock::new();
    SETS.get_or_init(|| {
        sets::NAMED.iter().map(|n| (n.set, &*Box::leak(Box::new(ascii_set(&n.set))))).collect()
    })
}

/// An encoder written from the definition: letters and digits by the set, `%XX` for what
/// the set escapes, `+` for a space in a plus set, and (IRI) the characters of RFC 3987's
/// `ucschar` kept raw but the bidi formatting ones (`common::iri_keeps`).
fn model_encode(input: &[u8], set: &Set, lowercase: bool) -> String {
    let esc = |b: u8| if lowercase { format!("%{b:02x}") } else { format!("%{b:02X}") };
    let ascii = |b: u8, out: &mut String| {
        if b == b' ' && set.contains(b' ') && set.space_as_plus() {
            out.push('+');
        } else if set.contains(b) {
            out.push_str(&esc(b));
        } else {
            out.push(b as char);
        }
    };
    let mut out = String::new();
    if set.is_iri() {
        for chunk in input.utf8_chunks() {
            for c in chunk.valid().chars() {
                if c.is_ascii() {
                    ascii(c as u8, &mut out)
                } else if common::iri_keeps(c) {
                    out.push(c)
                } else {
                    c.to_string().bytes().for_each(|b| out.push_str(&esc(b)));
                }
            }
            for &b in chunk.invalid() {
                out.push_str(&esc(b));
            }
        }
    } else {
        for &b in input {
            if b < 0x80 { ascii(b, &mut out) } else { out.push_str(&esc(b)) }
        }
    }
    out
}

/// Every encoding API on `input`, checked against the model; returns the encoding.
fn check_encoders(input: &[u8], set: Set) -> String {
    for lowercase in [false, true] {
        let enc = Encoder::new(set).lowercase(lowercase);
        let want = model_encode(input, &set, lowercase);
        let got = enc.encode(input);
        assert_eq!(got, want, "encode");
        assert_eq!(matches!(got, Cow::Borrowed(_)), want.as_bytes() == input, "borrowed iff unchanged");
        assert_eq!(enc.encoded_len(input), want.len(), "encoded_len");
        assert_eq!(enc.checked_encoded_len(input), Some(want.len()));
        let mut s = String::from("é");
        enc.encode_string(input, &mut s);
        assert_eq!(s, format!("é{want}"), "encode_string");
        let mut v = vec![0xFF];
        enc.encode_vec(input, &mut v);
        assert_eq!(&v[1..], want.as_bytes(), "encode_vec");
        let mut buf = vec![0xA5u8; want.len() + 4];
        assert_eq!(enc.encode_slice(input, &mut buf[..want.len()]), Ok(want.len()), "encode_slice");
        assert_eq!(&buf[..want.len()], want.as_bytes());
        assert!(buf[want.len()..].iter().all(|&b| b == 0xA5), "encode_slice wrote past its slice");
        if !want.is_empty() {
            let mut buf = vec![0xA5u8; want.len() + 4];
            let err = enc.encode_slice(input, &mut buf[..want.len() - 1]).unwrap_err();
            assert_eq!((err.needed(), err.available()), (want.len(), want.len() - 1));
            assert!(buf[want.len() - 1..].iter().all(|&b| b == 0xA5), "encode_slice wrote past its slice");
        }
        let lazy = enc.lazy(input);
        assert_eq!(lazy.to_string(), want, "lazy Display");
        let pieces: Vec<&str> = lazy.clone().collect();
        assert_eq!(pieces.concat(), want, "lazy pieces");
        assert!(pieces.iter().all(|p| !p.is_empty()), "no empty piece");
        let cow: Cow<str> = lazy.into();
        assert_eq!(cow, want, "lazy into Cow");
        if want.as_bytes() == input {
            assert!(matches!(cow, Cow::Borrowed(_)), "lazy Cow borrowed when nothing changes");
        }
        if !lowercase {
            assert_eq!(pctenc::encode(input, &set), want);
            assert_eq!(pctenc::percent_encode(input, &set).to_string(), want);
            assert_eq!(pctenc::encoded_len(input, &set), want.len());
        }
        if let Ok(text) = std::str::from_utf8(input) {
            let units: Vec<u16> = text.encode_utf16().collect();
            assert_eq!(enc.encode_utf16(&units).unwrap(), want, "encode_utf16");
        }
    }
    model_encode(input, &set, false)
}

// ---------------------------------------------------------------------------------------
// Encoding

proptest! {
    #![proptest_config(config(2000))]

    #[test]
    fn encode_matches_percent_encoding_crate(input in encode_input()) {
        for &(set, ascii) in predefined_ascii_sets() {
            if set.space_as_plus() {
                continue;
            }
            let want = percent_encoding::percent_encode(&input, ascii).to_string();
            prop_assert_eq!(pctenc::encode(&input, &set), want.as_str());
            let cow: Cow<str> = percent_encoding::percent_encode(&input, ascii).into();
            let mine: Cow<str> = pctenc::percent_encode(&input, &set).into();
            prop_assert_eq!(&cow, &mine);
            prop_assert_eq!(matches!(cow, Cow::Borrowed(_)), matches!(mine, Cow::Borrowed(_)));
        }
    }

    #[test]
    fn encode_custom_set_matches_percent_encoding_crate(input in encode_input(), bits in any::<u128>()) {
        let set = set_from_bits(bits);
        let ascii = static_ascii_set(&set);
        let want = percent_encoding::percent_encode(&input, ascii).to_string();
        prop_assert_eq!(pctenc::encode(&input, &set), want.as_str());
        prop_assert_eq!(pctenc::percent_encode(&input, &set).to_string(), want);
    }

    #[test]
    fn form_matches_form_urlencoded(input in encode_input()) {
        let want: String = form_urlencoded::byte_serialize(&input).collect();
        prop_assert_eq!(pctenc::encode(&input, &sets::FORM), want.as_str());
    }

    #[test]
    fn rfc3986_matches_urlencoding(input in encode_input()) {
        let want = urlencoding::encode_binary(&input);
        prop_assert_eq!(pctenc::encode(&input, &sets::RFC3986), want);
    }

    #[test]
    fn every_encoding_api_agrees(input in encode_input(), set in any_set()) {
        check_encoders(&input, set);
    }

    #[test]
    fn encode_round_trips(input in encode_input(), set in round_trip_set()) {
        // Only a set that escapes `%` can be undone.
        let encoded = pctenc::encode(&input, &set);
        let dec = Decoder::new().plus_as_space(set.space_as_plus());
        prop_assert_eq!(dec.decode(&*encoded).unwrap(), &input[..]);
        prop_assert_eq!(dec.lenient(true).decode(&*encoded).unwrap(), &input[..]);
        if let Ok(text) = std::str::from_utf8(&input) {
            prop_assert_eq!(dec.utf8(Utf8Mode::Strict).decode_to_str(&*encoded).unwrap(), text);
        }
        // The output is always valid UTF-8 (ASCII unless IRI).
        prop_assert!(set.is_iri() || encoded.is_ascii());
    }
}

proptest! {
    #![proptest_config(config(2000))]

    /// Every predefined set made to write a space as `+` (`--space-as-plus`) escapes `+` too,
    /// so decoding with `+` as a space gives the input back. The WHATWG sets keep `%` (as a
    /// browser's URL parser leaves escapes alone), so no decoder undoes them on input with a
    /// `%` (`%41` would come back as `A`): for them the input has its `%`s taken out.
    #[test]
    fn every_predefined_set_with_space_as_plus_round_trips(
        input in encode_input(),
        named in select(sets::NAMED.to_vec()),
        iri in any::<bool>(),
    ) {
        let set = named.set.with_space_as_plus(true).with_iri(iri);
        prop_assert!(set.space_as_plus() && set.contains(b'+') && set.contains(b' '));
        let mut input = input;
        if !set.contains(b'%') {
            input.retain(|&b| b != b'%');
        }
        let encoded = pctenc::encode(&input, &set);
        prop_assert!(!encoded.contains(' '));
        let dec = Decoder::new().plus_as_space(true);
        prop_assert_eq!(dec.decode(&*encoded).unwrap(), &input[..], "{} on {:?}", named.name, encoded);
        prop_assert_eq!(dec.lenient(true).decode(&*encoded).unwrap(), &input[..]);
        if let Ok(text) = std::str::from_utf8(&input) {
            prop_assert_eq!(Decoder::FORM.decode_to_str(&*encoded).unwrap(), text);
        }
    }
}

/// The examples of the issue: a set that keeps `+` escapes it once a space becomes `+`.
#[test]
fn space_as_plus_escapes_plus_in_sets_that_keep_it() {
    let query = sets::QUERY.with_space_as_plus(true);
    // QUERY keeps `=` and `+`; as a space-as-`+` set it escapes `+`.
    assert_eq!(pctenc::encode("1+1 = 2", &query), "1%2B1+=+2");
    assert_eq!(Decoder::FORM.decode_to_str("1%2B1+=+2").unwrap(), "1+1 = 2");
    assert_eq!(pctenc::encode("a+b", &sets::URI.with_space_as_plus(true)), "a%2Bb");
    // Turning the rule off un-escapes nothing: `+` stays escaped, the space is `%20` again.
    assert_eq!(pctenc::encode("1+1 = 2", &query.with_space_as_plus(false)), "1%2B1%20=%202");
    assert_eq!(
        sets::QUERY.with_space_as_plus(true).with_space_as_plus(false),
        sets::QUERY.add(b'+').add(b' ')
    );
    // The predefined space-as-`+` sets escape `+` already: the rule changes nothing there.
    for named in sets::NAMED {
        if named.set.space_as_plus() {
            assert!(named.set.contains(b'+'), "{}", named.name);
            assert_eq!(named.set.with_space_as_plus(true), named.set, "{}", named.name);
        }
    }
    assert_eq!(sets::NAMED.iter().filter(|n| n.set.space_as_plus()).count(), 2); // form, python-quote-plus
    // Keeping `+` afterwards ends the rule (a raw `+` would read as a space): `%20` again.
    let kept = sets::FORM.remove(b'+');
    assert!(!kept.space_as_plus() && !kept.contains(b'+'));
    assert_eq!(pctenc::encode("a+b c", &kept), "a+b%20c");
    assert!(!sets::FORM.complement().space_as_plus());
    assert!(!sets::FORM.complement().add(b' ').space_as_plus());
    // Every encoder form, every backend, the streams: the same bytes (as pinned elsewhere).
    let cases = [
        (query, "%2B+%2Ba%2B%2B+%2B"),
        (sets::URI.with_space_as_plus(true), "%2B+%2Ba%2B%252B+%2B"),
        (sets::C0_CONTROL.with_space_as_plus(true), "%2B+%2Ba%2B%2B+%2B"),
    ];
    for (set, want) in cases {
        let input = b"+ +a+%2B +";
        assert_eq!(pctenc::encode(input, &set), want);
        let lazy: String = pctenc::percent_encode(input, &set).collect();
        assert_eq!(lazy, want);
        let mut stream = pctenc::StreamEncoder::new(Encoder::new(set));
        let mut out = Vec::new();
        for piece in input.chunks(3) {
            stream.feed(piece, &mut out);
        }
        stream.finish(&mut out);
        assert_eq!(out, want.as_bytes());
    }
}

#[test]
fn every_predefined_set_that_escapes_percent_round_trips() {
    let all: Vec<u8> = (0..=255).collect();
    let mut count = 0;
    for named in sets::NAMED {
        let set = named.set;
        if !set.contains(b'%') {
            continue;
        }
        count += 1;
        for s in [set, set.with_iri(true)] {
            let encoded = pctenc::encode(&all, &s);
            let dec = Decoder::new().plus_as_space(s.space_as_plus());
            assert_eq!(dec.decode(&*encoded).unwrap(), &all[..], "{}", named.name);
            let text = "Jürgen & Björk: 100% + C++ ~ 😀 /?#[]@!$&'()*,;=\t";
            let encoded = pctenc::encode(text, &s);
            assert_eq!(dec.utf8(Utf8Mode::Strict).decode_to_str(&*encoded).unwrap(), text, "{}", named.name);
        }
    }
    // rfc3986, component, uri, form, python-quote, python-quote-plus, go-path, non-alphanumeric
    assert_eq!(count, 8);
}

// ---------------------------------------------------------------------------------------
// Decoding

proptest! {
    #![proptest_config(config(2000))]

    #[test]
    fn decode_lenient_matches_percent_decode(input in decode_input()) {
        let want: Vec<u8> = percent_encoding::percent_decode(&input).collect();
        prop_assert_eq!(&pctenc::decode_lenient(&input)[..], &want[..]);
        // Lossy: as String::from_utf8_lossy, as percent_decode's decode_utf8_lossy.
        let lossy = Decoder::new().lenient(true).utf8(Utf8Mode::Lossy);
        let got = lossy.decode_to_str(&input).unwrap();
        prop_assert_eq!(&got, &String::from_utf8_lossy(&want));
        prop_assert_eq!(&got, &percent_encoding::percent_decode(&input).decode_utf8_lossy());
        // Strict UTF-8: an error exactly when percent_decode's decode_utf8 fails.
        let strict = Decoder::new().lenient(true).utf8(Utf8Mode::Strict).decode_to_str(&input);
        match percent_encoding::percent_decode(&input).decode_utf8() {
            Ok(s) => prop_assert_eq!(strict.unwrap(), s),
            Err(_) => prop_assert!(strict.is_err()),
        }
    }

    #[test]
    fn form_decoding_matches_form_urlencoded(input in decode_input()) {
        // form_urlencoded::parse decodes `+` and escapes leniently, and is lossy; `&` and `=`
        // are its separators: keep them out, so that the input is one name (`a` and the rest).
        let mut input: Vec<u8> = input.into_iter().filter(|&b| b != b'&' && b != b'=').collect();
        input.insert(0, b'a');
        let (name, value) = form_urlencoded::parse(&input).next().unwrap();
        prop_assert_eq!(value, "");
        prop_assert_eq!(Decoder::FORM.decode_to_str(&input).unwrap(), name);
    }

    #[test]
    fn lossy_is_from_utf8_lossy_of_bytes(input in decode_input()) {
        for lenient in [false, true] {
            for plus in [false, true] {
                let bytes = Decoder::new().lenient(lenient).plus_as_space(plus);
                let lossy = bytes.utf8(Utf8Mode::Lossy);
                let strict = bytes.utf8(Utf8Mode::Strict);
                match bytes.decode(&input) {
                    Ok(b) => {
                        let want = String::from_utf8_lossy(&b).into_owned().into_bytes();
                        prop_assert_eq!(lossy.decode(&input).unwrap(), want);
                        prop_assert_eq!(strict.decode(&input).is_ok(), std::str::from_utf8(&b).is_ok());
                    }
                    Err(e) => {
                        // Escape errors do not depend on the UTF-8 mode, but strict UTF-8
                        // may report an earlier invalid sequence instead.
                        prop_assert_eq!(lossy.decode(&input).unwrap_err(), e);
                        let s = strict.decode(&input).unwrap_err();
                        prop_assert!(s == e || (s.kind() == pctenc::DecodeErrorKind::InvalidUtf8 && s.offset() < e.offset()));
                    }
                }
            }
        }
    }

    #[test]
    fn every_decoding_api_agrees(input in decode_input(), cuts in cuts()) {
        let cuts = resolve(&cuts, input.len());
        for dec in all_decoders() {
            check(dec, &input, &cuts);
        }
    }

    #[test]
    fn stream_random_pieces(input in decode_input(), a in cuts(), b in cuts()) {
        // Several random splittings of the same input, compared with each other and with the
        // one-shot decoder (check_all_apis compares one splitting with the model).
        for dec in all_decoders() {
            let want = outcome(dec.decode(&input));
            prop_assert_eq!(&want, &expected(dec, &input));
            for cuts in [&a, &b] {
                prop_assert_eq!(&stream(dec, &input, &resolve(cuts, input.len())), &want);
            }
        }
    }

    #[test]
    fn decode_of_encode_with_strict_modes(input in encode_input(), set in round_trip_set()) {
        let encoded = pctenc::encode(&input, &set);
        for dec in all_decoders() {
            if dec.is_plus_as_space() != set.space_as_plus() && encoded.contains('+') {
                continue;
            }
            // check_all_apis compares every API with the model; here the model itself is
            // checked against what was encoded.
            let got = check_all_apis(dec, encoded.as_bytes(), &[encoded.len() / 2]);
            match dec.utf8_value() {
                Utf8Mode::Bytes => prop_assert_eq!(got, Ok(input.clone())),
                Utf8Mode::Lossy => {
                    prop_assert_eq!(got, Ok(String::from_utf8_lossy(&input).into_owned().into_bytes()));
                }
                Utf8Mode::Strict => match std::str::from_utf8(&input) {
                    Ok(_) => prop_assert_eq!(got, Ok(input.clone())),
                    Err(e) => {
                        // The offset is that of the encoding of the first bad byte.
                        let at = pctenc::encoded_len(&input[..e.valid_up_to()], &set);
                        prop_assert_eq!(got, Err((at, pctenc::DecodeErrorKind::InvalidUtf8)));
                    }
                },
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Decoding with the options that act on escapes

proptest! {
    #![proptest_config(config(2000))]

    #[test]
    fn every_decoding_api_agrees_with_any_options(
        input in decode_input_options(),
        dec in any_decoder(),
        cuts in cuts(),
    ) {
        check(dec, &input, &resolve(&cuts, input.len()));
    }

    #[test]
    fn stream_random_pieces_with_any_options(
        input in decode_input_options(),
        dec in any_decoder(),
        a in cuts(),
        b in cuts(),
    ) {
        let want = outcome(dec.decode(&input));
        prop_assert_eq!(&want, &expected(dec, &input));
        for cuts in [&a, &b] {
            prop_assert_eq!(&stream(dec, &input, &resolve(cuts, input.len())), &want);
        }
    }

    #[test]
    fn options_off_change_nothing(input in decode_input_options()) {
        // With none of the options on, the basic rules: the same as before they existed, and
        // turning on `%u` changes nothing on input without `%u`.
        for dec in all_decoders() {
            let plain = outcome(dec.decode(&input));
            let nothing = Decoder::new().keep_encoded_value();
            let explicit = dec.keep_encoded(nothing).legacy_u(false).reject(Reject::NONE);
            prop_assert_eq!(outcome(explicit.decode(&input)), plain.clone());
            if !input.windows(2).any(|w| w == b"%u") {
                prop_assert_eq!(outcome(dec.legacy_u(true).decode(&input)), plain);
            }
        }
    }

    #[test]
    fn keeping_then_decoding_is_decoding(input in decode_input_options(), dec in any_decoder()) {
        // What a decoder keeps as written, a second decoder without kept escapes decodes: in
        // bytes mode, strict `%`, no `+`, keeping then decoding is decoding once, as long as
        // decoding makes no `%` (which could start an escape the second time).
        let dec = dec.utf8(Utf8Mode::Bytes).lenient(false).plus_as_space(false);
        let plain = dec.keep_encoded(Decoder::new().keep_encoded_value()).reject(Reject::NONE);
        if let (Ok(kept), Ok(once)) = (dec.decode(&input), plain.decode(&input))
            && !once.contains(&b'%')
        {
            prop_assert_eq!(plain.decode(&kept[..]).unwrap(), once);
        }
    }
}

#[test]
fn exhaustive_option_tokens() {
    // Every sequence of up to three tokens that provoke the new rules, with every option
    // decoder, every API, and the stream in one-byte pieces.
    const TOKENS: [&[u8]; 13] = [
        b"%uD83D", b"%uDE00", b"%u002F", b"%u00e9", b"%u", b"%uD", b"%2f", b"%00", b"%", b"u", b"+", b"%C3",
        b"\xA9",
    ];
    let mut inputs = vec![Vec::new()];
    for a in TOKENS {
        inputs.push(a.to_vec());
        for b in TOKENS {
            inputs.push([a, b].concat());
            for c in TOKENS {
                inputs.push([a, b, c].concat());
            }
        }
    }
    let decoders = option_decoders();
    for input in &inputs {
        for &dec in &decoders {
            check(dec, input, &[input.len() / 2]);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Exhaustive short inputs

const ALPHABET: [u8; 14] =
    [b'%', b'4', b'1', b'C', b'3', b'A', b'9', b'z', b'+', 0xC3, 0xA9, 0xE2, 0x82, 0xFF];

/// Every input of length 0 to `max` over `ALPHABET`.
fn short_inputs(max: usize) -> Vec<Vec<u8>> {
    let mut all = vec![Vec::new()];
    let mut last = vec![Vec::new()];
    for _ in 0..max {
        last = last
            .iter()
            .flat_map(|p: &Vec<u8>| {
                ALPHABET.iter().map(move |&b| {
                    let mut v = p.clone();
                    v.push(b);
                    v
                })
            })
            .collect();
        all.extend(last.iter().cloned());
    }
    all
}

#[test]
fn exhaustive_short_inputs_every_api_every_split() {
    let inputs = short_inputs(3);
    assert_eq!(inputs.len(), 1 + 14 + 14 * 14 + 14 * 14 * 14);
    for input in &inputs {
        let n = input.len();
        for dec in all_decoders() {
            let want = check_all_apis(dec, input, &[]);
            // Every set of cut points among the n + 1 positions, each position also cut
            // twice (an empty piece there).
            for mask in 0u32..1 << (n + 1) {
                let cuts: Vec<usize> = (0..=n).filter(|&i| mask >> i & 1 == 1).collect();
                assert_eq!(stream(dec, input, &cuts), want, "{dec:?} {input:02X?} cuts {cuts:?}");
                for &twice in &cuts {
                    let mut doubled = cuts.clone();
                    doubled.push(twice);
                    doubled.sort_unstable();
                    assert_eq!(stream(dec, input, &doubled), want, "{dec:?} {input:02X?} cuts {doubled:?}");
                }
            }
        }
    }
}

#[test]
fn exhaustive_short_inputs_in_every_context() {
    // The same inputs after and before other text, so that offsets and carried state are
    // not all at zero.
    let inputs = short_inputs(3);
    for input in &inputs {
        for (before, after) in [(&b"ab"[..], &b""[..]), (b"%41", b"z"), (b"%C3", b"%A9"), (b"\xE2", b"x")] {
            let mut v = before.to_vec();
            v.extend_from_slice(input);
            v.extend_from_slice(after);
            for dec in all_decoders() {
                check(dec, &v, &[before.len(), before.len() + input.len()]);
            }
        }
    }
}
