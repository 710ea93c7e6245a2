//! The threads of `-j N`: started only when a step of the run has enough input to share, and
//! never more than it has pieces of work.
//!
//! A rayon pool starts all its threads when it is built, and a thread that waits for work
//! still costs: every parallel step wakes them. So the run starts on the main thread, and a
//! pool is built the first time a step (a mapped file, a large read from a pipe) reaches
//! the library's parallel threshold, with one thread per 64 KiB piece of that step at most;
//! a later, larger step gets a larger pool. Steps below the threshold take the serial paths,
//! which touch no pool.

use std::cell::RefCell;

use super::Failure;

/// Input bytes per piece of work of the library's parallel paths (its chunks): more threads
/// than pieces would only wait.
const PIECE: u64 = 64 * 1024;

/// Threads per CPU that `-j` allows at most: a little oversubscription can hide I/O waits,
/// much of it only makes the threads take turns.
pub const PER_CPU: usize = 4;

/// The CPUs pctenc may run on (its affinity mask and cgroup quota; 1 if unknown).
pub fn cpus() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// The largest `-j`: [`PER_CPU`] threads per CPU.
pub fn most() -> usize {
    (PER_CPU * cpus()).min(usize::from(u16::MAX))
}

/// The threads of one run.
pub struct Threads {
    /// `-j N`, or one per CPU.
    limit: usize,
    pool: RefCell<Option<rayon::ThreadPool>>,
}

impl Threads {
    pub fn new(requested: Option<u16>) -> Threads {
        Threads { limit: requested.map_or_else(cpus, usize::from), pool: RefCell::new(None) }
    }

    /// The threads a large input gets (`pctenc info -j N` reports it).
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Runs `work`, a step over `bytes` bytes of input: on this thread when they are fewer
    /// than `threshold` (the library's parallel threshold for the step), else on the pool,
    /// which is started, or enlarged, to one thread per piece of work of the step, up to
    /// the limit.
    pub fn run<R: Send>(
        &self,
        bytes: u64,
        threshold: usize,
        work: impl FnOnce() -> R + Send,
    ) -> Result<R, Failure> {
        if bytes < threshold as u64 {
            return Ok(work());
        }
        let pieces = usize::try_from(bytes.div_ceil(PIECE)).unwrap_or(usize::MAX);
        let wanted = self.limit.min(pieces).max(1);
        let mut pool = self.pool.borrow_mut();
        if pool.as_ref().is_none_or(|p| p.current_num_threads() < wanted) {
            // The old pool's threads end once it is dropped.
            let built = rayon::ThreadPoolBuilder::new().num_threads(wanted).build();
            *pool =
                Some(built.map_err(|e| Failure::Io {
                    what: "thread pool".into(),
                    error: std::io::Error::other(e),
                })?);
        }
        let pool = pool.as_ref().expect("built above");
        Ok(pool.install(work))
    }
}
