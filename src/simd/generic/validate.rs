//! Validation over [`DecodeKernel`]: how far whole blocks prove an input a valid encoding
//! for a set, and the count of `%` that start a valid escape (which sizes the lenient
//! parallel decoder's output).

use crate::set::Set;
use crate::simd::kernel::{DecodeKernel, Fits};

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
