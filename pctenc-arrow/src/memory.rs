//! Output buffers: zeroed memory, backed by huge pages when it is large.
//!
//! A kernel writes its whole output into fresh memory, and on fresh memory the cost that
//! dominates is not the writing but the page faults: one for every 4 KiB the first time it
//! is touched (a copy of the output's bytes into a new buffer costs about as much as
//! encoding them). Where the kernel allows transparent huge pages on request (Linux,
//! `/sys/kernel/mm/transparent_hugepage/enabled` at `madvise` or `always`), a large buffer
//! asks for them, so that it faults once every 2 MiB. Elsewhere, or when the kernel says
//! no, the buffer is ordinary memory: only the speed differs.

use crate::error::KernelError;

/// Buffers of at least this many bytes ask for huge pages: large enough to hold at least one
/// whole aligned 2 MiB page, so that the advice is not wasted on a buffer it cannot cover.
pub(crate) const HUGE_PAGE_THRESHOLD: usize = 4 << 20;

/// `len` zeroed bytes, or an error when that much memory cannot be had (a column's values can
/// add up to more than the machine holds: a million views of one 64 KiB value), where a
/// failed allocation would abort the process.
///
/// ```ignore
/// let buf = zeroed(8 << 20).unwrap();
/// assert!(buf.iter().all(|&b| b == 0));
/// ```
pub(crate) fn zeroed(len: usize) -> Result<Vec<u8>, KernelError> {
    if len >= HUGE_PAGE_THRESHOLD {
        // Asked for first without touching it (`try_reserve_exact` maps large sizes lazily),
        // so that a refusal is an error; then given back, and asked for zeroed below.
        let mut probe: Vec<u8> = Vec::new();
        probe.try_reserve_exact(len).map_err(|_| out_of_memory(len))?;
    }
    // `vec![0; len]` allocates zeroed memory, usually without touching it (large allocations
    // come straight from the kernel, already zero), so that the advice below comes before
    // the first fault. (An allocator may instead reuse memory it holds, already faulted in:
    // then the advice changes nothing.)
    let buf = vec![0u8; len];
    if len >= HUGE_PAGE_THRESHOLD {
        advise_huge_pages(&buf);
    }
    Ok(buf)
}

/// An empty vector with room for `n` items, or an error when the system refuses it: the
/// vectors of a value per row (bounds, lengths, validity), which for hundreds of millions of
/// rows are gigabytes of their own.
pub(crate) fn room_for<T>(n: usize) -> Result<Vec<T>, KernelError> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| out_of_memory(n.saturating_mul(size_of::<T>())))?;
    Ok(v)
}

/// The error of an allocation of `len` bytes that the system refused.
pub(crate) fn out_of_memory(len: usize) -> KernelError {
    KernelError::whole(format!("out of memory: {len} bytes could not be allocated"))
}

#[cfg(target_os = "linux")]
fn advise_huge_pages(buf: &[u8]) {
    const HUGE: usize = 2 << 20;
    let start = buf.as_ptr() as usize;
    // The huge pages wholly inside the buffer: the advice never reaches memory it does
    // not own.
    let first = start.next_multiple_of(HUGE);
    let end = (start + buf.len()) & !(HUGE - 1);
    if end > first {
        // SAFETY: `first..end` lies within `buf`'s allocation (rounded inwards to page
        // boundaries). MADV_HUGEPAGE is advice about how to back the range: it neither
        // reads nor changes its bytes, and it cannot fail in a way that matters (an
        // error, such as huge pages being off, leaves ordinary pages).
        unsafe {
            libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_buf: &[u8]) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zeroed_is_zero_at_every_size() {
        for len in [0, 1, 4095, HUGE_PAGE_THRESHOLD - 1, HUGE_PAGE_THRESHOLD, HUGE_PAGE_THRESHOLD + 12345] {
            let buf = zeroed(len).unwrap();
            assert_eq!(buf.len(), len);
            assert!(buf.iter().all(|&b| b == 0), "len {len}");
        }
        assert!(zeroed(usize::MAX / 2).unwrap_err().message().starts_with("out of memory"));
    }
}
