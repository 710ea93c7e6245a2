//! Spark conformance: `url_encode`, `url_decode` and `try_url_decode` against what OpenJDK's
//! `java.net.URLEncoder` / `URLDecoder` return (`tests/data/java/urlcodec.json`), through the
//! kernels (every string kind) and through SQL.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, LargeStringArray, StringArray, StringViewArray};
use arrow::datatypes::DataType;
use datafusion::prelude::SessionContext;
use pctenc_datafusion::kernels;
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

fn strings(a: &dyn Array) -> Vec<Option<String>> {
    let a = arrow::compute::cast(a, &DataType::Utf8).unwrap();
    a.as_any().downcast_ref::<StringArray>().unwrap().iter().map(|v| v.map(str::to_string)).collect()
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

#[tokio::test]
async fn sql_matches_java_and_names_row_and_offset() {
    let ctx = SessionContext::new();
    pctenc_datafusion::register(&ctx);
    let cases = cases("decode");
    let rows: Vec<Option<&str>> = cases.iter().map(|c| Some(c.input.as_str())).collect();
    let batch = arrow::record_batch::RecordBatch::try_from_iter([(
        "s",
        Arc::new(StringArray::from(rows)) as ArrayRef,
    )])
    .unwrap();
    ctx.register_batch("t", batch).unwrap();
    let out = ctx.sql("SELECT try_url_decode(s) FROM t").await.unwrap().collect().await.unwrap();
    let got: Vec<Option<String>> = out.iter().flat_map(|b| strings(b.column(0).as_ref())).collect();
    let want: Vec<Option<String>> = cases.iter().map(|c| c.output.clone()).collect();
    assert_eq!(got, want);

    let err = ctx.sql("SELECT url_decode(s) FROM t").await.unwrap().collect().await.unwrap_err();
    let first = cases.iter().position(|c| c.output.is_none()).unwrap();
    let offset = cases[first].input.find('%').unwrap();
    let message = err.strip_backtrace();
    let spark = format!(
        "[CANNOT_DECODE_URL] The provided URL cannot be decoded: {}. Please ensure that the URL is properly \
         formatted and try again. SQLSTATE: 22546 (batch row {first}, offset {offset})",
        cases[first].input
    );
    assert!(message.contains(&spark), "{message}\nwant {spark}");
    let encoded = ctx.sql("SELECT url_encode('Jürgen & Björk ~*')").await.unwrap().collect().await.unwrap();
    assert_eq!(strings(encoded[0].column(0).as_ref()), vec![Some("J%C3%BCrgen+%26+Bj%C3%B6rk+%7E*".into())]);
}
