//! IRI sets (`Set::with_iri`, `--iri`) keep exactly RFC 3987's `ucschar` raw, less the bidi
//! formatting characters of its section 4.1, and escape every other non-ASCII character as
//! its UTF-8 `%HH`: every code point U+0000..=U+10FFFF, alone and among other characters, on
//! every backend, through every encoding API, the streams, the `io` adapters and the parallel
//! paths, against the model of `tests/common` (`iri_keeps`, written from the RFC's ranges);
//! and the validator agrees with the encoder.

mod common;

use std::io::Write;

use common::{engines_with_scalar, iri_keeps};
use pctenc::{EncodeWriter, Encoder, Set, StreamEncoder, ValidationErrorKind, sets};

/// Every Unicode scalar value, in order.
fn all_chars() -> impl Iterator<Item = char> {
    (0..=0x10FFFFu32).filter_map(char::from_u32)
}

/// The model: ASCII as `set` says (a space as `+` in a space-as-`+` set), non-ASCII characters
/// raw when the model keeps them, every other byte (invalid UTF-8 too) as `%HH`.
fn model(input: &[u8], set: &Set) -> String {
    let mut out = String::new();
    let escape = |b: u8, out: &mut String| out.push_str(&format!("%{b:02X}"));
    for chunk in input.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c == ' ' && set.space_as_plus() {
                out.push('+');
            } else if c.is_ascii() {
                if set.contains(c as u8) { escape(c as u8, &mut out) } else { out.push(c) }
            } else if iri_keeps(c) {
                out.push(c);
            } else {
                c.to_string().bytes().for_each(|b| escape(b, &mut out));
            }
        }
        chunk.invalid().iter().for_each(|&b| escape(b, &mut out));
    }
    out
}

/// The model's ranges are the RFC's, and the issue's examples fall where they should.
#[test]
fn the_model_is_rfc_3987() {
    let kept = |cp: u32| iri_keeps(char::from_u32(cp).unwrap());
    for cp in [0x80, 0x85, 0x9B, 0x9F, 0x61C, 0x200E, 0x200F, 0x202A, 0x202E, 0x2066, 0x2069, 0xE000, 0xF8FF]
    {
        assert!(!kept(cp), "U+{cp:04X}");
    }
    for cp in [0xFDD0, 0xFDEF, 0xFFFE, 0xFFFF, 0x1FFFE, 0x10FFFF, 0xF0000, 0x10FFFD, 0xE0001, 0xFFFD] {
        assert!(!kept(cp), "U+{cp:04X}");
    }
    for cp in [0xA0, 0xE9, 0x61B, 0x61D, 0x627, 0x7FF, 0x200D, 0x2010, 0x20AC, 0xD7FF, 0xF900, 0xFDCF] {
        assert!(kept(cp), "U+{cp:04X}");
    }
    for cp in [0x10000, 0x1F600, 0x1FFFD, 0x20000, 0xDFFFD, 0xE1000, 0xEFFFD] {
        assert!(kept(cp), "U+{cp:04X}");
    }
    let count = all_chars().filter(|&c| !c.is_ascii() && iri_keeps(c)).count();
    // ucschar: 0xD760 + 0x04D0 + 0x0200 code points in the BMP, 13 planes of 0xFFFE, and
    // 0xEFFFE - 0xE1000 in plane 14; less the 12 bidi controls.
    assert_eq!(count, 0xD760 + 0x04D0 + 0x0200 + 13 * 0xFFFE + (0xEFFFE - 0xE1000) - 12);
}

#[test]
fn the_issue_examples() {
    let iri = sets::PATH.with_iri(true);
    assert_eq!(pctenc::encode("a\u{9B}2Jb", &iri), "a%C2%9B2Jb");
    assert_eq!(pctenc::encode("line\u{85}", &iri), "line%C2%85");
    assert_eq!(pctenc::encode("\u{202E}txt.exe", &iri), "%E2%80%AEtxt.exe");
    // The Arabic letter mark, a bidi control too, among Arabic letters (lead byte `D8` as
    // its own), on every backend and through the validator.
    for engine in engines_with_scalar() {
        let enc = Encoder::new(iri).engine(engine);
        assert_eq!(enc.encode("\u{627}\u{61C}\u{628}"), "\u{627}%D8%9C\u{628}", "{:?}", engine.backend());
        let long = "\u{627}".repeat(40) + "\u{61C}" + &"\u{628}".repeat(40);
        let want = "\u{627}".repeat(40) + "%D8%9C" + &"\u{628}".repeat(40);
        assert_eq!(enc.encode(&long), want, "{:?}", engine.backend());
    }
    let err = pctenc::validate("\u{627}\u{61C}", &iri).unwrap_err();
    assert_eq!((err.offset(), err.kind(), err.byte()), (2, ValidationErrorKind::Unescaped, 0xD8));
    assert_eq!(pctenc::encode("caf\u{e9}/\u{1F600}", &iri), "caf\u{e9}/\u{1F600}");
    assert_eq!(
        pctenc::encode("\u{E000}\u{FDD0}\u{FFFE}\u{10FFFF}", &iri),
        "%EE%80%80%EF%B7%90%EF%BF%BE%F4%8F%BF%BF"
    );
    let err = pctenc::validate("caf\u{e9}\u{200F}", &iri).unwrap_err();
    assert_eq!((err.offset(), err.kind(), err.byte()), (5, ValidationErrorKind::Unescaped, 0xE2));
}

/// Each code point alone and in context (after ASCII, before an escaped ASCII byte, next to a
/// kept character, an escaped one and an invalid byte, repeated), every backend, every API.
#[test]
fn every_code_point_on_every_backend() {
    let sets = [sets::COMPONENT.with_iri(true), sets::FORM.with_iri(true)];
    let engines = engines_with_scalar();
    for (i, set) in sets.into_iter().enumerate() {
        // Alone: one code point per call (with one set: the other differs in ASCII only).
        let mut buf = [0u8; 16];
        for c in all_chars().filter(|_| i == 0) {
            let mut utf8 = [0u8; 4];
            let input = c.encode_utf8(&mut utf8).as_bytes();
            let want = model(input, &set);
            for &engine in &engines {
                let enc = Encoder::new(set).engine(engine);
                let n = enc.encode_slice(input, &mut buf).unwrap();
                assert_eq!(&buf[..n], want.as_bytes(), "U+{:04X} on {:?}", u32::from(c), engine.backend());
            }
            // The validator agrees: a non-ASCII character raw is valid iff the encoder keeps
            // it.
            if !c.is_ascii() {
                let raw_ok = pctenc::validate(input, &set).is_ok();
                assert_eq!(raw_ok, want.as_bytes() == input, "validate U+{:04X}", u32::from(c));
            }
            assert!(pctenc::validate(&want, &set).is_ok(), "validate the encoding of U+{:04X}", u32::from(c));
        }
        // In context, in blocks of code points: every encoding API on every backend.
        let all: Vec<char> = all_chars().collect();
        for block in all.chunks(4096) {
            let mut input = Vec::new();
            for &c in block {
                let s = c.to_string();
                input.extend_from_slice(format!("a{s} {s}\u{e9}{s}\u{85}{s}{s}").as_bytes());
                input.push(0xFF);
                input.extend_from_slice(s.as_bytes());
            }
            let want = model(&input, &set);
            for &engine in &engines {
                let enc = Encoder::new(set).engine(engine);
                let what = || format!("block from U+{:04X} on {:?}", u32::from(block[0]), engine.backend());
                assert_eq!(enc.encode(&input), want, "{}", what());
                assert_eq!(enc.encoded_len(&input), want.len(), "{}", what());
                assert_eq!(enc.lazy(&input).to_string(), want, "lazy, {}", what());
                assert!(enc.validate(&want).is_ok(), "{}", what());
                let first_bad = pctenc::validate(&input, &set).map_err(|e| e.offset());
                assert_eq!(enc.validate(&input).map_err(|e| e.offset()), first_bad, "{}", what());
            }
        }
    }
}

/// The first offset at which `input` is not a correct encoding for an IRI set that keeps
/// every printable ASCII byte but `%`: the first non-ASCII byte the model does not keep.
fn model_first_invalid(input: &[u8]) -> Option<usize> {
    let kept = common::iri_kept_bytes(input);
    (0..input.len()).find(|&i| input[i] >= 0x80 && !kept[i])
}

/// The validator reports the first character the encoder would escape, with its offset.
#[test]
fn validation_agrees_with_encoding() {
    let set = sets::C0_CONTROL.with_iri(true).add(b'%');
    let all: Vec<char> = all_chars().filter(|c| !c.is_ascii()).collect();
    for block in all.chunks(997) {
        let text: String = block.iter().collect();
        let input = format!("x{text}");
        let got = pctenc::validate(&input, &set).err().map(|e| e.offset());
        assert_eq!(got, model_first_invalid(input.as_bytes()), "from U+{:04X}", u32::from(block[0]));
        for engine in engines_with_scalar() {
            let enc = Encoder::new(set).engine(engine);
            assert_eq!(enc.validate(&input).err().map(|e| e.offset()), got, "{:?}", engine.backend());
        }
    }
}

/// Every code point split at every byte by the streams and the writer: what encoding it
/// all at once gives.
#[test]
fn streams_split_anywhere() {
    let set = sets::PATH.with_iri(true);
    let mut input = Vec::new();
    for c in all_chars().filter(|c| !c.is_ascii()) {
        let s = c.to_string();
        input.extend_from_slice(s.as_bytes());
        if u32::from(c) % 7 == 0 {
            input.push(b'/');
        }
    }
    let want = model(&input, &set);
    for enc in [Encoder::new(set), Encoder::new(set).keep_escapes(true)] {
        for piece in [1, 2, 3, 5, 4096] {
            let mut stream = StreamEncoder::new(enc);
            let mut out = Vec::new();
            for part in input.chunks(piece) {
                stream.feed(part, &mut out);
            }
            stream.finish(&mut out);
            assert_eq!(out, want.as_bytes(), "StreamEncoder, pieces of {piece}");
            let mut writer = EncodeWriter::new(enc, Vec::new());
            for part in input.chunks(piece * 997) {
                writer.write_all(part).unwrap();
            }
            assert_eq!(writer.finish().unwrap(), want.as_bytes(), "EncodeWriter, writes of {}", piece * 997);
        }
    }
}

/// The parallel paths cut chunks at character borders; each chunk keeps or escapes as the
/// serial encoder does, on every backend and pool size.
#[cfg(feature = "rayon")]
#[test]
fn parallel_paths() {
    let set = sets::COMPONENT.with_iri(true);
    let mut input = Vec::new();
    for c in all_chars().filter(|c| !c.is_ascii()) {
        input.extend_from_slice(c.to_string().as_bytes());
        input.push(if u32::from(c) % 3 == 0 { b' ' } else { b'a' });
    }
    assert!(input.len() > 4 * pctenc::PAR_ENCODE_THRESHOLD);
    let want = model(&input, &set);
    for threads in [2, 3] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            for engine in engines_with_scalar() {
                let enc = Encoder::new(set).engine(engine);
                let mut out = Vec::new();
                enc.par_encode_vec(&input, &mut out);
                assert_eq!(out, want.as_bytes(), "par_encode_vec, {threads} threads, {:?}", engine.backend());
                let mut out = Vec::new();
                enc.par_encode_to(&input, &mut out).unwrap();
                assert_eq!(out, want.as_bytes(), "par_encode_to, {threads} threads, {:?}", engine.backend());
            }
            let mut stream = StreamEncoder::new(Encoder::new(set));
            let mut out = Vec::new();
            stream.feed_to(&input, &mut out).unwrap();
            stream.finish(&mut out);
            assert_eq!(out, want.as_bytes(), "StreamEncoder::feed_to, {threads} threads");
        });
    }
}
