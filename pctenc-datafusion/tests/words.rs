//! The option words of docs/WORDS.md in SQL: `percent_decode(b, 'WORDS')` on the hostile
//! inputs of `tests/data/words-cases.tsv`, the file every surface is checked against
//! (`scripts/words-check.py`), gives the same bytes and the same error offsets.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, BinaryArray, Int64Array, RecordBatch};
use datafusion::prelude::SessionContext;

fn hex(text: &str) -> Vec<u8> {
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap()).collect()
}

#[tokio::test]
async fn the_cases_of_every_surface() {
    let text = include_str!("../../tests/data/words-cases.tsv");
    let cases: Vec<[&str; 3]> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| l.split('\t').collect::<Vec<_>>().try_into().unwrap())
        .collect();
    // Every input once, as a binary column `b` beside its row number `id`.
    let mut inputs: Vec<&str> = cases.iter().map(|c| c[1]).collect();
    inputs.sort_unstable();
    inputs.dedup();
    let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(0..inputs.len() as i64));
    let bytes: Vec<Vec<u8>> = inputs.iter().map(|i| hex(i)).collect();
    let b: ArrayRef = Arc::new(BinaryArray::from_iter_values(bytes.iter()));
    let ctx = SessionContext::new();
    pctenc_datafusion::register(&ctx);
    ctx.register_batch("t", RecordBatch::try_from_iter([("id", ids), ("b", b)]).unwrap()).unwrap();
    for [words, input, want] in &cases {
        let id = inputs.binary_search(input).unwrap();
        let sql = format!("SELECT percent_decode(b, '{words}') AS v FROM t WHERE id = {id}");
        let got = match ctx.sql(&sql).await.unwrap_or_else(|e| panic!("{sql}: {e}")).collect().await {
            Ok(batches) => {
                let batch = batches.iter().find(|b| b.num_rows() > 0).unwrap();
                let col = batch.column(0).as_any().downcast_ref::<BinaryArray>().unwrap();
                format!("ok:{}", col.value(0).iter().map(|b| format!("{b:02x}")).collect::<String>())
            }
            Err(e) => {
                let message = e.strip_backtrace();
                let at = message.rsplit("offset ").next().unwrap().trim_end_matches(')');
                format!("err:{at}")
            }
        };
        assert_eq!(&got, want, "{words:?} on {input}");
    }
    assert!(cases.len() > 600, "{} cases", cases.len());
}
