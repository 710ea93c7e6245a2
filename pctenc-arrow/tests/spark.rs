//! Spark conformance: `url_encode`, `url_decode` and `try_url_decode` against what OpenJDK's
//! `java.net.URLEncoder` / `URLDecoder` return (`tests/data/java/urlcodec.json`), through the
//! kernels, on every string kind and on binary values (pctenc-datafusion's tests run the same
//! cases through SQL).

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, LargeStringArray, StringArray, StringViewArray};
use pctenc_arrow as kernels;
use serde_json::Value;

struct Case {
    input: String,
    /// `None`: Java throws.
    output: Option<String>,
}

fn cases(which: &str) -> Vec<Case> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/java/urlcodec.json"))
        .unwrap();
    let json: Value = serde_json::from_str(&text).unwrap();
    let list = json[which].as_array().unwrap();
    assert!(list.len() > 400, "{which}: {} cases", list.len());
    list.iter()
        .map(|c| Case {
            input: c["input"].as_str().unwrap().to_string(),
            output: c.get("output").map(|o| o.as_str().unwrap().to_string()),
        })
        .collect()
}

fn string_arrays(rows: &[Option<&str>]) -> Vec<ArrayRef> {
    vec![
        Arc::new(StringArray::from(rows.to_vec())),
        Arc::new(LargeStringArray::from(rows.to_vec())),
        Arc::new(StringViewArray::from(rows.to_vec())),
    ]
}

/// The rows of a string array of any kind.
fn strings(a: &dyn Array) -> Vec<Option<String>> {
    let own = |v: Option<&str>| v.map(str::to_string);
    if let Some(a) = a.as_any().downcast_ref::<StringArray>() {
        a.iter().map(own).collect()
    } else if let Some(a) = a.as_any().downcast_ref::<LargeStringArray>() {
        a.iter().map(own).collect()
    } else {
        a.as_any().downcast_ref::<StringViewArray>().expect("a string array").iter().map(own).collect()
    }
}

#[test]
fn url_encode_matches_java() {
    let cases = cases("encode");
    let rows: Vec<Option<&str>> = cases.iter().map(|c| Some(c.input.as_str())).collect();
    for input in string_arrays(&rows) {
        let got = strings(kernels::url_encode(input.as_ref()).unwrap().as_ref());
        for (case, got) in cases.iter().zip(got) {
            assert_eq!(got.as_deref(), case.output.as_deref(), "url_encode({:?})", case.input);
        }
    }
}

#[test]
fn url_decode_matches_java() {
    let cases = cases("decode");
    let rows: Vec<Option<&str>> = cases.iter().map(|c| Some(c.input.as_str())).collect();
    let errors = cases.iter().filter(|c| c.output.is_none()).count();
    assert!(errors > 100 && errors < cases.len() - 100, "{errors} errors");
    for input in string_arrays(&rows) {
        // try_url_decode: the output, or null where Java throws.
        let got = strings(kernels::try_url_decode(input.as_ref()).unwrap().as_ref());
        for (case, got) in cases.iter().zip(got) {
            assert_eq!(got, case.output, "try_url_decode({:?})", case.input);
        }
        // url_decode, one row at a time: the output, or CANNOT_DECODE_URL.
        for (row, case) in cases.iter().enumerate() {
            let one = input.slice(row, 1);
            match (kernels::url_decode(one.as_ref()), &case.output) {
                (Ok(got), Some(want)) => assert_eq!(strings(got.as_ref()), vec![Some(want.clone())]),
                (Err(e), None) => {
                    assert!(e.message().starts_with("[CANNOT_DECODE_URL]"), "{e}");
                    let offset = e.offset().unwrap();
                    assert_eq!(case.input.as_bytes()[offset], b'%', "{e} for {:?}", case.input);
                }
                (got, want) => panic!("url_decode({:?}): {got:?}, want {want:?}", case.input),
            }
        }
    }
}

/// Java's cases repeated over the parallel threshold, so that the array is cut into chunks:
/// rows that Java decodes to U+FFFD (longer than the fast path's size) and rows that fail
/// land in every chunk, and each chunk's output is still Java's.
#[test]
fn url_decode_matches_java_across_parallel_chunks() {
    let cases = cases("decode");
    let mut rows = Vec::new();
    let mut want = Vec::new();
    let mut bytes = 0;
    while bytes < 3 * kernels::PAR_THRESHOLD {
        for case in &cases {
            rows.push(Some(case.input.as_str()));
            want.push(case.output.clone());
            bytes += case.input.len();
        }
        // Long runs of rows the fast path takes, between the cases.
        for _ in 0..2000 {
            rows.push(Some("/a+b%2Fc%C3%A9?q=%E6%9D%B1%E4%BA%AC"));
            want.push(Some("/a b/cé?q=東京".to_string()));
            bytes += 36;
        }
    }
    let first_error = want.iter().position(Option::is_none).unwrap();
    for input in string_arrays(&rows) {
        assert_eq!(strings(kernels::try_url_decode(input.as_ref()).unwrap().as_ref()), want);
        let err = kernels::url_decode(input.as_ref()).unwrap_err();
        assert_eq!(err.row(), Some(first_error), "{err}");
        // Without the failing rows, url_decode gives the same as try_url_decode.
        let ok: Vec<Option<&str>> =
            rows.iter().zip(&want).filter(|(_, w)| w.is_some()).map(|(r, _)| *r).collect();
        let ok_want: Vec<Option<String>> = want.iter().filter(|w| w.is_some()).cloned().collect();
        let input = &string_arrays(&ok)[0];
        assert_eq!(strings(kernels::url_decode(input.as_ref()).unwrap().as_ref()), ok_want);
    }
}

/// The cases the issue names, each on its own, so that a failure says which.
#[test]
fn named_cases() {
    let encode =
        |s: &str| strings(kernels::url_encode(&StringArray::from(vec![s])).unwrap().as_ref())[0].clone();
    let decode =
        |s: &str| strings(kernels::try_url_decode(&StringArray::from(vec![s])).unwrap().as_ref())[0].clone();
    let some = |s: &str| Some(s.to_string());
    assert_eq!(encode("+"), some("%2B"));
    assert_eq!(encode("*"), some("*"));
    assert_eq!(encode("~"), some("%7E"));
    assert_eq!(encode(" "), some("+"));
    assert_eq!(encode(""), some(""));
    assert_eq!(encode("😀"), some("%F0%9F%98%80"));
    assert_eq!(decode("+"), some(" "));
    assert_eq!(decode("*~"), some("*~"));
    assert_eq!(decode("a%"), None);
    assert_eq!(decode("%zz"), None);
    assert_eq!(decode("%C3%A9"), some("é"));
    assert_eq!(decode("%F0%9F%98%80 😀"), some("😀 😀"));
    assert_eq!(decode(""), some(""));
    // Invalid UTF-8: one U+FFFD per malformed sequence as Java counts them, each run of
    // escapes on its own.
    assert_eq!(decode("%ED%A0%80"), some("\u{FFFD}"));
    assert_eq!(decode("%C3x%A9"), some("\u{FFFD}x\u{FFFD}"));
    assert_eq!(decode("%F4%90%80%80"), some("\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}"));
    // Integer.parseInt's sign, and other scripts' digits (Character.digit).
    assert_eq!(decode("%+1"), some("\u{1}"));
    assert_eq!(decode("%-0"), some("\u{0}"));
    assert_eq!(decode("%-1"), None);
    assert_eq!(decode("%\u{FF14}\u{FF21}"), some("J"), "fullwidth 4A");
    assert_eq!(decode("%\u{0664}1"), some("A"), "Arabic-Indic 4, then 1");
    // A supplementary character after `%` is two UTF-16 units: not hex, not incomplete.
    assert_eq!(decode("%😀"), None);
    // Nulls stay null.
    let got = kernels::url_decode(&StringArray::from(vec![None, Some("a+b")])).unwrap();
    assert_eq!(strings(got.as_ref()), vec![None, some("a b")]);
}

/// Binary values are the strings Spark casts them to: malformed UTF-8 becomes U+FFFD as
/// Java's `String` counts it, before encoding or decoding, so a value's result never depends
/// on the bytes after it. On the Java cases' inputs as bytes, with malformed bytes put in,
/// each kernel on a `Binary` array equals the kernel on the `Utf8` array of the Java strings.
#[test]
fn binary_is_read_as_spark_casts_it() {
    use arrow_array::{BinaryArray, BinaryViewArray, LargeBinaryArray};
    use pctenc_arrow::spark::java_string;
    let mut rows: Vec<Vec<u8>> = Vec::new();
    for (i, c) in cases("decode").iter().enumerate() {
        let mut b = c.input.clone().into_bytes();
        // A malformed byte at a place that moves from case to case.
        b.insert(i % (b.len() + 1), [0xFF, 0xA9, 0xC3, 0xED][i % 4]);
        rows.push(b);
        rows.push(c.input.clone().into_bytes());
    }
    rows.extend([b"%C3\xA9".to_vec(), b"%C3\xA9\xFF".to_vec(), b"\xC3%41".to_vec(), b"\xFF".to_vec()]);
    // Enough rows for the parallel chunks, too.
    let many: Vec<Vec<u8>> = rows.iter().cycle().take(rows.len() * 40).cloned().collect();
    for rows in [&rows, &many] {
        let bytes: Vec<&[u8]> = rows.iter().map(|r| r.as_slice()).collect();
        let strings: Vec<String> =
            rows.iter().map(|r| String::from_utf8(java_string(r).into_owned()).unwrap()).collect();
        let as_string: ArrayRef = Arc::new(StringArray::from(strings));
        let binaries: [ArrayRef; 3] = [
            Arc::new(BinaryArray::from_vec(bytes.clone())),
            Arc::new(LargeBinaryArray::from_vec(bytes.clone())),
            Arc::new(BinaryViewArray::from(bytes.clone())),
        ];
        let text = text_of;
        let want_enc = text(kernels::url_encode(as_string.as_ref()).unwrap().as_ref());
        let want_dec = text(kernels::try_url_decode(as_string.as_ref()).unwrap().as_ref());
        for b in &binaries {
            assert_eq!(
                text(kernels::url_encode(b.as_ref()).unwrap().as_ref()),
                want_enc,
                "{}",
                b.data_type()
            );
            assert_eq!(
                text(kernels::try_url_decode(b.as_ref()).unwrap().as_ref()),
                want_dec,
                "{}",
                b.data_type()
            );
        }
    }
    // The same prefix, the same result; a malformed byte is U+FFFD, encoded.
    let got = kernels::try_url_decode(&BinaryArray::from_vec(vec![b"%C3\xA9", b"%C3\xA9\xFF"])).unwrap();
    let got = text_of(got.as_ref());
    assert_eq!(
        got,
        vec![
            Some("\u{FFFD}\u{FFFD}".as_bytes().to_vec()),
            Some("\u{FFFD}\u{FFFD}\u{FFFD}".as_bytes().to_vec())
        ]
    );
    let got = kernels::url_encode(&BinaryArray::from_vec(vec![b"\xFF"])).unwrap();
    assert_eq!(text_of(got.as_ref()), vec![Some(b"%EF%BF%BD".to_vec())]);
}

/// The rows of a string or binary array of any kind, as bytes.
fn text_of(a: &dyn Array) -> Vec<Option<Vec<u8>>> {
    use arrow_array::{BinaryArray, BinaryViewArray, LargeBinaryArray};
    let any = a.as_any();
    macro_rules! rows {
        ($($kind:ty),*) => {$(
            if let Some(a) = any.downcast_ref::<$kind>() {
                return a.iter().map(|v| v.map(|v| AsRef::<[u8]>::as_ref(v).to_vec())).collect();
            }
        )*};
    }
    rows!(BinaryArray, LargeBinaryArray, BinaryViewArray, StringArray, LargeStringArray, StringViewArray);
    panic!("not a string or binary array: {}", a.data_type())
}
