//! Panics inside the Arrow kernels. None is expected, but one must not reach Python as PyO3's
//! `PanicException`, which derives from `BaseException` (so `except Exception` lets it
//! through) and comes with Rust's report on stderr: [`quietly`] catches it, and its message
//! becomes the text of an ordinary exception.
//!
//! Rust's report is printed by the panic hook, before any unwinding, on whichever thread
//! panicked (a rayon worker, for a large column). So the hook is wrapped once: while a kernel
//! runs it keeps quiet, and otherwise it calls the hook that was there before. Each extension
//! module has a standard library of its own, so this is pctenc's hook alone.

use std::any::Any;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Kernel calls under way, on any thread.
static RUNNING: AtomicUsize = AtomicUsize::new(0);

/// Runs `f`, its panic (on this thread or one it waited for) caught: `Err` with the panic's
/// message.
pub(crate) fn quietly<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if RUNNING.load(Ordering::SeqCst) == 0 {
                previous(info);
            }
        }));
    });
    RUNNING.fetch_add(1, Ordering::SeqCst);
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    RUNNING.fetch_sub(1, Ordering::SeqCst);
    result.map_err(|payload| message(payload.as_ref()))
}

fn message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        format!("internal error: {s}")
    } else if let Some(s) = payload.downcast_ref::<String>() {
        format!("internal error: {s}")
    } else {
        "internal error".to_string()
    }
}
