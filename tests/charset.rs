//! Legacy character encodings (feature `encoding`): the web-platform-tests cases, CPython's
//! `urllib.parse` as an oracle, every byte of every single-byte encoding, and hostile input.

#![cfg(feature = "encoding")]

use std::collections::BTreeMap;

use pctenc::charset::{Charset, explain};
use pctenc::{DecodeErrorKind, Decoder, Encoder, Utf8Mode, sets};
use serde_json::Value;

fn json(path: &str) -> Value {
    let text = std::fs::read_to_string(format!("{}/tests/data/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn charset(label: &str) -> Charset {
    Charset::for_label(label).unwrap_or_else(|e| panic!("{e}"))
}

const STRICT: Decoder = Decoder::new().utf8(Utf8Mode::Strict);
const LOSSY: Decoder = Decoder::new().utf8(Utf8Mode::Lossy);

/// web-platform-tests `url/resources/percent-encoding.json`: each input in the query of a URL
/// in a document of each encoding (the special-query set, after encoding), and in its
/// fragment (always UTF-8, the fragment set).
#[test]
fn wpt_percent_encoding() {
    let query = Encoder::new(sets::SPECIAL_QUERY);
    let fragment = Encoder::new(sets::FRAGMENT);
    let mut checked = 0;
    for case in json("wpt/percent-encoding.json").as_array().unwrap() {
        let Some(case) = case.as_object() else { continue }; // a comment
        let input = case["input"].as_str().unwrap();
        let outputs = case["output"].as_object().unwrap();
        for (label, expected) in outputs {
            let expected = expected.as_str().unwrap();
            assert_eq!(query.encode_in(input, charset(label)), expected, "{input:?} in {label}");
            checked += 1;
        }
        assert_eq!(fragment.encode(input), outputs["utf-8"].as_str().unwrap(), "{input:?} fragment");
    }
    assert_eq!(checked, 16);
}

/// The differences between CPython's codecs and the Encoding Standard that the oracle's random
/// text meets, each checked here: `(label, character, CPython's quote, the standard's)`.
///
/// - windows-1252: none in encoding. In decoding, CPython leaves 0x81, 0x8D, 0x8F, 0x90 and
///   0x9D undefined (U+FFFD with `errors="replace"`); the standard maps them to the C1
///   controls U+0081 ... U+009D (see `python_unquote_oracle`).
/// - Shift_JIS, EUC-KR: none in this sample of the characters CPython's codecs have. The
///   standard's are Windows' code pages 932 and 949, supersets of CPython's `shift_jis` and
///   `euc_kr` (the NEC and IBM extensions, the extra Hangul), so they encode more: those
///   characters are in the alphabet only when CPython reads them.
/// - GB18030: one character read differently ([`READ_DIFFERENTLY`]).
/// - Big5: CPython's `big5` has the ETEN extension; the standard's Big5 is HKSCS, below.
const DIFFERENCES: &[(&str, &str, &str, &str)] = &[
    // Big5: CPython has the euro sign nowhere; the standard at 0xA3E1.
    ("big5", "€", "%26%238364%3B", "%A3%E1"),
    // Big5: CPython puts the kana and Cyrillic of the ETEN extension at 0xC6A1-0xC7FC; the
    // standard's HKSCS has them 0x42 further on, and its encoder takes the HKSCS bytes.
    ("big5", "И", "%C7%B6", "%C7%FC"),
    ("big5", "ぁ", "%C6%A5", "%C6%E7"),
    ("big5", "あ", "%C6%A6", "%C6%E8"),
    ("big5", "た", "%C6%C3", "%C7F"),
    ("big5", "ヵ", "%C7%AF", "%C7%F1"),
];

/// The characters that CPython and the standard both encode to the same bytes, but the
/// standard reads back as another character: `(label, character, the standard's reading)`.
///
/// - GB18030: GB 18030-2022 gave 18 characters that earlier versions had in the private use
///   area their own code points; the standard's encoder still takes the old private-use code
///   points to the same bytes, and its decoder reads the new ones.
const READ_DIFFERENTLY: &[(&str, &str, &str)] = &[
    // 0xA6D9: U+E78E in GB 18030-2005, U+FE12 PRESENTATION FORM FOR VERTICAL IDEOGRAPHIC
    // FULL STOP in GB 18030-2022.
    ("gb18030", "\u{e78e}", "\u{fe12}"),
];

/// CPython's `urllib.parse.quote(s, safe="", encoding=..., errors="xmlcharrefreplace")`,
/// `quote_plus` and `unquote(..., errors="strict")` on random text (`tests/data/python/`,
/// written by `scripts/gen-charset-oracle.py`; CI checks that the file is what CPython
/// gives). Where a character's encoding differs, the difference must be one of
/// [`DIFFERENCES`], and the strings that hold it are compared with it substituted.
#[test]
fn python_quote_oracle() {
    let quote = Encoder::new(sets::RFC3986);
    let quote_plus = Encoder::new(sets::PYTHON_QUOTE_PLUS);
    let known: BTreeMap<(&str, &str), (&str, &str)> =
        DIFFERENCES.iter().map(|&(label, c, py, std)| ((label, c), (py, std))).collect();
    let known_reads: BTreeMap<(&str, &str), &str> =
        READ_DIFFERENTLY.iter().map(|&(label, c, std)| ((label, c), std)).collect();
    let mut seen_reads = std::collections::BTreeSet::new();
    let mut read_differently = 0;
    let mut unexplained = Vec::new();
    let mut used = 0;
    for case in json("python/charset-oracle.json")["encodings"].as_array().unwrap() {
        let label = case["label"].as_str().unwrap();
        let cs = charset(label);
        let mut differing = BTreeMap::new();
        for (c, py) in case["chars"].as_object().unwrap() {
            let (py, ours) = (py.as_str().unwrap(), quote.encode_in(c, cs));
            if ours != py {
                match known.get(&(label, c.as_str())) {
                    Some(&(k_py, k_std)) if k_py == py && k_std == ours => used += 1,
                    _ => unexplained.push(format!("    ({label:?}, {c:?}, {py:?}, {ours:?}),")),
                }
                differing.insert(c.clone(), (py.to_string(), ours.into_owned()));
            }
        }
        for s in case["strings"].as_array().unwrap() {
            let text = s["text"].as_str().unwrap();
            // CPython's output with the standard's encoding of the differing characters.
            let expected = |field: &str, plus: bool| -> String {
                if !text.chars().any(|c| differing.contains_key(&c.to_string())) {
                    return s[field].as_str().unwrap().into();
                }
                let enc = if plus { &quote_plus } else { &quote };
                text.chars().map(|c| enc.encode_in(&c.to_string(), cs).into_owned()).collect()
            };
            assert_eq!(quote.encode_in(text, cs), expected("quote", false), "quote {text:?} {label}");
            assert_eq!(
                quote_plus.encode_in(text, cs),
                expected("quote_plus", true),
                "quote_plus {text:?} {label}"
            );
            // unquote(quote(s)), strictly: the text, with `&#N;` for what did not map (as
            // CPython reads it), and the standard's reading of what it reads differently.
            let encoded = quote.encode_in(text, cs);
            let ours = STRICT.decode_to_str_in(&*encoded, cs).unwrap();
            let (mut python, mut standard) = (String::new(), String::new());
            for c in text.chars() {
                let one = c.to_string();
                let encoded = quote.encode_in(&one, cs);
                let back = STRICT.decode_to_str_in(&*encoded, cs).unwrap().into_owned();
                let py = if encoded.starts_with("%26%23") { format!("&#{};", u32::from(c)) } else { one };
                if back != py {
                    match known_reads.get(&(label, py.as_str())) {
                        Some(&k) if k == back => {}
                        _ => unexplained.push(format!("    read ({label:?}, {py:?}, {back:?}),")),
                    }
                    read_differently += usize::from(seen_reads.insert((label, py.clone())));
                }
                python.push_str(&py);
                standard.push_str(&back);
            }
            if !text.chars().any(|c| differing.contains_key(&c.to_string())) {
                assert_eq!(python, s["unquote"].as_str().unwrap(), "unquote {text:?} {label}");
            }
            assert_eq!(ours, standard, "unquote {text:?} {label}");
        }
    }
    unexplained.sort();
    unexplained.dedup();
    assert!(unexplained.is_empty(), "differences not recorded:\n{}", unexplained.join("\n"));
    assert_eq!(used, DIFFERENCES.len(), "DIFFERENCES has entries the oracle no longer meets");
    assert_eq!(
        read_differently,
        READ_DIFFERENTLY.len(),
        "READ_DIFFERENTLY has entries the oracle no longer meets"
    );
}

/// CPython's `unquote("%HH", encoding="cp1252", errors="replace")` for every byte: the
/// standard's windows-1252 differs only at the five bytes CPython leaves undefined.
#[test]
fn python_unquote_oracle() {
    for case in json("python/charset-oracle.json")["encodings"].as_array().unwrap() {
        if case["label"] != "windows-1252" {
            continue;
        }
        for (byte, py) in case["bytes"].as_array().unwrap().iter().enumerate() {
            let escape = format!("%{byte:02X}");
            let ours = LOSSY.decode_to_str_in(escape.as_str(), Charset::WINDOWS_1252).unwrap();
            if [0x81, 0x8D, 0x8F, 0x90, 0x9D].contains(&byte) {
                assert_eq!(py, "\u{FFFD}");
                assert_eq!(ours, char::from(byte as u8).to_string(), "{byte:#X}");
            } else {
                assert_eq!(ours, py.as_str().unwrap(), "{byte:#X}");
            }
        }
        return;
    }
    panic!("no windows-1252 in the oracle");
}

/// Every byte of every single-byte encoding: decoded, then encoded back to the same escape
/// (bytes the encoding leaves unassigned are errors in strict mode, U+FFFD in lossy mode);
/// and all 256 bytes in one string.
#[test]
fn single_byte_encodings_round_trip_every_byte() {
    let every = Encoder::new(sets::NON_ALPHANUMERIC);
    let mut encodings = 0;
    for cs in Charset::all().filter(|cs| cs.is_single_byte()) {
        encodings += 1;
        let mut all = String::new();
        let mut mapped = Vec::new();
        for byte in 0..=255u8 {
            let escape = format!("%{byte:02X}");
            match STRICT.decode_to_str_in(&escape, cs) {
                Ok(text) => {
                    assert_eq!(text.chars().count(), 1, "{cs} {byte:#X}");
                    let expected = if byte.is_ascii_alphanumeric() {
                        char::from(byte).to_string()
                    } else {
                        escape.clone()
                    };
                    assert_eq!(every.encode_in(&text, cs), expected, "{cs} {byte:#X} = {text:?}");
                    all.push_str(&text);
                    mapped.push(byte);
                }
                Err(e) => {
                    assert_eq!(
                        (e.offset(), e.kind()),
                        (0, DecodeErrorKind::InvalidCharset),
                        "{cs} {byte:#X}"
                    );
                    assert_eq!(LOSSY.decode_to_str_in(&escape, cs).unwrap(), "\u{FFFD}", "{cs} {byte:#X}");
                }
            }
        }
        // ASCII maps to itself in every one of them.
        assert!(mapped.len() >= 128, "{cs}");
        let encoded = every.encode_in(&all, cs);
        assert_eq!(STRICT.decode_in(&*encoded, cs).unwrap(), all.as_bytes(), "{cs}");
        assert_eq!(Decoder::new().decode_in(&*encoded, cs).unwrap(), mapped, "{cs}: the bytes");
    }
    // 28 in the standard, x-user-defined among them.
    assert_eq!(encodings, 29);
}

#[test]
fn output_encodings() {
    let form = Encoder::new(sets::FORM);
    for label in ["utf-16le", "utf-16be", "replacement", "utf-8", "csiso2022kr"] {
        assert_eq!(form.encode_in("é ☃", charset(label)), "%C3%A9+%E2%98%83", "{label}");
    }
    // Decoding does use UTF-16.
    assert_eq!(STRICT.decode_to_str_in("%3D%D8%00%DE", charset("utf-16le")).unwrap(), "😀");
    // replacement decodes any non-empty input to one U+FFFD.
    assert_eq!(LOSSY.decode_to_str_in("abc", charset("csiso2022kr")).unwrap(), "\u{FFFD}");
    assert!(STRICT.decode_to_str_in("abc", charset("csiso2022kr")).is_err());
}

#[test]
fn iso_2022_jp() {
    let query = Encoder::new(sets::SPECIAL_QUERY);
    let jp = Charset::ISO_2022_JP;
    // Into JIS X 0208 and back to ASCII at the end, or before ASCII.
    assert_eq!(query.encode_in("あ", jp), "%1B$B$%22%1B(B");
    assert_eq!(query.encode_in("あa", jp), "%1B$B$%22%1B(Ba");
    // Not representable inside JIS X 0208: back to ASCII before the reference.
    assert_eq!(query.encode_in("あ☃", jp), "%1B$B$%22%1B(B%26%239731%3B");
    // SO, SI and ESC are refused as U+FFFD (the Encoding Standard's rule against attacks).
    assert_eq!(query.encode_in("\u{1B}", jp), "%26%2365533%3B");
    for (text, back) in [
        ("あい うa", "あい うa"),
        ("半角ｶﾀｶﾅ", "半角カタカナ"),
        ("¥‾\\~", "¥‾\\~"),
        ("a%41あ%42", "a%41あ%42"),
        ("", ""),
    ] {
        let encoded = Encoder::new(sets::RFC3986).encode_in(text, jp);
        assert_eq!(STRICT.decode_to_str_in(&*encoded, jp).unwrap(), back, "{text}");
    }
    // keep_escapes keeps the text's escapes, not bytes of JIS X 0208 that look like one.
    let keep = Encoder::new(sets::RFC3986).keep_escapes(true);
    assert_eq!(keep.encode_in("%41あ%4", jp), "%41%1B%24B%24%22%1B%28B%254");
    assert_eq!(keep.encode_in("あ%41", jp), "%1B%24B%24%22%1B%28B%41");
    // A kept escape after Roman (`ESC ( J`, where 0x7E is `‾`) switches back to ASCII first.
    assert_eq!(keep.encode_in("¥%7E", jp), "%1B%28J%5C%1B%28B%7E");
    assert_eq!(STRICT.decode_to_str_in("%1B%28J%5C%1B%28B%7E", jp).unwrap(), "¥~");
    // With a space-as-`+` set, a `+` is kept as an encoded space, as in every encoding.
    let form = Encoder::new(sets::FORM).keep_escapes(true);
    assert_eq!(form.encode_in("a+b c%41あ+", jp), "a+b+c%41%1B%24B%24%22%1B%28B+");
    assert_eq!(form.encode_in("a+b c%41", Charset::SHIFT_JIS), "a+b+c%41");
    // チ is 0x25 0x41 in JIS X 0208: its `%` is escaped, and the `4` after it is ASCII.
    assert_eq!(keep.encode_in("チ4", jp), "%1B%24B%25A%1B%28B4");
}

#[test]
fn options_apply_after_encoding() {
    let sjis = Charset::SHIFT_JIS;
    assert_eq!(Encoder::new(sets::RFC3986).lowercase(true).encode_in("検 ☃", sjis), "%8c%9f%20%26%239731%3b");
    // An IRI set keeps non-ASCII UTF-8 raw; the bytes of Shift_JIS are escaped.
    assert_eq!(Encoder::new(sets::PATH.with_iri(true)).encode_in("/検", sjis), "/%8C%9F");
    assert_eq!(Encoder::new(sets::PATH.with_iri(true)).encode_in("/検", Charset::UTF_8), "/検");
    // keep_escapes: the text's escapes, in ASCII runs.
    assert_eq!(
        Encoder::new(sets::RFC3986).keep_escapes(true).encode_in("%8C%9F検%zz", sjis),
        "%8C%9F%8C%9F%25zz"
    );
    // Borrowed when nothing changes.
    assert!(matches!(Encoder::new(sets::PATH).encode_in("/plain/path", sjis), std::borrow::Cow::Borrowed(_)));
}

/// Hostile input: every byte value behind every escape, NULs, truncated escapes, long lines;
/// no panic, and every strict error names a `%` or a raw byte of the input with the kind
/// the byte decoder or the charset gives.
#[test]
fn hostile_input() {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for cs in Charset::all() {
        for _ in 0..200 {
            let len = (next() % 40) as usize;
            let mut input = Vec::new();
            for _ in 0..len {
                match next() % 4 {
                    0 => input.extend_from_slice(format!("%{:02X}", next() as u8).as_bytes()),
                    1 => input.push(next() as u8),
                    2 => input.extend_from_slice(b"%"),
                    _ => input.extend_from_slice(b"a\0+"),
                }
            }
            let lenient = Decoder::new().lenient(true);
            for dec in
                [STRICT, LOSSY, Decoder::new(), lenient.utf8(Utf8Mode::Strict), lenient.utf8(Utf8Mode::Lossy)]
            {
                match dec.decode_in(&input, cs) {
                    Ok(out) if dec.utf8_value() != Utf8Mode::Bytes => {
                        assert!(std::str::from_utf8(&out).is_ok())
                    }
                    Ok(_) => {}
                    Err(e) => {
                        assert!(e.offset() < input.len(), "{cs} {e}");
                        if e.kind() == DecodeErrorKind::InvalidCharset {
                            // The bytes before the error are fine.
                            let before = dec.decode_in(&input[..e.offset()], cs);
                            assert!(before.is_ok() || before.unwrap_err().offset() >= e.offset(), "{cs} {e}");
                        } else if e.kind() != DecodeErrorKind::InvalidUtf8 {
                            assert_eq!(
                                Decoder::new().lenient(dec.is_lenient()).decode(&input).unwrap_err(),
                                e,
                                "{cs}"
                            );
                        }
                    }
                }
            }
            if let Ok(text) = std::str::from_utf8(&input) {
                let encoded = Encoder::new(sets::COMPONENT).encode_in(text, cs);
                assert!(encoded.is_ascii());
            }
        }
    }
    // A long line: a megabyte of mixed text, and the offset of an error at its end.
    let text = "東京 Tokyo %41 ".repeat(60_000);
    let encoded = Encoder::new(sets::FORM).encode_in(&text, Charset::SHIFT_JIS);
    let decoded =
        Decoder::FORM.utf8(Utf8Mode::Strict).decode_to_str_in(&*encoded, Charset::SHIFT_JIS).unwrap();
    assert_eq!(decoded, text);
    let broken = format!("{encoded}%82");
    let err = STRICT.decode_in(&broken, Charset::SHIFT_JIS).unwrap_err();
    assert_eq!((err.offset(), err.kind()), (encoded.len(), DecodeErrorKind::InvalidCharset));
}

#[test]
fn explain_names_the_encodings() {
    let bytes = pctenc::decode("Fu%DFball").unwrap();
    let readings = explain(&bytes);
    assert!(readings.iter().any(|r| r.charset == Charset::WINDOWS_1252 && r.text == "Fußball"));
    assert!(readings.iter().all(|r| r.charset != Charset::UTF_8));
}

#[test]
fn form_pairs_in_a_legacy_encoding() {
    use pctenc::form;
    let pairs = [("名前", "山田 太郎"), ("note", "1+1=2 & ☃"), ("", "")];
    for cs in [Charset::SHIFT_JIS, Charset::EUC_JP, Charset::ISO_2022_JP, Charset::GB18030, Charset::BIG5] {
        let body = form::serialize_in(pairs, cs);
        assert!(body.is_ascii(), "{cs}");
        let back: Vec<_> = form::parse_in(&body, cs).collect();
        // The snowman is in none of them but GB18030 (which has all of Unicode): it comes
        // back as its character reference.
        let snowman = if cs == Charset::GB18030 { "☃" } else { "&#9731;" };
        let expected: Vec<_> = pairs.iter().map(|&(n, v)| (n.to_string(), v.replace('☃', snowman))).collect();
        let back: Vec<_> = back.into_iter().map(|(n, v)| (n.into_owned(), v.into_owned())).collect();
        assert_eq!(back, expected, "{cs}");
    }
    // UTF-8, and the encodings that forms write as UTF-8, are the plain serializer.
    for label in ["utf-8", "utf-16le", "replacement"] {
        assert_eq!(form::serialize_in(pairs, charset(label)), form::serialize(pairs), "{label}");
    }
    assert!(form::parse_in("a=%E2%98%83", Charset::UTF_8).eq(form::parse("a=%E2%98%83")));
    // The serializer switches when told, for the pairs after.
    let mut s = form::Serializer::new();
    s.append_pair("a", "é").charset(Charset::WINDOWS_1252).append_pair("b", "é");
    assert_eq!(s.finish(), "a=%C3%A9&b=%E9");
}
