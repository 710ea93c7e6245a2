//! AVX-512 with BW, VBMI and VBMI2: 64-byte blocks.
//!
//! Classification is the nibble lookup on 64 bytes with the result straight in a mask
//! register (`vptestmb`). A block with escapes is expanded into 192 slots, three per input
//! byte (`%` or the byte itself, high digit, low digit), by `vpermt2b`/`vpermb` with fixed
//! indices; `vpcompressb` then drops the digit slots of the bytes that are kept, and each
//! window's register is stored whole, up to 64 bytes past the output (`SLACK`), which the
//! next window's or block's store overwrites: on Zen 4 a masked store of the output's lanes
//! alone costs more than the plain store (encoding `log` text took a fifth longer with them).

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use core::mem::MaybeUninit;

use crate::set::Set;
use crate::simd::kernel::{DecodeKernel, Kernel};
use crate::simd::tables::Nibbles;

/// Slot `s` of the 192 holds part `s % 3` of input byte `s / 3`. For each 64-slot window:
/// the permutation indices, the slots of each part, and the input byte of the window's
/// first slot of each part.
struct Layout {
    /// Part 0 from `first` (index `i`), part 1 from `h` (index `64 + i`).
    first_or_high: [[u8; 64]; 3],
    /// Part 2 from `l` (index `i`).
    low: [[u8; 64]; 3],
    part_slots: [[u64; 3]; 3],
    part_start: [[u32; 3]; 3],
}

static LAYOUT: Layout = {
    let mut l = Layout {
        first_or_high: [[0; 64]; 3],
        low: [[0; 64]; 3],
        part_slots: [[0; 3]; 3],
        part_start: [[u32::MAX; 3]; 3],
    };
    let mut w = 0;
    while w < 3 {
        let mut j = 0;
        while j < 64 {
            let s = 64 * w + j;
            let (i, part) = (s / 3, s % 3);
            l.first_or_high[w][j] = if part == 1 { 64 + i as u8 } else { i as u8 };
            l.low[w][j] = i as u8;
            l.part_slots[w][part] |= 1 << j;
            if l.part_start[w][part] == u32::MAX {
                l.part_start[w][part] = i as u32;
            }
            j += 1;
        }
        w += 1;
    }
    l
};

#[derive(Clone, Copy)]
pub(crate) struct Prepared {
    lo: __m512i,
    hi: __m512i,
    /// For validation: the class bits of each ASCII byte (see [`CLASSES`]), in two halves
    /// for `vpermi2b`.
    classes: [__m512i; 2],
    /// The class of every byte `0x80..=0xFF`: not a hex digit, and in the set unless it is
    /// an IRI set.
    high_class: __m512i,
    digits: __m512i,
    high: u64,
    plus: bool,
}

pub(crate) struct Avx512;

/// Class bits of an ASCII byte for validation: in the prepared set, not a hex digit, `%`.
const IN_SET: u8 = 1;
const NOT_HEX: u8 = 2;
const PERCENT: u8 = 4;

/// The set-independent classes of the 128 ASCII bytes, in two 64-byte halves.
static CLASSES: [[u8; 64]; 2] = {
    let mut t = [[0u8; 64]; 2];
    let mut b = 0;
    while b < 128 {
        let mut c = 0;
        if crate::hex::value(b as u8).is_none() {
            c |= NOT_HEX;
        }
        if b == b'%' as usize {
            c |= PERCENT;
        }
        t[b / 64][b % 64] = c;
        b += 1;
    }
    t
};

/// `row` in all four 128-bit lanes.
///
/// # Safety
/// The CPU must have AVX-512F.
#[inline(always)]
unsafe fn broadcast(row: &[u8; 16]) -> __m512i {
    // SAFETY: 16 readable bytes; AVX-512F is available (caller).
    unsafe { _mm512_broadcast_i32x4(_mm_loadu_si128(row.as_ptr().cast())) }
}

/// `row` as a vector.
///
/// # Safety
/// The CPU must have AVX-512F.
#[inline(always)]
unsafe fn load64(row: &[u8; 64]) -> __m512i {
    // SAFETY: 64 readable bytes; AVX-512F is available (caller).
    unsafe { _mm512_loadu_si512(row.as_ptr().cast()) }
}

// SAFETY: `classify` and `emit` load the 64-byte block only. `emit` stores whole 64-byte
// registers: one at the start of each window's output, the last of which ends at most 64
// bytes past the block's output (`SLACK` 64).
// `classify_partial` and `emit_exact` load the block's first `n` bytes only (masked loads),
// and `emit_exact` stores only the output's bytes (masked stores).
// `tests/guard_pages.rs` checks both on every backend the test machine has.
unsafe impl Kernel for Avx512 {
    const BYTES: usize = 64;
    const SLACK: usize = 64;
    const RUN: usize = 2;
    type Prepared = Prepared;

    #[inline(always)]
    unsafe fn prepare(set: &Set, digits: &[u8; 16]) -> Prepared {
        let t = Nibbles::new(set);
        // SAFETY: AVX-512 is available (caller).
        unsafe {
            // The set's bits as 0/1 bytes (`vmovdqu8` with a zeroing mask), merged with the
            // set-independent classes.
            let bits = set.ascii_bits();
            let one = _mm512_set1_epi8(IN_SET as i8);
            let classes = [
                _mm512_or_si512(_mm512_maskz_mov_epi8(bits as u64, one), load64(&CLASSES[0])),
                _mm512_or_si512(_mm512_maskz_mov_epi8((bits >> 64) as u64, one), load64(&CLASSES[1])),
            ];
            Prepared {
                lo: broadcast(&t.lo),
                hi: broadcast(&t.hi),
                classes,
                high_class: _mm512_set1_epi8((NOT_HEX | if set.contains(0x80) { IN_SET } else { 0 }) as i8),
                digits: broadcast(digits),
                high: if set.contains(0x80) { u64::MAX } else { 0 },
                plus: set.space_as_plus(),
            }
        }
    }

    #[inline(always)]
    unsafe fn classify(p: &Prepared, src: *const u8) -> (u64, u64) {
        // SAFETY: 64 readable bytes and AVX-512 BW (caller).
        unsafe { classify(p, _mm512_loadu_si512(src.cast())) }
    }

    #[inline(always)]
    unsafe fn emit(p: &Prepared, src: *const u8, escaped: u64, plus: u64, dst: *mut u8) -> usize {
        // SAFETY: 64 readable bytes at `src`, room for the output and `SLACK` (64) bytes at
        // `dst` (caller), which `emit` writes within with `EXACT` false.
        unsafe { emit::<false>(p, _mm512_loadu_si512(src.cast()), u64::MAX, escaped, plus, dst) }
    }

    const EXACT: bool = true;

    #[inline(always)]
    unsafe fn classify_partial(p: &Prepared, src: *const u8, n: usize) -> (u64, u64) {
        let lanes = first_lanes(n);
        // SAFETY: `n` readable bytes at `src` and AVX-512 BW (caller); the load is masked to
        // them, and a masked-off lane reads nothing and faults on nothing.
        let (escaped, plus) = unsafe { classify(p, _mm512_maskz_loadu_epi8(lanes, src.cast())) };
        (escaped & lanes, plus & lanes)
    }

    #[inline(always)]
    unsafe fn emit_exact(
        p: &Prepared,
        src: *const u8,
        n: usize,
        escaped: u64,
        plus: u64,
        dst: *mut u8,
    ) -> usize {
        let lanes = first_lanes(n);
        // SAFETY: `n` readable bytes at `src`, room for the output at `dst` (caller): the load
        // is masked to the input's lanes, and `emit` with `EXACT` masks its stores to the
        // output's.
        unsafe { emit::<true>(p, _mm512_maskz_loadu_epi8(lanes, src.cast()), lanes, escaped, plus, dst) }
    }
}

/// The masks of the block `v` (see [`Kernel::classify`]).
///
/// # Safety
/// The CPU supports AVX-512 BW.
#[inline(always)]
unsafe fn classify(p: &Prepared, v: __m512i) -> (u64, u64) {
    // SAFETY: AVX-512 BW (caller).
    unsafe {
        let row_bits = _mm512_shuffle_epi8(p.lo, v);
        let row =
            _mm512_shuffle_epi8(p.hi, _mm512_and_si512(_mm512_srli_epi16(v, 4), _mm512_set1_epi8(0x0F)));
        let escaped = _mm512_test_epi8_mask(row_bits, row) | (_mm512_movepi8_mask(v) & p.high);
        let spaces = if p.plus { _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b' ' as i8)) } else { 0 };
        (escaped & !spaces, spaces)
    }
}

/// Writes the encoding of the input bytes of `v` (its `lanes`, the first ones: all 64 unless
/// `EXACT`) to `dst`, whose masks are `escaped` and `plus`, and returns its length. Without
/// `EXACT`, each window's register is stored whole (up to 64 bytes past the output); with it,
/// each store is masked to the output's bytes, and windows with none are skipped.
///
/// # Safety
/// The CPU supports AVX-512 BW, VBMI, VBMI2 and BMI2; `dst` is valid for writing the output,
/// plus 64 bytes unless `EXACT`.
#[inline(always)]
unsafe fn emit<const EXACT: bool>(
    p: &Prepared,
    v: __m512i,
    lanes: u64,
    escaped: u64,
    plus: u64,
    dst: *mut u8,
) -> usize {
    // SAFETY: the features (caller); every store starts inside the output at `dst` and is
    // either masked to it (`EXACT`) or ends at most 64 bytes past it.
    unsafe {
        if escaped | plus == 0 {
            if EXACT {
                _mm512_mask_storeu_epi8(dst.cast(), lanes, v);
                return lanes.count_ones() as usize;
            }
            _mm512_storeu_si512(dst.cast(), v);
            return 64;
        }
        let kept = _mm512_mask_blend_epi8(plus, v, _mm512_set1_epi8(b'+' as i8));
        let first = _mm512_mask_blend_epi8(escaped, kept, _mm512_set1_epi8(b'%' as i8));
        let nibble = _mm512_set1_epi8(0x0F);
        let h = _mm512_shuffle_epi8(p.digits, _mm512_and_si512(_mm512_srli_epi16(v, 4), nibble));
        let l = _mm512_shuffle_epi8(p.digits, _mm512_and_si512(v, nibble));
        let mut written = 0;
        for w in 0..3 {
            let parts = _mm512_permutex2var_epi8(first, load64(&LAYOUT.first_or_high[w]), h);
            let lows = _mm512_permutexvar_epi8(load64(&LAYOUT.low[w]), l);
            let slots = _mm512_mask_blend_epi8(LAYOUT.part_slots[w][2], parts, lows);
            if !EXACT && escaped == u64::MAX {
                _mm512_storeu_si512(dst.add(written).cast(), slots);
                written += 64;
                continue;
            }
            // Keep part 0 of every input byte, parts 1 and 2 of escaped bytes.
            let [s0, s1, s2] = LAYOUT.part_start[w];
            let [m0, m1, m2] = LAYOUT.part_slots[w];
            let present = if EXACT { pdep64(lanes >> s0, m0) } else { m0 };
            let keep = present | pdep64(escaped >> s1, m1) | pdep64(escaped >> s2, m2);
            let n = keep.count_ones();
            let packed = _mm512_maskz_compress_epi8(keep, slots);
            if EXACT {
                if n == 0 {
                    break;
                }
                _mm512_mask_storeu_epi8(dst.add(written).cast(), first_lanes(n as usize), packed);
            } else {
                // The whole register: its lanes past `n` are garbage that the next store, or
                // the caller's slack, takes.
                _mm512_storeu_si512(dst.add(written).cast(), packed);
            }
            written += n as usize;
        }
        written
    }
}

/// `pdep` on 64 bits: the low bits of `x` deposited in the bits set in `mask`, in order.
/// 32-bit x86 has only the 32-bit instruction: two of them, the high half taking the bits
/// of `x` after those the low half used.
///
/// # Safety
/// The CPU supports BMI2.
#[inline(always)]
unsafe fn pdep64(x: u64, mask: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: BMI2 (caller).
    unsafe {
        _pdep_u64(x, mask)
    }
    #[cfg(target_arch = "x86")]
    // SAFETY: BMI2 (caller).
    unsafe {
        let low = mask as u32;
        let used = low.count_ones();
        u64::from(_pdep_u32(x as u32, low))
            | u64::from(_pdep_u32((x >> used) as u32, (mask >> 32) as u32)) << 32
    }
}

// SAFETY: the loads are of the block (`scan` included) and, for `emit_checked`, the 64 bytes
// one and two bytes on (66 in all); `emit_checked` stores one 64-byte register, exactly
// `BYTES + DECODE_SLACK` (64), from the first decoded byte it holds. `decode_escapes` loads 64 + 32
// bytes, `3 * ESCAPE_GROUP`, and stores 32, `ESCAPE_GROUP`.
// `decode_whole` loads only `input`'s bytes and stores only within `out` (masked loads and
// stores, the stores after checking the output fits).
// `tests/guard_pages.rs` checks both on every backend the test machine has.
unsafe impl DecodeKernel for Avx512 {
    // Decoding stores one register per block: no slack, unlike encoding.
    const DECODE_SLACK: usize = 0;

    #[inline(always)]
    unsafe fn specials(src: *const u8, plus: bool) -> (u64, u64) {
        // SAFETY: 64 readable bytes and AVX-512 BW (caller).
        unsafe {
            let v = _mm512_loadu_si512(src.cast());
            let pct = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'%' as i8));
            (pct, if plus { _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'+' as i8)) } else { 0 })
        }
    }

    #[inline(always)]
    unsafe fn scan(p: &Prepared, src: *const u8) -> (u64, u64, u64) {
        // SAFETY: 64 readable bytes, AVX-512 BW and VBMI (caller).
        unsafe {
            let v = _mm512_loadu_si512(src.cast());
            // One lookup for all three classes of ASCII bytes; the others (whose low seven
            // bits alias ASCII) take the class of every byte `0x80..=0xFF` instead.
            let c = _mm512_permutex2var_epi8(p.classes[0], v, p.classes[1]);
            let c = _mm512_mask_blend_epi8(_mm512_movepi8_mask(v), c, p.high_class);
            (
                _mm512_test_epi8_mask(c, _mm512_set1_epi8(IN_SET as i8)),
                _mm512_test_epi8_mask(c, _mm512_set1_epi8(PERCENT as i8)),
                _mm512_test_epi8_mask(c, _mm512_set1_epi8(NOT_HEX as i8)),
            )
        }
    }

    #[inline(always)]
    unsafe fn non_hex(src: *const u8) -> u64 {
        // SAFETY: 64 readable bytes and AVX-512 BW (caller).
        unsafe { non_hex(_mm512_loadu_si512(src.cast())) }
    }

    #[inline(always)]
    unsafe fn emit_checked(src: *const u8, pct: u64, plus: bool, keep: u64, dst: *mut u8) -> bool {
        // SAFETY: 66 readable bytes at `src`, 64 writable at `dst`, AVX-512 BW, VBMI and
        // VBMI2 (caller).
        unsafe {
            let load = |at: usize| _mm512_loadu_si512(src.add(at).cast());
            let Some(v) = decoded(load(0), load(1), load(2), pct, plus) else {
                return false;
            };
            // Compress in a register, then one plain store: `vpcompressb` straight to memory
            // is microcoded on some CPUs.
            _mm512_storeu_si512(dst.cast(), _mm512_maskz_compress_epi8(keep, v));
        }
        true
    }

    const WHOLE: usize = 128;

    #[inline(always)]
    unsafe fn decode_whole(input: &[u8], out: &mut [MaybeUninit<u8>], plus: bool) -> Option<usize> {
        // One block, or two, decoded in registers before anything is stored.
        // SAFETY: AVX-512 BW, VBMI and VBMI2 (caller); `partial_block` reads only `input`.
        let (first, keep, pct) = unsafe { partial_block(input, 0, 0, plus) }?;
        let (second, keep2) = if input.len() > 64 {
            // The digits of an escape in the first block's last two lanes open the second.
            let tail = pct >> 62;
            // SAFETY: as above.
            let (v, keep2, _) = unsafe { partial_block(input, 64, tail | tail >> 1, plus) }?;
            (v, keep2)
        } else {
            (first, 0)
        };
        let (written, written2) = (keep.count_ones() as usize, keep2.count_ones() as usize);
        if out.len() < written + written2 {
            return None;
        }
        let dst = out.as_mut_ptr().cast::<u8>();
        // SAFETY: AVX-512 BW and VBMI2 (caller); each store is masked to the lanes of the
        // output, and `out` holds all of it (checked above).
        unsafe {
            _mm512_mask_storeu_epi8(
                dst.cast(),
                first_lanes(written),
                _mm512_maskz_compress_epi8(keep, first),
            );
            if keep2 != 0 {
                _mm512_mask_storeu_epi8(
                    dst.add(written).cast(),
                    first_lanes(written2),
                    _mm512_maskz_compress_epi8(keep2, second),
                );
            }
        }
        Some(written + written2)
    }

    const ESCAPE_GROUP: usize = 32;

    #[inline(always)]
    unsafe fn decode_escapes(src: *const u8, dst: *mut u8) -> bool {
        // SAFETY: 96 readable bytes at `src` and 32 writable at `dst`, AVX-512 BW and VBMI
        // (caller).
        unsafe {
            let a = _mm512_loadu_si512(src.cast());
            // The upper half of `b` is never looked at: the masks and `PAIRS` stay in its
            // first 32 lanes.
            let b = _mm512_castsi256_si512(_mm256_loadu_si256(src.add(64).cast()));
            let pct = _mm512_set1_epi8(b'%' as i8);
            let [in_a, in_b] = RUN_PERCENTS;
            let not_pct =
                _mm512_mask_cmpneq_epi8_mask(in_a, a, pct) | _mm512_mask_cmpneq_epi8_mask(in_b, b, pct);
            let (values, ok) = digits(_mm512_permutex2var_epi8(a, load64(&PAIRS), b));
            if not_pct | !ok != 0 {
                return false;
            }
            // Each 16-bit lane holds an escape's two digit values: high * 16 + low.
            let bytes = _mm512_maddubs_epi16(values, _mm512_set1_epi16(0x0110));
            _mm256_storeu_si256(dst.cast(), _mm512_cvtepi16_epi8(bytes));
        }
        true
    }
}

/// The block `v` decoded in place: each `%` lane (`pct`) the byte its two digits (in the
/// same lanes of `high` and `low`, the bytes one and two on) stand for, each `+` a space when
/// `plus`; `None` if a `%` lane is not followed by two hex digits.
///
/// # Safety
/// The CPU supports AVX-512 BW and VBMI.
#[inline(always)]
unsafe fn decoded(v: __m512i, high: __m512i, low: __m512i, pct: u64, plus: bool) -> Option<__m512i> {
    // SAFETY: AVX-512 BW and VBMI (caller).
    unsafe {
        let (high, high_ok) = digits(high);
        let (low, low_ok) = digits(low);
        if pct & !(high_ok & low_ok) != 0 {
            return None;
        }
        // The 16-bit shift carries a non-digit lane's garbage into the next lane's low nibble;
        // `vpternlogd` (0xEA: `(a & b) | c`) masks it off and merges the low digit.
        let byte =
            _mm512_ternarylogic_epi32(_mm512_slli_epi16(high, 4), _mm512_set1_epi8(0xF0u8 as i8), low, 0xEA);
        let spaces = if plus { _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'+' as i8)) } else { 0 };
        let v = _mm512_mask_blend_epi8(spaces, v, _mm512_set1_epi8(b' ' as i8));
        Some(_mm512_mask_blend_epi8(pct, v, byte))
    }
}

/// The 64 bytes of `input` from `from`, those past its end as zeros: a load masked to the
/// lanes inside `input` (a masked-off lane reads nothing and faults on nothing). A function,
/// not a closure: a closure does not take on its caller's target features, and the intrinsic
/// would become a call.
///
/// # Safety
/// The CPU supports AVX-512 BW.
#[inline(always)]
unsafe fn load_lanes(input: &[u8], from: usize) -> __m512i {
    let lanes = first_lanes(input.len().saturating_sub(from));
    // SAFETY: AVX-512 BW (caller); the mask holds only lanes inside `input`, and the pointer
    // is only formed (`wrapping_add`) where it points past `input`, never read.
    unsafe { _mm512_maskz_loadu_epi8(lanes, input.as_ptr().wrapping_add(from).cast()) }
}

/// The block of `input` at `at` (`at <= input.len()`) decoded in a register by [`decoded`],
/// with the lanes to keep (those in `input`, less escapes' digits and the `skip` lanes) and
/// the `%` lanes; `None` if a `%` is not followed by two hex digits. The loads are masked to
/// the lanes inside `input`; the others load as zeros, which are no hex digits, so a `%` cut
/// short by the end is no valid escape.
///
/// # Safety
/// The CPU supports AVX-512 BW and VBMI.
#[inline(always)]
unsafe fn partial_block(input: &[u8], at: usize, skip: u64, plus: bool) -> Option<(__m512i, u64, u64)> {
    let n = input.len();
    // SAFETY: AVX-512 BW (caller); `load_lanes` reads only `input`.
    let (v, high, low) =
        unsafe { (load_lanes(input, at), load_lanes(input, at + 1), load_lanes(input, at + 2)) };
    // SAFETY: AVX-512 BW and VBMI (caller).
    unsafe {
        let pct = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'%' as i8));
        let keep = first_lanes(n - at) & !((pct << 1) | (pct << 2) | skip);
        decoded(v, high, low, pct, plus).map(|v| (v, keep, pct))
    }
}

/// A mask of the first `n` lanes.
#[inline(always)]
fn first_lanes(n: usize) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}

/// For a run of 32 escapes in 96 bytes (`a` the first 64, `b` the last 32): the lanes of
/// `a` and of `b` that must be `%`, every third byte.
static RUN_PERCENTS: [u64; 2] = {
    let mut m = [0u64; 2];
    let mut i = 0;
    while i < 32 {
        let at = 3 * i;
        m[at / 64] |= 1 << (at % 64);
        i += 1;
    }
    m
};

/// The indices (`a` then `b`, as `vpermt2b` numbers them) of the two digits of escape `i`
/// of such a run, in lanes `2i` and `2i + 1`.
static PAIRS: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut i = 0;
    while i < 32 {
        t[2 * i] = (3 * i + 1) as u8;
        t[2 * i + 1] = (3 * i + 2) as u8;
        i += 1;
    }
    t
};

/// The value of every ASCII byte as a hex digit, `0x80` for bytes that are not one: the
/// 128-entry table `vpermi2b` looks up in two registers.
static HEX_VALUES: [u8; 128] = {
    let mut t = [0x80u8; 128];
    let mut b = 0;
    while b < 128 {
        if let Some(value) = crate::hex::value(b as u8) {
            t[b] = value;
        }
        b += 1;
    }
    t
};

/// The value of each lane of `v` as a hex digit (`0x80` where it is not one), and the lanes
/// that are hex digits: one `vpermi2b` over the 128-entry table, bytes `0x80..=0xFF` (whose
/// low seven bits alias ASCII) excluded by their top bit.
///
/// # Safety
/// The CPU supports AVX-512 BW and VBMI.
#[inline(always)]
unsafe fn digits(v: __m512i) -> (__m512i, u64) {
    // SAFETY: AVX-512 BW and VBMI (caller); the table is 128 bytes.
    unsafe {
        let lo = _mm512_loadu_si512(HEX_VALUES.as_ptr().cast());
        let hi = _mm512_loadu_si512(HEX_VALUES.as_ptr().add(64).cast());
        let values = _mm512_permutex2var_epi8(lo, v, hi);
        // Top bit set: not a digit (the table's 0x80), or not ASCII (the input's).
        (values, !_mm512_movepi8_mask(_mm512_or_si512(values, v)))
    }
}

/// The lanes of `v` that are not hex digits.
///
/// # Safety
/// The CPU supports AVX-512 BW.
#[inline(always)]
unsafe fn non_hex(v: __m512i) -> u64 {
    // SAFETY: AVX-512 BW (caller).
    unsafe {
        let digit =
            _mm512_cmple_epu8_mask(_mm512_sub_epi8(v, _mm512_set1_epi8(b'0' as i8)), _mm512_set1_epi8(9));
        let letter = _mm512_cmple_epu8_mask(
            _mm512_sub_epi8(_mm512_or_si512(v, _mm512_set1_epi8(0x20)), _mm512_set1_epi8(b'a' as i8)),
            _mm512_set1_epi8(5),
        );
        !(digit | letter)
    }
}

crate::simd::entry::backend! {
    kernel: Avx512,
    features: ["avx512f", "avx512bw", "avx512vbmi", "avx512vbmi2", "bmi2", "popcnt", "avx2", "ssse3"],
    short: 0,
    narrow: [avx2, ssse3],
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `pdep` one bit at a time.
    fn deposit(mut x: u64, mut mask: u64) -> u64 {
        let mut out = 0;
        while mask != 0 {
            let bit = mask & mask.wrapping_neg();
            if x & 1 != 0 {
                out |= bit;
            }
            x >>= 1;
            mask &= mask - 1;
        }
        out
    }

    /// The 64-bit `pdep` (two 32-bit ones on 32-bit x86) against the definition, on the
    /// masks the encoder uses and on random ones.
    #[test]
    fn pdep64_deposits_the_low_bits_in_order() {
        if !std::arch::is_x86_feature_detected!("bmi2") {
            // Nothing calls it then: the backend needs BMI2.
            assert!(!super::is_available());
            return;
        }
        let mut masks: Vec<u64> = LAYOUT.part_slots.iter().flatten().copied().collect();
        masks.extend([0, u64::MAX, 0xFFFF_FFFF, 0xFFFF_FFFF_0000_0000, 1 << 31, 1 << 32]);
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..1000 {
            masks.push(next());
        }
        for &mask in &masks {
            for x in [0, u64::MAX, 0x5555_5555_5555_5555, next(), next()] {
                // SAFETY: BMI2 was detected.
                assert_eq!(unsafe { pdep64(x, mask) }, deposit(x, mask), "x {x:#x} mask {mask:#x}");
            }
        }
    }
}
