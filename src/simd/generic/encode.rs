//! Encoding over [`Kernel`]: the escape count, the counts before many cuts, and the encoder
//! (blocks, runs that need no escaping, an overlapping tail, a stack scratch near the end of
//! the output).

use core::mem::MaybeUninit;

use crate::kernel_io::{Partial, put};
use crate::scalar::encode as scalar;
use crate::set::Set;
use crate::simd::kernel::{Fits, Kernel, SCRATCH};

/// How many bytes of `input` are written as `%HH`.
///
/// # Safety
/// The CPU supports `K`'s instruction set.
#[inline(always)]
pub(crate) unsafe fn count_escapes<K: Kernel>(input: &[u8], set: &Set) -> usize {
    let () = K::FITS;
    if input.len() < K::BYTES {
        return scalar::count_escapes(input, set);
    }
    // SAFETY: the caller vouches for the CPU.
    let p = unsafe { K::prepare(set, crate::hex::UPPER) };
    let mut count = 0;
    let mut at = 0;
    // Four blocks per round: their classifications are independent.
    while at + 4 * K::BYTES <= input.len() {
        // SAFETY: `at + 4 * BYTES <= input.len()`.
        let masks = unsafe {
            let src = input.as_ptr().add(at);
            [
                K::classify(&p, src).0,
                K::classify(&p, src.add(K::BYTES)).0,
                K::classify(&p, src.add(2 * K::BYTES)).0,
                K::classify(&p, src.add(3 * K::BYTES)).0,
            ]
        };
        count += masks.iter().map(|m| m.count_ones() as usize).sum::<usize>();
        at += 4 * K::BYTES;
    }
    while at + K::BYTES <= input.len() {
        // SAFETY: `at + BYTES <= input.len()`.
        let (escaped, _) = unsafe { K::classify(&p, input.as_ptr().add(at)) };
        count += escaped.count_ones() as usize;
        at += K::BYTES;
    }
    if at < input.len() {
        // The last, partial block: classify the final BYTES bytes (the input is at least that
        // long) and skip the lanes counted already.
        let start = input.len() - K::BYTES;
        // SAFETY: `start + BYTES == input.len()`.
        let (escaped, _) = unsafe { K::classify(&p, input.as_ptr().add(start)) };
        count += (escaped >> (at - start)).count_ones() as usize;
    }
    count
}

/// The offset of the first byte that encoding changes (written as `%HH`, or a space written
/// as `+`), or `input.len()` when the encoding is the input.
///
/// # Safety
/// The CPU supports `K`'s instruction set.
#[inline(always)]
pub(crate) unsafe fn first_change<K: Kernel>(input: &[u8], set: &Set) -> usize {
    let () = K::FITS;
    if input.len() < K::BYTES {
        return scalar::first_change(input, set);
    }
    // SAFETY: the caller vouches for the CPU.
    let p = unsafe { K::prepare(set, crate::hex::UPPER) };
    let first = |at: usize, mask: u64| at + mask.trailing_zeros() as usize;
    let mut at = 0;
    // Four blocks per round, as in `count_escapes`: most inputs that need no escaping are
    // read to the end.
    while at + 4 * K::BYTES <= input.len() {
        // SAFETY: `at + 4 * BYTES <= input.len()`.
        let masks = unsafe {
            let src = input.as_ptr().add(at);
            [
                K::classify(&p, src),
                K::classify(&p, src.add(K::BYTES)),
                K::classify(&p, src.add(2 * K::BYTES)),
                K::classify(&p, src.add(3 * K::BYTES)),
            ]
        }
        .map(|(escaped, plus)| escaped | plus);
        if let Some(k) = masks.iter().position(|&m| m != 0) {
            return first(at + k * K::BYTES, masks[k]);
        }
        at += 4 * K::BYTES;
    }
    while at + K::BYTES <= input.len() {
        // SAFETY: `at + BYTES <= input.len()`.
        let (escaped, plus) = unsafe { K::classify(&p, input.as_ptr().add(at)) };
        if escaped | plus != 0 {
            return first(at, escaped | plus);
        }
        at += K::BYTES;
    }
    if at < input.len() {
        // The last, partial block: the final BYTES bytes, less the lanes seen already.
        let start = input.len() - K::BYTES;
        // SAFETY: `start + BYTES == input.len()`.
        let (escaped, plus) = unsafe { K::classify(&p, input.as_ptr().add(start)) };
        let mask = (escaped | plus) >> (at - start);
        if mask != 0 {
            return first(at, mask);
        }
    }
    input.len()
}

/// For each of `cuts` (ascending offsets into `input`, the first at least `base`), how many
/// bytes of `input[base..cut]` are written as `%HH`, into `counts` (as long as `cuts`): the
/// escapes of many short parts of one buffer (the rows of a column) in one pass, one
/// classification per block and a popcount per cut.
///
/// # Safety
/// The CPU supports `K`'s instruction set.
#[inline(always)]
pub(crate) unsafe fn count_escapes_before<K: Kernel>(
    input: &[u8],
    set: &Set,
    base: usize,
    cuts: &[usize],
    counts: &mut [usize],
) {
    let () = K::FITS;
    let Some(&last) = cuts.last() else { return };
    let input = &input[..last];
    if input.len() - base < K::BYTES {
        return scalar::count_escapes_before(input, set, base, cuts, counts);
    }
    // SAFETY: the caller vouches for the CPU.
    let p = unsafe { K::prepare(set, crate::hex::UPPER) };
    // The cuts below `at` are done; `running` counts the escapes of `input[base..at]`.
    let (mut running, mut at, mut j) = (0usize, base, 0);
    // `(m & below(k))`: the lanes of mask `m` before lane `k` (`k < 64`).
    let below = |k: usize| (1u64 << k) - 1;
    // `input.len() >= BYTES` here: the guard cannot overflow, whatever `base` is.
    while at <= input.len() - K::BYTES {
        // SAFETY: `at + BYTES <= input.len()`.
        let (escaped, _) = unsafe { K::classify(&p, input.as_ptr().add(at)) };
        while j < cuts.len() && cuts[j] < at + K::BYTES {
            counts[j] = running + (escaped & below(cuts[j] - at)).count_ones() as usize;
            j += 1;
        }
        running += escaped.count_ones() as usize;
        at += K::BYTES;
    }
    // The last, partial block: classify the final BYTES bytes (there are at least that many
    // after `base`) and drop the lanes counted already.
    let escaped = if at < input.len() {
        let start = input.len() - K::BYTES;
        // SAFETY: `start + BYTES == input.len()`.
        let (escaped, _) = unsafe { K::classify(&p, input.as_ptr().add(start)) };
        escaped >> (at - start)
    } else {
        0
    };
    for (&cut, count) in cuts[j..].iter().zip(&mut counts[j..]) {
        *count = running + (escaped & below(cut - at)).count_ones() as usize;
    }
}

/// Encodes `input` into `out` and returns the output's length, or when `out` is too small
/// how far it got ([`Partial`], at a block boundary; nothing is written past `out`).
///
/// # Safety
/// The CPU supports `K`'s instruction set.
#[inline(always)]
pub(crate) unsafe fn encode<K: Kernel>(
    input: &[u8],
    set: &Set,
    digits: &[u8; 16],
    out: &mut [MaybeUninit<u8>],
) -> Result<usize, Partial> {
    let () = K::FITS;
    if input.len() < K::BYTES && !K::EXACT {
        return scalar::encode(input, set, digits, out);
    }
    // SAFETY: the caller vouches for the CPU.
    let p = unsafe { K::prepare(set, digits) };
    let roomy = 3 * K::BYTES + K::SLACK;
    let mut scratch = [0u8; SCRATCH];
    let (mut at, mut written) = (0, 0);
    while at + K::BYTES <= input.len() {
        mca!("BEGIN encode");
        // SAFETY: `at + BYTES <= input.len()`.
        let src = unsafe { input.as_ptr().add(at) };
        // SAFETY: as above.
        let (escaped, plus) = unsafe { K::classify(&p, src) };
        if escaped | plus == 0 && out.len() - written >= K::BYTES {
            // SAFETY: both ranges are in bounds and the slices are distinct.
            unsafe {
                core::ptr::copy_nonoverlapping(src, out.as_mut_ptr().cast::<u8>().add(written), K::BYTES)
            };
            at += K::BYTES;
            written += K::BYTES;
            // A run of text that needs no escaping: go on `RUN` blocks at a time.
            let stride = K::RUN * K::BYTES;
            while at + stride <= input.len() && out.len() - written >= stride {
                let mut any = 0;
                for k in 0..K::RUN {
                    // SAFETY: `at + stride <= input.len()`.
                    let (esc, spaces) = unsafe { K::classify(&p, input.as_ptr().add(at + k * K::BYTES)) };
                    any |= esc | spaces;
                }
                if any != 0 {
                    break;
                }
                // SAFETY: both ranges are in bounds (checked above); the slices are distinct.
                unsafe {
                    core::ptr::copy_nonoverlapping(
                        input.as_ptr().add(at),
                        out.as_mut_ptr().cast::<u8>().add(written),
                        stride,
                    )
                };
                at += stride;
                written += stride;
            }
            continue;
        }
        if out.len() - written >= roomy {
            // SAFETY: `out` has room for the block's output and its slack.
            written += unsafe { K::emit(&p, src, escaped, plus, out.as_mut_ptr().cast::<u8>().add(written)) };
            mca!("END encode");
        } else if K::EXACT {
            // Near the end of `out`: stores of exactly the output, straight into it.
            // SAFETY: `BYTES` readable bytes at `src`.
            written += unsafe { emit_exact::<K>(&p, src, K::BYTES, (escaped, plus), out, written, at) }?;
        } else {
            // Near the end of `out`: encode into scratch, then copy what belongs here.
            // SAFETY: `scratch` holds any block's output and slack.
            let len = unsafe { K::emit(&p, src, escaped, plus, scratch.as_mut_ptr()) };
            if out.len() - written < len {
                return Err(Partial { read: at, written });
            }
            put(&mut out[written..], &scratch[..len]);
            written += len;
        }
        at += K::BYTES;
    }
    if at < input.len() && K::EXACT {
        // The last, partial block, on its own bytes only.
        let n = input.len() - at;
        // SAFETY: `n` readable bytes at `at`.
        let src = unsafe { input.as_ptr().add(at) };
        // SAFETY: as above.
        let masks = unsafe { K::classify_partial(&p, src, n) };
        // SAFETY: as above.
        written += unsafe { emit_exact::<K>(&p, src, n, masks, out, written, at) }?;
    } else if at < input.len() {
        // The last, partial block: encode the final BYTES bytes of the input (it is at least
        // that long) into scratch and keep the end of the output, which belongs to the
        // `input.len() - at` new bytes.
        let start = input.len() - K::BYTES;
        let skip = at - start;
        // SAFETY: `start + BYTES == input.len()`.
        let src = unsafe { input.as_ptr().add(start) };
        // SAFETY: as above.
        let (escaped, plus) = unsafe { K::classify(&p, src) };
        // SAFETY: `scratch` holds any block's output and slack.
        let len = unsafe { K::emit(&p, src, escaped, plus, scratch.as_mut_ptr()) };
        let new = (K::BYTES - skip) + 2 * (escaped >> skip).count_ones() as usize;
        if out.len() - written < new {
            return Err(Partial { read: at, written });
        }
        put(&mut out[written..], &scratch[len - new..len]);
        written += new;
    }
    Ok(written)
}

/// [`Kernel::emit_exact`] of the `n` bytes at `src` (masks `escaped`, `plus`) into `out` at
/// `written`, if their output fits there: its length. Otherwise how far the encoder got,
/// the block at input offset `at` not begun.
///
/// # Safety
/// The CPU supports `K`'s instruction set, `K::EXACT`, and `src` is valid for reading `n`
/// bytes (`n <= BYTES`).
#[inline(always)]
unsafe fn emit_exact<K: Kernel>(
    p: &K::Prepared,
    src: *const u8,
    n: usize,
    (escaped, plus): (u64, u64),
    out: &mut [MaybeUninit<u8>],
    written: usize,
    at: usize,
) -> Result<usize, Partial> {
    if out.len() - written < n + 2 * escaped.count_ones() as usize {
        return Err(Partial { read: at, written });
    }
    // SAFETY: as the caller says, and room for the block's output at `written` (checked).
    Ok(unsafe { K::emit_exact(p, src, n, escaped, plus, out.as_mut_ptr().cast::<u8>().add(written)) })
}
