//! Runs SQL over Parquet, CSV or NDJSON files with pctenc's functions registered.
//!
//! ```sh
//! cargo run -p pctenc-datafusion --release --example sql -- \
//!     "SELECT url_decode(path) AS path, count(*) AS hits FROM 'access.parquet' GROUP BY 1 ORDER BY 2 DESC LIMIT 10"
//! ```
//!
//! Files are named in the query (`FROM 'logs/*.parquet'`, `'access.csv'`, `'events.json'`
//! for newline-delimited JSON: the extension picks the format), or registered as tables with
//! `--table NAME=PATH` before the query (`.csv`, `.json` or `.ndjson`, else Parquet).
//! `SHOW FUNCTIONS` and `information_schema` describe the functions. With `--ballista URL` (feature `ballista`) the query runs on the Ballista
//! scheduler at URL (`df://host:50050`) instead of in this process.
//! Exit status, as grep's: 0 ok; 1 invalid data (a value a function rejects, such as
//! `url_decode('100%')`, or a malformed file); 2 usage, a query that does not plan (an unknown
//! function or set name), or an I/O error (a missing file).

use std::process::ExitCode;

use datafusion::error::DataFusionError;
use datafusion::prelude::{
    CsvReadOptions, JsonReadOptions, ParquetReadOptions, SessionConfig, SessionContext,
};

const USAGE: &str = "usage: sql [--table NAME=PATH]... [--ballista URL] QUERY";

#[tokio::main]
async fn main() -> ExitCode {
    let mut tables = Vec::new();
    let mut query = None;
    let mut ballista_url: Option<String> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--table" => match args.next().as_deref().and_then(|t| t.split_once('=')) {
                Some((name, path)) => tables.push((name.to_string(), path.to_string())),
                None => return usage("--table needs NAME=PATH"),
            },
            "--ballista" => match args.next() {
                Some(url) => ballista_url = Some(url),
                None => return usage("--ballista needs a URL"),
            },
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            _ if query.is_none() => query = Some(arg),
            _ => return usage("one query only"),
        }
    }
    let Some(query) = query else { return usage("no query") };
    // A context that cannot be made (a scheduler that does not answer) is an I/O error.
    let ctx = match context(ballista_url.as_deref()).await {
        Ok(ctx) => ctx,
        Err(e) => {
            eprintln!("sql: {e}");
            return ExitCode::from(2);
        }
    };
    match run(ctx, &query, &tables).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sql: {e}");
            ExitCode::from(status(&e))
        }
    }
}

/// The exit status of a failed query: 1 for the data, 2 for the query or the files.
fn status(e: &DataFusionError) -> u8 {
    use datafusion::arrow::error::ArrowError;
    match e.find_root() {
        DataFusionError::ArrowError(ae, _) if matches!(**ae, ArrowError::IoError(..)) => 2,
        DataFusionError::Execution(_)
        | DataFusionError::ArrowError(..)
        | DataFusionError::ParquetError(_) => 1,
        _ => 2,
    }
}

fn usage(why: &str) -> ExitCode {
    eprintln!("sql: {why}\n{USAGE}");
    ExitCode::from(2)
}

async fn context(ballista_url: Option<&str>) -> datafusion::error::Result<SessionContext> {
    match ballista_url {
        None => {
            let config = SessionConfig::new().with_information_schema(true);
            let ctx = SessionContext::new_with_config(config);
            pctenc_datafusion::register(&ctx);
            Ok(ctx)
        }
        #[cfg(feature = "ballista")]
        Some(url) => {
            let ctx = pctenc_datafusion::ballista::remote(url).await?;
            // The remote context connects lazily: a first query tells whether the cluster
            // answers, so that a query's own failure is not mistaken for an unreachable one.
            ctx.sql("SELECT 1").await?.collect().await?;
            Ok(ctx)
        }
        #[cfg(not(feature = "ballista"))]
        Some(_) => Err(DataFusionError::Configuration("--ballista needs the `ballista` feature".into())),
    }
}

async fn run(ctx: SessionContext, query: &str, tables: &[(String, String)]) -> datafusion::error::Result<()> {
    // `FROM 'access.parquet'`: files named in the query are tables.
    let ctx = ctx.enable_url_table();
    for (name, path) in tables {
        let lower = path.to_ascii_lowercase();
        if lower.ends_with(".csv") {
            ctx.register_csv(name, path, CsvReadOptions::new()).await?;
        } else if lower.ends_with(".json") || lower.ends_with(".ndjson") {
            let ext = if lower.ends_with(".json") { ".json" } else { ".ndjson" };
            ctx.register_json(name, path, JsonReadOptions::default().file_extension(ext)).await?;
        } else {
            ctx.register_parquet(name, path, ParquetReadOptions::default()).await?;
        }
    }
    let df = ctx.sql(query).await?;
    df.show().await
}
