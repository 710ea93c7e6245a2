//! Ballista: sessions, schedulers and executors that know pctenc's functions.
//!
//! A query that calls a function travels to the scheduler and the executors by name, so each
//! process must have the functions registered: the client's session ([`session_state`]), the
//! scheduler's session builder ([`scheduler_session_builder`]) and the executors' function
//! registry ([`executor_function_registry`]). `examples/ballista-scheduler.rs` and
//! `examples/ballista-executor.rs` are such processes; [`standalone`] runs both inside this
//! process (loopback gRPC), as the tests do.

use std::sync::Arc;

use ::ballista::prelude::{SessionConfigExt, SessionContextExt};
use ballista_core::registry::BallistaFunctionRegistry;
use datafusion::common::Result;
use datafusion::execution::{SessionState, SessionStateBuilder};
use datafusion::prelude::{SessionConfig, SessionContext};

/// A DataFusion session state with the default functions and pctenc's.
///
/// # Errors
///
/// From registering the functions (none in practice).
pub fn session_state(config: SessionConfig) -> Result<SessionState> {
    let mut state = SessionStateBuilder::new().with_config(config).with_default_features().build();
    crate::udf::register_in(&mut state)?;
    Ok(state)
}

/// The scheduler's session builder (`SchedulerConfig::with_override_session_builder`).
pub fn scheduler_session_builder() -> ballista_scheduler::scheduler_server::SessionBuilder {
    Arc::new(session_state)
}

/// The executors' function registry (`ExecutorProcessConfig::override_function_registry`):
/// DataFusion's defaults and pctenc's functions.
pub fn executor_function_registry() -> Arc<BallistaFunctionRegistry> {
    let mut registry = BallistaFunctionRegistry::default();
    for f in crate::udf::functions() {
        registry.scalar_functions.insert(f.name().to_string(), f);
    }
    Arc::new(registry)
}

/// A Ballista cluster inside this process, scheduler and executor over loopback gRPC, whose
/// every part knows pctenc's functions; the context submits queries to it.
///
/// # Errors
///
/// When the scheduler or the executor does not start.
pub async fn standalone() -> Result<SessionContext> {
    let config = SessionConfig::new_with_ballista();
    let state = session_state(config)?;
    let ctx = SessionContext::standalone_with_state(state).await?;
    // The client's state is rebuilt for Ballista with Ballista's list of functions: add
    // pctenc's again, for planning here.
    crate::udf::register(&ctx);
    Ok(ctx)
}

/// A context that submits its queries to the scheduler at `url` (`df://host:50050`), with
/// pctenc's functions registered on the client side.
///
/// # Errors
///
/// When `url` is not a scheduler URL.
pub async fn remote(url: &str) -> Result<SessionContext> {
    let state = session_state(SessionConfig::new_with_ballista())?;
    let ctx = SessionContext::remote_with_state(url, state).await?;
    crate::udf::register(&ctx);
    Ok(ctx)
}
