//! The convenience API: sizing decoded output (`decoded_len`, `DecodeError::needed`), one-call
//! text decoding against the `percent-encoding` and `urlencoding` crates, sets by name, the
//! `Debug` form of `Decoder`, how sets are passed, lossy UTF-16 encoding, query
//! strings with a leading `?` (web-platform-tests' `URLSearchParams` constructor cases), and
//! the `keep` / `escape` set builders.
//!
//! `PROPTEST_CASES` sets the number of cases of every property (defaults below).

mod common;

use std::borrow::Cow;

use common::{all_decoders, cases, engines_with_scalar, option_decoders, show};
use pctenc::{DecodeErrorKind, Decoder, Encoder, Set, Utf8Mode, form, sets};
use proptest::prelude::*;
use proptest::sample::select;

fn config(default: u32) -> ProptestConfig {
    ProptestConfig { cases: cases(default), failure_persistence: None, ..ProptestConfig::default() }
}

// ---------------------------------------------------------------------------------------
// Building sets: `Set::keep`, `Set::escape`

proptest! {
    #![proptest_config(config(500))]

    #[test]
    fn keep_and_escape_are_remove_and_add_byte_by_byte(set in common::any_set(), bytes in prop::collection::vec(any::<u8>(), 0..12)) {
        let kept = bytes.iter().fold(set, |s, &b| s.remove(b));
        let escaped = bytes.iter().fold(set, |s, &b| s.add(b));
        prop_assert_eq!(set.keep(&bytes), kept);
        prop_assert_eq!(set.escape(&bytes), escaped);
        for b in 0..=255u8 {
            let named = bytes.contains(&b) && b < 0x80;
            prop_assert_eq!(set.keep(&bytes).contains(b), if named { false } else { set.contains(b) });
            prop_assert_eq!(set.escape(&bytes).contains(b), if named { true } else { set.contains(b) });
        }
        // The rules are unchanged.
        prop_assert_eq!(set.escape(&bytes).is_iri(), set.is_iri());
    }
}

#[test]
fn keep_and_escape_build_constants() {
    const PATH_SEGMENTS: Set = sets::RFC3986.keep(b"/@:");
    const STRICT: Set = sets::COMPONENT.escape(b"!'()*");
    assert_eq!(PATH_SEGMENTS, Set::keeping(b"-._~/@:"));
    assert_eq!(STRICT, sets::RFC3986);
    assert_eq!(sets::C0_CONTROL.escape(b" \"<>`"), sets::FRAGMENT);
    assert_eq!(sets::NON_ALPHANUMERIC.keep(b"-._~"), sets::RFC3986);
    // Non-ASCII bytes change nothing, as with add and remove.
    assert_eq!(sets::RFC3986.keep(b"\xC3\xA9"), sets::RFC3986);
    assert_eq!(sets::RFC3986.with_iri(true).escape(b"\xFF"), sets::RFC3986.with_iri(true));
    assert_eq!(pctenc::encode("a b/c@d", &PATH_SEGMENTS), "a%20b/c@d");
}

// ---------------------------------------------------------------------------------------
// Sets by name, `Decoder`'s `Debug`, how sets are passed

#[test]
fn sets_parse_by_every_name_and_alias_in_any_case() {
    for named in sets::NAMED {
        for name in std::iter::once(named.name).chain(named.aliases.iter().copied()) {
            for spelling in [name.to_string(), name.to_uppercase(), name.replace('-', "_")] {
                assert_eq!(spelling.parse::<Set>(), Ok(named.set), "{spelling}");
                assert_eq!(spelling.parse::<Set>().ok(), Set::by_name(&spelling));
            }
        }
    }
    let err = "compnent".parse::<Set>().unwrap_err();
    assert_eq!(err.name(), "compnent");
    let message = err.to_string();
    assert!(
        message.starts_with("unknown set `compnent`: expected one of rfc3986, component, uri, form, "),
        "{message}"
    );
    for named in sets::NAMED {
        assert!(message.contains(named.name), "{message}");
    }
    assert!(message.ends_with("non-alphanumeric"), "{message}");
    // A name that could reach a terminal is shown escaped.
    assert!("\u{1b}[2J".parse::<Set>().unwrap_err().to_string().starts_with("unknown set `\\u{1b}[2J`"));
    // The error is a std error.
    let boxed: Box<dyn std::error::Error> = Box::new(err);
    assert!(boxed.to_string().contains("component"));
}

#[test]
fn decoder_debug_says_what_is_kept() {
    let debug = |d: Decoder| format!("{d:?}");
    assert_eq!(
        debug(Decoder::new()),
        "Decoder { lenient: false, plus_as_space: false, utf8: Bytes, legacy_u: false, \
         keep_encoded: nothing, reject: Reject(NONE), engine: None }"
    );
    assert_eq!(
        debug(Decoder::FORM),
        "Decoder { lenient: true, plus_as_space: true, utf8: Lossy, legacy_u: false, \
         keep_encoded: nothing, reject: Reject(NONE), engine: None }"
    );
    assert!(debug(Decoder::URI).contains("keep_encoded: Decoder::URI_RESERVED,"));
    // Named sets by their constant, IRI or not.
    assert!(debug(Decoder::new().keep_encoded(sets::RFC3986)).contains("keep_encoded: sets::RFC3986,"));
    let iri = Decoder::new().keep_encoded(sets::C0_CONTROL.with_iri(true));
    assert!(debug(iri).contains("keep_encoded: sets::C0_CONTROL.with_iri(true),"), "{}", debug(iri));
    // Other sets as their bytes, runs as ranges, `"`, `\` and `-` escaped.
    let custom = Set::EMPTY.escape(b"/%").with_iri(true);
    assert!(debug(Decoder::new().keep_encoded(custom)).contains(r#"keep_encoded: "%/","#));
    let odd = Set::EMPTY.escape(b"-\"\\\x00\x01\x02\x03abcdz");
    assert!(
        debug(Decoder::new().keep_encoded(odd))
            .contains(r#"keep_encoded: "\x00-\x03\"\-\\a-dz" + 0x80-0xFF,"#),
        "{}",
        debug(Decoder::new().keep_encoded(odd))
    );
    assert!(debug(Decoder::new().keep_encoded(Set::EMPTY)).contains("keep_encoded: 0x80-0xFF,"));
    // The engine by its backend.
    let scalar = Decoder::new().engine(pctenc::Engine::scalar());
    assert!(debug(scalar).ends_with("engine: Some(Scalar) }"), "{}", debug(scalar));
}

/// One rule: a function that reads the set takes `&Set`, a builder that keeps it takes `Set`.
#[test]
fn sets_by_reference_to_read_by_value_to_keep() {
    let input = "a b/é";
    let set: Set = "component".parse().unwrap();
    const ENC: Encoder = Encoder::new(sets::COMPONENT);
    let want = ENC.encode(input).into_owned();
    assert_eq!(pctenc::encode(input, &set), want);
    assert_eq!(Encoder::new(set).encode(input), want);
    assert_eq!(Encoder::new(set).engine(pctenc::Engine::scalar()).encode(input), want);
    assert_eq!(ENC.with_set(sets::FORM).encode(input), pctenc::encode(input, &sets::FORM));
}

// ---------------------------------------------------------------------------------------
// Query strings with a leading `?`: `form::parse_query`

fn pairs(p: form::Pairs<'_>) -> Vec<(String, String)> {
    p.map(|(n, v)| (n.into_owned(), v.into_owned())).collect()
}

fn owned(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter().map(|&(n, v)| (n.to_string(), v.to_string())).collect()
}

/// The string cases of web-platform-tests url/urlsearchparams-constructor.any.js: what
/// `new URLSearchParams(string)` holds.
#[test]
fn parse_query_as_the_url_search_params_constructor() {
    let cases: &[(&str, &[(&str, &str)])] = &[
        ("", &[]),
        ("a=b", &[("a", "b")]),
        ("?a=b", &[("a", "b")]),
        ("a=b&c", &[("a", "b"), ("c", "")]),
        ("&a&&& &&&&&a+b=& c&m%c3%b8%c3%b8", &[("a", ""), (" ", ""), ("a b", ""), (" c", ""), ("møø", "")]),
        ("id=0&value=%", &[("id", "0"), ("value", "%")]),
        ("b=%2sf%2a", &[("b", "%2sf*")]),
        ("b=%2%2af%2a", &[("b", "%2*f*")]),
        ("b=%%2a", &[("b", "%*")]),
        ("a=b+c", &[("a", "b c")]),
        ("a+b=c", &[("a b", "c")]),
        ("a=b%20c", &[("a", "b c")]),
        ("a=b\0c", &[("a", "b\0c")]),
        ("a%00b=c", &[("a\0b", "c")]),
        ("a=b%e2%8e%84", &[("a", "b\u{2384}")]),
        ("a%f0%9f%92%a9b=c", &[("a\u{1F4A9}b", "c")]),
        // One `?` only.
        ("??a=b", &[("?a", "b")]),
        ("?", &[]),
        ("?&?", &[("?", "")]),
        ("a=?b", &[("a", "?b")]),
    ];
    for &(input, want) in cases {
        assert_eq!(pairs(form::parse_query(input)), owned(want), "{input:?}");
        // `parse`, the form parser, keeps the `?`, as form_urlencoded::parse does.
        let theirs: Vec<(String, String)> =
            form_urlencoded::parse(input.as_bytes()).map(|(n, v)| (n.into_owned(), v.into_owned())).collect();
        assert_eq!(pairs(form::parse(input)), theirs, "{input:?}");
        let stripped = input.strip_prefix('?').unwrap_or(input);
        assert_eq!(pairs(form::parse(stripped)), owned(want), "{input:?}");
    }
    assert_eq!(pairs(form::parse("?a=b")), owned(&[("?a", "b")]));
    // Borrowing is kept, and the rest of the input is after the `?`.
    let mut p = form::parse_query("?a=b&c=d");
    assert!(matches!(p.next(), Some((Cow::Borrowed("a"), Cow::Borrowed("b")))));
    assert_eq!(p.remaining(), b"c=d");
}

// ---------------------------------------------------------------------------------------
// Lossy UTF-16: `encode_utf16_lossy`

/// The model: UTF-16 decoded by hand, a lone surrogate as U+FFFD, then encoded.
fn model_utf16_lossy(units: &[u16]) -> String {
    let mut text = String::new();
    let mut i = 0;
    while i < units.len() {
        let u = units[i] as u32;
        let next = units.get(i + 1).map(|&n| n as u32);
        match (u, next) {
            (0xD800..=0xDBFF, Some(low @ 0xDC00..=0xDFFF)) => {
                text.push(char::from_u32(0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00)).unwrap());
                i += 2;
            }
            (0xD800..=0xDFFF, _) => {
                text.push('\u{FFFD}');
                i += 1;
            }
            _ => {
                text.push(char::from_u32(u).unwrap());
                i += 1;
            }
        }
    }
    text
}

fn utf16_input() -> impl Strategy<Value = Vec<u16>> {
    let unit = prop_oneof![
        4 => 0x20u16..0x7F,
        2 => any::<u16>(),
        2 => 0xD800u16..0xE000,
        1 => select(vec![0xD83Du16, 0xDE00, 0xFFFD, 0xE9, 0x20]),
    ];
    prop::collection::vec(unit, 0..80)
}

proptest! {
    #![proptest_config(config(1000))]

    #[test]
    fn encode_utf16_lossy_against_the_model_and_the_strict_encoder(units in utf16_input(), set in common::any_set()) {
        let model = model_utf16_lossy(&units);
        for engine in engines_with_scalar() {
            for lowercase in [false, true] {
                let enc = Encoder::new(set).engine(engine).lowercase(lowercase);
                let want = Encoder::new(set).engine(pctenc::Engine::scalar()).lowercase(lowercase).encode(&model).into_owned();
                let got = enc.encode_utf16_lossy(&units);
                prop_assert_eq!(&got, &want, "{:?} on {:04X?}", enc, units);
                match enc.encode_utf16(&units) {
                    Ok(strict) => prop_assert_eq!(&strict, &got),
                    Err(e) => {
                        // Strict fails exactly where a lone surrogate is.
                        prop_assert!(model.contains(char::REPLACEMENT_CHARACTER));
                        prop_assert!((0xD800..0xE000).contains(&e.unit()));
                    }
                }
            }
            // Valid text: both encoders agree.
            let valid: Vec<u16> = model.encode_utf16().collect();
            let enc = Encoder::new(set).engine(engine);
            prop_assert_eq!(enc.encode_utf16_lossy(&valid), enc.encode_utf16(&valid).unwrap());
        }
        prop_assert_eq!(pctenc::encode_utf16_lossy(&units, &set), Encoder::new(set).encode_utf16_lossy(&units));
    }
}

/// web-platform-tests url/urlsearchparams-constructor.any.js: record keys with unpaired
/// surrogates become U+FFFD, which `toString()` writes `%EF%BF%BD`.
#[test]
fn encode_utf16_lossy_as_url_search_params() {
    let cases: &[(&[u16], &str)] = &[
        (&[0xD835, 0x78], "%EF%BF%BDx"),
        (&[0xD83D, 0x78], "%EF%BF%BDx"),
        (&[0x78, 0xDC53], "x%EF%BF%BD"),
        (&[0x63, 0xD83D], "c%EF%BF%BD"),
        (&[0x64, 0x1234], "d%E1%88%B4"),
        (&[0xDC00, 0xD800], "%EF%BF%BD%EF%BF%BD"),
        (&[0xD83D, 0xDCA9], "%F0%9F%92%A9"),
    ];
    for &(units, want) in cases {
        assert_eq!(pctenc::encode_utf16_lossy(units, &sets::FORM), want, "{units:04X?}");
        let theirs: String =
            form_urlencoded::byte_serialize(String::from_utf16_lossy(units).as_bytes()).collect();
        assert_eq!(theirs, want);
    }
}

// ---------------------------------------------------------------------------------------
// Text in one call: `decode_to_str`, `decode_to_str_lossy`

/// Input that provokes every decoder rule: valid and malformed escapes, `%u` escapes and
/// surrogates, `+`, escaped and raw invalid UTF-8, and long runs, so that outputs cross the
/// pieces `decoded_len` decodes into.
fn decode_input() -> impl Strategy<Value = Vec<u8>> {
    let token = prop_oneof![
        4 => (0x20u8..0x7F).prop_map(|b| vec![b]),
        2 => any::<u8>().prop_map(|b| format!("%{b:02X}").into_bytes()),
        2 => select(vec![
            &b"%C3%A9"[..], b"%E2%82%AC", b"%E2%82", b"%F0%9F%98%80", b"%F0%9F", b"%C0%AF", b"%ED%A0%80",
            b"%FF", b"%2F", b"%2f", b"%00", b"%0D%0A", b"%5C", b"%3F", b"%25", b"%", b"%4", b"%zz", b"%%41",
            b"%uD83D%uDE00", b"%uD83D", b"%uDE00", b"%u00E9", b"%u002F", b"%u12", b"%U0041", b"+", b"%2B",
        ])
        .prop_map(|b| b.to_vec()),
        1 => select(vec![&b"\xC3"[..], b"\xE2\x82", b"\xF0\x9F\x98", b"\x80", b"\xFF", b"\xC3\xA9", b"\xE2\x82\xAC"])
            .prop_map(|b| b.to_vec()),
        1 => (1usize..700, select(vec![b'a', b'/'])).prop_map(|(n, b)| vec![b; n]),
    ];
    prop::collection::vec(token, 0..60).prop_map(|t| t.concat())
}

fn has_malformed_escape(input: &[u8]) -> bool {
    pctenc::decode(input).is_err_and(|e| e.kind() != DecodeErrorKind::InvalidUtf8)
}

proptest! {
    #![proptest_config(config(2000))]

    /// `decode_to_str` is `percent_decode_str(s).decode_utf8()` and `urlencoding::decode(s)`
    /// wherever the escapes are well-formed, and refuses malformed ones.
    #[test]
    fn decode_str_against_percent_encoding_and_urlencoding(input in decode_input()) {
        let theirs = percent_encoding::percent_decode(&input).decode_utf8().map(Cow::into_owned).ok();
        let ours = pctenc::decode_to_str(&input);
        if let Ok(s) = std::str::from_utf8(&input) {
            let urlencoding = urlencoding::decode(s).map(Cow::into_owned).ok();
            prop_assert_eq!(&urlencoding, &theirs);
        }
        match &ours {
            Ok(text) => prop_assert_eq!(Some(text.to_string()), theirs),
            Err(e) if e.kind() == DecodeErrorKind::InvalidUtf8 => {
                prop_assert_eq!(theirs, None);
                prop_assert!(!has_malformed_escape(&input[..e.offset()]));
            }
            Err(e) => {
                prop_assert!(matches!(e.kind(), DecodeErrorKind::TruncatedEscape | DecodeErrorKind::InvalidEscape));
                prop_assert!(has_malformed_escape(&input));
            }
        }
        prop_assert_eq!(ours.map_err(|e| (e.offset(), e.kind())), Decoder::URI_COMPONENT.decode_to_str(&input).map_err(|e| (e.offset(), e.kind())));
    }

    /// `decode_to_str_lossy` is `percent_decode_str(s).decode_utf8_lossy()`, and
    /// `from_utf8_lossy(urlencoding::decode_binary(s))`, always.
    #[test]
    fn decode_to_str_lossy_against_percent_encoding_and_urlencoding(input in decode_input()) {
        let ours = pctenc::decode_to_str_lossy(&input);
        let theirs = percent_encoding::percent_decode(&input).decode_utf8_lossy();
        prop_assert_eq!(&ours, &theirs);
        let binary = urlencoding::decode_binary(&input);
        prop_assert_eq!(&ours, &String::from_utf8_lossy(&binary));
        // Borrowed exactly when there is nothing to decode.
        let plain = !input.contains(&b'%') && std::str::from_utf8(&input).is_ok();
        prop_assert_eq!(matches!(ours, Cow::Borrowed(_)), plain);
        prop_assert_eq!(matches!(pctenc::decode_to_str(&input), Ok(Cow::Borrowed(_))), plain);
    }
}

#[test]
fn decode_str_examples() {
    assert!(matches!(pctenc::decode_to_str("plain+text"), Ok(Cow::Borrowed("plain+text"))));
    assert_eq!(pctenc::decode_to_str("caf%C3%A9").unwrap(), "café");
    let err = pctenc::decode_to_str("ok%C3%28").unwrap_err();
    assert_eq!((err.offset(), err.kind()), (2, DecodeErrorKind::InvalidUtf8));
    assert_eq!(pctenc::decode_to_str("%zz").unwrap_err().kind(), DecodeErrorKind::InvalidEscape);
    assert!(matches!(pctenc::decode_to_str_lossy("plain"), Cow::Borrowed("plain")));
    assert_eq!(pctenc::decode_to_str_lossy("%zz%C3%A9%FF+"), "%zzé\u{FFFD}+");
    assert_eq!(pctenc::decode_to_str_lossy(b"\xC3"), "\u{FFFD}");
}

// ---------------------------------------------------------------------------------------
// Sizing decoded output: `decoded_len`, `DecodeError::needed`

/// Every decoder of the tests: the three switches, and with the options on escapes.
fn decoders() -> Vec<Decoder> {
    let mut all = all_decoders();
    all.extend(option_decoders());
    all
}

/// `decoded_len` is `decode(..).len()`, or `decode`'s error, for every decoder option on
/// every backend.
fn decoded_len_agrees(input: &[u8]) {
    for engine in engines_with_scalar() {
        for dec in decoders() {
            let dec = dec.engine(engine);
            let want = dec.decode(input).map(|d| d.len()).map_err(|e| (e.offset(), e.kind()));
            let got = dec.decoded_len(input).map_err(|e| (e.offset(), e.kind()));
            assert_eq!(got, want, "decoded_len: {dec:?} on b\"{}\"", show(input));
        }
    }
    assert_eq!(pctenc::decoded_len(input), Decoder::new().decoded_len(input));
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn decoded_len_is_the_length_of_decode(input in decode_input()) {
        decoded_len_agrees(&input);
    }

    /// A too-small slice: `needed` is the decoded length, and a buffer of that size works;
    /// input with a problem anywhere reports the problem, whatever the room.
    #[test]
    fn decode_slice_reports_the_size_needed(input in decode_input(), room in any::<prop::sample::Index>()) {
        for dec in decoders() {
            let want = dec.decode(&input).map(|d| d.into_owned());
            let room_for = |n: usize| if n == 0 { 0 } else { room.index(n) };
            match want {
                Ok(v) => {
                    let mut buf = vec![0u8; v.len()];
                    let room = room_for(v.len());
                    if room < v.len() {
                        let err = dec.decode_slice(&input, &mut buf[..room]).unwrap_err();
                        prop_assert_eq!(err.kind(), DecodeErrorKind::BufferTooSmall);
                        prop_assert_eq!(err.needed(), Some(v.len()), "{:?} room {}", dec, room);
                    }
                    let n = dec.decode_slice(&input, &mut buf).unwrap();
                    prop_assert_eq!(&buf[..n], &v[..]);
                }
                Err(e) => {
                    let mut buf = vec![0u8; room_for(input.len() * 3 + 1)];
                    let got = dec.decode_slice(&input, &mut buf).unwrap_err();
                    prop_assert_eq!((got.offset(), got.kind(), got.needed()), (e.offset(), e.kind(), None));
                }
            }
        }
    }
}

/// Lossy sequences and `%u` escapes cut by the 512-byte pieces `decoded_len` decodes into,
/// at every position around the first and second boundaries.
#[test]
fn decoded_len_across_its_pieces() {
    let tails: &[&[u8]] = &[
        b"%E2%82%AC!",
        b"%E2%82!",
        b"\xE2\x82\xAC!",
        b"\xE2\x82",
        b"\xF0\x9F\x98%80",
        b"%F0%9F%98",
        b"\xFF\xFF",
        b"%uD83D%uDE00",
        b"%uD83D!",
        b"%C3",
    ];
    for start in (490..530).chain(1010..1040) {
        for tail in tails {
            let mut input = vec![b'a'; start];
            input.extend_from_slice(tail);
            input.extend_from_slice(&input.clone());
            decoded_len_agrees(&input);
        }
    }
}

#[test]
fn lossy_output_longer_than_input() {
    let lossy = Decoder::new().utf8(Utf8Mode::Lossy);
    // One invalid byte, three bytes of U+FFFD.
    assert_eq!(lossy.decoded_len(b"\xFF"), Ok(3));
    assert_eq!(lossy.decoded_len(b"a\xFF\xFE"), Ok(7));
    assert_eq!(lossy.decoded_len("%E2%82"), Ok(3));
    // decode_in_place cannot grow: the error says how large the output is.
    let mut buf = *b"\xFF\xFF";
    let err = lossy.decode_in_place(&mut buf).unwrap_err();
    assert_eq!((err.kind(), err.offset(), err.needed()), (DecodeErrorKind::BufferTooSmall, 0, Some(6)));
    let mut small = [0u8; 4];
    let err = lossy.decode_slice(b"\xFF\xFF", &mut small).unwrap_err();
    assert_eq!((err.offset(), err.needed()), (1, Some(6)));
}

#[test]
fn decode_slice_too_small_names_the_size() {
    let mut buf = [0u8; 2];
    let err = Decoder::new().decode_slice("abcd", &mut buf).unwrap_err();
    assert_eq!((err.kind(), err.offset(), err.needed()), (DecodeErrorKind::BufferTooSmall, 2, Some(4)));
    assert_eq!(err.to_string(), "offset 2: output buffer too small: 4 bytes needed");
    // A problem after the point where the room ran out is what is reported.
    let err = Decoder::new().decode_slice("abcd%zz", &mut buf).unwrap_err();
    assert_eq!((err.kind(), err.offset(), err.needed()), (DecodeErrorKind::InvalidEscape, 4, None));
    let err = Decoder::URI_COMPONENT.decode_slice("abcd%FF", &mut buf).unwrap_err();
    assert_eq!((err.kind(), err.offset()), (DecodeErrorKind::InvalidUtf8, 4));
    // Errors of other kinds have no size.
    assert_eq!(pctenc::decode("%").unwrap_err().needed(), None);
    assert_eq!(
        pctenc::decode("%").unwrap_err().to_string(),
        "offset 0: truncated percent-escape: `%` needs two hex digits"
    );
}
