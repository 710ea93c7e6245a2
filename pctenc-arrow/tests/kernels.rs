//! The kernels against the core's `Encoder`/`Decoder`, row by row: every array kind, random
//! nulls, sliced arrays, empty arrays, arrays over the parallel threshold; and the row
//! boundaries, which no escape or UTF-8 sequence may cross.

use std::sync::Arc;

use arrow_array::{
    Array, ArrayRef, BinaryArray, BinaryViewArray, BooleanArray, LargeBinaryArray, LargeStringArray,
    StringArray, StringViewArray,
};
use arrow_schema::DataType;
use pctenc::{Decoder, Encoder, Set, Utf8Mode, sets};
use pctenc_arrow as kernels;
use proptest::prelude::*;

const KINDS: [DataType; 6] = [
    DataType::Utf8,
    DataType::LargeUtf8,
    DataType::Utf8View,
    DataType::Binary,
    DataType::LargeBinary,
    DataType::BinaryView,
];

fn is_utf8(kind: &DataType) -> bool {
    matches!(kind, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
}

/// An array of `kind` holding `rows` (string kinds: each row must be UTF-8).
fn array(kind: &DataType, rows: &[Option<Vec<u8>>]) -> ArrayRef {
    let strs = || -> Vec<Option<&str>> {
        rows.iter().map(|r| r.as_deref().map(|b| std::str::from_utf8(b).expect("UTF-8 row"))).collect()
    };
    let bins = || -> Vec<Option<&[u8]>> { rows.iter().map(|r| r.as_deref()).collect() };
    match kind {
        DataType::Utf8 => Arc::new(StringArray::from(strs())),
        DataType::LargeUtf8 => Arc::new(LargeStringArray::from(strs())),
        DataType::Utf8View => Arc::new(StringViewArray::from(strs())),
        DataType::Binary => Arc::new(BinaryArray::from(bins())),
        DataType::LargeBinary => Arc::new(LargeBinaryArray::from(bins())),
        DataType::BinaryView => Arc::new(BinaryViewArray::from(bins())),
        _ => unreachable!(),
    }
}

/// The rows of an array of any of the six kinds, as bytes.
fn rows_of(a: &dyn Array) -> Vec<Option<Vec<u8>>> {
    macro_rules! rows {
        ($t:ty) => {{
            let a = a.as_any().downcast_ref::<$t>().unwrap();
            (0..a.len())
                .map(|i| {
                    let v: &[u8] = a.value(i).as_ref();
                    a.is_valid(i).then(|| v.to_vec())
                })
                .collect()
        }};
    }
    match a.data_type() {
        DataType::Utf8 => rows!(StringArray),
        DataType::LargeUtf8 => rows!(LargeStringArray),
        DataType::Utf8View => rows!(StringViewArray),
        DataType::Binary => rows!(BinaryArray),
        DataType::LargeBinary => rows!(LargeBinaryArray),
        DataType::BinaryView => rows!(BinaryViewArray),
        other => panic!("{other}"),
    }
}

/// The array of `kind` holding `rows`, sliced so that it starts `skip` rows into a larger
/// array whose other rows are junk (non-zero offset, values outside the slice).
fn sliced(kind: &DataType, rows: &[Option<Vec<u8>>], skip: usize) -> ArrayRef {
    let junk = |i: usize| Some(format!("%{i}j%zz é").into_bytes());
    let mut all: Vec<Option<Vec<u8>>> = (0..skip).map(junk).collect();
    all.extend_from_slice(rows);
    all.extend((0..3).map(junk));
    array(kind, &all).slice(skip, rows.len())
}

fn expect_encode(enc: &Encoder, rows: &[Option<Vec<u8>>]) -> Vec<Option<Vec<u8>>> {
    rows.iter().map(|r| r.as_ref().map(|b| enc.encode(b).into_owned().into_bytes())).collect()
}

/// What the kernels' decode gives for each row, by the core's decoder: `Err(offset)` for a
/// failing row.
fn expect_decode(
    dec: &Decoder,
    kind: &DataType,
    rows: &[Option<Vec<u8>>],
) -> Vec<Option<Result<Vec<u8>, usize>>> {
    let dec =
        if is_utf8(kind) && dec.utf8_value() == Utf8Mode::Bytes { dec.utf8(Utf8Mode::Strict) } else { *dec };
    rows.iter()
        .map(|r| r.as_ref().map(|b| dec.decode(b).map(|c| c.into_owned()).map_err(|e| e.offset())))
        .collect()
}

fn check_decode(dec: &Decoder, kind: &DataType, input: &dyn Array, rows: &[Option<Vec<u8>>]) {
    let want = expect_decode(dec, kind, rows);
    let got = kernels::decode(input, dec);
    match want.iter().position(|w| matches!(w, Some(Err(_)))) {
        Some(row) => {
            let err = got.expect_err("a row fails");
            let Some(Err(offset)) = want[row] else { unreachable!() };
            assert_eq!((err.row(), err.offset()), (Some(row), Some(offset)), "{err}");
        }
        None => {
            let got = got.expect("no row fails");
            assert_eq!(got.data_type(), kind);
            let want: Vec<_> = want.into_iter().map(|w| w.map(|r| r.unwrap())).collect();
            assert_eq!(rows_of(got.as_ref()), want);
        }
    }
    // try_decode: null for the failing rows, the rest decoded.
    let tried = kernels::try_decode(input, dec).expect("try_decode does not fail on content");
    assert_eq!(tried.data_type(), kind);
    let want: Vec<_> = expect_decode(dec, kind, rows).into_iter().map(|w| w.and_then(|r| r.ok())).collect();
    assert_eq!(rows_of(tried.as_ref()), want);
}

fn named_set() -> impl Strategy<Value = Set> {
    (0..sets::NAMED.len()).prop_map(|i| sets::NAMED[i].set)
}

fn encoder() -> impl Strategy<Value = Encoder> {
    (named_set(), any::<bool>(), any::<bool>(), any::<bool>()).prop_map(|(set, lower, keep, iri)| {
        Encoder::new(set.with_iri(iri)).lowercase(lower).keep_escapes(keep)
    })
}

fn decoder() -> impl Strategy<Value = Decoder> {
    (any::<bool>(), any::<bool>(), 0..3u8).prop_map(|(lenient, plus, utf8)| {
        let mode = [Utf8Mode::Bytes, Utf8Mode::Strict, Utf8Mode::Lossy][usize::from(utf8)];
        Decoder::new().lenient(lenient).plus_as_space(plus).utf8(mode)
    })
}

/// Bytes rich in escapes, `%` near the ends, `+`, and UTF-8 (valid or not).
fn row_bytes(utf8: bool) -> BoxedStrategy<Vec<u8>> {
    let piece = prop_oneof![
        Just(b"%".to_vec()),
        Just(b"%4".to_vec()),
        Just(b"%41".to_vec()),
        Just(b"%c3%a9".to_vec()),
        Just(b"%C3".to_vec()),
        Just(b"%A9".to_vec()),
        Just(b"%zz".to_vec()),
        Just(b"+".to_vec()),
        Just(b" ".to_vec()),
        Just("é".as_bytes().to_vec()),
        Just("😀".as_bytes().to_vec()),
        "[a-zA-Z0-9/._~*-]{1,8}".prop_map(String::into_bytes),
        prop::collection::vec(any::<u8>(), 1..4),
    ];
    let row = prop::collection::vec(piece, 0..6).prop_map(|p| p.concat());
    if utf8 {
        row.prop_map(|b| String::from_utf8_lossy(&b).into_owned().into_bytes()).boxed()
    } else {
        row.boxed()
    }
}

fn rows(utf8: bool, max: usize) -> impl Strategy<Value = Vec<Option<Vec<u8>>>> {
    prop::collection::vec(prop::option::weighted(0.8, row_bytes(utf8)), 0..max)
}

fn kind() -> impl Strategy<Value = DataType> {
    (0..KINDS.len()).prop_map(|i| KINDS[i].clone())
}

fn kind_and_rows(max: usize) -> impl Strategy<Value = (DataType, Vec<Option<Vec<u8>>>)> {
    kind().prop_flat_map(move |k| {
        let utf8 = is_utf8(&k);
        (Just(k), rows(utf8, max))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn encode_agrees_with_the_core((kind, rows) in kind_and_rows(24), enc in encoder(), skip in 0..3usize) {
        let input = sliced(&kind, &rows, skip);
        let got = kernels::encode(input.as_ref(), &enc).unwrap();
        prop_assert_eq!(got.data_type(), &kind);
        prop_assert_eq!(rows_of(got.as_ref()), expect_encode(&enc, &rows));
    }

    #[test]
    fn decode_agrees_with_the_core((kind, rows) in kind_and_rows(24), dec in decoder(), skip in 0..3usize) {
        let input = sliced(&kind, &rows, skip);
        check_decode(&dec, &kind, input.as_ref(), &rows);
    }

    #[test]
    fn validate_and_normalize_agree_with_the_core((kind, rows) in kind_and_rows(24), set in named_set(), skip in 0..3usize) {
        let input = sliced(&kind, &rows, skip);
        let enc = Encoder::new(set);
        let valid = kernels::validate(input.as_ref(), &enc).unwrap();
        let want: Vec<Option<bool>> = rows.iter().map(|r| r.as_ref().map(|b| enc.validate(b).is_ok())).collect();
        prop_assert_eq!(valid.iter().collect::<Vec<_>>(), want);
        let norm = kernels::normalize(input.as_ref()).unwrap();
        prop_assert_eq!(norm.data_type(), &kind);
        let want: Vec<_> = rows.iter().map(|r| r.as_ref().map(|b| pctenc::normalize(b).into_owned())).collect();
        prop_assert_eq!(rows_of(norm.as_ref()), want);
    }

    /// Arbitrary bytes through every decoding kernel of a `BinaryArray`: no panic, and an
    /// error names a row and an offset inside it.
    #[test]
    fn arbitrary_binary_never_panics(rows in prop::collection::vec(prop::option::of(prop::collection::vec(any::<u8>(), 0..40)), 0..16), dec in decoder()) {
        let input = array(&DataType::Binary, &rows);
        for result in [kernels::decode(input.as_ref(), &dec), kernels::url_decode(input.as_ref())] {
            if let Err(e) = result {
                let row = e.row().expect("a row");
                let len = rows[row].as_ref().expect("a non-null row").len();
                prop_assert!(e.offset().expect("an offset") < len.max(1));
            }
        }
        kernels::try_decode(input.as_ref(), &dec).unwrap();
        kernels::try_url_decode(input.as_ref()).unwrap();
        kernels::normalize(input.as_ref()).unwrap();
        kernels::validate(input.as_ref(), &Encoder::new(sets::COMPONENT)).unwrap();
    }
}

/// Large arrays, over the parallel threshold (and cut into chunks), every kind.
#[test]
fn arrays_over_the_parallel_threshold() {
    let mut rows = Vec::new();
    let mut i = 0u32;
    let mut bytes = 0;
    while bytes < 3 * kernels::PAR_THRESHOLD {
        let row = match i % 7 {
            0 => None,
            1 => Some(format!("/r%C3%A9sum%C3%A9/{i}?q=a+b&x=%41").into_bytes()),
            2 => Some(format!("caf\u{e9} {i} 😀 100%").into_bytes()),
            3 => Some(Vec::new()),
            4 => Some(format!("%{:02X}%", i % 256).into_bytes()),
            _ => Some(format!("/static/{i}/app.js?v={}", i * 31).into_bytes()),
        };
        bytes += row.as_ref().map_or(0, Vec::len);
        rows.push(row);
        i += 1;
    }
    // A row that fails strict decoding near the end, to check the row number across chunks.
    let bad = rows.len() - 5;
    rows[bad] = Some(b"ok%zz".to_vec());
    for kind in &KINDS {
        let input = sliced(kind, &rows, 1);
        for enc in [Encoder::new(sets::COMPONENT), Encoder::new(sets::PATH.with_iri(true)).keep_escapes(true)]
        {
            let got = kernels::encode(input.as_ref(), &enc).unwrap();
            assert_eq!(rows_of(got.as_ref()), expect_encode(&enc, &rows), "{kind} {enc:?}");
        }
        for dec in [Decoder::new(), Decoder::new().lenient(true).plus_as_space(true).utf8(Utf8Mode::Lossy)] {
            check_decode(&dec, kind, input.as_ref(), &rows);
        }
        let err = kernels::decode(input.as_ref(), &Decoder::new().lenient(false)).unwrap_err();
        // Rows of `%` at the end (`i % 7 == 4`) fail before `bad`: the first failing row.
        let first =
            rows.iter().position(|r| r.as_ref().is_some_and(|b| Decoder::new().decode(b).is_err())).unwrap();
        assert_eq!(err.row(), Some(first));
    }
}

#[test]
fn empty_arrays() {
    for kind in &KINDS {
        let input = array(kind, &[]);
        assert_eq!(kernels::encode(input.as_ref(), &Encoder::new(sets::FORM)).unwrap().len(), 0);
        assert_eq!(kernels::decode(input.as_ref(), &Decoder::new()).unwrap().len(), 0);
        assert_eq!(kernels::url_decode(input.as_ref()).unwrap().data_type(), kind);
        let sliced = array(kind, &[Some(b"a".to_vec())]).slice(1, 0);
        assert_eq!(kernels::normalize(sliced.as_ref()).unwrap().len(), 0);
    }
}

/// A `%` at the end of a row never takes the next row's bytes as its hex digits.
#[test]
fn an_escape_never_spans_two_rows() {
    let rows = vec![Some(b"a%".to_vec()), Some(b"41".to_vec()), Some(b"%4".to_vec()), Some(b"1b".to_vec())];
    for kind in &KINDS {
        let input = array(kind, &rows);
        // Strict: the first row's `%` is truncated where its row ends.
        let err = kernels::decode(input.as_ref(), &Decoder::new()).unwrap_err();
        assert_eq!((err.row(), err.offset()), (Some(0), Some(1)), "{kind}");
        // Lenient: the `%`s are copied, nothing is combined.
        let got = kernels::decode(input.as_ref(), &Decoder::new().lenient(true)).unwrap();
        assert_eq!(rows_of(got.as_ref()), rows, "{kind}");
        // Spark: the same error, the row and the `%`'s offset; try_ gives null for both.
        let err = kernels::url_decode(input.as_ref()).unwrap_err();
        assert_eq!((err.row(), err.offset()), (Some(0), Some(1)), "{kind}");
        let tried = kernels::try_url_decode(input.as_ref()).unwrap();
        assert_eq!(rows_of(tried.as_ref()), vec![None, Some(b"41".to_vec()), None, Some(b"1b".to_vec())]);
        // Re-quoting: a `%` that starts no escape in its row is `%25`, whatever follows.
        let enc = Encoder::new(sets::COMPONENT).keep_escapes(true);
        let got = kernels::encode(input.as_ref(), &enc).unwrap();
        assert_eq!(
            rows_of(got.as_ref()),
            vec![Some(b"a%25".to_vec()), Some(b"41".to_vec()), Some(b"%254".to_vec()), Some(b"1b".to_vec())]
        );
    }
}

/// A UTF-8 sequence cut between two rows is two invalid rows, not one character.
#[test]
fn a_utf8_sequence_never_spans_two_rows() {
    let rows = vec![Some(b"\xC3".to_vec()), Some(b"\xA9".to_vec())];
    for kind in [DataType::Binary, DataType::LargeBinary, DataType::BinaryView] {
        let input = array(&kind, &rows);
        // An IRI set keeps valid non-ASCII UTF-8 as it is; each half alone is escaped.
        let got = kernels::encode(input.as_ref(), &Encoder::new(sets::COMPONENT.with_iri(true))).unwrap();
        assert_eq!(rows_of(got.as_ref()), vec![Some(b"%C3".to_vec()), Some(b"%A9".to_vec())]);
        // Decoding with strict UTF-8: the first row fails alone.
        let esc = array(&kind, &[Some(b"%C3".to_vec()), Some(b"%A9".to_vec())]);
        let err = kernels::decode(esc.as_ref(), &Decoder::new().utf8(Utf8Mode::Strict)).unwrap_err();
        assert_eq!((err.row(), err.offset()), (Some(0), Some(0)));
        let lossy = kernels::decode(esc.as_ref(), &Decoder::new().utf8(Utf8Mode::Lossy)).unwrap();
        let repl = "\u{FFFD}".as_bytes().to_vec();
        assert_eq!(rows_of(lossy.as_ref()), vec![Some(repl.clone()), Some(repl)]);
    }
}

/// Nulls stay null; the output of a string kind is a string kind; validate gives booleans.
#[test]
fn nulls_and_kinds() {
    let rows = vec![None, Some(b"a b".to_vec()), None, Some(Vec::new())];
    for kind in &KINDS {
        let input = array(kind, &rows);
        let got = kernels::url_encode(input.as_ref()).unwrap();
        assert_eq!(got.data_type(), kind);
        assert_eq!(rows_of(got.as_ref()), vec![None, Some(b"a+b".to_vec()), None, Some(Vec::new())]);
        let valid: BooleanArray = kernels::validate(input.as_ref(), &Encoder::new(sets::FORM)).unwrap();
        assert_eq!(valid.iter().collect::<Vec<_>>(), vec![None, Some(false), None, Some(true)]);
    }
    let err =
        kernels::encode(&arrow_array::Int32Array::from(vec![1]), &Encoder::new(sets::FORM)).unwrap_err();
    assert!(err.to_string().contains("expected a string or binary array"), "{err}");
}

/// What an array holds under a null is unspecified: bytes there (a `%` that starts no escape,
/// non-ASCII text, a lone `%` at the end) change no valid row, fail nothing, and stay null,
/// for plain encoding (which encodes the values buffer whole, null rows included) and for
/// the row-by-row kernels.
#[test]
fn values_under_nulls() {
    use arrow_buffer::{NullBuffer, OffsetBuffer};
    let values = "a b%zzé/x?%".as_bytes();
    // Rows: "a b", null over "%zz", "é/x?", null over "%".
    let offsets = OffsetBuffer::<i32>::new(vec![0, 3, 6, 11, 12].into());
    let nulls = NullBuffer::from(vec![true, false, true, false]);
    let want = [Some(&b"a b"[..]), None, Some("é/x?".as_bytes()), None];
    let strings = StringArray::try_new(offsets.clone(), values.to_vec().into(), Some(nulls.clone())).unwrap();
    let binary = BinaryArray::try_new(offsets, values.to_vec().into(), Some(nulls)).unwrap();
    let inputs: [ArrayRef; 4] = [
        Arc::new(strings.clone()),
        Arc::new(binary.clone()),
        Arc::new(strings.slice(1, 3)),
        Arc::new(binary.slice(1, 3)),
    ];
    for (n, input) in inputs.iter().enumerate() {
        let want: Vec<Option<Vec<u8>>> =
            want[if n < 2 { 0 } else { 1 }..].iter().map(|r| r.map(<[u8]>::to_vec)).collect();
        for enc in [
            Encoder::new(sets::COMPONENT),
            Encoder::new(sets::FORM),
            Encoder::new(sets::PATH).keep_escapes(true),
        ] {
            let got = kernels::encode(input.as_ref(), &enc).unwrap();
            assert_eq!(rows_of(got.as_ref()), expect_encode(&enc, &want), "{n} {enc:?}");
        }
        for dec in [Decoder::new(), Decoder::new().plus_as_space(true)] {
            let got = kernels::decode(input.as_ref(), &dec).unwrap();
            let want: Vec<_> =
                want.iter().map(|r| r.as_ref().map(|b| dec.decode(b).unwrap().into_owned())).collect();
            assert_eq!(rows_of(got.as_ref()), want, "{n} {dec:?}");
        }
        let got = kernels::url_decode(input.as_ref()).unwrap();
        assert_eq!(got.null_count(), input.null_count());
        let got = kernels::normalize(input.as_ref()).unwrap();
        assert_eq!(rows_of(got.as_ref()), want, "{n}");
    }
}

/// Of several failing rows the first is named, also when a chunk before the failing one runs
/// out of room (lossy decoding of binary that grows: three bytes of U+FFFD a byte) and stops
/// before its own failing row.
#[test]
fn first_failing_row_after_a_chunk_that_grows() {
    let mut rows: Vec<&[u8]> = Vec::new();
    rows.extend(std::iter::repeat_n(&[0xFF; 40][..], 1000));
    rows.push(b"%zz");
    rows.extend(std::iter::repeat_n(&b"abcdefghijklmnopqrstuvwxyz%41"[..], 14_000 - 1001));
    rows.push(b"%zz");
    rows.extend(std::iter::repeat_n(&b"abcdefghijklmnopqrstuvwxyz%41"[..], 5_000));
    let input = BinaryArray::from_vec(rows);
    assert!(input.value_data().len() >= kernels::PAR_THRESHOLD);
    let err = kernels::decode(&input, &Decoder::new().utf8(Utf8Mode::Lossy)).unwrap_err();
    assert_eq!((err.row(), err.offset()), (Some(1000), Some(0)), "{err}");
}

/// A dictionary array of `kind`: `values` (which may hold entries no row uses), and a key
/// per row (`None`: a null row).
fn dictionary(kind: &DataType, values: &[Option<Vec<u8>>], keys: &[Option<u8>]) -> ArrayRef {
    let keys: arrow_array::UInt8Array = keys.iter().copied().collect();
    Arc::new(arrow_array::DictionaryArray::try_new(keys, array(kind, values)).unwrap())
}

/// The rows of a kernel's output, a dictionary read through its keys.
fn rows_through_keys(a: &dyn Array) -> Vec<Option<Vec<u8>>> {
    let Some(dict) = a.as_any().downcast_ref::<arrow_array::DictionaryArray<arrow_array::types::UInt8Type>>()
    else {
        return rows_of(a);
    };
    let values = rows_of(dict.values().as_ref());
    dict.keys().iter().map(|k| k.and_then(|k| values[usize::from(k)].clone())).collect()
}

/// A kind, a dictionary's values and the rows' keys.
type DictionaryCase = (DataType, Vec<Option<Vec<u8>>>, Vec<Option<u8>>);

fn dictionary_case() -> impl Strategy<Value = DictionaryCase> {
    kind_and_rows(8).prop_filter("values", |(_, v)| !v.is_empty()).prop_flat_map(|(kind, values)| {
        let n = values.len() as u8;
        let keys = prop::collection::vec(prop::option::weighted(0.85, 0..n), 0..20);
        (Just(kind), Just(values), keys)
    })
}

/// The result of a kernel on a dictionary and on the same column written out plainly agree
/// row by row: values, nulls, and the failing row and offset (an entry no row uses never
/// fails the call).
fn check_against_plain(
    dict: &dyn Array,
    plain: &dyn Array,
    kernel: impl Fn(&dyn Array) -> Result<ArrayRef, kernels::KernelError>,
) -> Result<(), TestCaseError> {
    match (kernel(dict), kernel(plain)) {
        (Ok(d), Ok(p)) => prop_assert_eq!(rows_through_keys(d.as_ref()), rows_of(p.as_ref())),
        (Err(d), Err(p)) => {
            prop_assert_eq!((d.row(), d.offset(), d.message()), (p.row(), p.offset(), p.message()))
        }
        (d, p) => prop_assert!(false, "dictionary {:?}, plain {:?}", d.err(), p.err()),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Every kernel on a dictionary array gives, row by row, what it gives on the plain
    /// column; injective encoding keeps the dictionary, the others give the value kind.
    #[test]
    fn dictionaries_agree_with_plain_columns(
        (kind, values, keys) in dictionary_case(), enc in encoder(), dec in decoder(), set in named_set(),
    ) {
        let dict = dictionary(&kind, &values, &keys);
        let rows: Vec<Option<Vec<u8>>> =
            keys.iter().map(|k| k.and_then(|k| values[usize::from(k)].clone())).collect();
        let plain = array(&kind, &rows);
        let (dict, plain) = (dict.as_ref(), plain.as_ref());
        check_against_plain(dict, plain, |a| kernels::encode(a, &enc))?;
        check_against_plain(dict, plain, |a| kernels::decode(a, &dec))?;
        check_against_plain(dict, plain, |a| kernels::try_decode(a, &dec))?;
        check_against_plain(dict, plain, kernels::normalize)?;
        check_against_plain(dict, plain, kernels::url_encode)?;
        check_against_plain(dict, plain, kernels::url_decode)?;
        check_against_plain(dict, plain, kernels::try_url_decode)?;
        let enc_set = Encoder::new(set);
        let valid = kernels::validate(dict, &enc_set).unwrap();
        prop_assert_eq!(valid.iter().collect::<Vec<_>>(), kernels::validate(plain, &enc_set).unwrap().iter().collect::<Vec<_>>());

        let encoded = kernels::encode(dict, &enc).unwrap();
        let keeps = !enc.is_keeping_escapes() && enc.set().contains(b'%');
        prop_assert_eq!(matches!(encoded.data_type(), DataType::Dictionary(..)), keeps);
        let decoded = kernels::try_decode(dict, &dec).unwrap();
        prop_assert_eq!(decoded.data_type(), &kind);
    }
}

/// A dictionary entry that does not decode, which no row uses, does not fail the call; one
/// that a row uses names that row, not the entry's index.
#[test]
fn a_bad_dictionary_entry_fails_only_the_rows_that_use_it() {
    let values = [Some(b"%zz".to_vec()), Some(b"a%20b".to_vec()), Some(b"100%".to_vec())];
    let dict = dictionary(&DataType::Utf8, &values, &[Some(1), None, Some(1)]);
    let out = kernels::decode(dict.as_ref(), &Decoder::new()).unwrap();
    assert_eq!(rows_of(out.as_ref()), [Some(b"a b".to_vec()), None, Some(b"a b".to_vec())]);
    let dict = dictionary(&DataType::Utf8, &values, &[Some(1), Some(1), Some(2), Some(0)]);
    let err = kernels::decode(dict.as_ref(), &Decoder::new()).unwrap_err();
    assert_eq!((err.row(), err.offset()), (Some(2), Some(3)), "{err}");
}

/// Many rows sharing one long dictionary value write more than 32-bit offsets address once
/// gathered: an error, not a panic or a wrapped offset.
#[test]
fn a_gather_past_32_bit_offsets_fails_cleanly() {
    let long = vec![b'%'; 1 << 20]; // 1 MiB of `%`, decoded leniently as itself
    let keys = vec![Some(0u8); 2100];
    let dict = dictionary(&DataType::Utf8, &[Some(long)], &keys);
    let err = kernels::decode(dict.as_ref(), &Decoder::new().lenient(true)).unwrap_err();
    assert!(err.to_string().contains("32-bit offsets"), "{err}");
}
