//! The encoding algorithm, written once over [`Kernel`]; each instruction set supplies the
//! three block operations in a small file of its own.

use crate::Set;
use crate::encode::scalar;

/// The per-block operations of one instruction set.
///
/// # Safety
///
/// Implementations call intrinsics of their instruction set: the caller of every method must
/// know that the CPU supports it (the backend's `Engine` is the proof).
pub(crate) trait Kernel {
    /// Input bytes per block (at most 64).
    const BYTES: usize;
    /// How many bytes past its output a block's stores may write (at most 64).
    const SLACK: usize;
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

/// How many bytes of `input` are written as `%HH`.
///
/// # Safety
/// The CPU supports `K`'s instruction set.
#[inline(always)]
pub(crate) unsafe fn count_escapes<K: Kernel>(input: &[u8], set: &Set) -> usize {
    if input.len() < K::BYTES {
        return scalar::count_escapes(input, set);
    }
    // SAFETY: the caller vouches for the CPU.
    let p = unsafe { K::prepare(set, crate::hex::UPPER) };
    let mut count = 0;
    let mut at = 0;
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

/// Encodes `input` into `out` (exactly as long as the output) and returns its length.
///
/// # Safety
/// The CPU supports `K`'s instruction set.
#[inline(always)]
pub(crate) unsafe fn encode<K: Kernel>(input: &[u8], set: &Set, digits: &[u8; 16], out: &mut [u8]) -> usize {
    if input.len() < K::BYTES {
        return scalar::encode(input, set, digits, out);
    }
    // SAFETY: the caller vouches for the CPU.
    let p = unsafe { K::prepare(set, digits) };
    let roomy = 3 * K::BYTES + K::SLACK;
    let mut scratch = [0u8; SCRATCH];
    let (mut at, mut written) = (0, 0);
    while at < input.len() {
        // A full block, or for the last one the final BYTES bytes of the input, of which
        // only the lanes from `skip` on are new.
        let start = at.min(input.len() - K::BYTES);
        let skip = at - start;
        // SAFETY: `start + BYTES <= input.len()`.
        let (escaped, plus) = unsafe { K::classify(&p, input.as_ptr().add(start)) };
        // SAFETY: as above.
        let src = unsafe { input.as_ptr().add(start) };
        if skip == 0 && out.len() - written >= roomy {
            // SAFETY: `out` has room for the block's output and its slack.
            written += unsafe { K::emit(&p, src, escaped, plus, out.as_mut_ptr().add(written)) };
        } else {
            // Near the end of `out`, or on an overlapping block: encode into scratch and copy
            // the part that belongs here, which is the end of the block's output.
            // SAFETY: `scratch` holds any block's output and slack.
            let len = unsafe { K::emit(&p, src, escaped, plus, scratch.as_mut_ptr()) };
            let new = (K::BYTES - skip) + 2 * (escaped >> skip).count_ones() as usize;
            out[written..written + new].copy_from_slice(&scratch[len - new..len]);
            written += new;
        }
        at = start + K::BYTES;
    }
    written
}
