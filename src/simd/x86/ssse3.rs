//! SSSE3: 16-byte blocks, nibble-table classification with `pshufb`, escapes laid out with
//! `pshufb` from a 16-entry pattern table. The emission is shared with the AVX2 kernel.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use super::sse2::{decoded16, non_hex16, specials16};
use crate::set::Set;
use crate::simd::kernel::{DecodeKernel, Kernel};
use crate::simd::tables::{COMPRESS8, DENSE_H, DENSE_L, DENSE_PCT, EXPAND4, KEPT8, Nibbles, group_len};

#[derive(Clone, Copy)]
pub(crate) struct Prepared {
    lo: __m128i,
    hi: __m128i,
    digits: __m128i,
    /// All ones when bytes `0x80..=0xFF` are escaped (not an IRI set).
    high: u64,
    plus: bool,
}

pub(crate) struct Ssse3;

/// 16 bytes from `p`, unaligned.
///
/// # Safety
/// `p` must be valid for reads of 16 bytes.
#[inline(always)]
unsafe fn load(p: *const u8) -> __m128i {
    // SAFETY: the caller guarantees 16 readable bytes; `loadu` has no alignment requirement.
    unsafe { _mm_loadu_si128(p.cast()) }
}

/// `v` to the 16 bytes at `p`, unaligned.
///
/// # Safety
/// `p` must be valid for writes of 16 bytes.
#[inline(always)]
unsafe fn store(p: *mut u8, v: __m128i) {
    // SAFETY: the caller guarantees 16 writable bytes.
    unsafe { _mm_storeu_si128(p.cast(), v) }
}

// SAFETY: `classify` and `emit` load the 16-byte block only; `emit`'s 16-byte stores end at
// most 12 bytes past its output, within `SLACK` (16).
// `tests/guard_pages.rs` checks both on every backend the test machine has.
unsafe impl Kernel for Ssse3 {
    const BYTES: usize = 16;
    const SLACK: usize = 16;
    const RUN: usize = 8;
    type Prepared = Prepared;

    #[inline(always)]
    unsafe fn prepare(set: &Set, digits: &[u8; 16]) -> Prepared {
        let t = Nibbles::new(set);
        // SAFETY: the arrays are 16 bytes long.
        unsafe {
            Prepared {
                lo: load(t.lo.as_ptr()),
                hi: load(t.hi.as_ptr()),
                digits: load(digits.as_ptr()),
                high: if set.contains(0x80) { u64::MAX } else { 0 },
                plus: set.space_as_plus(),
            }
        }
    }

    #[inline(always)]
    unsafe fn classify(p: &Prepared, src: *const u8) -> (u64, u64) {
        // SAFETY: the caller guarantees 16 readable bytes and SSSE3.
        unsafe { classify16(p.lo, p.hi, p.high, p.plus, load(src)) }
    }

    #[inline(always)]
    unsafe fn emit(p: &Prepared, src: *const u8, escaped: u64, plus: u64, dst: *mut u8) -> usize {
        // SAFETY: the caller guarantees the bytes and room, and SSSE3.
        unsafe { emit16(p.digits, load(src), escaped, plus, dst) }
    }
}

// SAFETY: the loads are of the block and, for `emit_checked`, the 16 bytes one and two bytes
// on (18 in all); `emit_checked` stores at most 16 bytes, within `BYTES + DECODE_SLACK` (32).
// `tests/guard_pages.rs` checks both on every backend the test machine has.
unsafe impl DecodeKernel for Ssse3 {
    #[inline(always)]
    unsafe fn specials(src: *const u8, plus: bool) -> (u64, u64) {
        // SAFETY: 16 readable bytes (caller).
        unsafe { specials16(load(src), plus) }
    }

    #[inline(always)]
    unsafe fn non_hex(src: *const u8) -> u64 {
        // SAFETY: 16 readable bytes (caller).
        unsafe { non_hex16(load(src)) }
    }

    #[inline(always)]
    unsafe fn emit_checked(src: *const u8, pct: u64, plus: bool, keep: u64, dst: *mut u8) -> bool {
        // SAFETY: 18 readable bytes at `src`, 16 writable at `dst`, SSSE3 (caller).
        unsafe {
            let Some(v) = decoded16(src, pct, plus) else {
                return false;
            };
            compress16(v, keep, dst);
        }
        true
    }
}

/// Writes the lanes of `v` whose bits are set in `keep` (16 bits) to `dst`, in order, and
/// returns how many. Stores reach at most 16 bytes from `dst`.
///
/// # Safety
/// The CPU supports SSSE3; `dst` is valid for writing 16 bytes.
#[inline(always)]
pub(super) unsafe fn compress16(v: __m128i, keep: u64, dst: *mut u8) -> usize {
    let (lo, hi) = ((keep & 0xFF) as usize, (keep >> 8 & 0xFF) as usize);
    // SAFETY: SSSE3 and 16 writable bytes (caller); the second store starts at most 8 bytes in.
    unsafe {
        // Each half packed by its own pattern; the high half's lanes are 8 further on.
        let pattern = _mm_set_epi64x((COMPRESS8[hi] + 0x0808_0808_0808_0808) as i64, COMPRESS8[lo] as i64);
        let packed = _mm_shuffle_epi8(v, pattern);
        let first = usize::from(KEPT8[lo]);
        _mm_storel_epi64(dst.cast(), packed);
        _mm_storel_epi64(dst.add(first).cast(), _mm_unpackhi_epi64(packed, packed));
        first + usize::from(KEPT8[hi])
    }
}

/// The masks of 16 bytes: escaped as `%HH`, and spaces written as `+`.
///
/// # Safety
/// The CPU supports SSSE3.
#[inline(always)]
pub(super) unsafe fn classify16(lo: __m128i, hi: __m128i, high: u64, plus: bool, v: __m128i) -> (u64, u64) {
    // SAFETY: SSSE3 is available (caller).
    unsafe {
        // `pshufb` reads the low nibble, and gives 0 for bytes with the top bit set.
        let row_bits = _mm_shuffle_epi8(lo, v);
        let row = _mm_shuffle_epi8(hi, _mm_and_si128(_mm_srli_epi16(v, 4), _mm_set1_epi8(0x0F)));
        let kept = _mm_cmpeq_epi8(_mm_and_si128(row_bits, row), _mm_setzero_si128());
        let ascii = !(_mm_movemask_epi8(kept) as u32) as u64 & 0xFFFF;
        let escaped = ascii | (_mm_movemask_epi8(v) as u32 as u64 & high);
        let spaces =
            if plus { _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b' ' as i8))) as u64 } else { 0 };
        (escaped & !spaces, spaces)
    }
}

/// Writes the encoding of the 16 bytes `v` to `dst` and returns its length (16 to 48 bytes;
/// stores may reach 16 bytes further).
///
/// # Safety
/// The CPU supports SSSE3; `dst` is valid for the output plus 16 bytes.
#[inline(always)]
pub(super) unsafe fn emit16(digits: __m128i, v: __m128i, escaped: u64, plus: u64, dst: *mut u8) -> usize {
    // SAFETY: SSSE3 is available and `dst` has room (caller); table rows are 16 bytes.
    unsafe {
        if escaped | plus == 0 {
            store(dst, v);
            return 16;
        }
        let mask = _mm_set1_epi8(0x0F);
        let h = _mm_shuffle_epi8(digits, _mm_and_si128(_mm_srli_epi16(v, 4), mask));
        let l = _mm_shuffle_epi8(digits, _mm_and_si128(v, mask));
        if escaped == 0xFFFF {
            // Every byte escaped: interleave `%`, h and l with fixed patterns.
            for t in 0..3 {
                let out = _mm_or_si128(
                    _mm_or_si128(
                        _mm_shuffle_epi8(h, load(DENSE_H[t].as_ptr())),
                        _mm_shuffle_epi8(l, load(DENSE_L[t].as_ptr())),
                    ),
                    load(DENSE_PCT[t].as_ptr()),
                );
                store(dst.add(16 * t), out);
            }
            return 48;
        }
        let kept = if plus != 0 {
            let space = _mm_cmpeq_epi8(v, _mm_set1_epi8(b' ' as i8));
            _mm_or_si128(_mm_andnot_si128(space, v), _mm_and_si128(space, _mm_set1_epi8(b'+' as i8)))
        } else {
            v
        };
        // Four groups of four bytes, each as `[kept x4, h x4, l x4, '%' x4]`.
        let pct = _mm_set1_epi8(b'%' as i8);
        let (t1, t2) = (_mm_unpacklo_epi32(kept, h), _mm_unpacklo_epi32(l, pct));
        let (t3, t4) = (_mm_unpackhi_epi32(kept, h), _mm_unpackhi_epi32(l, pct));
        let groups = [
            _mm_unpacklo_epi64(t1, t2),
            _mm_unpackhi_epi64(t1, t2),
            _mm_unpacklo_epi64(t3, t4),
            _mm_unpackhi_epi64(t3, t4),
        ];
        let mut written = 0;
        for (g, group) in groups.into_iter().enumerate() {
            let m = escaped >> (4 * g) & 15;
            store(dst.add(written), _mm_shuffle_epi8(group, load(EXPAND4[m as usize].as_ptr())));
            written += group_len(m);
        }
        written
    }
}

crate::simd::entry::backend! { kernel: Ssse3, features: ["ssse3"], short: 0 }
