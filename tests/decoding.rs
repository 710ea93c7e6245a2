//! Decoding: every row of the reference table of `DECODING.md` (all three columns, through
//! every API), error offsets and kinds, the left-to-right error rule, and the behaviour of
//! each API (borrowing, appending, buffers that are too small, in place, streaming).

mod common;

use std::borrow::Cow;

use common::{Outcome, all_decoders, check, check_all_apis, outcome};
use pctenc::{DecodeErrorKind, Decoder, StreamDecoder, Utf8Mode};

const DECODING_MD: &str = include_str!("data/spec/DECODING.md");

/// The text of a markdown cell that is one code span (`` `x` `` or ``` `` x `` ```).
fn code_span(cell: &str) -> Option<&str> {
    let cell = cell.trim();
    if let Some(inner) = cell.strip_prefix("``").and_then(|c| c.strip_suffix("``")) {
        return Some(inner.strip_prefix(' ').unwrap_or(inner).strip_suffix(' ').unwrap_or(inner));
    }
    cell.strip_prefix('`').and_then(|c| c.strip_suffix('`'))
}

/// One row of the reference table.
struct Row {
    input: String,
    strict: String,
    lossy: String,
    bytes: String,
}

fn reference_rows() -> Vec<Row> {
    let mut lines = DECODING_MD.lines().skip_while(|l| !l.starts_with("## Reference results"));
    let header = lines.find(|l| l.starts_with("| input")).expect("reference table header");
    assert!(header.contains("strict + UTF-8 strict") && header.contains("lenient + lossy"), "{header}");
    assert!(header.contains("lenient bytes"), "{header}");
    let rows: Vec<Row> = lines
        .skip(1) // |---|---|
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let cells: Vec<&str> = l.trim().trim_matches('|').split('|').map(str::trim).collect();
            assert_eq!(cells.len(), 4, "row {l}");
            Row {
                input: code_span(cells[0]).expect("input is a code span").to_string(),
                strict: cells[1].to_string(),
                lossy: cells[2].to_string(),
                bytes: cells[3].to_string(),
            }
        })
        .collect();
    assert_eq!(rows.len(), 14, "DECODING.md has 14 reference rows");
    rows
}

/// `U+FFFD`, `U+FFFD U+FFFD`, `3 x U+FFFD`, `space`, or a code span.
fn parse_text(cell: &str) -> Vec<u8> {
    if let Some(text) = code_span(cell) {
        return text.as_bytes().to_vec();
    }
    if cell == "space" {
        return b" ".to_vec();
    }
    let (count, rest) = match cell.split_once(" x ") {
        Some((n, rest)) => (n.parse::<usize>().expect("count"), rest),
        None => (1, cell),
    };
    let one: String = rest
        .split_whitespace()
        .map(|u| {
            let hex = u.strip_prefix("U+").unwrap_or_else(|| panic!("cannot read cell {cell:?}"));
            char::from_u32(u32::from_str_radix(hex, 16).unwrap()).unwrap()
        })
        .collect();
    one.repeat(count).into_bytes()
}

/// `` `C3 A9` `` (hex bytes) or `` `%4A` `` (literal text).
fn parse_bytes(cell: &str) -> Vec<u8> {
    let text = code_span(cell).unwrap_or_else(|| panic!("bytes cell {cell:?} is a code span"));
    let tokens: Vec<&str> = text.split(' ').collect();
    let is_hex =
        |t: &&str| t.len() == 2 && t.bytes().all(|b| b.is_ascii_digit() || (b'A'..=b'F').contains(&b));
    if tokens.iter().all(is_hex) {
        tokens.iter().map(|t| u8::from_str_radix(t, 16).unwrap()).collect()
    } else {
        text.as_bytes().to_vec()
    }
}

/// The kind of the escape errors of the table (`error at N`): the table names the offset,
/// `DecodeErrorKind`'s docs name the kind.
fn escape_error_kind(input: &str) -> DecodeErrorKind {
    match input {
        "%" | "%4" => DecodeErrorKind::TruncatedEscape,
        "%zz" | "%%41" | "%4%41" => DecodeErrorKind::InvalidEscape,
        other => panic!("DECODING.md has a new `error at` row {other:?}: add its kind here"),
    }
}

/// The strict column: `error at N`, `error`, `error (invalid UTF-8)`, or a code span.
fn parse_strict(input: &str, cell: &str) -> Outcome {
    if let Some(at) = cell.strip_prefix("error at ") {
        return Err((at.parse().unwrap(), escape_error_kind(input)));
    }
    if cell == "error" || cell == "error (invalid UTF-8)" {
        // Every such row is escapes only, so the bad sequence starts at the `%` of the escape
        // of its first invalid byte: three input bytes per decoded byte.
        let bytes = pctenc::decode(input).expect("escapes only").into_owned();
        let valid_up_to = std::str::from_utf8(&bytes).unwrap_err().valid_up_to();
        assert_eq!(input.len(), 3 * bytes.len(), "{input}: escapes only");
        return Err((3 * valid_up_to, DecodeErrorKind::InvalidUtf8));
    }
    Ok(parse_text(cell))
}

#[test]
fn reference_table_strict_utf8_strict() {
    for row in reference_rows() {
        let want = parse_strict(&row.input, &row.strict);
        let dec = Decoder::URI_COMPONENT;
        assert_eq!(outcome(dec.decode(&row.input)), want, "decodeURIComponent({:?})", row.input);
        assert_eq!(check_all_apis(dec, row.input.as_bytes(), &[1]), want, "{:?}", row.input);
        // decode_to_str says the same.
        assert_eq!(outcome(dec.decode_to_str(&row.input).map(|s| s.into_owned())), want);
    }
}

#[test]
fn reference_table_lenient_lossy_plus() {
    for row in reference_rows() {
        let want = parse_text(&row.lossy);
        let dec = Decoder::FORM;
        assert_eq!(dec.decode_to_str(&row.input).unwrap().as_bytes(), &want[..], "{:?}", row.input);
        assert_eq!(check_all_apis(dec, row.input.as_bytes(), &[2]), Ok(want), "{:?}", row.input);
    }
}

#[test]
fn reference_table_lenient_bytes() {
    for row in reference_rows() {
        let want = parse_bytes(&row.bytes);
        assert_eq!(&pctenc::decode_lenient(&row.input)[..], &want[..], "{:?}", row.input);
        let dec = Decoder::new().lenient(true);
        assert_eq!(check_all_apis(dec, row.input.as_bytes(), &[1, 2]), Ok(want), "{:?}", row.input);
    }
}

#[test]
fn reference_table_is_what_the_brief_says() {
    // A few cells spelled out, so that a misparse of the table cannot go unnoticed.
    let rows = reference_rows();
    let find = |input: &str| rows.iter().find(|r| r.input == input).unwrap();
    assert_eq!(parse_strict("%", &find("%").strict), Err((0, DecodeErrorKind::TruncatedEscape)));
    assert_eq!(parse_strict("%C3", &find("%C3").strict), Err((0, DecodeErrorKind::InvalidUtf8)));
    assert_eq!(parse_text(&find("%ED%A0%80").lossy), "\u{FFFD}\u{FFFD}\u{FFFD}".as_bytes());
    assert_eq!(parse_text(&find("+").lossy), b" ");
    assert_eq!(parse_bytes(&find("%c3%a9").bytes), b"\xC3\xA9");
    assert_eq!(parse_bytes(&find("%4%41").bytes), b"%4A");
}

#[test]
fn error_offsets_and_kinds() {
    use DecodeErrorKind::*;
    let cases: &[(&str, usize, DecodeErrorKind)] = &[
        ("%", 0, TruncatedEscape),
        ("%4", 0, TruncatedEscape),
        ("100%", 3, TruncatedEscape),
        ("100%a", 3, TruncatedEscape),
        ("%zz", 0, InvalidEscape),
        ("%4z", 0, InvalidEscape),
        ("%z", 0, InvalidEscape),
        ("%%41", 0, InvalidEscape),
        ("%4%41", 0, InvalidEscape),
        ("abc%41%g0", 6, InvalidEscape),
        ("a+b%2", 3, TruncatedEscape),
    ];
    for &(input, offset, kind) in cases {
        let err = pctenc::decode(input).unwrap_err();
        assert_eq!((err.offset(), err.kind()), (offset, kind), "{input:?}");
        for dec in all_decoders().into_iter().filter(|d| !d.is_lenient()) {
            let got = check_all_apis(dec, input.as_bytes(), &[1]);
            assert_eq!(got, Err((offset, kind)), "{dec:?} {input:?}");
        }
        // Lenient decoding never fails on these.
        for dec in all_decoders().into_iter().filter(|d| d.is_lenient() && d.utf8_value() != Utf8Mode::Strict)
        {
            assert!(dec.decode(input).is_ok(), "{dec:?} {input:?}");
        }
    }
    // Display names the offset.
    assert_eq!(
        pctenc::decode("ab%").unwrap_err().to_string(),
        "offset 2: truncated percent-escape: `%` needs two hex digits"
    );
}

#[test]
fn invalid_utf8_offset_is_the_percent_that_starts_the_sequence() {
    let dec = Decoder::URI_COMPONENT;
    let cases: &[(&str, usize)] = &[
        ("ok%C0%AF", 2),
        ("%C3%A9%FF", 6),
        ("%C3%A9x%E2%82", 7),
        ("%E2%82%AC%E2%82x", 9),
        ("a+b%F4%90%80%80", 3),
        ("%ED%A0%80", 0),
        ("abc%C3", 3),
    ];
    for &(input, offset) in cases {
        let err = dec.decode(input).unwrap_err();
        assert_eq!((err.offset(), err.kind()), (offset, DecodeErrorKind::InvalidUtf8), "{input:?}");
        assert_eq!(check_all_apis(dec, input.as_bytes(), &[4]), Err((offset, DecodeErrorKind::InvalidUtf8)));
    }
    // A raw (not escaped) invalid byte is reported at its own offset.
    let err = dec.decode(b"ab\xFFcd").unwrap_err();
    assert_eq!((err.offset(), err.kind()), (2, DecodeErrorKind::InvalidUtf8));
    // With `+` as space, the offsets are still input offsets.
    let err = dec.plus_as_space(true).decode("++%C3+").unwrap_err();
    assert_eq!((err.offset(), err.kind()), (2, DecodeErrorKind::InvalidUtf8));
}

#[test]
fn first_error_left_to_right() {
    use DecodeErrorKind::*;
    let dec = Decoder::URI_COMPONENT;
    let cases: &[(&str, (usize, DecodeErrorKind))] = &[
        // The UTF-8 sequence is known to be invalid (the `a` shows it) before the bad `%`.
        ("%C3a%zz", (0, InvalidUtf8)),
        ("x%FF%", (1, InvalidUtf8)),
        ("a%C0%AF%4", (1, InvalidUtf8)),
        ("%E2%82z%", (0, InvalidUtf8)),
        // Unfinished (not yet known invalid) when the bad `%` comes: the escape error.
        ("%C3%zz", (3, InvalidEscape)),
        ("%E2%82%", (6, TruncatedEscape)),
        ("%F0%9F%98%4", (9, TruncatedEscape)),
        // The bad `%` comes first.
        ("%zz%FF", (0, InvalidEscape)),
    ];
    for &(input, want) in cases {
        let err = dec.decode(input).unwrap_err();
        assert_eq!((err.offset(), err.kind()), want, "{input:?}");
        for cut in 0..=input.len() {
            assert_eq!(check_all_apis(dec, input.as_bytes(), &[cut]), Err(want), "{input:?} cut {cut}");
        }
    }
    // Lenient `%` with strict UTF-8: the copied `%` is what shows the sequence is invalid.
    let err = Decoder::new().lenient(true).utf8(Utf8Mode::Strict).decode("%C3%zz").unwrap_err();
    assert_eq!((err.offset(), err.kind()), (0, InvalidUtf8));
}

#[test]
fn plus_rules() {
    assert_eq!(pctenc::decode("a+b").unwrap(), &b"a+b"[..]);
    let plus = Decoder::new().plus_as_space(true);
    assert_eq!(plus.decode("a+b%2B%2b").unwrap(), &b"a b++"[..]);
    assert_eq!(Decoder::FORM.decode_to_str("a+b%2Bc").unwrap(), "a b+c");
}

#[test]
fn decode_borrows_when_nothing_to_decode() {
    assert!(matches!(pctenc::decode("plain+text"), Ok(Cow::Borrowed(b"plain+text"))));
    assert!(matches!(pctenc::decode_lenient("plain"), Cow::Borrowed(b"plain")));
    assert!(matches!(Decoder::URI_COMPONENT.decode("héllo"), Ok(Cow::Borrowed(_))));
    assert!(matches!(Decoder::FORM.decode("héllo"), Ok(Cow::Borrowed(_))));
    assert!(matches!(Decoder::FORM.decode_to_str("abc"), Ok(Cow::Borrowed("abc"))));
    assert!(matches!(Decoder::new().decode(b"\xFF"), Ok(Cow::Borrowed(b"\xFF"))));
    // Not borrowed: something changes.
    assert!(matches!(Decoder::FORM.decode("a+b"), Ok(Cow::Owned(_))));
    assert!(matches!(pctenc::decode("a%41"), Ok(Cow::Owned(_))));
    assert!(matches!(Decoder::FORM.decode(b"\xFF"), Ok(Cow::Owned(_))));
    // No `%` but invalid UTF-8 in strict mode is still an error.
    let err = Decoder::URI_COMPONENT.decode(b"ab\xC3").unwrap_err();
    assert_eq!((err.offset(), err.kind()), (2, DecodeErrorKind::InvalidUtf8));
}

#[test]
fn decode_slice_buffer_too_small() {
    let dec = Decoder::new();
    let mut buf = [0u8; 8];
    let err = dec.decode_slice("abcd", &mut buf[..2]).unwrap_err();
    assert_eq!((err.kind(), err.offset()), (DecodeErrorKind::BufferTooSmall, 2));
    // The escape that does not fit is named by its `%`.
    let err = dec.decode_slice("ab%41", &mut buf[..2]).unwrap_err();
    assert_eq!((err.kind(), err.offset()), (DecodeErrorKind::BufferTooSmall, 2));
    assert_eq!(dec.decode_slice("ab%41", &mut buf[..3]), Ok(3));
    assert_eq!(&buf[..3], b"abA");
    let err = dec.decode_slice("x", &mut []).unwrap_err();
    assert_eq!((err.kind(), err.offset()), (DecodeErrorKind::BufferTooSmall, 0));
    assert_eq!(dec.decode_slice("", &mut []), Ok(0));
    // An earlier invalid UTF-8 sequence is reported before the lack of room.
    let err = Decoder::URI_COMPONENT.decode_slice("%FFabc", &mut buf[..2]).unwrap_err();
    assert_eq!((err.kind(), err.offset()), (DecodeErrorKind::InvalidUtf8, 0));
}

#[test]
fn decode_slice_lossy_growth() {
    let dec = Decoder::new().lenient(true).utf8(Utf8Mode::Lossy);
    let mut buf = [0xA5u8; 16];
    // One byte of input-decoded output becomes three.
    assert_eq!(dec.decode_slice("%FF", &mut buf[..3]), Ok(3));
    assert_eq!(&buf[..3], "\u{FFFD}".as_bytes());
    let mut buf = [0xA5u8; 16];
    let err = dec.decode_slice("%FF", &mut buf[..2]).unwrap_err();
    assert_eq!((err.kind(), err.offset()), (DecodeErrorKind::BufferTooSmall, 0));
    assert!(buf[2..].iter().all(|&b| b == 0xA5));
    let err = dec.decode_slice("a%FF", &mut buf[..3]).unwrap_err();
    assert_eq!((err.kind(), err.offset()), (DecodeErrorKind::BufferTooSmall, 1));
    // Raw invalid bytes grow too: 3 input bytes, 9 output bytes.
    let mut buf = [0u8; 9];
    assert_eq!(dec.decode_slice(b"\xFF\xFE\xFD", &mut buf), Ok(9));
    assert_eq!(&buf, "\u{FFFD}\u{FFFD}\u{FFFD}".as_bytes());
    let err = dec.decode_slice(b"\xFF\xFE\xFD", &mut buf[..8]).unwrap_err();
    assert_eq!((err.kind(), err.offset()), (DecodeErrorKind::BufferTooSmall, 2));
    // Valid text around it.
    let mut buf = [0u8; 32];
    let n = dec.decode_slice("caf%E9 ok %C3%A9", &mut buf).unwrap();
    assert_eq!(std::str::from_utf8(&buf[..n]).unwrap(), "caf\u{FFFD} ok é");
}

#[test]
fn decode_slice_lossy_overflow_names_the_first_byte_that_did_not_fit() {
    // Regression: the offset was that of the first input byte not decoded into `out`, though
    // an earlier replacement was what did not fit (and a smaller slice gave a later offset).
    let dec = Decoder::new().lenient(true).utf8(Utf8Mode::Lossy);
    let cases: &[(&str, usize, usize)] = &[
        ("%FF%FF%FF%FF", 3, 3),
        ("%FF%FF%FF%FF", 4, 3),
        ("%FF%FF%FF%FF", 5, 3),
        ("%FF%FF%FF%FF", 6, 6),
        ("%FFabcdef", 5, 5),
        ("%FFabcdef", 3, 3),
        ("%FFab%FF", 5, 5),
        // An unfinished sequence at the end of the slice that the next bytes complete: its
        // bytes count one by one, as those of any valid character.
        ("ab%C3%A9", 3, 5),
        ("%FFa%E2%82%AC", 5, 7),
        // ... or that the next bytes show to be invalid: one U+FFFD, whole.
        ("ab%C3x", 3, 2),
        ("ab%F0%9F%98x", 4, 2),
    ];
    for &(input, room, offset) in cases {
        let mut buf = vec![0u8; room];
        let err = dec.decode_slice(input, &mut buf).unwrap_err();
        assert_eq!(
            (err.offset(), err.kind()),
            (offset, DecodeErrorKind::BufferTooSmall),
            "{input} in {room}"
        );
    }
}

#[test]
fn plus_followed_by_hex_digits_is_one_input_byte() {
    // Regression: mapping a decoded index back to an input offset read `+12` as an escape.
    let dec = Decoder::URI_COMPONENT.plus_as_space(true);
    let err = dec.decode("+12%FF").unwrap_err();
    assert_eq!((err.offset(), err.kind()), (3, DecodeErrorKind::InvalidUtf8));
    for cut in 0..=6 {
        assert_eq!(check_all_apis(dec, b"+12%FF", &[cut]), Err((3, DecodeErrorKind::InvalidUtf8)));
        assert_eq!(check_all_apis(dec, b"+ab+%C3x", &[cut]), Err((4, DecodeErrorKind::InvalidUtf8)));
    }
    let lossy = Decoder::FORM;
    let mut buf = [0u8; 5];
    let err = lossy.decode_slice("+12%FF", &mut buf).unwrap_err();
    assert_eq!((err.offset(), err.kind()), (3, DecodeErrorKind::BufferTooSmall));
    // In a stream, the carried sequence's offset too.
    let mut stream = StreamDecoder::new(dec);
    let mut out = Vec::new();
    stream.feed(b"+1", &mut out).unwrap();
    stream.feed(b"2%C3", &mut out).unwrap();
    let err = stream.feed(b"+", &mut out).unwrap_err();
    assert_eq!((err.offset(), err.kind()), (3, DecodeErrorKind::InvalidUtf8));
}

#[test]
fn decode_in_place_every_mode() {
    let inputs: &[&[u8]] = &[
        b"a%20b%2Bc+d",
        b"%C3%A9t%C3%A9",
        b"%%41%4%41%zz",
        b"%FF%C0%AF",
        b"caf%E9",
        b"\xFF\xFE",
        b"100%",
        b"",
        b"+",
    ];
    for dec in all_decoders() {
        for &input in inputs {
            check(dec, input, &[1]);
        }
    }
    let mut buf = *b"a%20b%2Bc";
    let n = pctenc::decode_in_place(&mut buf).unwrap();
    assert_eq!(&buf[..n], b"a b+c");
    let mut buf = *b"a+b%2B";
    let n = Decoder::FORM.decode_in_place(&mut buf).unwrap();
    assert_eq!(&buf[..n], b"a b+");
    let mut buf = *b"%FF%FE";
    let n = Decoder::FORM.decode_in_place(&mut buf).unwrap();
    assert_eq!(&buf[..n], "\u{FFFD}\u{FFFD}".as_bytes());
    let mut buf = *b"ok%C3%A9%zz";
    let err = Decoder::URI_COMPONENT.decode_in_place(&mut buf).unwrap_err();
    assert_eq!((err.offset(), err.kind()), (8, DecodeErrorKind::InvalidEscape));
    let mut buf = *b"ok%C3x%zz";
    let err = Decoder::URI_COMPONENT.decode_in_place(&mut buf).unwrap_err();
    assert_eq!((err.offset(), err.kind()), (2, DecodeErrorKind::InvalidUtf8));
    // Lossy growth past the buffer: the offset is the index in the decoded bytes.
    let mut buf = *b"a\xFF\xFFb";
    let err = Decoder::FORM.decode_in_place(&mut buf).unwrap_err();
    assert_eq!((err.offset(), err.kind()), (2, DecodeErrorKind::BufferTooSmall));
}

#[test]
fn decode_in_place_strict_utf8_across_its_internal_pieces() {
    // The strict UTF-8 check of decode_in_place works in fixed-size pieces: put sequences,
    // valid and invalid, and bad escapes on every offset around the first few piece sizes a
    // implementation might use.
    let tails: &[&[u8]] = &[
        b"%E2%82%AC",
        b"\xE2\x82\xAC",
        b"%F0%9F%98%80",
        b"\xF0\x9F\x98\x80",
        b"%E2%82x",
        b"\xE2\x82x",
        b"%C3%zz",
        b"%C3x%zz",
        b"%F0%9F%98",
        b"%ED%A0%80",
        b"+%FF",
    ];
    for dec in all_decoders() {
        for len in (250..=260).chain(505..=520).chain(1020..=1030) {
            for &tail in tails {
                let mut input = vec![b'a'; len];
                input.extend_from_slice(tail);
                input.extend_from_slice(b"%41z");
                check(dec, &input, &[len / 2, len + 1]);
                // Escapes before it too, so that input and output offsets differ.
                let mut input = b"%41".repeat(len / 3);
                input.extend_from_slice(&b"bb"[..len % 3 % 2]);
                input.extend_from_slice(tail);
                check(dec, &input, &[len]);
            }
        }
    }
}

/// The owned decoders write into spare capacity: whatever it held before (stale bytes of
/// earlier output) never shows, after success or after an error, on every backend.
#[test]
fn decode_vec_ignores_stale_spare_capacity() {
    for engine in common::engines_with_scalar() {
        for (strict, dec) in [(true, Decoder::new()), (true, Decoder::URI_COMPONENT), (false, Decoder::FORM)]
        {
            let dec = dec.engine(engine);
            let input = "caf%C3%A9+%2F%20".repeat(40);
            let want = dec.engine(pctenc::Engine::scalar()).decode(&input).unwrap().into_owned();
            let mut out = vec![0xEE; 4 * input.len()];
            out.truncate(3);
            dec.decode_vec(&input, &mut out).unwrap();
            assert_eq!((&out[..3], &out[3..]), (&[0xEE; 3][..], &want[..]), "{:?}", engine.backend());
            if !strict {
                continue; // lenient: `%zz` is copied, not an error
            }
            let bad = format!("{input}%zz{input}");
            let mut out = vec![0xEE; 4 * bad.len()];
            out.truncate(3);
            let err = dec.decode_vec(&bad, &mut out).unwrap_err();
            assert_eq!(
                (err.offset(), out.as_slice()),
                (input.len(), &[0xEE; 3][..]),
                "{:?}",
                engine.backend()
            );
        }
    }
}

#[test]
fn decode_vec_appends_and_restores() {
    let mut out = b"name: ".to_vec();
    pctenc::Decoder::new().decode_vec("J%C3%BCrgen", &mut out).unwrap();
    assert_eq!(out, "name: Jürgen".as_bytes());
    pctenc::Decoder::new().decode_vec("+%21", &mut out).unwrap();
    assert_eq!(out, "name: Jürgen+!".as_bytes());
    // Escape error: restored.
    let err = Decoder::new().decode_vec("ok%zz", &mut out).unwrap_err();
    assert_eq!((err.offset(), err.kind()), (2, DecodeErrorKind::InvalidEscape));
    assert_eq!(out, "name: Jürgen+!".as_bytes());
    // UTF-8 error, found after the bytes were decoded: restored.
    let err = Decoder::URI_COMPONENT.decode_vec("abc%C3", &mut out).unwrap_err();
    assert_eq!((err.offset(), err.kind()), (3, DecodeErrorKind::InvalidUtf8));
    assert_eq!(out, "name: Jürgen+!".as_bytes());
    // Lossy: replaced in what was appended only, never in what was there.
    let mut out = b"\xFF|".to_vec();
    Decoder::FORM.decode_vec("a+%FF", &mut out).unwrap();
    assert_eq!(out, b"\xFF|a \xEF\xBF\xBD");
    // An unfinished sequence in `out` is not completed by the appended bytes.
    let mut out = b"\xC3".to_vec();
    let err = Decoder::URI_COMPONENT.decode_vec("%A9", &mut out).unwrap_err();
    assert_eq!((err.offset(), err.kind()), (0, DecodeErrorKind::InvalidUtf8));
    assert_eq!(out, b"\xC3");
    let mut out = b"\xC3".to_vec();
    Decoder::FORM.decode_vec("%A9", &mut out).unwrap();
    assert_eq!(out, b"\xC3\xEF\xBF\xBD");
}

#[test]
fn decode_to_str() {
    let dec = Decoder::new();
    assert_eq!(dec.decode_to_str("J%C3%BCrgen").unwrap(), "Jürgen");
    // Bytes mode cannot promise text: strict UTF-8.
    let err = dec.decode_to_str("a%FF").unwrap_err();
    assert_eq!((err.offset(), err.kind()), (1, DecodeErrorKind::InvalidUtf8));
    assert_eq!(dec.lenient(true).utf8(Utf8Mode::Lossy).decode_to_str("%zz%FF").unwrap(), "%zz\u{FFFD}");
    assert_eq!(Decoder::FORM.decode_to_str("a+b%zz%FF").unwrap(), "a b%zz\u{FFFD}");
    assert!(matches!(dec.decode_to_str("plain"), Ok(Cow::Borrowed("plain"))));
    let err = Decoder::URI_COMPONENT.decode_to_str("%").unwrap_err();
    assert_eq!((err.offset(), err.kind()), (0, DecodeErrorKind::TruncatedEscape));
}

#[test]
fn decoder_accessors_and_presets() {
    let d = Decoder::URI_COMPONENT;
    assert!(!d.is_lenient() && !d.is_plus_as_space() && d.utf8_value() == Utf8Mode::Strict);
    let d = Decoder::FORM;
    assert!(d.is_lenient() && d.is_plus_as_space() && d.utf8_value() == Utf8Mode::Lossy);
    let d = Decoder::new();
    assert!(!d.is_lenient() && !d.is_plus_as_space() && d.utf8_value() == Utf8Mode::Bytes);
    assert_eq!(Decoder::default(), Decoder::new());
    assert_eq!(Utf8Mode::default(), Utf8Mode::Bytes);
}

#[test]
fn decode_exactly_once() {
    assert_eq!(pctenc::decode("%252e").unwrap(), &b"%2e"[..]);
    assert_eq!(pctenc::decode_lenient("%25%32%65"), &b"%2e"[..]);
}

#[test]
fn stream_decoder_documented_behaviour() {
    let mut stream = StreamDecoder::new(Decoder::URI_COMPONENT);
    let mut out = Vec::new();
    for piece in ["J%C", "3%B", "Crgen%2", "0!"] {
        stream.feed(piece.as_bytes(), &mut out).unwrap();
    }
    stream.finish(&mut out).unwrap();
    assert_eq!(out, "Jürgen !".as_bytes());

    // A dangling `%` is an error at finish (strict), offsets from the start of the stream.
    let mut stream = StreamDecoder::new(Decoder::new());
    let mut out = Vec::new();
    stream.feed(b"100", &mut out).unwrap();
    stream.feed(b"%", &mut out).unwrap();
    assert_eq!(stream.fed(), 4);
    let err = stream.finish(&mut out).unwrap_err();
    assert_eq!((err.offset(), err.kind()), (3, DecodeErrorKind::TruncatedEscape));
    assert_eq!(out, b"100");
    // ... and stays one.
    assert_eq!(stream.feed(b"41", &mut out), Err(err));

    // Lenient: emitted as is.
    let mut stream = StreamDecoder::new(Decoder::new().lenient(true));
    let mut out = Vec::new();
    stream.feed(b"100%", &mut out).unwrap();
    stream.finish(&mut out).unwrap();
    assert_eq!(out, b"100%");

    // A finished stream starts again, offsets from zero.
    stream.feed(b"%4", &mut out).unwrap();
    stream.feed(b"1", &mut out).unwrap();
    stream.finish(&mut out).unwrap();
    assert_eq!(out, b"100%A");
    let mut strict = StreamDecoder::new(Decoder::new());
    let mut out = Vec::new();
    strict.feed(b"abc", &mut out).unwrap();
    strict.finish(&mut out).unwrap();
    strict.feed(b"%zz", &mut out).unwrap_err();
    let mut strict = StreamDecoder::new(Decoder::new());
    strict.feed(b"abc", &mut out).unwrap();
    strict.finish(&mut out).unwrap();
    let err = strict.feed(b"x%zz", &mut out).unwrap_err();
    assert_eq!(err.offset(), 1);

    // A UTF-8 sequence split across pieces; in lossy mode the unfinished one at the end
    // becomes U+FFFD at finish.
    let mut stream = StreamDecoder::new(Decoder::FORM);
    let mut out = Vec::new();
    for piece in ["%E2", "%82", "%AC+", "%E2%8", "2"] {
        stream.feed(piece.as_bytes(), &mut out).unwrap();
    }
    stream.finish(&mut out).unwrap();
    assert_eq!(std::str::from_utf8(&out).unwrap(), "€ \u{FFFD}");

    // Strict UTF-8: the error names the `%` of the first byte of the sequence, even when
    // that byte came in an earlier piece.
    let mut stream = StreamDecoder::new(Decoder::URI_COMPONENT);
    let mut out = Vec::new();
    stream.feed(b"ab%F0", &mut out).unwrap();
    stream.feed(b"%9F", &mut out).unwrap();
    stream.feed(b"%98", &mut out).unwrap();
    let err = stream.feed(b"x", &mut out).unwrap_err();
    assert_eq!((err.offset(), err.kind()), (2, DecodeErrorKind::InvalidUtf8));
    assert_eq!(out, b"ab");
}

#[test]
fn stream_every_split_of_the_reference_rows() {
    for row in reference_rows() {
        let input = row.input.as_bytes();
        for dec in all_decoders() {
            for a in 0..=input.len() {
                for b in a..=input.len() {
                    check(dec, input, &[a, b]);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// The options that act on escapes: kept escapes, `%uHHHH`, rejected bytes.

use common::{model_bytes, option_decoders};
use pctenc::{Reject, Set, sets};

/// Decoding with every API gives `want`, and agrees with the model for every cut.
fn agree(dec: Decoder, input: &str, want: Outcome) {
    assert_eq!(outcome(dec.decode(input)), want, "{dec:?} on {input:?}");
    for cut in 0..=input.len() {
        assert_eq!(check_all_apis(dec, input.as_bytes(), &[cut]), want, "{dec:?} on {input:?} cut {cut}");
    }
}

fn ok(s: &str) -> Outcome {
    Ok(s.as_bytes().to_vec())
}

fn err(offset: usize, kind: DecodeErrorKind) -> Outcome {
    Err((offset, kind))
}

#[test]
fn decode_uri_matches_node() {
    // `node -e 'console.log(decodeURI(s))'` on each input (Node 20); `None`: URIError.
    let cases: &[(&str, Option<&str>)] = &[
        ("%2f%41", Some("%2fA")),
        ("%3B%2F%3F%3A%40%26%3D%2B%24%2C%23", Some("%3B%2F%3F%3A%40%26%3D%2B%24%2C%23")),
        ("%3b%2c%23%24", Some("%3b%2c%23%24")),
        ("a%20b%25%2525", Some("a b%%25")),
        ("%C3%A9%2F%e2%82%ac", Some("é%2F€")),
        ("%7E%5C%00%7F", Some("~\\\u{0}\u{7F}")),
        ("%F0%9F%98%80%3f", Some("😀%3f")),
        ("+%2B+", Some("+%2B+")),
        ("%25%32%46", Some("%2F")),
        ("%C3%2F", None),
        ("%E2%82%2F", None),
        ("%2F%zz", None),
        ("%", None),
        ("%2", None),
        ("%FF", None),
        ("%ED%A0%80", None),
    ];
    for &(input, want) in cases {
        let got = Decoder::URI.decode_to_str(input);
        match want {
            Some(want) => assert_eq!(got.unwrap(), want, "decodeURI({input:?})"),
            None => assert!(got.is_err(), "decodeURI({input:?}) throws"),
        }
        for dec in [Decoder::URI, Decoder::URI.plus_as_space(true), Decoder::URI.lenient(true)] {
            check(dec, input.as_bytes(), &[2]);
        }
    }
    // The errors say where.
    agree(Decoder::URI, "%C3%2F", err(0, DecodeErrorKind::InvalidUtf8));
    agree(Decoder::URI, "%2F%zz", err(3, DecodeErrorKind::InvalidEscape));
    agree(Decoder::URI, "%2F%2f%FF", err(6, DecodeErrorKind::InvalidUtf8));
    agree(Decoder::URI, "%2F%E2%82%2F", err(3, DecodeErrorKind::InvalidUtf8));
}

#[test]
fn keep_encoded() {
    use DecodeErrorKind::*;
    let slash = Set::EMPTY.add(b'/').with_iri(true);
    let dec = Decoder::new().keep_encoded(slash);
    // Kept exactly as written, case included; other escapes decoded; decoded once.
    agree(dec, "a%2fb%2F%20%41", ok("a%2fb%2F A"));
    agree(dec, "%252F%25%32%66", ok("%2F%2f"));
    agree(dec, "%C3%A9", ok("é"));
    // Malformed `%` as usual.
    agree(dec, "%2F%", err(3, TruncatedEscape));
    agree(dec.lenient(true), "%2F%%2f", ok("%2F%%2f"));
    // A set that is not IRI contains 0x80..=0xFF: non-ASCII escapes are kept too.
    let uri_like = Decoder::new().keep_encoded(sets::RFC3986);
    agree(uri_like, "%7e%41%2F%C3%a9%20", ok("~A%2F%C3%a9%20"));
    agree(Decoder::new().keep_encoded(sets::RFC3986.with_iri(true)), "%7e%2F%C3%a9", ok("~%2Fé"));
    // UTF-8: kept escapes are ASCII; they can break a sequence, and offsets stay right.
    let strict = dec.utf8(Utf8Mode::Strict);
    agree(strict, "%C3%2F%A9", err(0, InvalidUtf8));
    agree(strict, "%2F%2F%C3", err(6, InvalidUtf8));
    agree(strict, "%2Fa%2F%FFb", err(7, InvalidUtf8));
    agree(strict, "%2F%C3%A9%2F", ok("%2Fé%2F"));
    agree(dec.utf8(Utf8Mode::Lossy), "%C3%2F%A9", ok("\u{FFFD}%2F\u{FFFD}"));
    // `+` as space is not an escape: a kept `+` is `%2B` only.
    let plus = Decoder::new().plus_as_space(true).keep_encoded(Set::EMPTY.add(b'+').with_iri(true));
    agree(plus, "a+b%2Bc%2b", ok("a b%2Bc%2b"));
    // Keeping `%` itself.
    let pct = Decoder::new().keep_encoded(Set::EMPTY.add(b'%').with_iri(true));
    agree(pct, "%25%2541%41", ok("%25%2541A"));
    // The default keeps nothing.
    assert!((0..=255).all(|b| !Decoder::new().keep_encoded_value().contains(b)));
    assert_eq!(Decoder::URI.keep_encoded_value(), Decoder::URI_RESERVED);
    let kept: Vec<u8> = (0..=255).filter(|&b| Decoder::URI_RESERVED.contains(b)).collect();
    assert_eq!(kept, b"#$&+,/:;=?@");
}

#[test]
fn keep_encoded_slice_and_in_place() {
    let dec = Decoder::URI;
    let mut buf = [0u8; 16];
    // A kept escape is written whole or not at all: one that does not fit is named by its `%`.
    for room in 2..5 {
        let err = dec.decode_slice("ab%2Fc", &mut buf[..room]).unwrap_err();
        assert_eq!((err.kind(), err.offset()), (DecodeErrorKind::BufferTooSmall, 2), "room {room}");
    }
    assert_eq!(dec.decode_slice("ab%2Fc", &mut buf[..5]).unwrap_err().offset(), 5);
    assert_eq!(dec.decode_slice("ab%2Fc", &mut buf[..6]), Ok(6));
    assert_eq!(&buf[..6], b"ab%2Fc");
    let mut buf = *b"%41%2f%42";
    let n = dec.decode_in_place(&mut buf).unwrap();
    assert_eq!(&buf[..n], b"A%2fB");
    // Lossy, with a replacement after a kept escape.
    let lossy = Decoder::FORM.keep_encoded(Decoder::URI_RESERVED);
    let mut buf = [0u8; 16];
    assert_eq!(lossy.decode_slice("%2F%FF", &mut buf[..6]), Ok(6));
    assert_eq!(&buf[..6], "%2F\u{FFFD}".as_bytes());
    let err = lossy.decode_slice("%2F%FF", &mut buf[..5]).unwrap_err();
    assert_eq!((err.kind(), err.offset()), (DecodeErrorKind::BufferTooSmall, 3));
    let err = lossy.decode_slice("%2F%FF", &mut buf[..2]).unwrap_err();
    assert_eq!((err.kind(), err.offset()), (DecodeErrorKind::BufferTooSmall, 0));
}

#[test]
fn legacy_u_matches_unescape() {
    // `node -e 'console.log(Buffer.from(unescape(s)).toString("hex"))'` (Node 20): unescape,
    // then UTF-8 with each lone surrogate as U+FFFD, as the lenient decoder does. (unescape
    // reads `%HH` as Latin-1, so these inputs have no `%HH` of a byte above 0x7F.)
    let cases: &[(&str, &str)] = &[
        ("%u0041", "41"),
        ("%U0041", "255530303431"),
        ("%u00e9t%u00E9", "c3a974c3a9"),
        ("%uD83D%uDE00", "f09f9880"),
        ("%ud83d%ude00", "f09f9880"),
        ("%uD83D", "efbfbd"),
        ("%uDE00", "efbfbd"),
        ("%uD83D%uD83D%uDE00", "efbfbdf09f9880"),
        ("%uDE00%uD83D", "efbfbdefbfbd"),
        ("%uD83Dx%uDE00", "efbfbd78efbfbd"),
        ("%u", "2575"),
        ("%u0", "257530"),
        ("%u004", "2575303034"),
        ("%u004z", "25753030347a"),
        ("%uzzzz", "25757a7a7a7a"),
        ("%u%u0041", "257541"),
        ("%uD83D%uDE0", "efbfbd2575444530"),
        ("%uD83D%u0041", "efbfbd41"),
        ("%u002F%u0000", "2f00"),
        ("%u20AC%u20ac", "e282ace282ac"),
        ("%uFFFF%uFEFF", "efbfbfefbbbf"),
        ("%%u0041", "2541"),
        ("%u+0041", "25752b30303431"),
        ("%uD800%uDC00", "f0908080"),
        ("%uDBFF%uDFFF", "f48fbfbf"),
    ];
    let dec = Decoder::new().lenient(true).legacy_u(true);
    for &(input, hex) in cases {
        let want: Vec<u8> =
            (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect();
        assert_eq!(dec.decode(input).unwrap(), &want[..], "unescape({input:?})");
        for d in option_decoders().into_iter().filter(|d| d.is_lenient()) {
            check(d.legacy_u(true), input.as_bytes(), &[3, 7]);
        }
    }
}

#[test]
fn legacy_u() {
    use DecodeErrorKind::*;
    let dec = Decoder::new().legacy_u(true);
    agree(dec, "%u0041%u00e9%u20AC%uD83D%uDE00", ok("Aé€😀"));
    agree(dec, "%41%C3%A9+", ok("Aé+"));
    // Lone surrogates: strict errors at their `%`, lenient U+FFFD.
    agree(dec, "ab%uD83D", err(2, LoneSurrogate));
    agree(dec, "ab%uDE00%uD83D", err(2, LoneSurrogate));
    agree(dec, "%u0041%uD83D%uD83D%uDE00", err(6, LoneSurrogate));
    agree(dec, "%uD83D%uDE0", err(0, LoneSurrogate));
    agree(dec, "%uD83D%uDE0z", err(0, LoneSurrogate));
    agree(dec.lenient(true), "%uD83D%uD83D%uDE00", ok("\u{FFFD}😀"));
    agree(dec.lenient(true), "%uD83D%uDE0", ok("\u{FFFD}%uDE0"));
    // A `%u` without four hex digits is a malformed `%u` escape: truncated when only hex
    // digits follow it to the end.
    for input in ["%u", "%u0", "%u00", "%u004", "%uD83", "a%uabc", "%41%u"] {
        let at = input.rfind('%').unwrap();
        agree(dec, input, err(at, TruncatedUEscape));
    }
    for input in ["%uz", "%u004z", "%u004%u0041", "%u 041", "%u+0041", "%u-041", "%u0041%uz"] {
        let at = if input.starts_with("%u0041") { 6 } else { 0 };
        agree(dec, input, err(at, InvalidUEscape));
    }
    // `%U` is not `%u` (unescape reads a lowercase `u` only): a malformed `%`.
    agree(dec, "%U0041", err(0, InvalidEscape));
    agree(dec, "%4", err(0, TruncatedEscape));
    assert_eq!(
        dec.decode("a%u00E").unwrap_err().to_string(),
        "offset 1: truncated `%u` escape: `%u` needs four hex digits"
    );
    assert_eq!(
        dec.decode("%u00Ez").unwrap_err().to_string(),
        "offset 0: invalid `%u` escape: `%u` not followed by four hex digits"
    );
    agree(dec.lenient(true), "%U0041%u004z%u", ok("%U0041%u004z%u"));
    // Without legacy_u, `%u` is malformed.
    agree(Decoder::new(), "%u0041", err(0, InvalidEscape));
    agree(Decoder::new(), "%u", err(0, InvalidEscape));
    agree(Decoder::new().lenient(true), "%u0041", ok("%u0041"));
    // UTF-8 after and around `%u`: offsets are input offsets.
    let strict = dec.utf8(Utf8Mode::Strict);
    agree(strict, "%u00E9%FF", err(6, InvalidUtf8));
    agree(strict, "%C3%u00E9", err(0, InvalidUtf8));
    agree(strict, "%uD83D%uDE00%E2%82", err(12, InvalidUtf8));
    agree(dec.utf8(Utf8Mode::Lossy), "%C3%u00E9%E2%82", ok("\u{FFFD}é\u{FFFD}"));
    // Byte mode: nothing checks the bytes of `%HH` next to `%u`.
    agree(dec, "%C3%u00E9", Ok(b"\xC3\xC3\xA9".to_vec()));
}

#[test]
fn legacy_u_slice_and_in_place() {
    let dec = Decoder::new().legacy_u(true);
    let mut buf = [0u8; 16];
    // The UTF-8 of one escape is written whole or not at all.
    for room in 1..4 {
        let err = dec.decode_slice("a%u20AC", &mut buf[..room]).unwrap_err();
        assert_eq!((err.kind(), err.offset()), (DecodeErrorKind::BufferTooSmall, 1), "room {room}");
    }
    assert_eq!(dec.decode_slice("a%u20AC", &mut buf[..4]), Ok(4));
    assert_eq!(&buf[..4], "a€".as_bytes());
    for room in 0..4 {
        let err = dec.decode_slice("%uD83D%uDE00", &mut buf[..room]).unwrap_err();
        assert_eq!((err.kind(), err.offset()), (DecodeErrorKind::BufferTooSmall, 0), "room {room}");
    }
    let mut buf = *b"x%uD83D%uDE00%u00e9";
    let n = dec.decode_in_place(&mut buf).unwrap();
    assert_eq!(&buf[..n], "x😀é".as_bytes());
    let mut buf = *b"x%uD83Dy";
    let n = dec.lenient(true).decode_in_place(&mut buf).unwrap();
    assert_eq!(&buf[..n], "x\u{FFFD}y".as_bytes());
    let mut buf = *b"x%uD83Dy";
    let err = dec.decode_in_place(&mut buf).unwrap_err();
    assert_eq!((err.kind(), err.offset()), (DecodeErrorKind::LoneSurrogate, 1));
    // Lossy growth after a `%u` escape.
    let lossy = dec.lenient(true).utf8(Utf8Mode::Lossy);
    let mut buf = [0u8; 16];
    let err = lossy.decode_slice("%u20AC%FF%FF", &mut buf[..5]).unwrap_err();
    assert_eq!((err.kind(), err.offset()), (DecodeErrorKind::BufferTooSmall, 6));
    assert_eq!(lossy.decode_slice("%u20AC%FF%FF", &mut buf[..9]), Ok(9));
}

#[test]
fn legacy_u_streaming_holds_a_high_surrogate_back() {
    let dec = Decoder::new().legacy_u(true);
    // Up to eleven bytes wait for the next piece: the low half may still come.
    let mut stream = StreamDecoder::new(dec);
    let mut out = Vec::new();
    stream.feed(b"a%uD83D%uDE0", &mut out).unwrap();
    assert_eq!(out, b"a");
    assert_eq!(stream.fed(), 12);
    stream.feed(b"0b", &mut out).unwrap();
    stream.finish(&mut out).unwrap();
    assert_eq!(out, "a😀b".as_bytes());
    // ... and when it does not, the high half is lone: an error at finish, or U+FFFD.
    let mut stream = StreamDecoder::new(dec);
    let mut out = Vec::new();
    stream.feed(b"ab%uD83D", &mut out).unwrap();
    let err = stream.finish(&mut out).unwrap_err();
    assert_eq!((err.offset(), err.kind()), (2, DecodeErrorKind::LoneSurrogate));
    let mut stream = StreamDecoder::new(dec.lenient(true));
    let mut out = Vec::new();
    for piece in ["%uD8", "3D%u", "DE", "0", "z"] {
        stream.feed(piece.as_bytes(), &mut out).unwrap();
    }
    stream.finish(&mut out).unwrap();
    assert_eq!(out, "\u{FFFD}%uDE0z".as_bytes());
    // A truncated `%u` at the end of the stream.
    let mut stream = StreamDecoder::new(dec);
    stream.feed(b"%u00", &mut Vec::new()).unwrap();
    let err = stream.finish(&mut Vec::new()).unwrap_err();
    assert_eq!((err.offset(), err.kind()), (0, DecodeErrorKind::TruncatedUEscape));
    // Every split of a few inputs, with every option decoder.
    for input in ["%uD83D%uDE00", "x%uD83D%uDE0", "%uD83D%u002F%2F", "%u00%u0041%uDBFF%uDFFF+%C3%A9"] {
        for dec in option_decoders() {
            for a in 0..=input.len() {
                for b in a..=input.len() {
                    check(dec, input.as_bytes(), &[a, b]);
                }
            }
        }
    }
}

#[test]
fn reject() {
    use DecodeErrorKind::*;
    let slashes = Decoder::new().reject(Reject::SLASHES);
    agree(slashes, "/a/b%20c", ok("/a/b c"));
    agree(slashes, "/a%2Fb", err(2, Forbidden(b'/')));
    agree(slashes, "/a%5cb", err(2, Forbidden(b'\\')));
    // Raw bytes are copied; only what decoding produces is checked.
    agree(slashes, "\\a/", ok("\\a/"));
    // Decoded once: `%252F` is `%2F`, not `/`.
    agree(slashes, "%252F%252e", ok("%2F%2e"));
    // Lenient mode still rejects.
    agree(slashes.lenient(true), "%zz%2F", err(3, Forbidden(b'/')));
    // Via `%u` too.
    agree(slashes.legacy_u(true), "%u002f", err(0, Forbidden(b'/')));
    agree(slashes.legacy_u(true), "%u2215", ok("\u{2215}"));
    // NUL, controls, CR/LF.
    let nul = Decoder::new().reject(Reject::NUL);
    agree(nul, "a%00", err(1, Forbidden(0)));
    agree(nul, "a%01%0A\0", Ok(b"a\x01\n\0".to_vec()));
    let controls = Decoder::new().reject(Reject::CONTROLS);
    for b in (0u8..0x20).chain([0x7F]) {
        agree(controls, &format!("x%{b:02x}"), err(1, Forbidden(b)));
    }
    agree(controls, "%20%7E%80", Ok(b" ~\x80".to_vec()));
    let crlf = Decoder::new().reject(Reject::CR_LF);
    agree(crlf, "a%0d%0A", err(1, Forbidden(b'\r')));
    agree(crlf, "a%0A", err(1, Forbidden(b'\n')));
    agree(crlf, "%00%09%0B%0C%0E", Ok(b"\0\t\x0B\x0C\x0E".to_vec()));
    // Kept escapes produce no byte: keep `%2F`, reject `%5C` (AllowEncodedSlashes NoDecode).
    let no_decode = slashes.keep_encoded(Set::EMPTY.add(b'/').with_iri(true));
    agree(no_decode, "a%2fb%2F", ok("a%2fb%2F"));
    agree(no_decode, "a%2fb%5C", err(5, Forbidden(b'\\')));
    // The message names the byte.
    let e = slashes.decode("a%2Fb").unwrap_err();
    assert_eq!(e.to_string(), "offset 1: rejected byte: escape decodes to 0x2F ('/')");
    let e = nul.decode("%00").unwrap_err();
    assert_eq!(e.to_string(), "offset 0: rejected byte: escape decodes to 0x00");
}

#[test]
fn reject_flags() {
    let r = Reject::NUL | Reject::SLASHES;
    assert!(r.contains(Reject::NUL) && r.contains(Reject::SLASHES) && !r.contains(Reject::CR_LF));
    assert!(r.contains(Reject::NONE) && Reject::NONE.is_empty() && !r.is_empty());
    assert_eq!(r, Reject::SLASHES.union(Reject::NUL));
    let mut all = Reject::NONE;
    for class in [Reject::NUL, Reject::CONTROLS, Reject::CR_LF, Reject::SLASHES] {
        all |= class;
    }
    assert_eq!(all, Reject::ALL);
    assert_eq!(Reject::default(), Reject::NONE);
    assert_eq!(format!("{r:?}"), "Reject(NUL | SLASHES)");
    assert_eq!(format!("{:?}", Reject::NONE), "Reject(NONE)");
    assert_eq!(format!("{:?}", Reject::ALL), "Reject(CONTROLS | SLASHES)");
    assert_eq!(format!("{:?}", Reject::CR_LF | Reject::NUL), "Reject(NUL | CR_LF)");
    assert!(Reject::CONTROLS.contains(Reject::NUL | Reject::CR_LF) && !Reject::NUL.contains(Reject::CR_LF));
    let rejected: Vec<u8> = (0..=255).filter(|&b| Reject::ALL.rejects(b)).collect();
    let want: Vec<u8> = (0..0x20).chain([b'/', b'\\', 0x7F]).collect();
    let mut want = want;
    want.sort_unstable();
    assert_eq!(rejected, want);
    assert_eq!((0..=255).filter(|&b| Reject::CR_LF.rejects(b)).collect::<Vec<u8>>(), b"\n\r");
    assert_eq!((0..=255).filter(|&b| Reject::NUL.rejects(b)).collect::<Vec<u8>>(), b"\0");
    assert_eq!((0..=255).filter(|&b| Reject::SLASHES.rejects(b)).collect::<Vec<u8>>(), b"/\\");
    assert!((0..=255).all(|b| !Reject::NONE.rejects(b)));
    assert_eq!(Decoder::new().reject_value(), Reject::NONE);
    assert!(!Decoder::new().is_legacy_u() && Decoder::new().legacy_u(true).is_legacy_u());
}

#[test]
fn first_error_left_to_right_with_the_new_kinds() {
    use DecodeErrorKind::*;
    let dec = Decoder::URI_COMPONENT.legacy_u(true).reject(Reject::SLASHES);
    // An invalid sequence known to be invalid before the lone surrogate or the rejected
    // byte comes first; an unfinished one does not.
    agree(dec, "%C3a%2F", err(0, InvalidUtf8));
    agree(dec, "%C3%2F", err(3, Forbidden(b'/')));
    agree(dec, "%FFx%uD800", err(0, InvalidUtf8));
    agree(dec, "%C3%uD800", err(3, LoneSurrogate));
    agree(dec, "%E2%82%u002F", err(6, Forbidden(b'/')));
    // `%u` output shows a sequence to be invalid.
    agree(dec, "%C3%u00E9%2F", err(0, InvalidUtf8));
    // Whichever `%` comes first.
    agree(dec, "%2F%uD800%zz", err(0, Forbidden(b'/')));
    agree(dec, "%uD800%2F%zz", err(0, LoneSurrogate));
    agree(dec, "%zz%2F%uD800", err(0, InvalidEscape));
    agree(dec.lenient(true), "%zz%uD800%2F", err(9, Forbidden(b'/')));
    agree(dec.lenient(true), "%C3%zz%2F", err(0, InvalidUtf8));
}

#[test]
fn decoding_md_related_operations() {
    // "decodeURI-style preservation: ... keeps %2F, %3F, %23, ... exactly as written, case
    // included".
    assert_eq!(Decoder::URI.decode_to_str("%2F%3f%23%41").unwrap(), "%2F%3f%23A");
    // "Legacy %uXXXX ... turns %uHHHH into the UTF-8 of that code unit (pairing surrogates)".
    assert_eq!(Decoder::new().legacy_u(true).decode_to_str("%u00E9%uD83D%uDE00").unwrap(), "é😀");
    // "Security options for proxies: reject decoded NUL, other C0 controls, CR/LF, and / or \
    // inside a path segment; decode exactly once (%252e decodes to %2e, never to .)".
    let proxy = Decoder::new().reject(Reject::ALL);
    for (input, byte) in
        [("%00", 0), ("%1b", 0x1B), ("%0D", b'\r'), ("%0a", b'\n'), ("%2F", b'/'), ("%5C", b'\\')]
    {
        assert_eq!(proxy.decode(input).unwrap_err().kind(), DecodeErrorKind::Forbidden(byte), "{input}");
    }
    assert_eq!(proxy.decode("%252e").unwrap(), &b"%2e"[..]);
    assert_eq!(proxy.decode("%2e%2E").unwrap(), &b".."[..]);
}

#[test]
fn option_decoders_on_awkward_inputs() {
    let inputs: &[&str] = &[
        "",
        "%",
        "%u",
        "%uD83D",
        "%uD83D%",
        "%uD83D%u",
        "%uD83D%uD",
        "%uD83D%uDC",
        "%uD83D%uDC0",
        "%uD83D%uDC00",
        "%uD83D%ud",
        "%uD83D%uDB00",
        "%uD83D%D",
        "%uDC00%uD83D",
        "%u002F%2f%2F%5C%00%0D%0a%7F%1F%20",
        "%u0000%u000A%u005c",
        "%C3%u00A9%C3%A9%2F%C3",
        "a+b%2B%2b%u002B%u002b",
        "%25%2525%u0025%252F",
        "%E2%82%AC%u20AC%E2%u20AC",
        "%F0%9F%98%u0080",
        "%3B%3b%23%3F%u003F%40",
        "%7e%7E%41%u007E%C3%A9",
        "%FF%uFFFF%uD800%uDFFF%",
        "%u00e9%u00E9%U00E9%u00",
    ];
    for dec in option_decoders() {
        for input in inputs {
            for cut in [1, 4, 7] {
                check(dec, input.as_bytes(), &[cut, cut + 5]);
            }
        }
    }
}

#[test]
fn model_keeps_sources_of_multi_byte_escapes() {
    // The model maps every output byte of a `%u` or kept escape to its `%`.
    let m = model_bytes(b"a%u20AC%2Fb", Decoder::URI.legacy_u(true));
    assert_eq!(m.bytes, "a€%2Fb".as_bytes());
    assert_eq!(m.sources, [0, 1, 1, 1, 7, 7, 7, 10]);
    assert!(m.error.is_none());
}
