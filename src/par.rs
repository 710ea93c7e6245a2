//! The parallel machinery of encoding and decoding large inputs on the rayon pool (feature
//! `rayon`): where to cut, the slots of one allocation filled in parallel, and windows of
//! reused buffers written in order. `encode::par` and `decode::par` build the parallel paths
//! of `Encoder` and `Decoder` on it; this module knows neither.
//!
//! The input is cut into chunks at borders where a serial pass would be at a token boundary,
//! so every chunk encodes (decodes) to exactly the part of the serial output it stands for.
//! A first parallel pass counts each chunk's output length; their prefix sums give each
//! chunk its own disjoint slot of one allocation, which a second parallel pass fills. The
//! output is the serial output byte for byte, whatever the number of threads.

use alloc::vec::Vec;
use core::mem::MaybeUninit;

use rayon::prelude::*;

use std::io::{self, Write};

/// `Write::write_all`, except that a writer claiming to have written more than it was
/// given is taken at its word for what it was given, instead of making the caller panic.
pub(crate) fn write_all<W: Write + ?Sized>(out: &mut W, mut buf: &[u8]) -> io::Result<()> {
    while !buf.is_empty() {
        match out.write(buf) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => buf = &buf[n.min(buf.len())..],
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Inputs shorter than this are encoded serially: below it, handing the work to the pool
/// costs more than the other cores save. Measured with `benches/parallel.rs` on two cores
/// (Zen 4, AVX-512; `docs/BENCHMARKS.md`): two threads first win at 128 KiB (1.06x) and
/// clearly at 256 KiB (1.45x).
pub const PAR_ENCODE_THRESHOLD: usize = 256 * 1024;

/// Inputs shorter than this are decoded serially. Decoding runs at three times the speed of
/// encoding, so it takes more input to pay for the hand-over: on two cores, two threads first
/// win at 1 MiB (1.07x; 1.4x at 4 MiB).
pub const PAR_DECODE_THRESHOLD: usize = 1024 * 1024;

/// Whether the current pool has one thread only: the in-memory parallel paths then gain
/// nothing over the serial ones.
pub(crate) fn single_thread() -> bool {
    rayon::current_num_threads() <= 1
}

/// Input bytes per chunk: large enough that a task's bookkeeping is noise, small enough that
/// a chunk's output slot stays in the core's L2 cache between zeroing and writing it, and
/// that the pool can balance the load.
pub(crate) const CHUNK: usize = 64 * 1024;

/// Where the chunks of `input` start and end: `0`, then borders about `chunk` bytes apart,
/// each moved forward to the first position `safe` accepts, then `input.len()`.
pub(crate) fn borders(input: &[u8], chunk: usize, safe: impl Fn(usize) -> bool) -> Vec<usize> {
    let mut cuts = Vec::with_capacity(input.len() / chunk + 2);
    cuts.push(0);
    let mut next = chunk;
    while next < input.len() {
        let mut at = next;
        while at < input.len() && !safe(at) {
            at += 1;
        }
        if at >= input.len() {
            break;
        }
        cuts.push(at);
        next = at + chunk;
    }
    cuts.push(input.len());
    cuts
}

/// Whether a serial decoder (or a re-quoting encoder) is at a token boundary at `at`: no
/// `%` in the two bytes before it, so `at` is not inside an escape. (A `%` there might start
/// no escape; moving on past it is still correct.)
pub(crate) fn outside_escape(input: &[u8], at: usize) -> bool {
    at >= 2 && input[at - 1] != b'%' && input[at - 2] != b'%'
}

/// Whether `at` is not inside a UTF-8 sequence: `input[at]` is not a continuation byte.
pub(crate) fn at_char_boundary(input: &[u8], at: usize) -> bool {
    !matches!(input[at], 0x80..=0xBF)
}

/// Splits `out` into consecutive slots of the given lengths.
fn slots<'a, T>(mut out: &'a mut [T], lens: &[usize]) -> Vec<&'a mut [T]> {
    let mut slots = Vec::with_capacity(lens.len());
    for &len in lens {
        let (slot, rest) = core::mem::take(&mut out).split_at_mut(len);
        slots.push(slot);
        out = rest;
    }
    slots
}

/// Zeroes `slot` and gives it as bytes. The slot is zeroed just before its task writes it,
/// while it is in that core's cache.
fn zeroed(slot: &mut [MaybeUninit<u8>]) -> &mut [u8] {
    slot.fill(MaybeUninit::new(0));
    // SAFETY: every element was just initialized, and `MaybeUninit<u8>` has the layout of
    // `u8`.
    unsafe { &mut *(slot as *mut [MaybeUninit<u8>] as *mut [u8]) }
}

/// Appends `total` bytes to `out`, written by `fill(chunk_index, slot)` in parallel into the
/// slots of `lens` (which sum to `total`). `fill` returns whether it filled its slot exactly;
/// if one did not, `out` is left as it was and the result is `false`.
pub(crate) fn fill_slots(
    out: &mut Vec<u8>,
    lens: &[usize],
    total: usize,
    fill: impl Fn(usize, &mut [u8]) -> bool + Sync,
) -> bool {
    out.reserve(total);
    let start = out.len();
    let filled = fill_spare(&mut out.spare_capacity_mut()[..total], lens, fill);
    if filled {
        // SAFETY: `fill_spare` initialized all of `out[start..start + total]`; the capacity
        // was reserved above.
        unsafe { out.set_len(start + total) };
    }
    filled
}

/// Fills `spare` in parallel: the slots of `lens` (which sum to its length), each zeroed then
/// written by `fill(chunk_index, slot)`. Returns whether every `fill` filled its slot; either
/// way every byte of `spare` is initialized.
pub(crate) fn fill_spare(
    spare: &mut [MaybeUninit<u8>],
    lens: &[usize],
    fill: impl Fn(usize, &mut [u8]) -> bool + Sync,
) -> bool {
    // What "every byte of `spare` is initialized" rests on (and `fill_slots`' `set_len`).
    assert_eq!(lens.iter().sum::<usize>(), spare.len(), "slots that do not cover the spare capacity");
    slots(spare, lens)
        .into_par_iter()
        .enumerate()
        .map(|(i, slot)| fill(i, zeroed(slot)))
        .reduce(|| true, |a, b| a && b)
}

/// Input bytes per chunk of the writing paths (`encode::par::encode_to`,
/// `decode::par::decode_to`): each chunk's
/// output goes to a buffer of its own, reused from window to window, which stays in the
/// core's L2 cache while it is written.
pub(crate) const WRITE_CHUNK: usize = 64 * 1024;

/// Input bytes per window: enough chunks for every thread of a small machine to take
/// several (balancing the load), and a bound on memory whatever the number of threads: the
/// writing paths hold two windows of output buffers (about 5 MiB for text with a third of it
/// escaped, 12 MiB at most).
const WINDOW_BYTES: usize = 2 << 20;

/// Chunks per window: [`WINDOW_BYTES`] of them, or two per thread when there are more
/// threads than that.
pub(crate) fn window(chunk: usize) -> usize {
    (WINDOW_BYTES / chunk).max(2 * rayon::current_num_threads()).max(1)
}

/// A chunk's output buffer: `buf[..len]` is the output; all of `buf` is initialized, so it
/// is reused without zeroing.
#[derive(Default)]
pub(crate) struct Slot {
    pub(crate) buf: Vec<u8>,
    pub(crate) len: usize,
}

/// The output buffers of the writing paths: the window being written and the one being
/// worked on. A stream keeps its own, so that large inputs fed in segments (a mapped file)
/// do not allocate and fault in new buffers for each segment; they go with the stream.
#[derive(Default)]
pub(crate) struct Buffers {
    ready: Vec<Slot>,
    next: Vec<Slot>,
}

impl Clone for Buffers {
    /// A clone starts with no buffers of its own.
    fn clone(&self) -> Buffers {
        Buffers::default()
    }
}

impl core::fmt::Debug for Buffers {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Buffers")
    }
}

/// Runs `work` over `pieces` a window at a time into reused slots, and writes each window's
/// output to `out` in order while the next window is worked on. `work` fills a slot from a
/// piece, or fails; on a failure, the output of the pieces before the failing one is written,
/// and the failure is returned with its piece's index.
pub(crate) fn windows<W, E>(
    pieces: &[&[u8]],
    out: &mut W,
    buffers: &mut Buffers,
    chunk: usize,
    work: impl Fn(&[u8], &mut Slot) -> Result<(), E> + Sync,
) -> Result<(), (usize, Result<E, io::Error>)>
where
    W: Write + Send,
    E: Send,
{
    // `ready` holds the window being written, `next` the one being worked on.
    let Buffers { ready, next } = buffers;
    let window = window(chunk);
    let run = |batch: &[&[u8]], slots: &mut Vec<Slot>| -> Vec<Result<(), E>> {
        slots.resize_with(slots.len().max(batch.len()), Slot::default);
        batch.par_iter().zip(slots.par_iter_mut()).map(|(piece, slot)| work(piece, slot)).collect()
    };
    let write = |out: &mut W, slots: &[Slot], n: usize| -> io::Result<()> {
        slots[..n].iter().try_for_each(|slot| write_all(out, &slot.buf[..slot.len]))
    };
    let mut done = 0;
    let mut results = run(&pieces[..window.min(pieces.len())], ready);
    loop {
        let count = results.len();
        if let Some(bad) = results.iter().position(Result::is_err) {
            write(out, ready, bad).map_err(|e| (done + bad, Err(e)))?;
            let Some(Err(e)) = results.into_iter().nth(bad) else { unreachable!() };
            return Err((done + bad, Ok(e)));
        }
        let upcoming = &pieces[(done + count).min(pieces.len())..(done + count + window).min(pieces.len())];
        if upcoming.is_empty() {
            return write(out, ready, count).map_err(|e| (done + count, Err(e)));
        }
        // Write this window while the pool works on the next one.
        let (written, next_results) = rayon::join(|| write(out, ready, count), || run(upcoming, next));
        written.map_err(|e| (done + count, Err(e)))?;
        done += count;
        results = next_results;
        core::mem::swap(ready, next);
    }
}

/// Inputs and chunk sizes for the tests of the parallel paths (`encode::par`,
/// `decode::par`).
#[cfg(test)]
pub(crate) mod samples {
    use alloc::vec::Vec;

    /// Inputs built from the tokens whose borders matter: escapes (valid, truncated,
    /// malformed), UTF-8 sequences (whole and broken), `+` and `%` runs.
    pub(crate) fn inputs() -> Vec<Vec<u8>> {
        let tokens: [&[u8]; 17] = [
            b"%",
            b"%4",
            b"%41",
            b"%C3%A9",
            "é".as_bytes(),
            "\u{1F600}".as_bytes(),
            b"+",
            b" ",
            b"a",
            b"\xFF",
            b"%zz",
            b"%%",
            b"\xC3",
            b"%2F",
            b"%00",
            b"%e9",
            b"\xF0\x9F",
        ];
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut all = Vec::new();
        // Miri interprets every operation: a few inputs there.
        let (lens, each): (&[usize], usize) =
            if cfg!(miri) { (&[0, 5, 40, 97], 1) } else { (&[0, 1, 2, 5, 17, 40, 97, 300], 12) };
        for &len in lens {
            for _ in 0..each {
                let mut v = Vec::new();
                while v.len() < len {
                    v.extend_from_slice(tokens[(next() % tokens.len() as u64) as usize]);
                }
                all.push(v);
            }
        }
        // Runs that leave no safe border at all, and valid text only.
        if cfg!(miri) {
            return all;
        }
        all.push(vec![b'%'; 50]);
        all.push(vec![0x80; 50]);
        all.push("%C3%A9é+".repeat(40).into_bytes());
        all
    }

    /// The chunk sizes tried: every small one, and some around the vector sizes.
    pub(crate) fn chunks() -> std::vec::Vec<usize> {
        if cfg!(miri) { std::vec![3, 33] } else { (1..=20).chain([33, 64, 65, 130]).collect() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn borders_are_safe_and_increasing() {
        let input = b"ab%41cd%%%%ef";
        let cuts = borders(input, 2, |at| outside_escape(input, at));
        assert_eq!(cuts, [0, 2, 5, 7, 13]);
        assert_eq!(borders(b"", 4, |_| true), [0, 0]);
        assert_eq!(borders(b"%%%%", 1, |at| outside_escape(b"%%%%", at)), [0, 4]);
    }
}
