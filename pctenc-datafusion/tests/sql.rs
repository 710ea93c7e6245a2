//! The SQL functions through a DataFusion `SessionContext`: literal and column arguments,
//! every kind, bad set names, `try_` against strict, and the documentation in
//! `information_schema`.

mod common;

use common::{ROWS, error, run};
use datafusion::prelude::{SessionConfig, SessionContext};
use pctenc::{Decoder, Encoder, Set, Utf8Mode, sets};

async fn context() -> SessionContext {
    let ctx = SessionContext::new_with_config(SessionConfig::new().with_information_schema(true));
    pctenc_datafusion::register(&ctx);
    ctx.register_batch("t", common::batch()).unwrap();
    ctx
}

fn show(v: Option<String>) -> String {
    v.unwrap_or_else(|| "NULL".into())
}

/// Every query's rows, computed with the core library.
fn expected(query: usize) -> Vec<String> {
    let enc = |set: Set, s: &str| Encoder::new(set).encode(s).into_owned();
    let dec = |d: Decoder, s: &str| d.decode_to_str(s).ok().map(|c| c.into_owned());
    let spark = |s: &str| {
        let mut out = Vec::new();
        pctenc_datafusion::spark::java_url_decode(s.as_bytes(), &mut out)
            .ok()
            .map(|()| String::from_utf8(out).unwrap())
    };
    let rows = ROWS.iter();
    match query {
        0 => rows.map(|r| format!("{} | {}", r.0, show(r.1.map(|s| enc(sets::FORM, s))))).collect(),
        1 => rows.map(|r| format!("{} | {}", r.0, show(r.2.and_then(spark)))).collect(),
        2 => rows
            .filter(|r| [1, 2, 3, 4, 7, 8].contains(&r.0))
            .map(|r| format!("{} | {}", r.0, show(r.2.and_then(spark))))
            .collect(),
        3 => rows
            .map(|r| {
                format!(
                    "{} | {} | {}",
                    r.0,
                    show(r.1.map(|s| enc(sets::COMPONENT, s))),
                    show(r.1.map(|s| enc(sets::PATH, s)))
                )
            })
            .collect(),
        4 => rows
            .map(|r| format!("{} | {}", r.0, show(r.1.map(|s| enc(Set::by_name(r.3).unwrap(), s)))))
            .collect(),
        5 => rows
            .map(|r| {
                let strict = Decoder::new().utf8(Utf8Mode::Strict);
                let plus = Decoder::new().plus_as_space(true).utf8(Utf8Mode::Lossy);
                format!(
                    "{} | {} | {}",
                    r.0,
                    show(r.2.and_then(|e| dec(strict, e))),
                    show(r.2.and_then(|e| dec(plus, e)))
                )
            })
            .collect(),
        6 => rows.map(|r| format!("{} | {}", r.0, show(r.2.and_then(|e| dec(Decoder::FORM, e))))).collect(),
        7 => rows
            .map(|r| {
                let v = r.2.map(|e| Encoder::new(sets::FORM).validate(e).is_ok().to_string());
                let w = r.1.map(|s| Encoder::new(Set::by_name(r.3).unwrap()).validate(s).is_ok().to_string());
                format!("{} | {} | {}", r.0, show(v), show(w))
            })
            .collect(),
        8 => rows
            .map(|r| {
                format!(
                    "{} | {}",
                    r.0,
                    show(r.1.map(|s| String::from_utf8(pctenc::normalize(s).into_owned()).unwrap()))
                )
            })
            .collect(),
        9 => rows.map(|r| format!("{} | {}", r.0, show(r.1.map(|_| "true".to_string())))).collect(),
        10 => vec![format!("{} | Utf8View", enc(sets::FORM, ROWS[1].1.unwrap()))],
        11 => {
            vec![format!("{} | BinaryView", enc(sets::FORM, ROWS[1].1.unwrap()))]
        }
        _ => unreachable!(),
    }
}

#[tokio::test]
async fn queries_give_what_the_core_gives() {
    let ctx = context().await;
    for (i, q) in common::QUERIES.iter().enumerate() {
        assert_eq!(run(&ctx, q).await, expected(i), "{q}");
    }
}

#[tokio::test]
async fn literal_arguments_are_computed_once() {
    let ctx = context().await;
    let got = run(
        &ctx,
        "SELECT url_encode('a b'), percent_decode('%41+', 'plus'), percent_validate('a%20', 'component')",
    )
    .await;
    assert_eq!(got, vec!["a+b | A  | true"]);
    let got = run(&ctx, "SELECT url_decode(NULL), percent_encode('x', NULL)").await;
    assert_eq!(got, vec!["NULL | NULL"]);
    // A literal in a query over a table: one value, every row.
    let got = run(&ctx, "SELECT url_encode('é') FROM t WHERE id < 3").await;
    assert_eq!(got, vec!["%C3%A9", "%C3%A9"]);
}

#[tokio::test]
async fn a_bad_set_name_is_a_planning_error_listing_the_names() {
    let ctx = context().await;
    for sql in ["SELECT percent_encode(s, 'componnent') FROM t", "SELECT percent_validate('a', 'nope')"] {
        // Planning: `ctx.sql` itself fails, before anything runs.
        let err = ctx.sql(sql).await.expect_err(sql).strip_backtrace();
        assert!(err.contains("unknown set"), "{err}");
        for named in sets::NAMED {
            assert!(err.contains(named.name), "{err} lacks {}", named.name);
        }
    }
    let err = ctx.sql("SELECT percent_decode('a', 'strictest')").await.expect_err("mode").strip_backtrace();
    assert!(err.contains("unknown word `strictest`"), "{err}");
    // The core's words: a contradiction or a repeat names both words.
    for (mode, clash) in [
        ("strict,lenient", "`lenient` contradicts `strict`"),
        ("lossy, utf8=strict", "`utf8=strict` contradicts `lossy`"),
        ("plus,plus", "`plus` repeats `plus`"),
    ] {
        let sql = format!("SELECT percent_decode('a', '{mode}')");
        let err = ctx.sql(&sql).await.expect_err(&sql).strip_backtrace();
        assert!(err.contains(clash), "{err}");
    }
    // A column of names: the bad row at execution.
    let err =
        error(&ctx, "SELECT percent_encode(s, CASE WHEN id = 4 THEN 'bogus' ELSE set END) FROM t").await;
    assert!(err.contains("unknown set `bogus`") && err.contains("(batch row 3)"), "{err}");
}

/// A column of modes: one call a distinct mode, the rows put back in order, and of the rows
/// that fail the first in the batch is named, whichever mode's rows came first.
#[tokio::test]
async fn column_of_modes() {
    let ctx = context().await;
    let mode = |id: i64| if id % 2 == 0 { "plus" } else { "lenient" };
    let got = run(
        &ctx,
        "SELECT id, try_percent_decode(e, CASE WHEN id % 2 = 0 THEN 'plus' ELSE 'lenient' END) FROM t ORDER BY id",
    )
    .await;
    let want: Vec<String> = ROWS
        .iter()
        .map(|r| {
            let dec = match mode(r.0) {
                "plus" => Decoder::new().plus_as_space(true),
                _ => Decoder::new().lenient(true),
            };
            format!("{} | {}", r.0, show(r.2.and_then(|e| dec.decode_to_str(e).ok().map(|c| c.into_owned()))))
        })
        .collect();
    assert_eq!(got, want);
    // ids 1 and 7 (rows 0 and 6) in `plus`, which fails at row 6; id 5 (row 4, `100%`) in
    // `strict`, which fails there.
    let err = error(
        &ctx,
        "SELECT percent_decode(e, CASE WHEN id IN (1, 7) THEN 'plus' WHEN id = 5 THEN 'strict' ELSE 'lenient' END) \
         FROM t",
    )
    .await;
    assert!(err.contains("(batch row 4, offset 3)"), "{err}");
}

#[tokio::test]
async fn try_against_strict() {
    let ctx = context().await;
    let err = error(&ctx, "SELECT percent_decode(e) FROM t").await;
    // Row 4 (id 5) is `100%`: the `%` at offset 3.
    assert!(err.contains("(batch row 4, offset 3)"), "{err}");
    let err = error(&ctx, "SELECT url_decode(e) FROM t").await;
    assert!(
        err.contains("[CANNOT_DECODE_URL] The provided URL cannot be decoded: 100%.")
            && err.contains("(batch row 4, offset 3)"),
        "{err}"
    );
    let got = run(&ctx, "SELECT id FROM t WHERE try_url_decode(e) IS NULL ORDER BY id").await;
    assert_eq!(got, vec!["3", "5", "6"]);
    let got = run(&ctx, "SELECT id FROM t WHERE try_percent_decode(e) IS NULL ORDER BY id").await;
    assert_eq!(got, vec!["3", "5", "6", "7", "8"]);
}

#[tokio::test]
async fn information_schema_documents_the_functions() {
    let ctx = context().await;
    let got = run(
        &ctx,
        "SELECT routine_name, description, syntax_example FROM information_schema.routines \
         WHERE routine_name IN ('url_encode', 'url_decode', 'try_url_decode', 'percent_encode', 'percent_decode', \
         'try_percent_decode', 'percent_validate', 'percent_normalize') ORDER BY routine_name",
    )
    .await;
    let mut names: Vec<&str> = got.iter().map(|l| l.split(" | ").next().unwrap()).collect();
    names.dedup();
    let mut want = pctenc_datafusion::function_names();
    want.sort();
    assert_eq!(names, want);
    assert!(
        got.iter()
            .any(|l| l.starts_with("url_decode | Spark-compatible") && l.contains("java.net.URLDecoder")),
        "{got:?}"
    );
    assert!(
        got.iter().any(|l| l.starts_with("percent_encode") && l.ends_with("percent_encode(str[, set_name])")),
        "{got:?}"
    );
    let params = run(
        &ctx,
        "SELECT DISTINCT parameter_name FROM information_schema.parameters WHERE specific_name = 'percent_encode' AND parameter_name IS NOT NULL ORDER BY 1",
    )
    .await;
    assert_eq!(params, vec!["set_name", "str"]);
    let shown = run(&ctx, "SHOW FUNCTIONS LIKE 'percent_%'").await;
    assert!(shown.iter().any(|l| l.contains("percent_normalize") && l.contains("RFC 3986")), "{shown:?}");
}

/// Each function's documented example is what the query prints.
#[tokio::test]
async fn documented_examples_are_real() {
    let ctx = context().await;
    for f in pctenc_datafusion::functions() {
        let doc = f.documentation().expect("documented");
        let example = doc.sql_example.as_deref().expect("an example");
        let body = example.trim_start_matches("```sql\n").trim_end_matches("```").trim_end();
        let (query, table) = body.split_once('\n').expect("a query line and a table");
        let query = query.trim_start_matches("> ").trim_end_matches(';');
        let batches = ctx.sql(query).await.unwrap().collect().await.unwrap();
        let got = arrow::util::pretty::pretty_format_batches(&batches).unwrap().to_string();
        assert_eq!(got, table, "{}", f.name());
    }
}
