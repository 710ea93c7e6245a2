//! The encoding algorithm, written once over [`Kernel`]; each instruction set supplies the
//! three block operations in a small file of its own.

use super::decode::DecodeKernel;
use crate::Set;
use crate::scalar::encode as scalar;

/// The per-block operations of one instruction set.
///
/// Its methods call intrinsics of the instruction set: the caller of every method must know
/// that the CPU supports it (the backend's `Engine` is the proof).
///
/// # Safety
///
/// The algorithms over a kernel size their buffers and bound their pointers by its
/// constants, so an implementation must keep to them:
/// - `BYTES` is between 1 and 64 and `SLACK` at most 64 (checked when an algorithm is
///   compiled for the kernel, by `cargo build` though not `cargo check`: [`Fits`]);
/// - `classify` reads only the `BYTES` bytes at `src`;
/// - `emit` reads only the `BYTES` bytes at `src`, writes only within the returned length
///   plus `SLACK` bytes at `dst`, and returns at most `3 * BYTES`.
pub(crate) unsafe trait Kernel {
    /// Input bytes per block (1 to 64: the masks are `u64`).
    const BYTES: usize;
    /// How many bytes past its output a block's stores may write (at most 64).
    const SLACK: usize;
    /// Blocks classified per step over a run that needs no escaping: enough to keep the
    /// vector units busy, about 128 bytes (64 on SSE2, whose classification of a block
    /// costs a dozen ranges).
    const RUN: usize;
    /// The set's constants, kept in registers across blocks.
    type Prepared: Copy;

    /// # Safety
    /// The CPU supports the kernel's instruction set.
    unsafe fn prepare(set: &Set, digits: &[u8; 16]) -> Self::Prepared;

    /// The block's masks, bit `i` for byte `i`: bytes written as `%HH`, and spaces written as
    /// `+`.
    ///
    /// # Safety
    /// As for `prepare`, and `src` is valid for reading [`BYTES`](Kernel::BYTES) bytes.
    unsafe fn classify(p: &Self::Prepared, src: *const u8) -> (u64, u64);

    /// Writes the encoding of the block at `src`, whose masks are `escaped` and `plus`, to
    /// `dst` and returns its length.
    ///
    /// # Safety
    /// As for `classify`, and `dst` is valid for writing the output plus
    /// [`SLACK`](Kernel::SLACK) bytes.
    unsafe fn emit(p: &Self::Prepared, src: *const u8, escaped: u64, plus: u64, dst: *mut u8) -> usize;
}

/// Room for the output of one block and its slack.
const SCRATCH: usize = 3 * 64 + 64;

/// The compile-time check of a kernel's constants: every algorithm over `K` evaluates
/// [`FITS`](Fits::FITS) (`let () = K::FITS;`), so a kernel whose blocks the masks or the
/// scratch buffer cannot hold does not build.
pub(crate) trait Fits: Kernel {
    const FITS: () = assert!(
        Self::BYTES >= 1
            && Self::BYTES <= 64
            && Self::SLACK <= 64
            && 3 * Self::BYTES + Self::SLACK <= SCRATCH,
        "a kernel's BYTES must be 1 to 64 and its SLACK at most 64"
    );
}

impl<K: Kernel> Fits for K {}

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

/// Encodes `input` into `out` and returns the output's length, or `None` when `out` is too
/// small (then what was written is unspecified; nothing is written past `out`).
///
/// # Safety
/// The CPU supports `K`'s instruction set.
#[inline(always)]
pub(crate) unsafe fn encode<K: Kernel>(
    input: &[u8],
    set: &Set,
    digits: &[u8; 16],
    out: &mut [u8],
) -> Option<usize> {
    let () = K::FITS;
    if input.len() < K::BYTES {
        return scalar::encode(input, set, digits, out);
    }
    // SAFETY: the caller vouches for the CPU.
    let p = unsafe { K::prepare(set, digits) };
    let roomy = 3 * K::BYTES + K::SLACK;
    let mut scratch = [0u8; SCRATCH];
    let (mut at, mut written) = (0, 0);
    while at + K::BYTES <= input.len() {
        // SAFETY: `at + BYTES <= input.len()`.
        let src = unsafe { input.as_ptr().add(at) };
        // SAFETY: as above.
        let (escaped, plus) = unsafe { K::classify(&p, src) };
        if escaped | plus == 0 && out.len() - written >= K::BYTES {
            // SAFETY: both ranges are in bounds and the slices are distinct.
            unsafe { core::ptr::copy_nonoverlapping(src, out.as_mut_ptr().add(written), K::BYTES) };
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
                        out.as_mut_ptr().add(written),
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
            written += unsafe { K::emit(&p, src, escaped, plus, out.as_mut_ptr().add(written)) };
        } else {
            // Near the end of `out`: encode into scratch, then copy what belongs here.
            // SAFETY: `scratch` holds any block's output and slack.
            let len = unsafe { K::emit(&p, src, escaped, plus, scratch.as_mut_ptr()) };
            out.get_mut(written..written + len)?.copy_from_slice(&scratch[..len]);
            written += len;
        }
        at += K::BYTES;
    }
    if at < input.len() {
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
        out.get_mut(written..written + new)?.copy_from_slice(&scratch[len - new..len]);
        written += new;
    }
    Some(written)
}

/// How far `input` is proven a valid encoding for `set` by whole blocks: a token boundary
/// (never inside an escape) before the first block with a problem, or after the last whole
/// block. The scalar validator takes over from there and finds the exact error, if any.
///
/// Per block: the bytes that must not appear raw (one classification), the `%` lanes, and
/// the non-hex lanes. The two lanes after each `%` must be hex digits, and are exempt from
/// the first test; for an escape in the last two lanes they are the first of the next block.
///
/// # Safety
/// The CPU supports `K`'s instruction set.
#[inline(always)]
pub(crate) unsafe fn valid_prefix<K: DecodeKernel>(input: &[u8], set: &Set) -> usize {
    let () = K::FITS;
    if input.len() < K::BYTES {
        return 0;
    }
    // SAFETY: the caller vouches for the CPU.
    let raw = unsafe { K::prepare(&raw_set(set), crate::hex::UPPER) };
    let lanes = if K::BYTES == 64 { u64::MAX } else { (1u64 << K::BYTES) - 1 };
    // The first lanes of this block that are digits of an escape begun in the previous one.
    let mut carry = 0u64;
    let mut at = 0;
    // Two blocks per round: their classifications are independent; only the carry is not.
    while at + 2 * K::BYTES <= input.len() {
        // SAFETY: `at + 2 * BYTES <= input.len()`.
        // (No closures here: they would not inherit the caller's target features.)
        let ((bad0, pct0, not_hex0), (bad1, pct1, not_hex1)) = unsafe {
            (K::scan(&raw, input.as_ptr().add(at)), K::scan(&raw, input.as_ptr().add(at + K::BYTES)))
        };
        let digits0 = ((pct0 << 1) | (pct0 << 2) | carry) & lanes;
        let tail0 = pct0 >> (K::BYTES - 2) & 0b11;
        let digits1 = ((pct1 << 1) | (pct1 << 2) | tail0 | tail0 >> 1) & lanes;
        if (bad0 & !digits0) | (digits0 & not_hex0) | (bad1 & !digits1) | (digits1 & not_hex1) != 0 {
            break;
        }
        at += 2 * K::BYTES;
        let tail1 = pct1 >> (K::BYTES - 2) & 0b11;
        carry = tail1 | tail1 >> 1;
    }
    while at + K::BYTES <= input.len() {
        // SAFETY: `at + BYTES <= input.len()`.
        let (bad, pct, not_hex) = unsafe { K::scan(&raw, input.as_ptr().add(at)) };
        let digits = ((pct << 1) | (pct << 2) | carry) & lanes;
        if (bad & !digits) | (digits & not_hex) != 0 {
            break;
        }
        at += K::BYTES;
        let tail = pct >> (K::BYTES - 2) & 0b11;
        carry = tail | tail >> 1;
    }
    // An escape whose digits were not checked (they are in the failing block, or past the
    // last whole one) is left to the scalar validator.
    at - match carry {
        0b11 => 1,
        0b01 => 2,
        _ => 0,
    }
}

/// How many `%` in `input` start a valid escape (are followed by two hex digits): with the
/// input's length, the exact length of its decoding (`len - 2 * count`) for the parallel
/// decoder's output layout.
///
/// # Safety
/// The CPU supports `K`'s instruction set.
#[inline(always)]
pub(crate) unsafe fn count_valid_escapes<K: DecodeKernel>(input: &[u8]) -> usize {
    let () = K::FITS;
    let lanes = if K::BYTES == 64 { u64::MAX } else { (1u64 << K::BYTES) - 1 };
    let mut count = 0;
    let mut at = 0;
    // The digits of each lane's escape come from two more loads, one and two bytes on.
    while at + K::BYTES + 2 <= input.len() {
        // SAFETY: `at + BYTES + 2 <= input.len()`, so all three loads are in bounds.
        let valid = unsafe {
            let src = input.as_ptr().add(at);
            K::specials(src, false).0 & !K::non_hex(src.add(1)) & !K::non_hex(src.add(2))
        };
        count += (valid & lanes).count_ones() as usize;
        at += K::BYTES;
    }
    count + crate::scalar::decode::count_valid_escapes(input, at)
}

/// The bytes a vector scan rejects where they appear raw (outside an escape's digits): the
/// set, less `%` and, for a plus set, `+`; a raw space is wrong even there.
pub(crate) fn raw_set(set: &Set) -> Set {
    let raw = set.remove(b'%').with_space_as_plus(false);
    if set.space_as_plus() { raw.remove(b'+').add(b' ') } else { raw }
}
