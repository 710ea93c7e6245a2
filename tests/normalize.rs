//! `normalize`: RFC 3986 section 6.2.2 normalization, against a reference model written from
//! the rules, with the properties that make it safe to compare URIs by: it is idempotent, it
//! keeps what the input decodes to, and its every form agrees.

use std::borrow::Cow;

use proptest::prelude::*;
use proptest::sample::select;

mod common;
use common::{cases, show};

fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~".contains(&b)
}

fn escape_at(input: &[u8], i: usize) -> Option<u8> {
    match input.get(i..i + 3) {
        Some(&[b'%', hi, lo]) if hi.is_ascii_hexdigit() && lo.is_ascii_hexdigit() => {
            u8::from_str_radix(std::str::from_utf8(&[hi, lo]).unwrap(), 16).ok()
        }
        _ => None,
    }
}

/// The rules, stated on the output: an escape is decoded when its byte is unreserved, unless
/// it is a hex digit and the output so far ends with `%` or `%` and a hex digit (which a
/// decoded digit would turn into an escape); otherwise its digits are uppercased.
fn model(input: &[u8]) -> Vec<u8> {
    let mut out: Vec<u8> = Vec::new();
    let mut i = 0;
    while i < input.len() {
        let Some(value) = escape_at(input, i) else {
            out.push(input[i]);
            i += 1;
            continue;
        };
        let n = out.len();
        let loose =
            out.last() == Some(&b'%') || (n >= 2 && out[n - 2] == b'%' && out[n - 1].is_ascii_hexdigit());
        if is_unreserved(value) && !(value.is_ascii_hexdigit() && loose) {
            out.push(value);
        } else {
            out.extend_from_slice(format!("%{value:02X}").as_bytes());
        }
        i += 3;
    }
    out
}

/// Every form of `normalize` on `input`, checked against each other; returns the output.
fn all_forms(input: &[u8]) -> Vec<u8> {
    let cow = pctenc::normalize(input);
    let want = cow.to_vec();
    // Borrowed exactly when nothing changes.
    assert_eq!(matches!(cow, Cow::Borrowed(_)), want == input, "borrowing on b\"{}\"", show(input));

    // Into a slice of the input's size, of the exact size, and too small.
    let n = want.len();
    assert!(n <= input.len());
    let mut buf = vec![0xA5u8; input.len() + 8];
    assert_eq!(pctenc::normalize_slice(input, &mut buf[..input.len()]), Ok(n));
    assert_eq!(&buf[..n], &want[..]);
    assert!(buf[input.len()..].iter().all(|&b| b == 0xA5), "normalize_slice wrote past its slice");
    let mut buf = vec![0xA5u8; n + 8];
    assert_eq!(pctenc::normalize_slice(input, &mut buf[..n]), Ok(n));
    assert_eq!(&buf[..n], &want[..]);
    for room in if n <= 16 { (0..n).collect::<Vec<_>>() } else { vec![0, n / 2, n - 1] } {
        let mut buf = vec![0xA5u8; n + 8];
        let err = pctenc::normalize_slice(input, &mut buf[..room]).unwrap_err();
        assert_eq!((err.needed(), err.available()), (n, room));
        assert!(buf[room..].iter().all(|&b| b == 0xA5), "normalize_slice wrote past its slice");
    }

    // In place.
    let mut place = input.to_vec();
    let len = pctenc::normalize_in_place(&mut place);
    assert_eq!(&place[..len], &want[..], "in place on b\"{}\"", show(input));
    want
}

#[test]
fn spec_examples() {
    let cases: &[(&str, &str)] = &[
        // DECODING.md and the brief of the operation.
        ("a%7e%2fb%c3%a9", "a~%2Fb%C3%A9"),
        // RFC 3986 section 6.2.2.1 and 6.2.2.2.
        ("%3a%2F", "%3A%2F"),
        ("/%7Euser/", "/~user/"),
        ("http://example.com/%7Efoo", "http://example.com/~foo"),
        ("%41%42%43%61%62%63%30%31%2D%2E%5F%7E", "ABCabc01-._~"),
        // Reserved, `%`, space, controls and non-ASCII stay escaped.
        (
            "%3f%23%5b%5d%40%21%24%26%27%28%29%2a%2b%2c%3b%3d",
            "%3F%23%5B%5D%40%21%24%26%27%28%29%2A%2B%2C%3B%3D",
        ),
        ("%25%20%00%7f%80%ff", "%25%20%00%7F%80%FF"),
        // Raw bytes are never touched, whatever they are.
        ("a b+c~é", "a b+c~é"),
        // A `%` that starts no escape stays.
        ("100%", "100%"),
        ("%zz%4g%4", "%zz%4g%4"),
        ("%%7e%%2f", "%~%%2F"),
        // ...and an escaped hex digit right after it stays escaped.
        ("%%41", "%%41"),
        ("%4%31", "%4%31"),
        ("%%34%31", "%%341"),
        ("%%7a", "%z"),
        ("%%61%62", "%%61b"),
        ("%%67", "%g"),
    ];
    for &(input, want) in cases {
        assert_eq!(all_forms(input.as_bytes()), want.as_bytes(), "{input}");
        assert_eq!(model(input.as_bytes()), want.as_bytes(), "model on {input}");
    }
}

#[test]
fn every_escape() {
    for b in 0..=255u8 {
        for escape in [format!("%{b:02X}"), format!("%{b:02x}"), format!("%{:X}{:x}", b >> 4, b & 15)] {
            let want = if is_unreserved(b) { vec![b] } else { format!("%{b:02X}").into_bytes() };
            assert_eq!(all_forms(escape.as_bytes()), want, "{escape}");
            // The same inside text, and after a stray `%` (where hex digits stay escaped).
            let inside = format!("x{escape}y");
            assert_eq!(all_forms(inside.as_bytes()), [&b"x"[..], &want, b"y"].concat());
            let after = format!("%{escape}");
            let want = if b.is_ascii_hexdigit() {
                format!("%%{b:02X}").into_bytes()
            } else {
                [&b"%"[..], &want].concat()
            };
            assert_eq!(all_forms(after.as_bytes()), want, "{after}");
        }
    }
}

/// Input rich in what normalization looks at: escapes of every kind in either case, stray
/// `%`s, lone hex digits, and other bytes.
fn input() -> impl Strategy<Value = Vec<u8>> {
    let escape = (select(b"0123456789abcdefABCDEF".to_vec()), select(b"0123456789abcdefABCDEF".to_vec()))
        .prop_map(|(hi, lo)| vec![b'%', hi, lo]);
    let unreserved = (select(b"AZaz09-._~bcdef".to_vec()), any::<bool>())
        .prop_map(|(b, lower)| if lower { format!("%{b:02x}") } else { format!("%{b:02X}") }.into_bytes());
    let token = prop_oneof![
        4 => Just(b"%".to_vec()),
        3 => select(b"0123456789abcdefABCDEFgz".to_vec()).prop_map(|b| vec![b]),
        3 => escape,
        3 => unreserved,
        1 => any::<u8>().prop_map(|b| vec![b]),
        1 => select(vec![&b"/"[..], b"\n", b"\r\n", b" ", "é".as_bytes(), b"\xFF"]).prop_map(|b| b.to_vec()),
    ];
    prop::collection::vec(token, 0..48).prop_map(|t| t.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(2048), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn agrees_with_the_model(input in input()) {
        prop_assert_eq!(all_forms(&input), model(&input));
    }

    #[test]
    fn idempotent(input in input()) {
        let once = pctenc::normalize(&input).into_owned();
        let twice = pctenc::normalize(&once);
        prop_assert!(matches!(twice, Cow::Borrowed(_)), "b\"{}\" normalizes to b\"{}\", then to b\"{}\"", show(&input), show(&once), show(&twice));
    }

    /// Normalization never changes what the input means to a decoder.
    #[test]
    fn decodes_to_the_same_bytes(input in input()) {
        let out = pctenc::normalize(&input);
        prop_assert_eq!(pctenc::decode_lenient(&*out), pctenc::decode_lenient(&input), "b\"{}\" -> b\"{}\"", show(&input), show(&out));
        // A valid encoding stays valid, with the same strict decoding.
        if let Ok(decoded) = pctenc::decode(&input) {
            prop_assert_eq!(pctenc::decode(&*out).ok(), Some(decoded));
        }
    }

    /// In the output, every escape has uppercase digits, and an unreserved character is
    /// escaped only when it is a hex digit after a stray `%` (or `%` and a hex digit).
    #[test]
    fn output_is_normal(input in input()) {
        let out = pctenc::normalize(&input);
        let mut i = 0;
        while i < out.len() {
            let Some(value) = escape_at(&out, i) else { i += 1; continue };
            prop_assert!(!out[i + 1..i + 3].iter().any(u8::is_ascii_lowercase), "lowercase escape in b\"{}\"", show(&out));
            if is_unreserved(value) {
                let loose = (i >= 1 && out[i - 1] == b'%') || (i >= 2 && out[i - 2] == b'%' && out[i - 1].is_ascii_hexdigit());
                prop_assert!(value.is_ascii_hexdigit() && loose, "escaped unreserved at {} in b\"{}\"", i, show(&out));
            }
            i += 3;
        }
        // Without stray `%`s, no unreserved character stays escaped at all.
        if pctenc::decode(&input).is_ok() {
            prop_assert!((0..out.len()).filter_map(|i| escape_at(&out, i)).all(|v| !is_unreserved(v)));
        }
    }

    /// Text in, text out: the normalization of valid UTF-8 is valid UTF-8.
    #[test]
    fn text_in_text_out(s in "[%a-f0-9A-F~é /]{0,40}") {
        let out = pctenc::normalize(&s);
        prop_assert!(std::str::from_utf8(&out).is_ok());
    }
}
