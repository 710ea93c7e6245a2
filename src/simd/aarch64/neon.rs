//! NEON (Advanced SIMD): 16-byte blocks. Classification with two `tbl` lookups; a block of
//! escapes only is stored with `st3` (which interleaves `%`, high and low digits by itself);
//! mixed blocks are two 8-byte groups, each laid out by `tbl` over two registers with a row
//! of `EXPAND8_TBL2` (AVX2's `EXPAND8` design). Decoding a run of escapes takes 16 at a time
//! apart with `ld3`, the load that undoes `st3`.

use core::arch::aarch64::*;

use crate::set::Set;
use crate::simd::kernel::{DecodeKernel, Kernel};
use crate::simd::tables::{COMPRESS8, EXPAND8_TBL2, KEPT8, Nibbles};

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
///
/// # Safety
/// The CPU must have NEON.
#[inline(always)]
unsafe fn movemask(v: uint8x16_t) -> u64 {
    const WEIGHTS: [u8; 16] = [1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128];
    // SAFETY: NEON is available (caller); WEIGHTS is 16 bytes.
    unsafe {
        let bits = vandq_u8(v, vld1q_u8(WEIGHTS.as_ptr()));
        u64::from(vaddv_u8(vget_low_u8(bits))) | u64::from(vaddv_u8(vget_high_u8(bits))) << 8
    }
}

// SAFETY: `classify` and `emit` load the 16-byte block only. `emit` writes 48 bytes with `st3`
// only for a block whose every byte is escaped (its output is those 48 bytes); its other
// stores end at most 16 bytes past its output (the second 8-byte group's 24 bytes, of which
// 8 or more are output), within `SLACK` (16).
// `tests/guard_pages.rs` checks both on every backend the test machine has.
unsafe impl Kernel for Neon {
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
        // (caller); EXPAND8_TBL2 rows are 32 bytes. Each group's stores end 24 bytes after
        // its start: the first group's at 24, within the block's output (16 or more) and 8
        // bytes of slack; the second's 16 bytes past its own output (8 or more), the end of
        // the block's.
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
            // Two groups of eight bytes, each from the pair `[kept x8, h x8]`,
            // `[l x8, '%' x8]`, which `tbl` reads as one 32-byte table.
            let d = |x: uint8x16_t| vreinterpretq_u64_u8(x);
            let b = |x: uint64x2_t| vreinterpretq_u8_u64(x);
            let groups = [
                uint8x16x2_t(b(vzip1q_u64(d(kept), d(h))), b(vzip1q_u64(d(l), d(pct)))),
                uint8x16x2_t(b(vzip2q_u64(d(kept), d(h))), b(vzip2q_u64(d(l), d(pct)))),
            ];
            // The second group starts after the first's output, known from the mask alone:
            // its stores wait on no length of the first.
            let (m0, m1) = ((escaped & 0xFF) as usize, (escaped >> 8 & 0xFF) as usize);
            let starts = [0, 8 + 2 * usize::from(KEPT8[m0])];
            for (g, (group, m)) in groups.into_iter().zip([m0, m1]).enumerate() {
                let row = EXPAND8_TBL2.0[m].as_ptr();
                let out = dst.add(starts[g]);
                vst1q_u8(out, vqtbl2q_u8(group, vld1q_u8(row)));
                vst1_u8(out.add(16), vqtbl2_u8(group, vld1_u8(row.add(16))));
            }
            16 + 2 * usize::from(KEPT8[m0] + KEPT8[m1])
        }
    }
}

// SAFETY: the loads are of the block and, for `emit_checked`, the 16 bytes one and two bytes
// on (18 in all); `emit_checked` stores at most 16 bytes, within `BYTES + DECODE_SLACK` (32).
// `decode_escapes` loads 48 bytes, `3 * ESCAPE_GROUP`, and stores 16, `ESCAPE_GROUP`.
// `tests/guard_pages.rs` checks both on every backend the test machine has.
unsafe impl DecodeKernel for Neon {
    #[inline(always)]
    unsafe fn specials(src: *const u8, plus: bool) -> (u64, u64) {
        // SAFETY: 16 readable bytes and NEON (caller).
        unsafe {
            let v = vld1q_u8(src);
            let pct = vceqq_u8(v, vdupq_n_u8(b'%'));
            if plus {
                // One mask extraction for the common answer "neither".
                let either = vorrq_u8(pct, vceqq_u8(v, vdupq_n_u8(b'+')));
                if vmaxvq_u8(either) == 0 {
                    return (0, 0);
                }
                (movemask(pct), movemask(vceqq_u8(v, vdupq_n_u8(b'+'))))
            } else if vmaxvq_u8(pct) == 0 {
                (0, 0)
            } else {
                (movemask(pct), 0)
            }
        }
    }

    #[inline(always)]
    unsafe fn non_hex(src: *const u8) -> u64 {
        // SAFETY: 16 readable bytes and NEON (caller).
        unsafe { movemask(non_hex(vld1q_u8(src))) }
    }

    #[inline(always)]
    unsafe fn emit_checked(src: *const u8, pct: u64, plus: bool, keep: u64, dst: *mut u8) -> bool {
        // SAFETY: 18 readable bytes and NEON (caller); one mask extraction for both digits.
        let bad = unsafe { movemask(vorrq_u8(non_hex(vld1q_u8(src.add(1))), non_hex(vld1q_u8(src.add(2))))) };
        if pct & bad != 0 {
            return false;
        }
        let (lo, hi) = ((keep & 0xFF) as usize, (keep >> 8 & 0xFF) as usize);
        // SAFETY: 18 readable bytes at `src`, 16 writable at `dst`, NEON (caller); the second
        // store starts at most 8 bytes in.
        unsafe {
            let v = vld1q_u8(src);
            let byte =
                vorrq_u8(vshlq_n_u8(hex_values(vld1q_u8(src.add(1))), 4), hex_values(vld1q_u8(src.add(2))));
            // Spaces from the input's `+` only: a decoded `%2B` stays `+`.
            let v = if plus { vbslq_u8(vceqq_u8(v, vdupq_n_u8(b'+')), vdupq_n_u8(b' '), v) } else { v };
            let v = vbslq_u8(vceqq_u8(vld1q_u8(src), vdupq_n_u8(b'%')), byte, v);
            // Each half packed by its own pattern; the high half's lanes are 8 further on.
            let pattern =
                vcombine_u8(vcreate_u8(COMPRESS8[lo]), vcreate_u8(COMPRESS8[hi] + 0x0808_0808_0808_0808));
            let packed = vqtbl1q_u8(v, pattern);
            vst1_u8(dst, vget_low_u8(packed));
            vst1_u8(dst.add(usize::from(KEPT8[lo])), vget_high_u8(packed));
        }
        true
    }

    const ESCAPE_GROUP: usize = 16;

    #[inline(always)]
    unsafe fn decode_escapes(src: *const u8, dst: *mut u8) -> bool {
        // SAFETY: 48 readable bytes at `src` and 16 writable at `dst`, NEON (caller).
        unsafe {
            // `ld3` takes 16 escapes apart as it loads them: every `%`, every high digit,
            // every low digit, each in a register of its own.
            let t = vld3q_u8(src);
            let not_pct = vmvnq_u8(vceqq_u8(t.0, vdupq_n_u8(b'%')));
            if vmaxvq_u8(vorrq_u8(not_pct, vorrq_u8(non_hex(t.1), non_hex(t.2)))) != 0 {
                return false;
            }
            vst1q_u8(dst, vorrq_u8(vshlq_n_u8(hex_values(t.1), 4), hex_values(t.2)));
        }
        true
    }
}

/// All ones in the lanes of `v` that are not hex digits.
///
/// # Safety
/// The CPU supports NEON.
#[inline(always)]
unsafe fn non_hex(v: uint8x16_t) -> uint8x16_t {
    // SAFETY: NEON (caller).
    unsafe {
        let digit = vcleq_u8(vsubq_u8(v, vdupq_n_u8(b'0')), vdupq_n_u8(9));
        let letter = vcleq_u8(vsubq_u8(vorrq_u8(v, vdupq_n_u8(0x20)), vdupq_n_u8(b'a')), vdupq_n_u8(5));
        vmvnq_u8(vorrq_u8(digit, letter))
    }
}

/// The value of each hex digit lane of `v` (other lanes: garbage).
///
/// # Safety
/// The CPU supports NEON.
#[inline(always)]
unsafe fn hex_values(v: uint8x16_t) -> uint8x16_t {
    // SAFETY: NEON (caller).
    unsafe {
        // `0`-`9` are their low nibble; `A`-`F` and `a`-`f` (above `9`) their low nibble + 9.
        let letter = vandq_u8(vcgtq_u8(v, vdupq_n_u8(b'9')), vdupq_n_u8(9));
        vaddq_u8(vandq_u8(v, vdupq_n_u8(0x0F)), letter)
    }
}

crate::simd::entry::backend! { kernel: Neon, features: ["neon"], short: 0 }
