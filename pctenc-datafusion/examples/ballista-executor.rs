//! A Ballista executor that knows pctenc's functions.
//!
//! ```sh
//! cargo run -p pctenc-datafusion --release --features ballista --example ballista-executor -- \
//!     [SCHEDULER_HOST:PORT] [BIND_HOST:PORT] [EXTERNAL_HOST]
//! ```
//!
//! `--help` says what each argument is. `EXTERNAL_HOST` is not a name of the executor's own
//! choosing: the scheduler, the other executors and the clients connect to it there, so it
//! must lead to this machine from each of them. The scheduler connects to the executor there
//! as it registers: with a name it cannot reach (`worker-1`, which no resolver knows), the
//! registration fails (`Failed to register executor at worker-1:50052, could not connect`)
//! and the scheduler has no executor to run queries on.

use std::io::Write;
use std::sync::Arc;

use ballista_core::error::BallistaError;
use ballista_executor::executor_process::{ExecutorProcessConfig, start_executor_process};

fn host_port(s: &str, what: &str) -> ballista_core::error::Result<(String, u16)> {
    let (host, port) =
        s.rsplit_once(':').ok_or_else(|| BallistaError::Configuration(format!("{what}: HOST:PORT")))?;
    let port = port.parse().map_err(|e| BallistaError::Configuration(format!("{what} port: {e}")))?;
    Ok((host.to_string(), port))
}

/// What `--help` prints.
const HELP: &str = "usage: ballista-executor [SCHEDULER_HOST:PORT] [BIND_HOST:PORT] [EXTERNAL_HOST]

A Ballista executor that knows pctenc's functions.

  SCHEDULER_HOST:PORT  the scheduler to register with (default localhost:50050)
  BIND_HOST:PORT       the address to listen on: Arrow Flight on PORT, gRPC on PORT + 1
                       (default 0.0.0.0:50051)
  EXTERNAL_HOST        the host name or address by which the scheduler, the other executors
                       and clients reach this executor (on PORT and PORT + 1): it must lead
                       here from each of them. Default: the address the scheduler sees this
                       executor's registration come from.

On one machine, start the scheduler first, then the executor, then the query:
  ballista-scheduler 127.0.0.1:50050
  ballista-executor 127.0.0.1:50050 127.0.0.1:50051 127.0.0.1
  sql --ballista df://127.0.0.1:50050 \"SELECT url_decode('caf%C3%A9')\"";

#[tokio::main]
async fn main() -> ballista_core::error::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        // Not `println!`, which panics when the reader has gone (`--help | head`).
        let _ = writeln!(std::io::stdout(), "{HELP}");
        return Ok(());
    }
    let (scheduler_host, scheduler_port) =
        host_port(args.first().map_or("localhost:50050", String::as_str), "scheduler")?;
    let (bind_host, port) = host_port(args.get(1).map_or("0.0.0.0:50051", String::as_str), "bind address")?;
    let config = ExecutorProcessConfig {
        scheduler_host,
        scheduler_port,
        bind_host,
        port,
        grpc_port: port + 1,
        external_host: args.get(2).cloned(),
        override_function_registry: Some(pctenc_datafusion::ballista::executor_function_registry()),
        ..ExecutorProcessConfig::default()
    };
    eprintln!("pctenc Ballista executor: functions {}", pctenc_datafusion::function_names().join(", "));
    start_executor_process(Arc::new(config)).await
}
