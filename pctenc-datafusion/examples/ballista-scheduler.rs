//! A Ballista scheduler that knows pctenc's functions.
//!
//! ```sh
//! cargo run -p pctenc-datafusion --release --features ballista --example ballista-scheduler -- 0.0.0.0:50050
//! ```
//!
//! The argument is the address to listen on (default `0.0.0.0:50050`); `EXTERNAL_HOST` sets
//! the host name executors and clients reach it by (default `localhost`).

use std::net::SocketAddr;
use std::sync::Arc;

use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::SchedulerConfig;
use ballista_scheduler::scheduler_process::start_server;

#[tokio::main]
async fn main() -> ballista_core::error::Result<()> {
    let addr: SocketAddr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "0.0.0.0:50050".into())
        .parse()
        .map_err(|e| ballista_core::error::BallistaError::Configuration(format!("address: {e}")))?;
    let mut config = SchedulerConfig {
        bind_host: addr.ip().to_string(),
        bind_port: addr.port(),
        ..SchedulerConfig::default()
    };
    if let Ok(host) = std::env::var("EXTERNAL_HOST") {
        config.external_host = host;
    }
    let config =
        config.with_override_session_builder(pctenc_datafusion::ballista::scheduler_session_builder());
    let cluster = BallistaCluster::new_from_config(&config).await?;
    eprintln!(
        "pctenc Ballista scheduler on {addr}: functions {}",
        pctenc_datafusion::function_names().join(", ")
    );
    start_server(cluster, addr, Arc::new(config)).await
}
