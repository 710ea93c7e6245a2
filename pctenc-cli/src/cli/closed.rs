//! Standard input, output and error closed when pctenc was started (`pctenc encode >&-`).
//!
//! Before `main`, Rust's runtime opens `/dev/null` on each of descriptors 0, 1 and 2 that is
//! closed, so that no file opened later takes its place. Output to a closed descriptor 1 then
//! vanishes into `/dev/null` with no error, where `cat` fails with "Bad file descriptor";
//! and `/dev/null` itself cannot tell a closed descriptor from `>/dev/null`, which must keep
//! working. So a constructor records which descriptors were closed before the runtime looks:
//! the loader runs the functions of `.init_array` before it calls the C `main` that runs
//! Rust's runtime setup and then pctenc's `main` (glibc and musl alike). On other systems
//! nothing is recorded and no descriptor counts as closed.

use std::sync::atomic::{AtomicU8, Ordering};

/// Bit `fd` set: descriptor `fd` (0, 1 or 2) was closed when the process started.
static CLOSED: AtomicU8 = AtomicU8::new(0);

#[cfg(any(target_os = "linux", target_os = "android"))]
#[used]
// SAFETY: the loader calls each pointer of `.init_array` once, before `main`, with `argc`,
// `argv` and `envp`, as `record`'s signature takes them; `record` needs nothing the Rust
// runtime sets up (it calls `fcntl`, reads `errno` and stores to an atomic).
#[unsafe(link_section = ".init_array")]
static RECORD: extern "C" fn(libc::c_int, *const *const libc::c_char, *const *const libc::c_char) = record;

#[cfg(any(target_os = "linux", target_os = "android"))]
extern "C" fn record(_: libc::c_int, _: *const *const libc::c_char, _: *const *const libc::c_char) {
    for fd in 0..3 {
        // SAFETY: F_GETFD only reads the descriptor's flags; a closed one gives EBADF.
        let flags = unsafe { libc::fcntl(fd, libc::F_GETFD) };
        if flags == -1 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EBADF) {
            CLOSED.fetch_or(1 << fd, Ordering::Relaxed);
        }
    }
}

/// Whether descriptor `fd` was closed when pctenc started (and is now `/dev/null`).
pub fn at_start(fd: i32) -> bool {
    (0..3).contains(&fd) && CLOSED.load(Ordering::Relaxed) & (1 << fd) != 0
}

/// The error for writing or reading a descriptor that was closed: "Bad file descriptor", as
/// `cat` reports it.
pub fn error() -> std::io::Error {
    #[cfg(unix)]
    {
        std::io::Error::from_raw_os_error(libc::EBADF)
    }
    #[cfg(not(unix))]
    std::io::ErrorKind::NotConnected.into()
}
