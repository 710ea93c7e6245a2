//! AVX2: 32-byte blocks. Classification as in SSSE3 on twice the width; a block with escapes
//! is emitted as two 16-byte halves by the SSSE3 routine (AVX2 implies SSSE3).

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use super::ssse3::compress16;
use crate::set::Set;
use crate::simd::kernel::{DecodeKernel, Kernel};
use crate::simd::tables::{EXPAND8, Nibbles};

#[derive(Clone, Copy)]
pub(crate) struct Prepared {
    lo: __m256i,
    hi: __m256i,
    digits: __m256i,
    /// `0x80` in every lane when bytes `0x80..=0xFF` are escaped (not an IRI set), else 0.
    high: __m256i,
    plus: bool,
}

pub(crate) struct Avx2;

/// 32 bytes from `p`, unaligned.
///
/// # Safety
/// `p` must be valid for reads of 32 bytes, and the CPU must have AVX.
#[inline(always)]
unsafe fn load(p: *const u8) -> __m256i {
    // SAFETY: the caller guarantees 32 readable bytes; no alignment needed.
    unsafe { _mm256_loadu_si256(p.cast()) }
}

/// `row` in both 128-bit lanes.
///
/// # Safety
/// The CPU must have AVX2.
#[inline(always)]
unsafe fn broadcast(row: &[u8; 16]) -> __m256i {
    // SAFETY: 16 readable bytes; AVX2 is available (caller).
    unsafe { _mm256_broadcastsi128_si256(_mm_loadu_si128(row.as_ptr().cast())) }
}

// SAFETY: `classify` and `emit` load the 32-byte block only. `emit` stores one 32-byte
// register per 8-byte group `g` (0 to 3), where the group's output starts; the output from
// there on is at least `8 * (4 - g)` bytes, so that store ends at most `8 * g` bytes past
// the block's output: 24 for the last group, within `SLACK` (24).
// `tests/guard_pages.rs` checks both on every backend the test machine has.
unsafe impl Kernel for Avx2 {
    const BYTES: usize = 32;
    const SLACK: usize = 24;
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
                digits: broadcast(digits),
                high: _mm256_set1_epi8(if set.contains(0x80) { 0x80u8 as i8 } else { 0 }),
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
            // A byte's lane is non-zero when the set escapes it: an ASCII byte by the
            // lookup, a byte `0x80..=0xFF` (for which both lookups give 0) by its top bit.
            let hits = _mm256_or_si256(_mm256_and_si256(row_bits, row), _mm256_and_si256(v, p.high));
            let kept = _mm256_cmpeq_epi8(hits, _mm256_setzero_si256());
            let escaped = !(_mm256_movemask_epi8(kept) as u32) as u64;
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
        // SAFETY: 32 readable bytes at `src`, room for the output and 24 bytes at `dst`, AVX2
        // (caller).
        unsafe {
            if escaped | plus == 0 {
                _mm256_storeu_si256(dst.cast(), load(src));
                return 32;
            }
            // Where each 8-byte group's output starts: independent of each other, so the
            // stores wait on no chain of lengths.
            let offsets = [
                0,
                8 + 2 * (escaped & 0xFF).count_ones() as usize,
                16 + 2 * (escaped & 0xFFFF).count_ones() as usize,
                24 + 2 * (escaped & 0xFF_FFFF).count_ones() as usize,
            ];
            for half in 0..2 {
                let (a, b) = sources(p, src.add(16 * half), plus != 0);
                for g in 0..2 {
                    let group = 2 * half + g;
                    let m = (escaped >> (8 * group) & 0xFF) as usize;
                    let row = _mm256_load_si256(EXPAND8.0[m].as_ptr().cast());
                    // The group in the high half of `b` is read with `row ^ 0x88`.
                    let flip = _mm256_set1_epi8([0x80u8, 0x88][g] as i8);
                    let out = _mm256_or_si256(
                        _mm256_shuffle_epi8(a[g], row),
                        _mm256_shuffle_epi8(b[g], _mm256_xor_si256(row, flip)),
                    );
                    _mm256_storeu_si256(dst.add(offsets[group]).cast(), out);
                }
            }
            32 + 2 * escaped.count_ones() as usize
        }
    }
}

/// The two `EXPAND8` sources of each 8-byte group of the 16 bytes at `src`, in both 128-bit
/// lanes: `[kept x8, high digits x8]`, and `[low digits x8, '%' x8]` for the first group,
/// `['%' x8, low digits x8]` for the second (a blend, no shuffle).
///
/// # Safety
/// The CPU supports AVX2; `src` is valid for reading 16 bytes.
#[inline(always)]
unsafe fn sources(p: &Prepared, src: *const u8, plus: bool) -> ([__m256i; 2], [__m256i; 2]) {
    // SAFETY: 16 readable bytes at `src`, AVX2 (caller).
    unsafe {
        let v = _mm256_broadcastsi128_si256(_mm_loadu_si128(src.cast()));
        let kept = if plus {
            let space = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b' ' as i8));
            _mm256_blendv_epi8(v, _mm256_set1_epi8(b'+' as i8), space)
        } else {
            v
        };
        let mask = _mm256_set1_epi8(0x0F);
        let h = _mm256_shuffle_epi8(p.digits, _mm256_and_si256(_mm256_srli_epi16(v, 4), mask));
        let l = _mm256_shuffle_epi8(p.digits, _mm256_and_si256(v, mask));
        let pct = _mm256_set1_epi8(b'%' as i8);
        (
            [_mm256_unpacklo_epi64(kept, h), _mm256_unpackhi_epi64(kept, h)],
            [_mm256_blend_epi32::<0b1100_1100>(l, pct), _mm256_blend_epi32::<0b0011_0011>(l, pct)],
        )
    }
}

// SAFETY: the loads are of the block and, for `emit_checked`, the 32 bytes one and two bytes
// on (34 in all); `emit_checked` stores at most 32 bytes, within `BYTES + DECODE_SLACK` (48).
// `decode_escapes` loads 48 bytes, `3 * ESCAPE_GROUP`, and stores 16, `ESCAPE_GROUP`.
// `tests/guard_pages.rs` checks both on every backend the test machine has.
unsafe impl DecodeKernel for Avx2 {
    const DECODE_SLACK: usize = 16;

    #[inline(always)]
    unsafe fn specials(src: *const u8, plus: bool) -> (u64, u64) {
        // SAFETY: 32 readable bytes and AVX2 (caller).
        unsafe {
            let v = load(src);
            let pct = _mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'%' as i8))) as u32 as u64;
            let plus = if plus {
                _mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'+' as i8))) as u32 as u64
            } else {
                0
            };
            (pct, plus)
        }
    }

    #[inline(always)]
    unsafe fn non_hex(src: *const u8) -> u64 {
        // SAFETY: 32 readable bytes and AVX2 (caller).
        unsafe { !digits(load(src)).1 & 0xFFFF_FFFF }
    }

    #[inline(always)]
    unsafe fn emit_checked(src: *const u8, pct: u64, plus: bool, keep: u64, dst: *mut u8) -> bool {
        // SAFETY: 34 readable bytes at `src`, 32 writable at `dst`, AVX2 (caller); the
        // second half starts where the first ended, at most 16 bytes in.
        unsafe {
            let (high, high_ok) = digits(load(src.add(1)));
            let (low, low_ok) = digits(load(src.add(2)));
            if pct & !(high_ok & low_ok) != 0 {
                return false;
            }
            let v = load(src);
            // The 16-bit shift carries a non-digit lane's garbage into the next lane's low
            // nibble, which the mask clears.
            let byte = _mm256_or_si256(
                _mm256_and_si256(_mm256_slli_epi16(high, 4), _mm256_set1_epi8(0xF0u8 as i8)),
                low,
            );
            let pct = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'%' as i8));
            let v = if plus {
                // Spaces from the input's `+` only: a decoded `%2B` stays `+`.
                let sp = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'+' as i8));
                _mm256_blendv_epi8(v, _mm256_set1_epi8(b' ' as i8), sp)
            } else {
                v
            };
            let v = _mm256_blendv_epi8(v, byte, pct);
            let first = compress16(_mm256_castsi256_si128(v), keep & 0xFFFF, dst);
            compress16(_mm256_extracti128_si256(v, 1), keep >> 16, dst.add(first));
        }
        true
    }

    const ESCAPE_GROUP: usize = 16;

    #[inline(always)]
    unsafe fn decode_escapes(src: *const u8, dst: *mut u8) -> bool {
        // SAFETY: 48 readable bytes at `src` (the last load ends at 32 + 16) and 16 writable
        // at `dst`, AVX2 (caller).
        unsafe {
            // Each 128-bit lane takes 8 escapes, 24 bytes: bytes 0..16 of them in `a`, bytes
            // 8..24 in `b`.
            let a = _mm256_loadu2_m128i(src.add(24).cast(), src.cast());
            let b = _mm256_loadu2_m128i(src.add(32).cast(), src.add(8).cast());
            let pct = _mm256_set1_epi8(b'%' as i8);
            let pct_a = _mm256_movemask_epi8(_mm256_cmpeq_epi8(a, pct)) as u32;
            let pct_b = _mm256_movemask_epi8(_mm256_cmpeq_epi8(b, pct)) as u32;
            let pairs = _mm256_or_si256(
                _mm256_shuffle_epi8(a, broadcast(&RUN_PAIRS[0])),
                _mm256_shuffle_epi8(b, broadcast(&RUN_PAIRS[1])),
            );
            let (values, ok) = digits(pairs);
            let [in_a, in_b] = RUN_PERCENTS;
            if pct_a & in_a != in_a || pct_b & in_b != in_b || ok != 0xFFFF_FFFF {
                return false;
            }
            // Each 16-bit lane holds an escape's two digit values: high * 16 + low; packed
            // into the low 8 bytes of each 128-bit lane, which the permute joins.
            let bytes = _mm256_maddubs_epi16(values, _mm256_set1_epi16(0x0110));
            let packed = _mm256_permute4x64_epi64(_mm256_packus_epi16(bytes, bytes), 0b10_00);
            _mm_storeu_si128(dst.cast(), _mm256_castsi256_si128(packed));
        }
        true
    }
}

/// For a run of 16 escapes in 48 bytes, 8 in each 128-bit lane (24 bytes, lane-relative
/// offsets 0..24, from `a` below 16 and from `b`, 8 bytes on, above): the lanes of `a` and
/// `b` that must be `%`, every third byte (0, 3, ... 15 from `a`; 18 and 21 from `b`).
const RUN_PERCENTS: [u32; 2] = [0x9249 * 0x1_0001, (1 << 10 | 1 << 13) * 0x1_0001];

/// The `pshufb` patterns that gather each escape's two digits (offsets `3j + 1`, `3j + 2`)
/// into lanes `2j`, `2j + 1`: from `a` (offsets under 16), then from `b` (above); `0x80`
/// leaves a lane zero for the other to fill.
static RUN_PAIRS: [[u8; 16]; 2] = {
    let mut t = [[0x80u8; 16]; 2];
    let mut j = 0;
    while j < 8 {
        let mut d = 0;
        while d < 2 {
            let offset = 3 * j + 1 + d;
            if offset < 16 {
                t[0][2 * j + d] = offset as u8;
            } else {
                t[1][2 * j + d] = (offset - 8) as u8;
            }
            d += 1;
        }
        j += 1;
    }
    t
};

/// All ones in the lanes where `x <= n` (unsigned), as `min(x, n) == x`. (A function, not a
/// closure: closures do not inherit the caller's target features.)
///
/// # Safety
/// The CPU supports AVX2.
#[inline(always)]
unsafe fn at_most(x: __m256i, n: u8) -> __m256i {
    // SAFETY: AVX2 (caller).
    unsafe { _mm256_cmpeq_epi8(_mm256_min_epu8(x, _mm256_set1_epi8(n as i8)), x) }
}

/// The value of each lane of `v` as a hex digit (garbage below 25 where it is not one), and
/// the lanes that are hex digits.
///
/// # Safety
/// The CPU supports AVX2.
#[inline(always)]
unsafe fn digits(v: __m256i) -> (__m256i, u64) {
    // SAFETY: AVX2 (caller).
    unsafe {
        let digit = at_most(_mm256_sub_epi8(v, _mm256_set1_epi8(b'0' as i8)), 9);
        let letter = at_most(
            _mm256_sub_epi8(_mm256_or_si256(v, _mm256_set1_epi8(0x20)), _mm256_set1_epi8(b'a' as i8)),
            5,
        );
        // `0`-`9` are their low nibble; `A`-`F` and `a`-`f` their low nibble + 9.
        let values = _mm256_add_epi8(
            _mm256_and_si256(v, _mm256_set1_epi8(0x0F)),
            _mm256_and_si256(letter, _mm256_set1_epi8(9)),
        );
        (values, _mm256_movemask_epi8(_mm256_or_si256(digit, letter)) as u32 as u64)
    }
}

crate::simd::entry::backend! { kernel: Avx2, features: ["avx2", "popcnt", "ssse3"], short: 0, narrow: [ssse3] }
