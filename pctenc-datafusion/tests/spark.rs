//! Spark's functions through SQL against what OpenJDK's `java.net.URLDecoder` returns: the
//! Java cases of pctenc-arrow (`pctenc-arrow/tests/data/java/urlcodec.json`), which tests
//! the kernels on them, as a table, and the error naming the batch row and offset.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, StringArray};
use arrow::datatypes::DataType;
use datafusion::prelude::SessionContext;
use serde_json::Value;

struct Case {
    input: String,
    /// `None`: Java throws.
    output: Option<String>,
}

fn cases(which: &str) -> Vec<Case> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../pctenc-arrow/tests/data/java/urlcodec.json");
    let json: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    json[which]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| Case {
            input: c["input"].as_str().unwrap().to_string(),
            output: c.get("output").map(|o| o.as_str().unwrap().to_string()),
        })
        .collect()
}

fn strings(a: &dyn Array) -> Vec<Option<String>> {
    let a = arrow::compute::cast(a, &DataType::Utf8).unwrap();
    a.as_any().downcast_ref::<StringArray>().unwrap().iter().map(|v| v.map(str::to_string)).collect()
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
