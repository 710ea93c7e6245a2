//! AVX2: 32-byte blocks. Classification as in SSSE3 on twice the width; a block with escapes
//! is emitted as two 16-byte halves by the SSSE3 routine (AVX2 implies SSSE3).

use core::arch::x86_64::*;

use super::ssse3::emit16;
use crate::Set;
use crate::simd::generic::{self, Kernel};
use crate::simd::tables::Nibbles;

#[derive(Clone, Copy)]
pub(crate) struct Prepared {
    lo: __m256i,
    hi: __m256i,
    digits: __m128i,
    high: u64,
    plus: bool,
}

pub(crate) struct Avx2;

#[inline(always)]
unsafe fn load(p: *const u8) -> __m256i {
    // SAFETY: the caller guarantees 32 readable bytes; no alignment needed.
    unsafe { _mm256_loadu_si256(p.cast()) }
}

#[inline(always)]
unsafe fn broadcast(row: &[u8; 16]) -> __m256i {
    // SAFETY: 16 readable bytes; AVX2 is available (caller).
    unsafe { _mm256_broadcastsi128_si256(_mm_loadu_si128(row.as_ptr().cast())) }
}

impl Kernel for Avx2 {
    const BYTES: usize = 32;
    const SLACK: usize = 16;
    const RUN: usize = 4;
    type Prepared = Prepared;

    #[inline(always)]
    unsafe fn prepare(set: &Set, digits: &[u8; 16]) -> Prepared {
        let t = Nibbles::new(set);
        // SAFETY: AVX2 is available (caller); the rows are 16 bytes.
        unsafe {
            Prepared {
                lo: broadcast(&t.lo),
                hi: broadcast(&t.hi),
                digits: _mm_loadu_si128(digits.as_ptr().cast()),
                high: if set.contains(0x80) { u64::MAX } else { 0 },
                plus: set.space_as_plus(),
            }
        }
    }

    #[inline(always)]
    unsafe fn classify(p: &Prepared, src: *const u8) -> (u64, u64) {
        // SAFETY: 32 readable bytes and AVX2 (caller).
        unsafe {
            let v = load(src);
            let row_bits = _mm256_shuffle_epi8(p.lo, v);
            let row =
                _mm256_shuffle_epi8(p.hi, _mm256_and_si256(_mm256_srli_epi16(v, 4), _mm256_set1_epi8(0x0F)));
            let kept = _mm256_cmpeq_epi8(_mm256_and_si256(row_bits, row), _mm256_setzero_si256());
            let ascii = !(_mm256_movemask_epi8(kept) as u32) as u64;
            let escaped = ascii | (_mm256_movemask_epi8(v) as u32 as u64 & p.high);
            let spaces = if p.plus {
                _mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(b' ' as i8))) as u32 as u64
            } else {
                0
            };
            (escaped & !spaces, spaces)
        }
    }

    #[inline(always)]
    unsafe fn emit(p: &Prepared, src: *const u8, escaped: u64, plus: u64, dst: *mut u8) -> usize {
        // SAFETY: 32 readable bytes at `src`, room at `dst` (caller), AVX2 implies SSSE3.
        unsafe {
            let v = load(src);
            if escaped | plus == 0 {
                _mm256_storeu_si256(dst.cast(), v);
                return 32;
            }
            let first = emit16(p.digits, _mm256_castsi256_si128(v), escaped & 0xFFFF, plus & 0xFFFF, dst);
            first
                + emit16(p.digits, _mm256_extracti128_si256(v, 1), escaped >> 16, plus >> 16, dst.add(first))
        }
    }
}

generic::entry_points!(Avx2, "avx2,popcnt");
