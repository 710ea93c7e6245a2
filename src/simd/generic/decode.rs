//! The vectorized decoder, written once over [`DecodeKernel`]. See `ALGORITHMS.md`,
//! "Decoding".
//!
//! Per block of `Kernel::BYTES` bytes: find `%` (and `+`). A block with neither is copied,
//! and so are the blocks after it, `Kernel::RUN` at a time. Otherwise, if every `%` is
//! followed by two hex digits (read from the two loads one and two bytes further on, so an
//! escape in the last two lanes is decoded whole and its digits are dropped from the next
//! block), the kernel writes each `%` lane as its escape's byte and each `+` as a space,
//! and compresses away the digit lanes. Blocks follow one another at a fixed step, so the
//! loads never wait on the data. A block with a malformed `%` is handed to the scalar
//! decoder, which gives the WHATWG copy or the exact error. The last `BYTES + 1` bytes or
//! fewer, too short for a block and the two bytes after it, go through the same blocks over
//! a zero-padded copy (`padded_tail`), or to the scalar decoder when they hold a malformed
//! `%` (a `%` cut short by the end included) or the kernel leaves dense blocks to it.
//! After a block made up entirely of escapes, kernels with an `ESCAPE_GROUP` decode the rest
//! of the run a group at a time (`escape_run`).

use core::mem::MaybeUninit;

use crate::error::DecodeError;
use crate::kernel_io::{Rules, Step, put};
use crate::scalar::decode as scalar;
use crate::simd::kernel::{DecodeKernel, Fits};

/// Decodes `input` into `out` like [`scalar::decode`], with the same result, step and error.
/// `run` is [`escape_run`] for `K`, compiled for its instruction set on its own.
///
/// # Safety
/// The CPU supports `K`'s instruction set, and `run` is safe to call on any slices when it
/// does (as `escape_run::<K>` compiled with `K`'s features is).
#[inline(always)]
pub(crate) unsafe fn decode<K: DecodeKernel>(
    input: &[u8],
    out: &mut [MaybeUninit<u8>],
    rules: Rules,
    last: bool,
    run: unsafe fn(&[u8], &mut [MaybeUninit<u8>]) -> usize,
) -> Result<Step, DecodeError> {
    let () = K::FITS;
    let lanes = if K::BYTES == 64 { u64::MAX } else { (1u64 << K::BYTES) - 1 };
    let room = K::BYTES + K::DECODE_SLACK;
    let (mut read, mut written) = (0, 0);
    // The first lanes of this block that are digits of an escape the previous block decoded.
    // The step from block to block is fixed, so the loads do not wait on the data.
    let mut skip = 0u64;
    while read + K::BYTES + 2 <= input.len() && out.len() - written >= room {
        mca!("BEGIN decode");
        // SAFETY: `read + BYTES + 2 <= input.len()`.
        let src = unsafe { input.as_ptr().add(read) };
        // SAFETY: as above.
        let (pct, plus) = unsafe { K::specials(src, rules.plus) };
        if pct | plus | skip == 0 {
            // SAFETY: both ranges are in bounds and the slices are distinct.
            unsafe {
                core::ptr::copy_nonoverlapping(src, out.as_mut_ptr().cast::<u8>().add(written), K::BYTES)
            };
            read += K::BYTES;
            written += K::BYTES;
            // A run without `%`: go on `RUN` blocks at a time.
            let stride = K::RUN * K::BYTES;
            while read + stride <= input.len() && out.len() - written >= stride {
                let mut any = 0;
                for k in 0..K::RUN {
                    // SAFETY: `read + stride <= input.len()`.
                    let (p, s) = unsafe { K::specials(input.as_ptr().add(read + k * K::BYTES), rules.plus) };
                    any |= p | s;
                }
                if any != 0 {
                    break;
                }
                // SAFETY: both ranges are in bounds (checked above); the slices are distinct.
                unsafe {
                    core::ptr::copy_nonoverlapping(
                        input.as_ptr().add(read),
                        out.as_mut_ptr().cast::<u8>().add(written),
                        stride,
                    )
                };
                read += stride;
                written += stride;
            }
            continue;
        }
        // Valid escapes never overlap: their digits are not `%`.
        let keep = lanes & !((pct << 1) | (pct << 2) | skip);
        // SAFETY: `BYTES + 2` readable bytes, `room` writable bytes.
        let decoded = unsafe {
            K::emit_checked(src, pct, rules.plus, keep, out.as_mut_ptr().cast::<u8>().add(written))
        };
        if !decoded || (rules.reject != 0 && rejects(&input[read..read + K::BYTES + 2], pct, rules.reject)) {
            // A malformed `%` or a rejected byte (or a block the kernel leaves to scalar code):
            // the scalar decoder copies it (lenient) or names the error, and goes on for at
            // most `HANDOVER` bytes of output.
            read += skip.trailing_ones() as usize;
            skip = 0;
            let window = K::HANDOVER.min(out.len() - written);
            let step = scalar::decode(&input[read..], &mut out[written..written + window], rules, last)
                .map_err(|e| e.shifted(read))?;
            read += step.read;
            written += step.written;
            if step.read == 0 {
                return Ok(Step { read, written });
            }
            continue;
        }
        written += keep.count_ones() as usize;
        read += K::BYTES;
        // The digits of a `%` in the last two lanes (decoded here) open the next block.
        let tail = pct >> (K::BYTES - 2) & 0b11;
        skip = tail | tail >> 1;
        mca!("END decode");
        // A block made up entirely of escapes is most likely inside a run of them (text in
        // another script): decode the rest of the run a group of escapes at a time, and go
        // on with the blocks after it. (A rejected byte needs the block path's check.)
        //
        // Not after less: a try that fails costs about what the block path would (the run's
        // end is a branch the CPU cannot predict), and where escapes come in short runs
        // (random bytes) most tries would fail. On AVX-512, trying after a block that ends in
        // 15 escapes made random bytes 3% slower, after 8, 15% slower.
        if K::ESCAPE_GROUP != 0 && rules.reject == 0 && keep & !pct == 0 {
            // `read - BYTES + BYTES + 2 <= input.len()`, and `skip` has at most two lanes.
            let from = read + skip.trailing_ones() as usize;
            // SAFETY: the features of `K` are available (caller), which `run` needs.
            let done = unsafe { run(&input[from..], &mut out[written..]) };
            if done != 0 {
                read = from + 3 * done;
                written += done;
                skip = 0;
            }
        }
    }
    read += skip.trailing_ones() as usize;
    // The end of the input, too short for a block and the two bytes after it: blocks over a
    // zero-padded copy of it, not a byte at a time; without a `%` (or a `+` to decode), a
    // copy. Anything else (a malformed `%`, too little room) is for the scalar decoder.
    let rest = &input[read..];
    if K::PADDED_TAIL && rest.len() <= TAIL {
        if memchr::memchr(b'%', rest).is_some() {
            // SAFETY: the CPU supports `K` (caller).
            if let Some(n) = unsafe { padded_tail::<K>(rest, &mut out[written..], rules) } {
                return Ok(Step { read: input.len(), written: written + n });
            }
        } else if !rules.plus && out.len() - written >= rest.len() {
            put(&mut out[written..written + rest.len()], rest);
            return Ok(Step { read: input.len(), written: written + rest.len() });
        }
    }
    let step =
        scalar::decode(&input[read..], &mut out[written..], rules, last).map_err(|e| e.shifted(read))?;
    Ok(Step { read: read + step.read, written: written + step.written })
}

/// The longest input [`padded_tail`] takes: two blocks of the widest kernel.
const TAIL: usize = 2 * 64;

/// Decodes `rest` (at most [`TAIL`] bytes, and at most two of `K`'s blocks) into `out`
/// through a zero-padded copy on the stack, if every `%` in it starts a valid escape (a
/// padding zero is no hex digit, so a `%` cut short by the end of `rest` is not), no escape
/// decodes to a rejected byte, and the output fits: the number of bytes written. Otherwise
/// `None`, with `out` written or not, and the scalar decoder does it.
///
/// # Safety
/// The CPU supports `K`'s instruction set.
#[inline(always)]
unsafe fn padded_tail<K: DecodeKernel>(
    rest: &[u8],
    out: &mut [MaybeUninit<u8>],
    rules: Rules,
) -> Option<usize> {
    let n = rest.len();
    if n > 2 * K::BYTES {
        return None;
    }
    // Each block reads `BYTES + 2` bytes; the second starts at `BYTES`.
    let mut padded = [0u8; TAIL + 2];
    padded[..n].copy_from_slice(rest);
    let blocks = n.div_ceil(K::BYTES);
    // Each block writes `BYTES + DECODE_SLACK` bytes from where the output has got to: straight
    // into `out` when that stays inside it, else into `scratch`, copied at the end.
    let mut scratch = [MaybeUninit::<u8>::uninit(); TAIL + 64];
    let direct = out.len() >= blocks * K::BYTES + K::DECODE_SLACK;
    let dst = if direct { out.as_mut_ptr() } else { scratch.as_mut_ptr() }.cast::<u8>();
    let (mut at, mut written, mut skip) = (0, 0, 0u64);
    while at < n {
        // The block's lanes that hold input: a mask of more than `BYTES` lanes would keep
        // lanes the kernel never decodes.
        let lanes = (n - at).min(K::BYTES);
        let lanes = if lanes >= 64 { u64::MAX } else { (1u64 << lanes) - 1 };
        // SAFETY: `at <= BYTES` (`n <= 2 * BYTES`), so the block and the two bytes after it
        // are in `padded` (`BYTES <= 64`).
        let src = unsafe { padded.as_ptr().add(at) };
        // SAFETY: as above.
        let (pct, _) = unsafe { K::specials(src, rules.plus) };
        let keep = lanes & !((pct << 1) | (pct << 2) | skip);
        // SAFETY: `BYTES + 2` readable bytes at `src`; `written <= at`, so `BYTES + DECODE_SLACK`
        // writable bytes at `dst + written`: in `out` when `direct`, else in `scratch`
        // (`2 * BYTES + DECODE_SLACK <= TAIL + 64`).
        if !unsafe { K::emit_checked(src, pct, rules.plus, keep, dst.add(written)) }
            || (rules.reject != 0 && rejects(&padded[at..at + K::BYTES + 2], pct, rules.reject))
        {
            return None;
        }
        written += keep.count_ones() as usize;
        let tail = pct >> (K::BYTES - 2) & 0b11;
        skip = tail | tail >> 1;
        at += K::BYTES;
        // Nothing left but the digits of the block's last escape: no second block.
        if at + skip.trailing_ones() as usize >= n {
            break;
        }
    }
    if !direct {
        let to = out.get_mut(..written)?;
        to.copy_from_slice(&scratch[..written]);
    }
    Some(written)
}

/// Whether one of the (valid) escapes at the `pct` lanes of `block` decodes to a byte in the
/// `reject` bitmap. Escapes are few next to the bytes a block holds, so a scalar look is
/// cheap.
#[inline(always)]
fn rejects(block: &[u8], mut pct: u64, reject: u128) -> bool {
    while pct != 0 {
        let i = pct.trailing_zeros() as usize;
        if let Some(byte) = crate::hex::pair(block[i + 1], block[i + 2])
            && byte < 0x80
            && reject >> byte & 1 != 0
        {
            return true;
        }
        pct &= pct - 1;
    }
    false
}

/// Decodes the escapes at the start of `input` into `out`, [`DecodeKernel::ESCAPE_GROUP`] at
/// a time, for as many whole groups as are valid escapes and fit: the number decoded (`3`
/// bytes read for each, one written).
///
/// # Safety
/// The CPU supports `K`'s instruction set.
#[inline(always)]
pub(crate) unsafe fn escape_run<K: DecodeKernel>(input: &[u8], out: &mut [MaybeUninit<u8>]) -> usize {
    let group = K::ESCAPE_GROUP;
    let mut done = 0;
    if group == 0 {
        return 0;
    }
    while 3 * (done + group) <= input.len() && out.len() - done >= group {
        // SAFETY: `3 * group` readable bytes at `3 * done` and `group` writable at `done`
        // (the loop's condition); the CPU supports `K` (caller).
        let valid = unsafe {
            K::decode_escapes(input.as_ptr().add(3 * done), out.as_mut_ptr().cast::<u8>().add(done))
        };
        if !valid {
            break;
        }
        done += group;
    }
    done
}
