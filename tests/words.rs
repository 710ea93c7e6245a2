//! The option words of docs/WORDS.md on hostile inputs, as every surface runs them: the cases
//! of `tests/data/words-cases.tsv` (decoders) and `tests/data/words-encode-cases.tsv`
//! (encoders), written by `scripts/words-check.py --regen` through the CLI (the script checks
//! C, nginx, Python and the page against the same files, and pctenc-datafusion's tests SQL),
//! through the core's parser.

use pctenc::{Decoder, Encoder};

fn hex(text: &str) -> Vec<u8> {
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap()).collect()
}

#[test]
fn the_cases_of_every_surface() {
    let text = include_str!("data/words-cases.tsv");
    let mut n = 0;
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let fields: Vec<&str> = line.split('\t').collect();
        let [words, input, want] = fields[..] else { panic!("bad line {line:?}") };
        let dec: Decoder = words.parse().unwrap_or_else(|e| panic!("{words:?}: {e}"));
        let got = match dec.decode(&hex(input)) {
            Ok(out) => format!("ok:{}", out.iter().map(|b| format!("{b:02x}")).collect::<String>()),
            Err(e) => format!("err:{}", e.offset()),
        };
        assert_eq!(got, want, "{words:?} on {input}");
        n += 1;
    }
    assert!(n > 600, "{n} cases");
}

#[test]
fn the_encoding_cases_of_every_surface() {
    let text = include_str!("data/words-encode-cases.tsv");
    let mut n = 0;
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let fields: Vec<&str> = line.split('\t').collect();
        let [words, input, want] = fields[..] else { panic!("bad line {line:?}") };
        let enc: Encoder = words.parse().unwrap_or_else(|e| panic!("{words:?}: {e}"));
        let input_bytes = hex(input);
        let got = enc.encode(&input_bytes);
        assert_eq!(got.as_bytes(), &hex(want)[..], "{words:?} on {input}");
        n += 1;
    }
    assert!(n > 150, "{n} cases");
}
