//! The examples users meet first, and every encoding API on them: `encode`, `encode_string`,
//! `encode_slice`, `encoded_len`, `encode_utf16`, the lazy adapter and IRI sets.

use std::borrow::Cow;

use pctenc::{Encoder, Set, sets};

/// Encodes `input` with `set` through every encoding API and checks they all give `want`.
fn check(input: &[u8], set: Set, want: &str) {
    let shown = input.escape_ascii();
    assert_eq!(pctenc::encode(input, &set), want, "encode b\"{shown}\" with {set:?}");
    let mut s = String::from("prefix:");
    pctenc::encode_string(input, &set, &mut s);
    assert_eq!(s, format!("prefix:{want}"), "encode_string b\"{shown}\"");
    assert_eq!(pctenc::encoded_len(input, &set), want.len(), "encoded_len b\"{shown}\"");
    assert_eq!(Encoder::new(set).checked_encoded_len(input), Some(want.len()));
    let mut buf = vec![0u8; want.len()];
    assert_eq!(pctenc::encode_slice(input, &set, &mut buf), Ok(want.len()));
    assert_eq!(buf, want.as_bytes());
    assert_eq!(pctenc::percent_encode(input, &set).to_string(), want, "lazy b\"{shown}\"");
    assert_eq!(pctenc::percent_encode(input, &set).collect::<String>(), want);
    let cow: Cow<str> = pctenc::percent_encode(input, &set).into();
    assert_eq!(cow, want);
    let mut v = b"v:".to_vec();
    Encoder::new(set).encode_vec(input, &mut v);
    assert_eq!(v, format!("v:{want}").as_bytes());
    if let Ok(text) = std::str::from_utf8(input) {
        assert_eq!(pctenc::utf8_percent_encode(text, &set).to_string(), want);
        let units: Vec<u16> = text.encode_utf16().collect();
        assert_eq!(pctenc::encode_utf16(&units, &set).unwrap(), want, "encode_utf16 {text:?}");
    }
}

#[test]
fn names_with_accents() {
    check("Jürgen & Björk".as_bytes(), sets::COMPONENT, "J%C3%BCrgen%20%26%20Bj%C3%B6rk");
    check("Jürgen & Björk".as_bytes(), sets::FORM, "J%C3%BCrgen+%26+Bj%C3%B6rk");
    check("Jürgen & Björk".as_bytes(), sets::RFC3986, "J%C3%BCrgen%20%26%20Bj%C3%B6rk");
}

#[test]
fn component_keeps_its_marks() {
    check(b"-_.!~*'()", sets::COMPONENT, "-_.!~*'()");
    assert!(matches!(pctenc::encode("-_.!~*'()", &sets::COMPONENT), Cow::Borrowed("-_.!~*'()")));
    // The RFC 3986 set escapes the ones that are not unreserved.
    check(b"-_.!~*'()", sets::RFC3986, "-_.%21~%2A%27%28%29");
}

#[test]
fn percent_itself() {
    check(b"100%", sets::COMPONENT, "100%25");
    check(b"100%", sets::RFC3986, "100%25");
    check(b"100%", sets::FORM, "100%25");
    // The WHATWG URL-parser sets keep it.
    check(b"100%", sets::PATH, "100%");
    check(b"100%25", sets::QUERY, "100%25");
}

#[test]
fn non_ascii() {
    check("é".as_bytes(), sets::COMPONENT, "%C3%A9");
    check("中".as_bytes(), sets::COMPONENT, "%E4%B8%AD");
    check("😀".as_bytes(), sets::COMPONENT, "%F0%9F%98%80");
    check("🦀 rust".as_bytes(), sets::RFC3986, "%F0%9F%A6%80%20rust");
    check("€".as_bytes(), sets::PATH, "%E2%82%AC");
    // Non-UTF-8 bytes are escaped too.
    check(b"caf\xE9", sets::COMPONENT, "caf%E9");
}

#[test]
fn c_plus_plus() {
    check(b"C++ & C#", sets::COMPONENT, "C%2B%2B%20%26%20C%23");
    check(b"C++ & C#", sets::FORM, "C%2B%2B+%26+C%23");
    let mut query = String::from("q=");
    pctenc::encode_string("C++ & C#", &sets::FORM, &mut query);
    assert_eq!(query, "q=C%2B%2B+%26+C%23");
}

#[test]
fn query_value() {
    let value = "promises & async/await";
    check(value.as_bytes(), sets::FORM, "promises+%26+async%2Fawait");
    check(value.as_bytes(), sets::COMPONENT, "promises%20%26%20async%2Fawait");
    check(value.as_bytes(), sets::PYTHON_QUOTE_PLUS, "promises+%26+async%2Fawait");
    check(value.as_bytes(), sets::PYTHON_QUOTE, "promises%20%26%20async/await");
    let mut url = String::from("https://example.org/search?q=");
    pctenc::encode_string(value, &sets::FORM, &mut url);
    assert_eq!(url, "https://example.org/search?q=promises+%26+async%2Fawait");
}

#[test]
fn whole_urls() {
    check("https://x.org/a b?q=ü#f".as_bytes(), sets::URI, "https://x.org/a%20b?q=%C3%BC#f");
    check(b"/a b/c?^", sets::PATH, "/a%20b/c%3F%5E");
    check(b"user:p@ss", sets::USERINFO, "user%3Ap%40ss");
    check(b"a b/c:d", sets::GO_PATH, "a%20b%2Fc:d");
}

#[test]
fn encode_borrows_when_nothing_changes() {
    assert!(matches!(pctenc::encode("plain", &sets::COMPONENT), Cow::Borrowed("plain")));
    assert!(matches!(pctenc::encode("", &sets::COMPONENT), Cow::Borrowed("")));
    assert!(matches!(pctenc::encode("a-b", &sets::FORM), Cow::Borrowed("a-b")));
    assert!(matches!(pctenc::encode("a b", &sets::C0_CONTROL), Cow::Borrowed("a b")));
    assert!(matches!(pctenc::encode("café", &sets::COMPONENT.with_iri(true)), Cow::Borrowed("café")));
    // A space written as `+` is a change, though the length is the same.
    assert!(matches!(pctenc::encode("a b", &sets::FORM), Cow::Owned(_)));
    assert!(matches!(pctenc::encode("a&b", &sets::COMPONENT), Cow::Owned(_)));
    assert!(matches!(pctenc::encode(b"caf\xE9", &sets::COMPONENT.with_iri(true)), Cow::Owned(_)));
}

#[test]
fn encode_string_appends() {
    let mut s = String::from("a=");
    pctenc::encode_string("1 2", &sets::COMPONENT, &mut s);
    pctenc::encode_string("&", &sets::COMPONENT, &mut s);
    pctenc::encode_string("", &sets::COMPONENT, &mut s);
    pctenc::encode_string("é", &sets::COMPONENT.with_iri(true), &mut s);
    assert_eq!(s, "a=1%202%26é");
}

#[test]
fn encode_slice_sizes() {
    let input = "a b&é";
    let want = "a%20b%26%C3%A9";
    let n = pctenc::encoded_len(input, &sets::COMPONENT);
    assert_eq!(n, want.len());
    for extra in [0, 1, 7] {
        // Exactly the size (or more) works; bytes past the output are untouched.
        let mut buf = vec![0xA5u8; n + extra];
        assert_eq!(pctenc::encode_slice(input, &sets::COMPONENT, &mut buf), Ok(n));
        assert_eq!(&buf[..n], want.as_bytes());
        assert!(buf[n..].iter().all(|&b| b == 0xA5));
    }
    for short in [1, 2, n] {
        // Too small: an error naming the size needed; nothing is written past the sub-slice
        // it was given (inside it, the contents are unspecified).
        let mut buf = vec![0xA5u8; n + 8];
        let err = pctenc::encode_slice(input, &sets::COMPONENT, &mut buf[..n - short]).unwrap_err();
        assert_eq!(err.needed(), n);
        assert_eq!(err.available(), n - short);
        assert!(buf[n - short..].iter().all(|&b| b == 0xA5), "encode_slice wrote past its slice");
    }
    let err = pctenc::encode_slice("a b", &sets::COMPONENT, &mut [0u8; 4]).unwrap_err();
    assert_eq!(err.to_string(), "output buffer too small: 5 bytes needed, 4 available");
    assert_eq!(pctenc::encode_slice("", &sets::COMPONENT, &mut []), Ok(0));
    // Lowercase and plus through the slice API.
    let mut buf = [0u8; 16];
    let k = Encoder::new(sets::FORM).lowercase(true).encode_slice("a b~", &mut buf).unwrap();
    assert_eq!(&buf[..k], b"a+b%7e");
}

#[test]
fn encoded_len_counts_exactly() {
    assert_eq!(pctenc::encoded_len("é!", &sets::RFC3986), 9);
    assert_eq!(pctenc::encoded_len("a b", &sets::FORM), 3);
    assert_eq!(pctenc::encoded_len("", &sets::FORM), 0);
    assert_eq!(pctenc::encoded_len("é", &sets::RFC3986.with_iri(true)), 2);
    assert_eq!(pctenc::encoded_len(b"\xE9", &sets::RFC3986.with_iri(true)), 3);
    let all: Vec<u8> = (0..=255).collect();
    assert_eq!(pctenc::encoded_len(&all, &Set::ALL), 768);
    assert_eq!(pctenc::encoded_len(&all, &sets::NON_ALPHANUMERIC), 62 + 3 * 194);
}

#[test]
fn encode_utf16_lone_surrogates() {
    let set = sets::COMPONENT;
    let units = |s: &str| s.encode_utf16().collect::<Vec<u16>>();
    // Valid pairs.
    assert_eq!(pctenc::encode_utf16(&units("😀 ok"), &set).unwrap(), "%F0%9F%98%80%20ok");
    assert_eq!(pctenc::encode_utf16(&units("a😀b🦀"), &set).unwrap(), "a%F0%9F%98%80b%F0%9F%A6%80");
    assert_eq!(pctenc::encode_utf16(&[], &set).unwrap(), "");
    assert_eq!(pctenc::encode_utf16(&[0xD83D, 0xDE00], &set).unwrap(), "%F0%9F%98%80");
    // Lone high and low surrogates, at the start, in the middle, at the end.
    let cases: &[(&[u16], usize, u16)] = &[
        (&[0xD800], 0, 0xD800),
        (&[0xDC00], 0, 0xDC00),
        (&[0xD83D, 0x61], 0, 0xD83D),
        (&[0x61, 0xD83D], 1, 0xD83D),
        (&[0x61, 0x62, 0xDE00], 2, 0xDE00),
        (&[0x61, 0xDE00, 0x62], 1, 0xDE00),
        // A low surrogate before its high one is not a pair.
        (&[0xDE00, 0xD83D], 0, 0xDE00),
        // Two highs: the first is lone; the second pairs with the low.
        (&[0xD83D, 0xD83D, 0xDE00], 0, 0xD83D),
        // After a valid pair (two units), the index counts units, not characters.
        (&[0xD83D, 0xDE00, 0xD800], 2, 0xD800),
        (&[0xD83D, 0xDE00, 0xE9, 0xDFFF, 0x61], 3, 0xDFFF),
        (&[0xD83D, 0xDE00, 0xD83D, 0xDE00, 0x20, 0xDBFF], 5, 0xDBFF),
    ];
    for &(input, index, unit) in cases {
        let err = pctenc::encode_utf16(input, &set).unwrap_err();
        assert_eq!((err.index(), err.unit()), (index, unit), "{input:04X?}");
        let err = Encoder::new(sets::FORM).lowercase(true).encode_utf16(input).unwrap_err();
        assert_eq!((err.index(), err.unit()), (index, unit), "{input:04X?}");
    }
    let err = pctenc::encode_utf16(&[0x61, 0xD800, 0x62], &set).unwrap_err();
    assert_eq!(err.to_string(), "lone surrogate 0xD800 at UTF-16 index 1");
    // Every BMP code unit alone: fine unless it is a surrogate.
    for u in 0..=0xFFFFu16 {
        let r = pctenc::encode_utf16(&[u], &sets::RFC3986);
        if (0xD800..=0xDFFF).contains(&u) {
            assert_eq!(r.unwrap_err().index(), 0);
        } else {
            let s = char::from_u32(u32::from(u)).unwrap().to_string();
            assert_eq!(r.unwrap(), pctenc::encode(&s, &sets::RFC3986));
        }
    }
    // Lowercase and IRI apply.
    let enc = Encoder::new(sets::COMPONENT).lowercase(true);
    assert_eq!(enc.encode_utf16(&units("é ")).unwrap(), "%c3%a9%20");
    let iri = Encoder::new(sets::COMPONENT.with_iri(true));
    assert_eq!(iri.encode_utf16(&units("é ")).unwrap(), "é%20");
}

#[test]
fn lazy_adapter() {
    use pctenc::{percent_encode, utf8_percent_encode};
    // Display, without an intermediate String.
    let url = format!("https://example.org/{}", percent_encode(b"a b", &sets::PATH));
    assert_eq!(url, "https://example.org/a%20b");
    // Iterator: runs of kept input, single escapes, `+`.
    let pieces: Vec<&str> = percent_encode(b"ab c&&d", &sets::COMPONENT).collect();
    assert_eq!(pieces, ["ab", "%20", "c", "%26", "%26", "d"]);
    let pieces: Vec<&str> = percent_encode(b"a b", &sets::FORM).collect();
    assert_eq!(pieces, ["a", "+", "b"]);
    let pieces: Vec<&str> = utf8_percent_encode("é", &sets::COMPONENT).collect();
    assert_eq!(pieces, ["%C3", "%A9"]);
    assert_eq!(percent_encode(b"", &sets::COMPONENT).count(), 0);
    // Kept runs are borrowed from the input.
    let input = b"abc def".to_vec();
    let first = percent_encode(&input, &sets::COMPONENT).next().unwrap();
    assert_eq!(first.as_ptr(), input.as_ptr());
    // Into<Cow>: borrowed when nothing changes, owned otherwise.
    let cow: Cow<str> = percent_encode(b"plain", &sets::COMPONENT).into();
    assert!(matches!(cow, Cow::Borrowed("plain")));
    let cow: Cow<str> = percent_encode(b"", &sets::COMPONENT).into();
    assert!(matches!(cow, Cow::Borrowed("")));
    let cow: Cow<str> = percent_encode(b"a b", &sets::COMPONENT).into();
    assert!(matches!(&cow, Cow::Owned(s) if s == "a%20b"));
    let cow: Cow<str> = utf8_percent_encode("100%", &sets::COMPONENT).into();
    assert_eq!(cow, "100%25");
    // A clone or Display does not consume it.
    let lazy = percent_encode(b"x y", &sets::COMPONENT);
    assert_eq!(lazy.to_string(), "x%20y");
    assert_eq!(lazy.to_string(), "x%20y");
    assert_eq!(lazy.clone().collect::<String>(), "x%20y");
    // size_hint is honest.
    let lazy = percent_encode(b"a b c", &sets::COMPONENT);
    let (lo, hi) = lazy.size_hint();
    let n = lazy.count();
    assert!(lo <= n && n <= hi.unwrap());
    // Encoder::lazy with lowercase.
    let enc = Encoder::new(sets::COMPONENT).lowercase(true);
    assert_eq!(format!("/q/{}", enc.lazy("a b/é")), "/q/a%20b%2f%c3%a9");
}

#[test]
fn iri_with_invalid_utf8() {
    let iri = sets::COMPONENT.with_iri(true);
    let cases: &[(&[u8], &str)] = &[
        ("café au lait".as_bytes(), "café%20au%20lait"),
        (b"caf\xE9", "caf%E9"),
        (b"\xFF\xC3\xA9", "%FFé"),
        (b"\xC3\xA9\xFF", "é%FF"),
        (b"\xC3", "%C3"),
        (b"a\xE2\x82", "a%E2%82"),
        (b"\xE2\x82\xAC\xE2\x82x\xE2\x82\xAC", "€%E2%82x€"),
        (b"\xC0\xAF", "%C0%AF"),
        (b"\xED\xA0\x80", "%ED%A0%80"),
        (b"\xF4\x90\x80\x80 \xF0\x9F\x98\x80", "%F4%90%80%80%20😀"),
        (b"\x80\x80\xC3\xA9\x80", "%80%80é%80"),
        (b"\xF0\x9F\x98", "%F0%9F%98"),
        (b"\xF0\x9F\x98 ", "%F0%9F%98%20"),
        (b"x\xF0\x9F\x98\x80\xF0\x9F\x98", "x😀%F0%9F%98"),
    ];
    for &(input, want) in cases {
        check(input, iri, want);
        let mut buf = vec![0u8; want.len()];
        let n = pctenc::encode_slice(input, &iri, &mut buf).unwrap();
        assert!(std::str::from_utf8(&buf[..n]).is_ok(), "output is valid UTF-8");
        // Every piece of the lazy form is a str by construction; together they are `want`.
        let pieces: Vec<&str> = pctenc::percent_encode(input, &iri).collect();
        assert_eq!(pieces.concat(), want);
    }
    // IRI + plus + lowercase.
    let set = sets::FORM.with_iri(true);
    let enc = Encoder::new(set).lowercase(true);
    assert_eq!(enc.encode(b"\xC3\xA9 \xE9~"), "é+%e9%7e");
    assert_eq!(enc.lazy(b"\xC3\xA9 \xE9~").to_string(), "é+%e9%7e");
    // Every 1- and 2-byte input: the output is valid UTF-8 and matches the rule.
    for a in 0..=255u8 {
        for b in 0..=255u8 {
            let input = [a, b];
            let out = pctenc::encode(&input, &iri).into_owned();
            // Valid non-ASCII text is kept raw but for the C1 controls (U+0080-U+009F, outside
            // RFC 3987's `ucschar`) and the Arabic letter mark (U+061C, the one bidi control
            // of two bytes), ASCII follows the set, invalid bytes are escaped.
            let mut want = String::new();
            for chunk in input.utf8_chunks() {
                for c in chunk.valid().chars() {
                    if (c.is_ascii() && sets::COMPONENT.contains(c as u8))
                        || ('\u{80}'..='\u{9F}').contains(&c)
                        || c == '\u{61C}'
                    {
                        c.to_string().bytes().for_each(|b| want.push_str(&format!("%{b:02X}")));
                    } else {
                        want.push(c);
                    }
                }
                for &bad in chunk.invalid() {
                    want.push_str(&format!("%{bad:02X}"));
                }
            }
            assert_eq!(out, want, "{input:02X?}");
            assert_eq!(pctenc::percent_encode(&input, &iri).to_string(), want);
        }
    }
}

#[test]
fn percent_encoding_crate_port() {
    // The table of lib.rs: the same results as the `percent-encoding` crate.
    use percent_encoding::{NON_ALPHANUMERIC, percent_decode, utf8_percent_encode};
    let text = "Jürgen & Björk, 100% ~ok~";
    assert_eq!(
        pctenc::utf8_percent_encode(text, &sets::NON_ALPHANUMERIC).to_string(),
        utf8_percent_encode(text, NON_ALPHANUMERIC).to_string()
    );
    let encoded = b"a%20b%zz%C3%A9%";
    let want: Vec<u8> = percent_decode(encoded).collect();
    assert_eq!(pctenc::decode_lenient(encoded), want);
    let dec = pctenc::Decoder::new().lenient(true);
    assert_eq!(dec.decode_to_str(encoded).unwrap(), percent_decode(encoded).decode_utf8().unwrap());
    let bad = b"%FFok%";
    assert_eq!(
        dec.utf8(pctenc::Utf8Mode::Lossy).decode_to_str(bad).unwrap(),
        percent_decode(bad).decode_utf8_lossy()
    );
    assert!(dec.decode_to_str(bad).is_err());
}
