//! SSE2, the x86-64 baseline: no byte shuffle, so the set is classified as a list of byte
//! ranges (`(b - lo) <= hi - lo`: a subtraction, an unsigned minimum and a compare per range, and an
//! `or` into the result) and escapes are written one byte at a time. Runs of
//! bytes the set keeps are still found and copied 64 bytes (`RUN` blocks) at a time.
//!
//! Every predefined set fits in [`MAX_RANGES`] ranges, for encoding and for validation (the
//! tests check it); a custom set of more is classified byte by byte. SSE2 is the tier only for x86-64 CPUs without SSSE3
//! (made before 2006-2011, depending on the vendor). On 32-bit x86 SSE2 is an extension
//! (CPUs before the Pentium 4 lack it), so there the `Sse2` engine's detection is what makes
//! these functions safe to call.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use crate::set::Set;
use crate::simd::kernel::{DecodeKernel, Kernel};

/// More ranges than this and a per-byte test is as fast.
pub(crate) const MAX_RANGES: usize = 12;

#[derive(Clone, Copy)]
pub(crate) struct Prepared {
    /// `(lo, hi - lo)` of each range of escaped ASCII bytes, splatted.
    ranges: [(__m128i, __m128i); MAX_RANGES],
    /// How many of `ranges` are used; `None` when the set has more than `MAX_RANGES`.
    count: Option<usize>,
    set: Set,
    digits: [u8; 16],
    high: u64,
    plus: bool,
}

pub(crate) struct Sse2;

/// The ranges of consecutive escaped ASCII bytes, or `None` if there are too many. Found
/// from the bitmap's edges, a few instructions per range, so short inputs can afford it.
pub(crate) fn ranges(set: &Set) -> Option<([(u8, u8); MAX_RANGES], usize)> {
    let bits = set.ascii_bits();
    let mut starts = bits & !(bits << 1);
    let mut ends = bits & !(bits >> 1);
    let mut out = [(0u8, 0u8); MAX_RANGES];
    let mut n = 0;
    while starts != 0 {
        if n == MAX_RANGES {
            return None;
        }
        out[n] = (starts.trailing_zeros() as u8, ends.trailing_zeros() as u8);
        n += 1;
        starts &= starts - 1;
        ends &= ends - 1;
    }
    Some((out, n))
}

// SAFETY: `classify` and `emit` load the 16-byte block only. `emit` stores a whole register
// only for a block copied as is (its output is those 16 bytes), and otherwise writes its
// output byte by byte: nothing past it (`SLACK` 0).
// `tests/guard_pages.rs` checks both on every backend the test machine has.
unsafe impl Kernel for Sse2 {
    const BYTES: usize = 16;
    const SLACK: usize = 0;
    const RUN: usize = 4;
    type Prepared = Prepared;

    #[inline(always)]
    unsafe fn prepare(set: &Set, digits: &[u8; 16]) -> Prepared {
        // SAFETY: SSE2 is available (caller).
        let zero = unsafe { _mm_setzero_si128() };
        let mut p = Prepared {
            ranges: [(zero, zero); MAX_RANGES],
            count: None,
            set: *set,
            digits: *digits,
            high: if set.contains(0x80) { u64::MAX } else { 0 },
            plus: set.space_as_plus(),
        };
        if let Some((ranges, n)) = ranges(set) {
            for (slot, &(lo, hi)) in p.ranges.iter_mut().zip(&ranges[..n]) {
                // SAFETY: SSE2 is available (caller).
                *slot = unsafe { (_mm_set1_epi8(lo as i8), _mm_set1_epi8((hi - lo) as i8)) };
            }
            p.count = Some(n);
        }
        p
    }

    #[inline(always)]
    unsafe fn classify(p: &Prepared, src: *const u8) -> (u64, u64) {
        let ascii = match p.count {
            // SAFETY: 16 readable bytes (caller); SSE2 is available (caller).
            Some(n) => unsafe {
                let v = _mm_loadu_si128(src.cast());
                let mut hit = _mm_setzero_si128();
                for &(lo, span) in &p.ranges[..n] {
                    // Unsigned `x <= span` as `min(x, span) == x`. Bytes >= 0x80 never match:
                    // every range lies below 0x80.
                    let x = _mm_sub_epi8(v, lo);
                    hit = _mm_or_si128(hit, _mm_cmpeq_epi8(_mm_min_epu8(x, span), x));
                }
                _mm_movemask_epi8(hit) as u32 as u64 | (_mm_movemask_epi8(v) as u32 as u64 & p.high)
            },
            None => {
                let mut m = 0;
                for i in 0..16 {
                    // SAFETY: 16 readable bytes (caller).
                    m |= u64::from(p.set.contains(unsafe { *src.add(i) })) << i;
                }
                m
            }
        };
        let spaces = if p.plus {
            // SAFETY: as above.
            unsafe {
                let v = _mm_loadu_si128(src.cast());
                _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b' ' as i8))) as u32 as u64
            }
        } else {
            0
        };
        (ascii & !spaces, spaces)
    }

    #[inline(always)]
    unsafe fn emit(p: &Prepared, src: *const u8, escaped: u64, plus: u64, dst: *mut u8) -> usize {
        // SAFETY: 16 readable bytes at `src`, room for the output at `dst` (caller).
        unsafe {
            if escaped | plus == 0 {
                _mm_storeu_si128(dst.cast(), _mm_loadu_si128(src.cast()));
                return 16;
            }
            let mut written = 0;
            for i in 0..16 {
                let b = *src.add(i);
                if escaped >> i & 1 != 0 {
                    *dst.add(written) = b'%';
                    *dst.add(written + 1) = p.digits[usize::from(b >> 4)];
                    *dst.add(written + 2) = p.digits[usize::from(b & 15)];
                    written += 3;
                } else {
                    *dst.add(written) = if plus >> i & 1 != 0 { b'+' } else { b };
                    written += 1;
                }
            }
            written
        }
    }
}

// SAFETY: the loads are of the block and, for `emit_checked`, the 16 bytes one and two bytes
// on (18 in all); `emit_checked` writes two 8-byte words, within `BYTES + DECODE_SLACK` (16).
// `tests/guard_pages.rs` checks both on every backend the test machine has.
unsafe impl DecodeKernel for Sse2 {
    /// Blocks dense with escapes go to the scalar decoder (packing without a byte shuffle
    /// costs more than it saves), a few hundred bytes at a time.
    const HANDOVER: usize = 256;
    /// The tail stays scalar: a padded block dense with escapes would come back to it.
    const PADDED_TAIL: bool = false;

    #[inline(always)]
    unsafe fn specials(src: *const u8, plus: bool) -> (u64, u64) {
        // SAFETY: 16 readable bytes (caller); SSE2 is available (caller).
        unsafe { specials16(_mm_loadu_si128(src.cast()), plus) }
    }

    #[inline(always)]
    unsafe fn non_hex(src: *const u8) -> u64 {
        // SAFETY: 16 readable bytes (caller).
        unsafe { non_hex16(_mm_loadu_si128(src.cast())) }
    }

    #[inline(always)]
    unsafe fn emit_checked(src: *const u8, pct: u64, plus: bool, keep: u64, dst: *mut u8) -> bool {
        if pct.count_ones() > 2 {
            return false; // dense: the scalar decoder is faster (see `HANDOVER`)
        }
        // SAFETY: 18 readable bytes at `src`, 16 writable at `dst` (caller).
        unsafe {
            let Some(v) = decoded16(src, pct, plus) else {
                return false;
            };
            // No byte shuffle: pack each half in a general register, dropping the digit
            // lanes from the highest down, and store it where the previous one ended.
            let lo = low64(v);
            let hi = low64(_mm_unpackhi_epi64(v, v));
            let removed = !keep & 0xFFFF;
            dst.cast::<u64>().write_unaligned(drop_lanes(lo, removed & 0xFF));
            let first = 8 - (removed & 0xFF).count_ones() as usize;
            dst.add(first).cast::<u64>().write_unaligned(drop_lanes(hi, removed >> 8));
        }
        true
    }
}

/// The low 64 bits of `v`: `movq` on x86-64; a store on 32-bit x86, which has neither the
/// instruction's 64-bit form nor a 64-bit register to put it in.
///
/// # Safety
/// SSE2 (always there on x86-64; detected on 32-bit x86).
#[inline(always)]
unsafe fn low64(v: __m128i) -> u64 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE2 (caller).
    unsafe {
        _mm_cvtsi128_si64(v) as u64
    }
    #[cfg(target_arch = "x86")]
    {
        let mut low = 0u64;
        // SAFETY: SSE2 (caller); `movq` stores 8 bytes, the size of `low`, unaligned.
        unsafe { _mm_storel_epi64((&raw mut low).cast(), v) };
        low
    }
}

/// `x` without the bytes whose bits are set in `removed` (8 bits), packed to the front.
#[inline(always)]
fn drop_lanes(mut x: u64, mut removed: u64) -> u64 {
    while removed != 0 {
        let lane = 63 - removed.leading_zeros();
        let below = (1u64 << (8 * lane)) - 1;
        x = (x & below) | ((x >> 8) & !below);
        removed &= !(1 << lane);
    }
    x
}

/// The `%` lanes of `v`, and its `+` lanes when `plus`.
///
/// # Safety
/// SSE2 (always there on x86-64; detected on 32-bit x86).
#[inline(always)]
pub(super) unsafe fn specials16(v: __m128i, plus: bool) -> (u64, u64) {
    // SAFETY: SSE2 is available (caller).
    unsafe {
        let pct = _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'%' as i8))) as u32 as u64;
        (
            pct,
            if plus {
                _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'+' as i8))) as u32 as u64
            } else {
                0
            },
        )
    }
}

/// The lanes of `v` that are not hex digits.
///
/// # Safety
/// As for [`specials16`].
#[inline(always)]
pub(super) unsafe fn non_hex16(v: __m128i) -> u64 {
    // SAFETY: SSE2 is available (caller).
    !unsafe { digits16(v) }.1 & 0xFFFF
}

/// All ones in the lanes where `x <= n` (unsigned), as `min(x, n) == x`.
///
/// # Safety
/// As for [`specials16`].
#[inline(always)]
unsafe fn at_most(x: __m128i, n: u8) -> __m128i {
    // SAFETY: SSE2 is available (caller).
    unsafe { _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(n as i8)), x) }
}

/// The value of each lane of `v` as a hex digit (garbage below 25 where it is not one), and
/// the lanes that are hex digits.
///
/// # Safety
/// As for [`specials16`].
#[inline(always)]
unsafe fn digits16(v: __m128i) -> (__m128i, u64) {
    // SAFETY: SSE2 is available (caller).
    unsafe {
        let digit = at_most(_mm_sub_epi8(v, _mm_set1_epi8(b'0' as i8)), 9);
        let letter =
            at_most(_mm_sub_epi8(_mm_or_si128(v, _mm_set1_epi8(0x20)), _mm_set1_epi8(b'a' as i8)), 5);
        // `0`-`9` are their low nibble; `A`-`F` and `a`-`f` their low nibble + 9.
        let values =
            _mm_add_epi8(_mm_and_si128(v, _mm_set1_epi8(0x0F)), _mm_and_si128(letter, _mm_set1_epi8(9)));
        (values, _mm_movemask_epi8(_mm_or_si128(digit, letter)) as u32 as u64)
    }
}

/// The 16 bytes at `src` with each `%` lane replaced by the byte its escape stands for and,
/// when `plus`, each `+` by a space; `None` if a lane of `pct` does not start a valid escape.
///
/// # Safety
/// As for [`specials16`], and `src` is valid for reading 18 bytes.
#[inline(always)]
pub(super) unsafe fn decoded16(src: *const u8, pct: u64, plus: bool) -> Option<__m128i> {
    // SAFETY: 18 readable bytes (caller); SSE2 is available (caller).
    unsafe {
        let (high, high_ok) = digits16(_mm_loadu_si128(src.add(1).cast()));
        let (low, low_ok) = digits16(_mm_loadu_si128(src.add(2).cast()));
        if pct & !(high_ok & low_ok) != 0 {
            return None;
        }
        let v = _mm_loadu_si128(src.cast());
        // A 16-bit shift: the garbage of a non-digit lane carries into the next lane's low
        // nibble, which the mask clears.
        let byte = _mm_or_si128(_mm_and_si128(_mm_slli_epi16(high, 4), _mm_set1_epi8(0xF0u8 as i8)), low);
        let pct = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'%' as i8));
        // Spaces from the input's `+` only: a decoded `%2B` stays `+`.
        let v = if plus {
            let sp = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'+' as i8));
            _mm_or_si128(_mm_and_si128(sp, _mm_set1_epi8(b' ' as i8)), _mm_andnot_si128(sp, v))
        } else {
            v
        };
        Some(_mm_or_si128(_mm_and_si128(pct, byte), _mm_andnot_si128(pct, v)))
    }
}

// Below 256 bytes the range setup costs more than it saves (measured: at 64 bytes the
// scalar encoder is faster). Every x86-64 CPU has SSE2, which the check finds; on 32-bit x86
// and on x86-64 targets that turn SSE off, it is what makes these functions safe to call.
crate::simd::entry::backend! { kernel: Sse2, features: ["sse2"], short: 256 }

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predefined_sets_fit_the_range_classifier() {
        for named in crate::sets::NAMED {
            // `None`: more than `MAX_RANGES` ranges, classified byte by byte. The validator
            // classifies with `raw_set`, which can add a range (the space of a plus set).
            let raw = crate::simd::generic::validate::raw_set(&named.set);
            for (what, set) in [("", named.set), (" (validation)", raw)] {
                assert!(ranges(&set).is_some(), "{}{what} needs more than {MAX_RANGES} ranges", named.name);
            }
        }
        let (r, n) = ranges(&crate::sets::RFC3986).unwrap();
        let want = [
            (0x00, 0x2C),
            (0x2F, 0x2F),
            (0x3A, 0x40),
            (0x5B, 0x5E),
            (0x60, 0x60),
            (0x7B, 0x7D),
            (0x7F, 0x7F),
        ];
        assert_eq!(&r[..n], &want);
        // Alternating bytes: too many ranges, classified byte by byte.
        let alternating = (0..128u8).step_by(2).fold(Set::EMPTY, |s, b| s.add(b));
        assert!(ranges(&alternating).is_none());
    }
}
