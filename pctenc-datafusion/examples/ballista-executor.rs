//! A Ballista executor that knows pctenc's functions.
//!
//! ```sh
//! cargo run -p pctenc-datafusion --release --features ballista --example ballista-executor -- \
//!     SCHEDULER_HOST:50050 [BIND_HOST:PORT] [EXTERNAL_HOST]
//! ```
//!
//! The scheduler to register with (default `localhost:50050`), the address to serve Arrow
//! Flight on (default `0.0.0.0:50051`; gRPC on the next port), and the host name other
//! machines reach this one by (default: the machine's host name as the scheduler sees it).

use std::sync::Arc;

use ballista_core::error::BallistaError;
use ballista_executor::executor_process::{ExecutorProcessConfig, start_executor_process};

fn host_port(s: &str, what: &str) -> ballista_core::error::Result<(String, u16)> {
    let (host, port) =
        s.rsplit_once(':').ok_or_else(|| BallistaError::Configuration(format!("{what}: HOST:PORT")))?;
    let port = port.parse().map_err(|e| BallistaError::Configuration(format!("{what} port: {e}")))?;
    Ok((host.to_string(), port))
}

#[tokio::main]
async fn main() -> ballista_core::error::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
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
