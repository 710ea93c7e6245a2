//! The sets, byte for byte, against the table of `SETS.md` (a copy lives in
//! `tests/data/spec/`), and the `const fn` set builders.

use pctenc::{Encoder, Set, sets};

const SETS_MD: &str = include_str!("data/spec/SETS.md");

/// What a set does with one character, as the table writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cell {
    /// `E`: written as `%XX`.
    Escaped,
    /// `·`: kept as is.
    Kept,
    /// `+`: a space written as `+`.
    Plus,
}

/// The table of `SETS.md`: the set names (columns) and, for each character (row), what each
/// set does with it.
struct Table {
    names: Vec<String>,
    rows: Vec<(u8, Vec<Cell>)>,
}

/// The text of a markdown code span cell: `` `x` ``, or ``` `` ` `` ``` for a backtick.
fn code_span(cell: &str) -> Option<&str> {
    if let Some(inner) = cell.strip_prefix("``").and_then(|c| c.strip_suffix("``")) {
        // CommonMark strips one space on each side when both are there.
        return Some(inner.strip_prefix(' ').and_then(|i| i.strip_suffix(' ')).unwrap_or(inner));
    }
    cell.strip_prefix('`').and_then(|c| c.strip_suffix('`'))
}

/// Splits a table line into its cells; `\|` is a `|` inside a cell.
fn cells(line: &str) -> Vec<String> {
    let line = line.trim().strip_prefix('|').and_then(|l| l.strip_suffix('|')).expect("table line");
    line.replace("\\|", "\u{0}").split('|').map(|c| c.trim().replace('\u{0}', "|")).collect()
}

fn table() -> Table {
    let mut lines = SETS_MD.lines().skip_while(|l| !l.starts_with("| char |"));
    let header = cells(lines.next().expect("table header"));
    assert_eq!(header[0], "char");
    let names: Vec<String> =
        header[1..].iter().map(|c| code_span(c).expect("set names are code spans").to_string()).collect();
    assert!(lines.next().unwrap().starts_with("|---"));
    let rows = lines
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let cells = cells(l);
            assert_eq!(cells.len(), names.len() + 1, "row {l}");
            let c = match cells[0].as_str() {
                "SP" => " ",
                other => code_span(other).unwrap_or(other),
            };
            assert_eq!(c.len(), 1, "one ASCII character per row: {l}");
            let row = cells[1..]
                .iter()
                .map(|v| match v.as_str() {
                    "E" => Cell::Escaped,
                    "·" => Cell::Kept,
                    "+" => Cell::Plus,
                    other => panic!("unknown cell {other:?} in {l}"),
                })
                .collect();
            (c.as_bytes()[0], row)
        })
        .collect();
    Table { names, rows }
}

/// Every constant of `pctenc::sets`, with its `SETS.md` name.
const CONSTANTS: [(&str, Set); 14] = [
    ("rfc3986", sets::RFC3986),
    ("component", sets::COMPONENT),
    ("uri", sets::URI),
    ("form", sets::FORM),
    ("fragment", sets::FRAGMENT),
    ("query", sets::QUERY),
    ("special-query", sets::SPECIAL_QUERY),
    ("path", sets::PATH),
    ("userinfo", sets::USERINFO),
    ("c0-control", sets::C0_CONTROL),
    ("python-quote", sets::PYTHON_QUOTE),
    ("python-quote-plus", sets::PYTHON_QUOTE_PLUS),
    ("go-path", sets::GO_PATH),
    ("non-alphanumeric", sets::NON_ALPHANUMERIC),
];

#[test]
fn table_shape() {
    let t = table();
    assert_eq!(t.names.len(), 14);
    // Every printable ASCII character that is not a letter or digit has exactly one row.
    let mut chars: Vec<u8> = t.rows.iter().map(|r| r.0).collect();
    chars.sort_unstable();
    let want: Vec<u8> = (b' '..=b'~').filter(|b| !b.is_ascii_alphanumeric()).collect();
    assert_eq!(chars, want);
    assert_eq!(t.rows.len(), 33);
    // The rows that are easy to misparse.
    let row = |c: u8| &t.rows.iter().find(|r| r.0 == c).unwrap().1;
    assert_eq!(row(b'|')[t.names.iter().position(|n| n == "path").unwrap()], Cell::Kept);
    assert_eq!(row(b'`')[t.names.iter().position(|n| n == "fragment").unwrap()], Cell::Escaped);
    assert_eq!(row(b'`')[t.names.iter().position(|n| n == "query").unwrap()], Cell::Kept);
    assert_eq!(row(b' ')[t.names.iter().position(|n| n == "form").unwrap()], Cell::Plus);
}

/// The expected output for one byte: `%XX`, `+` or the byte itself.
fn expected_output(b: u8, cell: Cell, lowercase: bool) -> Vec<u8> {
    match cell {
        Cell::Escaped if lowercase => format!("%{b:02x}").into_bytes(),
        Cell::Escaped => format!("%{b:02X}").into_bytes(),
        Cell::Kept => vec![b],
        Cell::Plus => b"+".to_vec(),
    }
}

#[test]
fn every_set_every_byte() {
    let t = table();
    for (col, name) in t.names.iter().enumerate() {
        let set = Set::by_name(name).unwrap_or_else(|| panic!("Set::by_name({name:?})"));
        for b in 0..=255u8 {
            let cell = if b.is_ascii_alphanumeric() {
                Cell::Kept
            } else if !(0x20..0x7F).contains(&b) {
                Cell::Escaped
            } else {
                t.rows.iter().find(|r| r.0 == b).unwrap().1[col]
            };
            let what = format!("set {name}, byte {b:#04x}");
            assert_eq!(set.contains(b), cell != Cell::Kept, "contains: {what}");
            if b == b' ' {
                assert_eq!(set.space_as_plus(), cell == Cell::Plus, "space_as_plus: {what}");
            } else {
                assert_ne!(cell, Cell::Plus, "only the space can be +");
            }
            for lowercase in [false, true] {
                let want = expected_output(b, cell, lowercase);
                let enc = Encoder::new(set).lowercase(lowercase);
                let mut got = vec![0u8; 3];
                let n = enc.encode_slice([b], &mut got).unwrap();
                assert_eq!(&got[..n], &want[..], "encode_slice: {what}, lowercase {lowercase}");
                assert_eq!(enc.encoded_len([b]), want.len(), "encoded_len: {what}");
                let mut v = Vec::new();
                enc.encode_vec([b], &mut v);
                assert_eq!(v, want, "encode_vec: {what}");
                let lazy: String = enc.lazy(&[b]).collect();
                assert_eq!(lazy.as_bytes(), &want[..], "lazy: {what}");
                assert_eq!(enc.encode(&[b]).as_bytes(), &want[..], "encode: {what}");
            }
            if cell != Cell::Kept {
                // The free functions use uppercase.
                assert_eq!(pctenc::encode(&[b], &set).as_bytes(), &expected_output(b, cell, false)[..]);
            }
        }
    }
}

#[test]
fn letters_and_digits_kept_controls_and_high_bytes_escaped() {
    for named in sets::NAMED {
        let set = named.set;
        for b in 0..=255u8 {
            if b.is_ascii_alphanumeric() {
                assert!(!set.contains(b), "{} keeps {b:#04x}", named.name);
                assert_eq!(pctenc::encode(&[b], &set).as_bytes(), [b]);
            }
            if b < 0x20 || b == 0x7F || b >= 0x80 {
                assert!(set.contains(b), "{} escapes {b:#04x}", named.name);
                assert_eq!(pctenc::encode(&[b], &set), format!("%{b:02X}"));
            }
        }
    }
}

#[test]
fn constants_equal_by_name() {
    let t = table();
    let names: Vec<&str> = CONSTANTS.iter().map(|c| c.0).collect();
    assert_eq!(names, t.names, "the constants cover the table's sets, in its order");
    for (name, set) in CONSTANTS {
        assert_eq!(Set::by_name(name), Some(set), "{name}");
        // Case and `_`/`-` do not matter.
        assert_eq!(Set::by_name(&name.to_uppercase()), Some(set), "{name}");
        assert_eq!(Set::by_name(&name.replace('-', "_")), Some(set), "{name}");
    }
    // `NAMED` lists them in the order of SETS.md, with their names.
    let named: Vec<&str> = sets::NAMED.iter().map(|n| n.name).collect();
    assert_eq!(named, names);
    for (n, (_, set)) in sets::NAMED.iter().zip(CONSTANTS) {
        assert_eq!(n.set, set, "{}", n.name);
        assert!(!n.description.is_empty());
        for alias in n.aliases {
            assert_eq!(Set::by_name(alias), Some(set), "alias {alias}");
        }
    }
    assert_eq!(Set::by_name("nope"), None);
    assert_eq!(Set::by_name(""), None);
    assert_eq!(Set::by_name("component "), None);
    assert_eq!(Set::by_name("rfc398"), None);
}

#[test]
fn aliases_of_sets_md_resolve() {
    // "(aliases are fine: `uri-component` for `component`, `go-query` for ...)"
    let text = SETS_MD.split_whitespace().collect::<Vec<_>>().join(" ");
    let start = text.find("aliases are fine:").expect("the aliases sentence") + "aliases are fine:".len();
    let list = &text[start..start + text[start..].find(')').unwrap()];
    let mut count = 0;
    for pair in list.split(',') {
        let (alias, name) = pair.split_once(" for ").unwrap_or_else(|| panic!("alias pair {pair:?}"));
        let (alias, name) = (code_span(alias.trim()).unwrap(), code_span(name.trim()).unwrap());
        let set = Set::by_name(name).unwrap_or_else(|| panic!("{name}"));
        assert_eq!(Set::by_name(alias), Some(set), "alias {alias} for {name}");
        count += 1;
    }
    assert_eq!(count, 4);
    assert_eq!(Set::by_name("uri-component"), Some(sets::COMPONENT));
    assert_eq!(Set::by_name("go-query"), Some(sets::PYTHON_QUOTE_PLUS));
    assert_eq!(Set::by_name("unreserved"), Some(sets::RFC3986));
    assert_eq!(Set::by_name("controls"), Some(sets::C0_CONTROL));
}

#[test]
fn keeps_lines_agree_with_keeping() {
    let t = table();
    let mut seen = Vec::new();
    for line in SETS_MD.lines() {
        let Some(rest) = line.strip_prefix("- `") else { continue };
        let Some((name, rest)) = rest.split_once("`: keeps letters, digits and ") else { continue };
        // The kept characters are one code span; the line goes on with ` — ...` and, for
        // the plus sets, ` ; space becomes `+``. A backtick can be inside (`query`), so take
        // everything up to where the span is followed by one of those.
        let end = [" ; ", " — "].iter().filter_map(|sep| rest.find(sep)).min().expect("end of the span");
        let span = &rest[..end];
        let kept = span.strip_prefix('`').and_then(|s| s.strip_suffix('`')).expect("a code span");
        let plus = rest[end..].starts_with(" ; space becomes `+`");
        let set = Set::by_name(name).unwrap_or_else(|| panic!("{name}"));
        assert_eq!(Set::keeping(kept.as_bytes()).with_space_as_plus(plus), set, "{name}: keeps {kept:?}");
        // The same characters as the `·` cells of the table, and as `kept_punctuation`.
        let col = t.names.iter().position(|n| n == name).unwrap();
        let from_table: Vec<u8> = t.rows.iter().filter(|r| r.1[col] == Cell::Kept).map(|r| r.0).collect();
        let mut from_line = kept.as_bytes().to_vec();
        from_line.sort_unstable();
        let mut from_table_sorted = from_table.clone();
        from_table_sorted.sort_unstable();
        assert_eq!(from_line, from_table_sorted, "{name}: the line and the table agree");
        assert_eq!(set.kept_punctuation().collect::<Vec<u8>>(), from_line, "{name}: kept_punctuation");
        let plus_in_table = t.rows.iter().any(|r| r.1[col] == Cell::Plus);
        assert_eq!(plus, plus_in_table, "{name}: space as +");
        seen.push(name.to_string());
    }
    assert_eq!(seen, t.names, "one keeps line per set");
}

#[test]
fn contains_every_high_byte() {
    let mut all: Vec<Set> = CONSTANTS.iter().map(|c| c.1).collect();
    all.extend([Set::EMPTY, Set::ALL, Set::keeping(b"\x80\xFF"), Set::ALL.complement()]);
    for set in all {
        for iri in [false, true] {
            let s = set.with_iri(iri);
            assert_eq!(s.is_iri(), iri);
            for b in 0x80..=0xFFu8 {
                assert_eq!(s.contains(b), !iri, "{s:?} byte {b:#04x}");
                // add/remove change nothing for these bytes.
                assert_eq!(s.add(b), s);
                assert_eq!(s.remove(b), s);
            }
            // IRI changes nothing below 0x80.
            for b in 0..0x80u8 {
                assert_eq!(s.contains(b), set.contains(b));
            }
        }
    }
}

// Sets built at compile time: every builder is a `const fn`.
const PATH_KEEP_SLASH: Set = sets::RFC3986.remove(b'/');
const SPACES_ONLY: Set = Set::EMPTY.add(b' ');
const VOWELS_ONLY: Set = Set::EMPTY.add(b'a').add(b'e').add(b'i').add(b'o').add(b'u').complement();
const PATH_AND_SLASH: Set = sets::PATH.union(Set::EMPTY.add(b'/'));
const RFC_PLUS: Set = sets::RFC3986.with_space_as_plus(true);
const IRI: Set = sets::COMPONENT.with_iri(true);
const CUSTOM: Set = Set::keeping(b"-_.~!$");
const BITS: u128 = sets::NON_ALPHANUMERIC.ascii_bits();
// Checked when compiling: `contains`, `space_as_plus` and `is_iri` are `const fn`s too.
const _: () = assert!(sets::COMPONENT.contains(b'&') && !sets::COMPONENT.contains(b'!'));
const _: () = assert!(sets::FORM.space_as_plus() && IRI.is_iri() && !sets::FORM.is_iri());

#[test]
fn const_builders() {
    assert_eq!(pctenc::encode("a b/c", &PATH_KEEP_SLASH), "a%20b/c");
    assert_eq!(Set::keeping(b"-._~/"), PATH_KEEP_SLASH);
    assert_eq!(pctenc::encode("a b&c", &SPACES_ONLY), "a%20b&c");
    assert_eq!(pctenc::encode("iou, aye!", &VOWELS_ONLY), "iou%2C%20a%79e%21");
    assert_eq!(pctenc::encode("a/b c", &PATH_AND_SLASH), "a%2Fb%20c");
    assert_eq!(pctenc::encode("a b+c", &RFC_PLUS), "a+b%2Bc");
    assert_eq!(RFC_PLUS, sets::PYTHON_QUOTE_PLUS);
    assert_eq!(pctenc::encode("café au lait", &IRI), "café%20au%20lait");
    assert_eq!(pctenc::encode("a-b_c.d~e!f$g'h", &CUSTOM), "a-b_c.d~e!f$g%27h");
    for b in 0..128u8 {
        assert_eq!(BITS >> b & 1 == 1, !b.is_ascii_alphanumeric());
    }
}

#[test]
fn add_remove_union_complement() {
    for (name, set) in CONSTANTS {
        for b in 0..128u8 {
            assert!(set.add(b).contains(b), "{name} add {b}");
            assert!(!set.remove(b).contains(b), "{name} remove {b}");
            // Nothing else changes.
            for other in (0..=255u8).filter(|&o| o != b) {
                assert_eq!(set.add(b).contains(other), set.contains(other));
                assert_eq!(set.remove(b).contains(other), set.contains(other));
            }
            assert_eq!(set.add(b).ascii_bits(), set.ascii_bits() | 1 << b);
            assert_eq!(set.remove(b).ascii_bits(), set.ascii_bits() & !(1 << b));
        }
        // complement flips exactly the ASCII bytes; the rules stay.
        let c = set.complement();
        for b in 0..=255u8 {
            let want = if b < 128 { !set.contains(b) } else { set.contains(b) };
            assert_eq!(c.contains(b), want, "{name} complement {b}");
        }
        assert_eq!(c.complement(), set);
        assert_eq!(c.is_iri(), set.is_iri());
        // union: what either escapes.
        for (other_name, other) in CONSTANTS {
            let u = set.union(other);
            for b in 0..=255u8 {
                assert_eq!(u.contains(b), set.contains(b) || other.contains(b), "{name} | {other_name}");
            }
            assert_eq!(u.space_as_plus(), set.space_as_plus(), "rules of self: {name} | {other_name}");
        }
        assert_eq!(set.union(Set::EMPTY), set);
        assert_eq!(set.union(Set::ALL).ascii_bits(), u128::MAX);
    }
    assert_eq!(Set::ALL.complement(), Set::EMPTY);
    assert_eq!(Set::EMPTY.complement(), Set::ALL);
    assert_eq!(Set::EMPTY.ascii_bits(), 0);
    assert_eq!(Set::ALL.ascii_bits(), u128::MAX);
    assert_eq!(pctenc::encode("ab", &Set::ALL), "%61%62");
    assert_eq!(pctenc::encode("a b\u{e9}", &Set::EMPTY), "a b%C3%A9");
    assert_eq!(Set::default(), sets::RFC3986);
}

#[test]
fn keeping_builds_from_letters_and_digits() {
    assert_eq!(Set::keeping(b""), sets::NON_ALPHANUMERIC);
    assert_eq!(Set::keeping(b"!'()*-._~"), sets::COMPONENT);
    // Order and repeats do not matter; bytes >= 0x80 are ignored.
    assert_eq!(Set::keeping(b"~~._-\x80\xFF"), sets::RFC3986);
    // Letters and digits in `keep` change nothing.
    assert_eq!(Set::keeping(b"aZ09-._~"), sets::RFC3986);
    let set = Set::keeping(b"\t");
    assert!(!set.contains(b'\t'));
    assert!(set.contains(b'\n'));
}

#[test]
fn space_as_plus_rules() {
    let set = sets::NON_ALPHANUMERIC.with_space_as_plus(true);
    assert!(set.space_as_plus() && set.contains(b' '));
    assert_eq!(pctenc::encode("a b", &set), "a+b");
    // Turning it off writes %20 again.
    let off = sets::FORM.with_space_as_plus(false);
    assert!(!off.space_as_plus() && off.contains(b' '));
    assert_eq!(pctenc::encode("a b", &off), "a%20b");
    // Turning it on makes a set that kept the space escape it.
    let c0 = sets::C0_CONTROL.with_space_as_plus(true);
    assert!(c0.contains(b' ') && c0.space_as_plus());
    assert_eq!(pctenc::encode("a b", &c0), "a+b");
    assert_eq!(pctenc::encode("a b", &sets::C0_CONTROL), "a b");
    // A plus set that no longer escapes the space keeps it.
    let kept = sets::FORM.remove(b' ');
    assert!(!kept.space_as_plus());
    assert_eq!(pctenc::encode("a b", &kept), "a b");
    // `+` itself is escaped by the predefined plus sets.
    assert_eq!(pctenc::encode("a+b c", &sets::FORM), "a%2Bb+c");
    assert_eq!(pctenc::encode("a+b c", &sets::PYTHON_QUOTE_PLUS), "a%2Bb+c");
    // Lowercase changes the escapes only.
    assert_eq!(Encoder::new(sets::FORM).lowercase(true).encode("a b~"), "a+b%7e");
}

#[test]
fn iri_sets() {
    let iri = sets::COMPONENT.with_iri(true);
    assert!(iri.is_iri() && !sets::COMPONENT.is_iri());
    assert!(!iri.contains(0xE9));
    assert_eq!(pctenc::encode("café au lait", &iri), "café%20au%20lait");
    assert_eq!(pctenc::encode(b"caf\xE9", &iri), "caf%E9");
    assert_eq!(iri.with_iri(false), sets::COMPONENT);
    // The rules survive the other builders.
    assert!(iri.add(b'a').is_iri() && iri.remove(b'&').is_iri() && iri.complement().is_iri());
    assert!(iri.union(sets::FORM).is_iri());
    assert!(!sets::FORM.union(iri).is_iri());
    assert!(iri.with_space_as_plus(true).is_iri());
    assert!(sets::FORM.with_iri(true).space_as_plus());
}

#[test]
fn lowercase_encoder() {
    for (name, set) in CONSTANTS {
        let upper = Encoder::new(set);
        let lower = Encoder::new(set).lowercase(true);
        assert_eq!(*lower.set(), set);
        let all: Vec<u8> = (0..=255u8).collect();
        let u = upper.encode(&all).into_owned();
        let l = lower.encode(&all).into_owned();
        // Same output but for the case of hex digits inside escapes.
        let mut want = String::new();
        let mut rest = u.as_str();
        while let Some(i) = rest.find('%') {
            want.push_str(&rest[..i]);
            want.push_str(&rest[i..i + 3].to_lowercase());
            rest = &rest[i + 3..];
        }
        want.push_str(rest);
        assert_eq!(l, want, "{name}");
        assert_ne!(l, u, "{name}: every set escapes something with a letter digit");
        assert_eq!(lower.encoded_len(&all), upper.encoded_len(&all));
    }
    assert_eq!(Encoder::new(sets::COMPONENT).lowercase(true).encode("é/"), "%c3%a9%2f");
    assert_eq!(Encoder::new(sets::COMPONENT).lowercase(true).lowercase(false).encode("é"), "%C3%A9");
    assert_eq!(pctenc::percent_encode(b"\xAB", &sets::COMPONENT).to_string(), "%AB");
    assert_eq!(Encoder::new(sets::COMPONENT).lowercase(true).lazy(b"\xAB").to_string(), "%ab");
}

#[test]
fn debug_names_what_is_kept() {
    let s = format!("{:?}", sets::RFC3986);
    assert!(s.contains("-.0123456789"), "{s}");
    assert!(s.contains("space_as_plus: false") && s.contains("iri: false"), "{s}");
    let s = format!("{:?}", sets::FORM);
    assert!(s.contains("space_as_plus: true"), "{s}");
}
