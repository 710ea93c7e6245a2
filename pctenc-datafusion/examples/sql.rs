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
//! `SHOW FUNCTIONS` and `information_schema` describe the functions. With `--ballista URL`
//! (feature `ballista`) the query runs on the Ballista scheduler at URL (`df://host:50050`)
//! instead of in this process. The cluster must first run a `SELECT 1` within `--timeout SECS`
//! (default 60; 0 waits for ever): a scheduler with no executor, or whose executors cannot be
//! reached at the host they registered with, runs nothing. While a query waits, the
//! scheduler is asked every few seconds (its `/readyz`) whether it has an executor, and a
//! notice on stderr says when it has none.
//! Exit status, as grep's: 0 ok; 1 invalid data (a value a function rejects, such as
//! `url_decode('100%')`, or a malformed file); 2 usage, a query that does not plan (an unknown
//! function or set name), an I/O error (a missing file), or a cluster that does not answer.

use std::process::ExitCode;
use std::time::Duration;

use datafusion::error::DataFusionError;
use datafusion::prelude::{
    CsvReadOptions, JsonReadOptions, ParquetReadOptions, SessionConfig, SessionContext,
};

const USAGE: &str = "usage: sql [--table NAME=PATH]... [--ballista URL [--timeout SECS]] QUERY";

const HELP: &str = "Runs QUERY (SQL) with pctenc's functions registered.

  --table NAME=PATH   register a Parquet, CSV (.csv) or NDJSON (.json, .ndjson) file or
                      folder as table NAME; files named in the query are tables too
  --ballista URL      run on the Ballista scheduler at URL (df://HOST:PORT)
  --timeout SECS      with --ballista: fail (status 2) when the cluster has not run a first
                      SELECT 1 within SECS seconds (default 60; 0 waits for ever)

Exit status: 0 ok, 1 a value a function rejects or a malformed file, 2 usage, a query that
does not plan, an I/O error or a cluster that does not answer.";

/// How long `--ballista` waits by default for the cluster to run a first `SELECT 1`.
const DEFAULT_TIMEOUT_SECS: u64 = 60;

#[tokio::main]
async fn main() -> ExitCode {
    let mut tables = Vec::new();
    let mut query = None;
    let mut ballista_url: Option<String> = None;
    let mut timeout = Some(Duration::from_secs(DEFAULT_TIMEOUT_SECS));
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
            "--timeout" => match args.next().and_then(|t| t.parse::<u64>().ok()) {
                Some(0) => timeout = None,
                Some(secs) => timeout = Some(Duration::from_secs(secs)),
                None => return usage("--timeout needs a whole number of seconds"),
            },
            "-h" | "--help" => {
                println!("{USAGE}\n\n{HELP}");
                return ExitCode::SUCCESS;
            }
            _ if query.is_none() => query = Some(arg),
            _ => return usage("one query only"),
        }
    }
    let Some(query) = query else { return usage("no query") };
    // A context that cannot be made (a scheduler that does not answer) is an I/O error.
    let ctx = match context(ballista_url.as_deref(), timeout).await {
        Ok(ctx) => ctx,
        Err(e) => {
            eprintln!("sql: {e}");
            return ExitCode::from(2);
        }
    };
    let result = match ballista_url.as_deref() {
        #[cfg(feature = "ballista")]
        Some(url) => cluster::watched(url, run(ctx, &query, &tables)).await,
        _ => run(ctx, &query, &tables).await,
    };
    match result {
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

/// The session: in this process, or on the Ballista cluster at `ballista_url` once it has run
/// a first query within `timeout`. The error is the message to print.
async fn context(ballista_url: Option<&str>, timeout: Option<Duration>) -> Result<SessionContext, String> {
    match ballista_url {
        None => {
            let config = SessionConfig::new().with_information_schema(true);
            let ctx = SessionContext::new_with_config(config);
            pctenc_datafusion::register(&ctx);
            Ok(ctx)
        }
        #[cfg(feature = "ballista")]
        Some(url) => {
            let ctx = pctenc_datafusion::ballista::remote(url).await.map_err(|e| e.to_string())?;
            // The remote context connects lazily: a first query tells whether the cluster
            // answers, so that a query's own failure is not mistaken for an unreachable one.
            // Without an executor (or with one that cannot be reached) it never ends: hence
            // the time limit, and the scheduler asked why.
            let check = cluster::watched(url, async { ctx.sql("SELECT 1").await?.collect().await });
            let checked = match timeout {
                Some(limit) => match tokio::time::timeout(limit, check).await {
                    Ok(checked) => checked,
                    Err(_) => return Err(cluster::no_answer(url, limit).await),
                },
                None => check.await,
            };
            checked.map_err(|e| e.to_string())?;
            Ok(ctx)
        }
        #[cfg(not(feature = "ballista"))]
        Some(_) => {
            let _ = timeout;
            Err("--ballista needs the `ballista` feature".into())
        }
    }
}

/// What the Ballista scheduler says of its executors, for the messages of a query that waits.
#[cfg(feature = "ballista")]
mod cluster {
    use std::future::Future;
    use std::time::Duration;

    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// How long a query waits before the scheduler is asked whether it has an executor, and
    /// then between two questions.
    const ASK_EVERY: Duration = Duration::from_secs(3);

    /// The scheduler's answer to `GET /readyz`, which it serves on its gRPC port: 200 and
    /// `ready: N executors registered`, or 503 and `not ready: N/M executors registered`.
    pub enum Readiness {
        Ready(String),
        NoExecutor(String),
        /// No answer, or not one of those: why.
        Unknown(String),
    }

    /// `host:port` of a scheduler URL (`df://host:port`).
    fn address(url: &str) -> &str {
        let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
        rest.split(['/', '?']).next().unwrap_or(rest)
    }

    pub async fn readiness(url: &str) -> Readiness {
        let address = address(url);
        let ask = async {
            let mut stream = tokio::net::TcpStream::connect(address).await?;
            let request = format!("GET /readyz HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n");
            stream.write_all(request.as_bytes()).await?;
            let mut response = Vec::new();
            stream.read_to_end(&mut response).await?;
            Ok::<_, std::io::Error>(response)
        };
        let response = match tokio::time::timeout(Duration::from_secs(2), ask).await {
            Ok(Ok(response)) => response,
            Ok(Err(e)) => return Readiness::Unknown(format!("GET /readyz: {e}")),
            Err(_) => return Readiness::Unknown("GET /readyz: no answer in 2 s".into()),
        };
        let text = String::from_utf8_lossy(&response);
        let status = text.split(' ').nth(1).unwrap_or("");
        let said = text.lines().find(|l| l.contains("executors registered")).unwrap_or("").trim().to_string();
        match status {
            "200" if !said.is_empty() => Readiness::Ready(said),
            "503" if !said.is_empty() => Readiness::NoExecutor(said),
            _ => Readiness::Unknown(format!("GET /readyz: {}", text.lines().next().unwrap_or("no answer"))),
        }
    }

    /// Runs `work`; meanwhile asks the scheduler every few seconds whether it has an
    /// executor, and says on stderr (once) when it has none.
    pub async fn watched<T>(url: &str, work: impl Future<Output = T>) -> T {
        let url_owned = url.to_string();
        let watcher = tokio::spawn(async move {
            loop {
                tokio::time::sleep(ASK_EVERY).await;
                if let Readiness::NoExecutor(said) = readiness(&url_owned).await {
                    eprintln!(
                        "sql: waiting: the Ballista scheduler at {} has no executor ({said}); \
                         the query runs once one registers (see the ballista-executor example)",
                        address(&url_owned)
                    );
                    return;
                }
            }
        });
        let out = work.await;
        watcher.abort();
        out
    }

    /// The message for a cluster that ran nothing within `limit`, with the likely cause.
    pub async fn no_answer(url: &str, limit: Duration) -> String {
        let waited = format!("no result from the Ballista cluster at {url} within {} s", limit.as_secs());
        match readiness(url).await {
            Readiness::NoExecutor(said) => format!(
                "{waited}: the scheduler has no executor ({said}); start one \
                 (ballista-executor SCHEDULER_HOST:PORT BIND_HOST:PORT EXTERNAL_HOST), or give --timeout 0 to wait"
            ),
            Readiness::Ready(said) => format!(
                "{waited}, though the scheduler has executors ({said}): can the scheduler and this \
                 machine reach each executor at the host it registered with (ballista-executor's \
                 EXTERNAL_HOST)? --timeout 0 waits for ever"
            ),
            Readiness::Unknown(why) => format!("{waited} ({why}); --timeout 0 waits for ever"),
        }
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
