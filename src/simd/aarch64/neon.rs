//! NEON (Advanced SIMD): 16-byte blocks. Classification with two `tbl` lookups; a block of
//! escapes only is stored with `st3` (which interleaves `%`, high and low digits by itself);
//! mixed blocks use the 4-byte group patterns shared with SSSE3.

use core::arch::aarch64::*;

use crate::Set;
use crate::simd::generic::{self, Kernel};
use crate::simd::tables::{EXPAND4, Nibbles, group_len};

#[derive(Clone, Copy)]
pub(crate) struct Prepared {
    lo: uint8x16_t,
    hi: uint8x16_t,
    digits: uint8x16_t,
    /// All ones when bytes `0x80..=0xFF` are escaped (not an IRI set).
    high: uint8x16_t,
    plus: bool,
}

pub(crate) struct Neon;

/// Bit `i` set for each lane `i` that is all ones.
#[inline(always)]
unsafe fn movemask(v: uint8x16_t) -> u64 {
    const WEIGHTS: [u8; 16] = [1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128];
    // SAFETY: NEON is available (caller); WEIGHTS is 16 bytes.
    unsafe {
        let bits = vandq_u8(v, vld1q_u8(WEIGHTS.as_ptr()));
        u64::from(vaddv_u8(vget_low_u8(bits))) | u64::from(vaddv_u8(vget_high_u8(bits))) << 8
    }
}

impl Kernel for Neon {
    const BYTES: usize = 16;
    const SLACK: usize = 16;
    const RUN: usize = 8;
    type Prepared = Prepared;

    #[inline(always)]
    unsafe fn prepare(set: &Set, digits: &[u8; 16]) -> Prepared {
        let t = Nibbles::new(set);
        // SAFETY: NEON is available (caller); the rows are 16 bytes.
        unsafe {
            Prepared {
                lo: vld1q_u8(t.lo.as_ptr()),
                hi: vld1q_u8(t.hi.as_ptr()),
                digits: vld1q_u8(digits.as_ptr()),
                high: vdupq_n_u8(if set.contains(0x80) { 0xFF } else { 0 }),
                plus: set.space_as_plus(),
            }
        }
    }

    #[inline(always)]
    unsafe fn classify(p: &Prepared, src: *const u8) -> (u64, u64) {
        // SAFETY: 16 readable bytes and NEON (caller).
        unsafe {
            let v = vld1q_u8(src);
            // `tbl` gives 0 for indices of 16 and more: `hi[8..16]` is 0 anyway, so bytes
            // >= 0x80 never match the ASCII table.
            let row_bits = vqtbl1q_u8(p.lo, vandq_u8(v, vdupq_n_u8(0x0F)));
            let row = vqtbl1q_u8(p.hi, vshrq_n_u8(v, 4));
            let high = vandq_u8(vcgeq_u8(v, vdupq_n_u8(0x80)), p.high);
            let escaped = movemask(vorrq_u8(vtstq_u8(row_bits, row), high));
            let spaces = if p.plus { movemask(vceqq_u8(v, vdupq_n_u8(b' '))) } else { 0 };
            (escaped & !spaces, spaces)
        }
    }

    #[inline(always)]
    unsafe fn emit(p: &Prepared, src: *const u8, escaped: u64, plus: u64, dst: *mut u8) -> usize {
        // SAFETY: 16 readable bytes at `src`, room for the output and 16 bytes at `dst`
        // (caller); EXPAND4 rows are 16 bytes.
        unsafe {
            let v = vld1q_u8(src);
            if escaped | plus == 0 {
                vst1q_u8(dst, v);
                return 16;
            }
            let h = vqtbl1q_u8(p.digits, vshrq_n_u8(v, 4));
            let l = vqtbl1q_u8(p.digits, vandq_u8(v, vdupq_n_u8(0x0F)));
            let pct = vdupq_n_u8(b'%');
            if escaped == 0xFFFF {
                vst3q_u8(dst, uint8x16x3_t(pct, h, l));
                return 48;
            }
            let kept = vbslq_u8(vceqq_u8(v, vdupq_n_u8(b' ')), vdupq_n_u8(b'+'), v);
            let kept = if plus != 0 { kept } else { v };
            // Four groups of four bytes, each as `[kept x4, h x4, l x4, '%' x4]`.
            let w = |x: uint8x16_t| vreinterpretq_u32_u8(x);
            let (t1, t2) = (vzip1q_u32(w(kept), w(h)), vzip1q_u32(w(l), w(pct)));
            let (t3, t4) = (vzip2q_u32(w(kept), w(h)), vzip2q_u32(w(l), w(pct)));
            let d = |x: uint32x4_t| vreinterpretq_u64_u32(x);
            let groups = [
                vzip1q_u64(d(t1), d(t2)),
                vzip2q_u64(d(t1), d(t2)),
                vzip1q_u64(d(t3), d(t4)),
                vzip2q_u64(d(t3), d(t4)),
            ];
            let mut written = 0;
            for (g, group) in groups.into_iter().enumerate() {
                let m = escaped >> (4 * g) & 15;
                let out = vqtbl1q_u8(vreinterpretq_u8_u64(group), vld1q_u8(EXPAND4[m as usize].as_ptr()));
                vst1q_u8(dst.add(written), out);
                written += group_len(m);
            }
            written
        }
    }
}

generic::entry_points!(Neon, "neon");
