//! The table and the queries that both the DataFusion tests and the Ballista standalone
//! test run.

#![allow(dead_code)]

use std::path::Path;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, Int64Array, StringArray};
use arrow::datatypes::DataType;
use arrow::record_batch::RecordBatch;
use datafusion::dataframe::DataFrameWriteOptions;
use datafusion::prelude::{ParquetReadOptions, SessionContext};

/// A row of the table: `(id, s, e, set)`.
pub type Row = (i64, Option<&'static str>, Option<&'static str>, &'static str);

/// `(id, s, e, set)`: a text, an encoding (some malformed), a set name.
pub const ROWS: &[Row] = &[
    (1, Some("/a b"), Some("a+b%26c%3D%C3%A9"), "path"),
    (2, Some("Jürgen & Björk"), Some("J%C3%BCrgen+%26+Bj%C3%B6rk"), "form"),
    (3, None, None, "component"),
    (4, Some(""), Some(""), "rfc3986"),
    (5, Some("~*+ 😀"), Some("100%"), "uri"),
    (6, Some("q=caf\u{e9}&x=1"), Some("%zz%41"), "query"),
    (7, Some("%7euser%2f"), Some("%ED%A0%80%C3x%A9"), "go-path"),
    (8, Some("C++ & C#"), Some("%+1%2B"), "non-alphanumeric"),
];

pub fn batch() -> RecordBatch {
    let col = |f: fn(&Row) -> Option<&'static str>| {
        Arc::new(StringArray::from(ROWS.iter().map(f).collect::<Vec<_>>())) as ArrayRef
    };
    RecordBatch::try_from_iter([
        ("id", Arc::new(Int64Array::from(ROWS.iter().map(|r| r.0).collect::<Vec<_>>())) as ArrayRef),
        ("s", col(|r| r.1)),
        ("e", col(|r| r.2)),
        ("set", col(|r| Some(r.3))),
    ])
    .unwrap()
}

/// Writes the table as Parquet into `dir` and returns the file's path.
pub async fn write_parquet(dir: &Path) -> String {
    let path = dir.join("t.parquet").to_str().unwrap().to_string();
    let ctx = SessionContext::new();
    ctx.read_batch(batch())
        .unwrap()
        .write_parquet(&path, DataFrameWriteOptions::new().with_single_file_output(true), None)
        .await
        .unwrap();
    path
}

pub async fn register_table(ctx: &SessionContext, path: &str) {
    ctx.register_parquet("t", path, ParquetReadOptions::default()).await.unwrap();
}

/// Queries that succeed, each ordered by `id`.
pub const QUERIES: &[&str] = &[
    "SELECT id, url_encode(s) AS v FROM t ORDER BY id",
    "SELECT id, try_url_decode(e) AS v FROM t ORDER BY id",
    "SELECT id, url_decode(e) AS v FROM t WHERE id IN (1, 2, 3, 4, 7, 8) ORDER BY id",
    "SELECT id, percent_encode(s) AS v, percent_encode(s, 'path') AS p FROM t ORDER BY id",
    "SELECT id, percent_encode(s, set) AS v FROM t ORDER BY id",
    "SELECT id, try_percent_decode(e) AS v, try_percent_decode(e, 'plus,lossy') AS w FROM t ORDER BY id",
    "SELECT id, percent_decode(e, 'lenient,plus,lossy') AS v FROM t ORDER BY id",
    "SELECT id, percent_validate(e, 'form') AS v, percent_validate(s, set) AS w FROM t ORDER BY id",
    "SELECT id, percent_normalize(s) AS v FROM t ORDER BY id",
    "SELECT id, url_decode(url_encode(s)) = s AS v FROM t ORDER BY id",
    "SELECT url_encode(arrow_cast(s, 'LargeUtf8')) AS v, arrow_typeof(url_encode(arrow_cast(s, 'Utf8View'))) AS k FROM t WHERE id = 2",
    "SELECT percent_encode(arrow_cast(s, 'Binary'), 'form') AS v, arrow_typeof(percent_encode(arrow_cast(s, 'BinaryView'))) AS k FROM t WHERE id = 2",
];

/// Runs `sql` and gives its result as text, one line a row.
pub async fn run(ctx: &SessionContext, sql: &str) -> Vec<String> {
    let batches = ctx
        .sql(sql)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .collect()
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    let mut lines = Vec::new();
    for b in &batches {
        let cols: Vec<ArrayRef> =
            b.columns().iter().map(|c| arrow::compute::cast(c, &DataType::Utf8).unwrap()).collect();
        for row in 0..b.num_rows() {
            let cells: Vec<String> = cols
                .iter()
                .map(|c| {
                    let c = c.as_any().downcast_ref::<StringArray>().unwrap();
                    if c.is_null(row) { "NULL".to_string() } else { c.value(row).to_string() }
                })
                .collect();
            lines.push(cells.join(" | "));
        }
    }
    lines
}

/// The error of `sql`, at planning or execution, as text.
pub async fn error(ctx: &SessionContext, sql: &str) -> String {
    match ctx.sql(sql).await {
        Err(e) => e.strip_backtrace(),
        Ok(df) => match df.collect().await {
            Err(e) => e.strip_backtrace(),
            Ok(_) => panic!("{sql}: no error"),
        },
    }
}
