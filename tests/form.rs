//! `pctenc::form`: the web-platform-tests application/x-www-form-urlencoded parser data
//! (`tests/data/wpt/urlencoded-parser-data.json`, BSD 3-Clause, see `tests/data/wpt/LICENSE`), and
//! property tests against the `form_urlencoded` crate, round trips and borrowing.
//!
//! `PROPTEST_CASES` sets the number of cases of every property (defaults below).

mod common;

use std::borrow::Cow;

use common::cases;
use pctenc::form;
use proptest::prelude::*;
use proptest::sample::select;

fn config(default: u32) -> ProptestConfig {
    // No regression files: a failure prints its minimal input, which belongs in a named test.
    ProptestConfig { cases: cases(default), failure_persistence: None, ..ProptestConfig::default() }
}

/// Parses `input` into owned pairs.
fn parsed(input: &[u8]) -> Vec<(String, String)> {
    form::parse(input).map(|(n, v)| (n.into_owned(), v.into_owned())).collect()
}

// ---------------------------------------------------------------------------------------
// web-platform-tests: url/resources/urlencoded-parser-data.json

#[test]
fn wpt_urlencoded_parser_data() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/wpt/urlencoded-parser-data.json");
    let text = std::fs::read_to_string(path).expect("read the wpt data");
    let data: serde_json::Value = serde_json::from_str(&text).expect("the wpt data is JSON");
    let mut checked = 0;
    let mut failures = Vec::new();
    for case in data.as_array().expect("a list of cases") {
        // Comments are strings between the cases, as in the other wpt URL files.
        let Some(case) = case.as_object() else { continue };
        let input = case["input"].as_str().expect("input is a string");
        let want: Vec<(String, String)> = case["output"]
            .as_array()
            .expect("output is a list")
            .iter()
            .map(|pair| {
                let pair = pair.as_array().expect("a pair is a list");
                assert_eq!(pair.len(), 2, "a pair has a name and a value: {pair:?}");
                (pair[0].as_str().unwrap().to_owned(), pair[1].as_str().unwrap().to_owned())
            })
            .collect();
        let got = parsed(input.as_bytes());
        if got != want {
            failures.push(format!("input {input:?}: got {got:?}, want {want:?}"));
        }
        // The pairs read back: serialize writes what parse reads.
        let again = parsed(form::serialize(&want).as_bytes());
        if again != want {
            failures.push(format!("input {input:?}: serialize then parse gives {again:?}"));
        }
        checked += 1;
    }
    println!("wpt urlencoded-parser-data: {checked} cases checked");
    assert!(checked > 0, "no case found in {path}");
    assert!(failures.is_empty(), "{} of {checked} cases fail:\n{}", failures.len(), failures.join("\n"));
}

// ---------------------------------------------------------------------------------------
// Named cases

#[test]
fn parse_splits_as_the_standard() {
    let pairs = |s: &str| parsed(s.as_bytes());
    let own = |v: &[(&str, &str)]| v.iter().map(|&(n, v)| (n.to_owned(), v.to_owned())).collect::<Vec<_>>();
    assert_eq!(pairs(""), own(&[]));
    assert_eq!(pairs("&&&"), own(&[]));
    assert_eq!(pairs("="), own(&[("", "")]));
    assert_eq!(pairs("=&="), own(&[("", ""), ("", "")]));
    assert_eq!(pairs("a=b=c"), own(&[("a", "b=c")]));
    // No `?` stripping: that is URLSearchParams' constructor, not the parser.
    assert_eq!(pairs("?a=b"), own(&[("?a", "b")]));
    // `%2B` is a `+`, `%26` and `%3D` do not split.
    assert_eq!(pairs("a%3Db=c%26d%2B+"), own(&[("a=b", "c&d+ ")]));
    // `+` next to a malformed escape.
    assert_eq!(pairs("%+1=%2+"), own(&[("% 1", "%2 ")]));
    // A byte order mark is kept (UTF-8 decode without BOM).
    assert_eq!(pairs("\u{FEFF}a"), own(&[("\u{FEFF}a", "")]));
    // Invalid UTF-8 across the `=` is two separate sequences.
    assert_eq!(parsed(b"\xE2\x82=\xAC"), own(&[("\u{FFFD}", "\u{FFFD}")]));
}

#[test]
fn parse_borrows_only_what_needs_no_decoding() {
    let input = "a=b&c+d=e%20f&g=\u{e9}";
    let pairs: Vec<_> = form::parse(input).collect();
    assert!(matches!(pairs[0], (Cow::Borrowed("a"), Cow::Borrowed("b"))));
    assert!(matches!(&pairs[1], (Cow::Owned(n), Cow::Owned(v)) if n == "c d" && v == "e f"));
    assert!(matches!(pairs[2], (Cow::Borrowed("g"), Cow::Borrowed("\u{e9}"))));
    // Raw invalid UTF-8 is replaced, so it cannot be borrowed.
    let (name, _) = form::parse(b"\xFF").next().unwrap();
    assert!(matches!(name, Cow::Owned(ref s) if s == "\u{FFFD}"));
}

#[test]
fn pairs_remaining_and_fused() {
    let mut pairs = form::parse("a&&b");
    assert_eq!(pairs.remaining(), b"a&&b");
    assert!(pairs.next().is_some());
    assert_eq!(pairs.remaining(), b"&b");
    assert!(pairs.next().is_some());
    assert_eq!(pairs.remaining(), b"");
    assert!(pairs.next().is_none());
    assert!(pairs.next().is_none());
}

#[test]
fn serializer_appends_to_a_target() {
    let mut s = form::Serializer::append_to("x?".to_owned());
    assert_eq!(s.as_str(), "x?");
    s.append_pair("a", "1");
    assert_eq!(s.as_str(), "x?a=1");
    s.extend_pairs([("b", "2")]);
    assert_eq!(s.finish(), "x?a=1&b=2");
    assert_eq!(form::serialize(Vec::<(&str, &str)>::new()), "");
    assert_eq!(form::serialize([("", "")]), "=");
}

// ---------------------------------------------------------------------------------------
// Properties

/// Form-ish bytes: separators, escapes (valid, malformed, of separators), `+`, UTF-8 and
/// broken UTF-8.
fn form_input() -> impl Strategy<Value = Vec<u8>> {
    let token = prop_oneof![
        3 => select(b"&=+%".to_vec()).prop_map(|b| vec![b]),
        3 => select(b"abzAF09-._*~ ?".to_vec()).prop_map(|b| vec![b]),
        3 => (any::<u8>(), any::<bool>()).prop_map(|(b, lower)| {
            if lower { format!("%{b:02x}").into_bytes() } else { format!("%{b:02X}").into_bytes() }
        }),
        1 => select(vec![&b"%26"[..], b"%3D", b"%2B", b"%2", b"%g1", b"%%"]).prop_map(|b| b.to_vec()),
        2 => select(vec![0xC3u8, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0xC0, 0xED, 0xA0, 0xFF, 0xEF, 0xBB, 0xBF])
            .prop_map(|b| vec![b]),
        1 => any::<char>().prop_map(|c| c.to_string().into_bytes()),
        1 => any::<u8>().prop_map(|b| vec![b]),
    ];
    prop::collection::vec(token, 0..40).prop_map(|t| t.concat())
}

/// Pairs of text of every kind, with the characters the format gives a meaning to.
fn pairs_strategy() -> impl Strategy<Value = Vec<(String, String)>> {
    let text = prop::collection::vec(
        prop_oneof![
            3 => select(vec!['&', '=', '+', '%', ' ', '?', '#', '*', '~', '\u{FEFF}', '\u{e9}', '\u{1F600}']),
            3 => select(b"abcXYZ019-._".to_vec()).prop_map(char::from),
            1 => any::<char>(),
        ],
        0..12,
    )
    .prop_map(|cs| cs.into_iter().collect::<String>());
    prop::collection::vec((text.clone(), text), 0..6)
}

proptest! {
    #![proptest_config(config(2000))]

    #[test]
    fn parse_matches_form_urlencoded(input in form_input()) {
        let want: Vec<(String, String)> =
            form_urlencoded::parse(&input).map(|(n, v)| (n.into_owned(), v.into_owned())).collect();
        prop_assert_eq!(parsed(&input), want);
    }

    #[test]
    fn parse_matches_form_urlencoded_on_any_bytes(input in prop::collection::vec(any::<u8>(), 0..64)) {
        let want: Vec<(String, String)> =
            form_urlencoded::parse(&input).map(|(n, v)| (n.into_owned(), v.into_owned())).collect();
        prop_assert_eq!(parsed(&input), want);
    }

    #[test]
    fn parse_borrows_when_nothing_needs_decoding(input in form_input()) {
        let max_pairs = form::parse(&input).size_hint().1.unwrap();
        // Each name and value is a slice of the input between separators; find them again
        // to tell what needs decoding.
        let raw: Vec<&[u8]> = input
            .split(|&b| b == b'&')
            .filter(|p| !p.is_empty())
            .flat_map(|p| match p.iter().position(|&b| b == b'=') {
                Some(eq) => [&p[..eq], &p[eq + 1..]],
                None => [p, &p[p.len()..]],
            })
            .collect();
        let decoded: Vec<Cow<'_, str>> = form::parse(&input).flat_map(|(n, v)| [n, v]).collect();
        prop_assert_eq!(raw.len(), decoded.len());
        for (raw, decoded) in raw.iter().zip(&decoded) {
            let plain = !raw.contains(&b'%') && !raw.contains(&b'+') && std::str::from_utf8(raw).is_ok();
            prop_assert_eq!(matches!(decoded, Cow::Borrowed(_)), plain, "{:?} -> {:?}", raw, decoded);
            if let Cow::Borrowed(s) = decoded {
                prop_assert_eq!(s.as_bytes(), *raw);
                // Borrowed from the input itself, not a copy.
                let range = input.as_ptr_range();
                prop_assert!(s.is_empty() || range.contains(&s.as_ptr()));
            }
        }
        prop_assert!(decoded.len() / 2 <= max_pairs);
    }

    #[test]
    fn serialize_matches_form_urlencoded(pairs in pairs_strategy()) {
        let want = form_urlencoded::Serializer::new(String::new()).extend_pairs(&pairs).finish();
        prop_assert_eq!(&form::serialize(&pairs), &want);
        let mut s = form::Serializer::new();
        for (n, v) in &pairs {
            s.append_pair(n, v);
        }
        prop_assert_eq!(s.finish(), want);
    }

    #[test]
    fn serializer_appending_matches_form_urlencoded(prefix in "[a-z?&=]{0,6}", pairs in pairs_strategy()) {
        let start = prefix.len();
        let want = form_urlencoded::Serializer::for_suffix(prefix.clone(), start).extend_pairs(&pairs).finish();
        let got = form::Serializer::append_to(prefix).extend_pairs(&pairs).as_str().to_owned();
        prop_assert_eq!(got, want);
    }

    #[test]
    fn parse_reads_back_serialize(pairs in pairs_strategy()) {
        prop_assert_eq!(parsed(form::serialize(&pairs).as_bytes()), pairs);
    }
}
