//! Constants the vector kernels share: the nibble tables that classify bytes for any set,
//! and the shuffle patterns that lay out `%HH` escapes. See `ALGORITHMS.md`.

use crate::set::Set;

/// The two 16-entry tables of the nibble-lookup classifier.
///
/// An ASCII byte `b = 16 * hi + lo` (`hi` in `0..8`) is escaped iff
/// `LO[lo] & HI[hi] != 0`: `LO[lo]` holds one bit per row `hi` of the ASCII table, and
/// `HI[hi]` selects the bit of row `hi`. `HI[8..16]` is zero, so bytes `0x80..=0xFF` never
/// match and are classified by their top bit instead.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Nibbles {
    pub lo: [u8; 16],
    pub hi: [u8; 16],
}

impl Nibbles {
    #[inline(always)]
    pub(crate) fn new(set: &Set) -> Nibbles {
        let mut hi = [0u8; 16];
        for (row, h) in hi.iter_mut().enumerate().take(8) {
            *h = 1 << row;
        }
        Nibbles { lo: *set.nibble_rows(), hi }
    }
}

/// `EXPAND4[m]` turns a 16-byte group source `[k0..k3, h0..h3, l0..l3, '%' x4]` (kept byte or
/// `+`, high hex digit, low hex digit of four input bytes) into their output, where bit `i`
/// of `m` says whether byte `i` is escaped. Unused lanes are `0x80`, which `pshufb` turns
/// into zero.
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub(crate) static EXPAND4: [[u8; 16]; 16] = {
    let mut t = [[0x80u8; 16]; 16];
    let mut m = 0;
    while m < 16 {
        let mut j = 0;
        let mut i = 0;
        while i < 4 {
            if m >> i & 1 != 0 {
                t[m][j] = 12; // '%'
                t[m][j + 1] = 4 + i as u8;
                t[m][j + 2] = 8 + i as u8;
                j += 3;
            } else {
                t[m][j] = i as u8;
                j += 1;
            }
            i += 1;
        }
        m += 1;
    }
    t
};

/// `EXPAND8[m]` lays out the output of an 8-byte group (8 to 24 bytes) from two 16-byte
/// sources with one row: `A = [k0..k7, h0..h7]` (kept byte or `+`, high hex digit) and
/// `B = [l0..l7, '%' x8]` (low hex digit), where bit `i` of `m` says whether byte `i` is
/// escaped. A lane below `0x80` takes `A[lane]`; one with the top bit takes
/// `B[lane & 0x0F]`. So `pshufb(A, row) | pshufb(B, row ^ 0x80)` is the output: each shuffle
/// gives zero where the other one reads. With `B = ['%' x8, l0..l7]` (the group in the high
/// half of its 16 bytes), `row ^ 0x88` reads it. Lanes past the output are `0x80` (garbage
/// from `B`, which the next store overwrites). 256 rows of 32 bytes: 8 KiB, one row per
/// 256-bit register (`vpshufb` shuffles each 128-bit lane on its own, so the sources are in
/// both lanes).
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub(crate) static EXPAND8: Rows32 = expand8(0x80, 0x88, 0x80);

/// `EXPAND8_TBL2[m]` is [`EXPAND8`]'s layout for `tbl` with two source registers
/// (`vqtbl2q_u8`), which indexes the 32 bytes of both as one: lanes `0..16` read
/// `A = [k0..k7, h0..h7]`, lanes `16..32` read `B = [l0..l7, '%' x8]`. Bytes `0..16` of the
/// row lay out output bytes `0..16` of the group, bytes `16..24` output bytes `16..24`.
/// Lanes past the output are `0xFF`, which `tbl` turns into zero. 256 rows of 32 bytes:
/// 8 KiB, one row per 32-byte line.
#[cfg(any(target_arch = "aarch64", test))]
pub(crate) static EXPAND8_TBL2: Rows32 = expand8(0xFF, 24, 16);

/// The rows of an eight-byte group's layout (see [`EXPAND8`]), in a source encoding: a kept
/// byte `i` is lane `i`, its high digit lane `8 + i` (both in `A`); `%` is lane `pct`, the low
/// digit lane `low | i` (in `B`); a lane past the output is `fill`.
#[cfg(any(target_arch = "x86", target_arch = "x86_64", target_arch = "aarch64", test))]
const fn expand8(fill: u8, pct: u8, low: u8) -> Rows32 {
    let mut t = [[fill; 32]; 256];
    let mut m = 0;
    while m < 256 {
        let mut j = 0;
        let mut i = 0;
        while i < 8 {
            if m >> i & 1 != 0 {
                t[m][j] = pct;
                t[m][j + 1] = 8 + i as u8;
                t[m][j + 2] = low | i as u8;
                j += 3;
            } else {
                t[m][j] = i as u8;
                j += 1;
            }
            i += 1;
        }
        m += 1;
    }
    Rows32(t)
}

/// Rows of 32 bytes, each on its own 32-byte line.
#[cfg(any(target_arch = "x86", target_arch = "x86_64", target_arch = "aarch64", test))]
#[repr(C, align(32))]
pub(crate) struct Rows32(pub [[u8; 32]; 256]);

/// The output length of a 4-byte group with escape mask `m` (a table: not every CPU with
/// SSSE3 has a population-count instruction).
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
#[inline(always)]
pub(crate) fn group_len(m: u64) -> usize {
    const LEN: [u8; 16] = {
        let mut t = [0u8; 16];
        let mut m = 0;
        while m < 16 {
            t[m] = 4 + 2 * (m as u32).count_ones() as u8;
            m += 1;
        }
        t
    };
    usize::from(LEN[(m & 15) as usize])
}

/// `COMPRESS8[m]`, read as 8 little-endian bytes, lists the lanes whose bit is set in `m`
/// (the lanes a decoded 8-byte group keeps), in order, padded with lane 0: a `pshufb`/`tbl`
/// pattern that packs them to the front. `KEPT8[m]` is how many there are.
pub(crate) static COMPRESS8: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut m = 0;
    while m < 256 {
        let (mut i, mut k) = (0, 0);
        while i < 8 {
            if m >> i & 1 != 0 {
                t[m] |= (i as u64) << (8 * k);
                k += 1;
            }
            i += 1;
        }
        m += 1;
    }
    t
};

/// The number of set bits of each byte (see [`COMPRESS8`]).
pub(crate) static KEPT8: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut m = 0;
    while m < 256 {
        t[m] = (m as u32).count_ones() as u8;
        m += 1;
    }
    t
};

/// Interleaving 16 high and 16 low hex digits into 48 bytes `%HH%HH...`: output vector `t`
/// takes lane `j` from `h[DENSE_H[t][j]]` or `l[DENSE_L[t][j]]` (`0x80`: neither), and
/// `DENSE_PCT[t]` supplies the `%`s.
/// (NEON has `st3` for this.)
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub(crate) static DENSE_H: [[u8; 16]; 3] = dense(1);
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub(crate) static DENSE_L: [[u8; 16]; 3] = dense(2);
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub(crate) static DENSE_PCT: [[u8; 16]; 3] = {
    let mut t = [[0u8; 16]; 3];
    let mut s = 0;
    while s < 48 {
        if s % 3 == 0 {
            t[s / 16][s % 16] = b'%';
        }
        s += 1;
    }
    t
};

#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
const fn dense(kind: usize) -> [[u8; 16]; 3] {
    let mut t = [[0x80u8; 16]; 3];
    let mut s = 0;
    while s < 48 {
        if s % 3 == kind {
            t[s / 16][s % 16] = (s / 3) as u8;
        }
        s += 1;
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nibbles_classify_like_the_set() {
        for named in crate::sets::NAMED {
            let t = Nibbles::new(&named.set);
            for b in 0..128u8 {
                let hit = t.lo[usize::from(b & 15)] & t.hi[usize::from(b >> 4)] != 0;
                assert_eq!(hit, named.set.contains(b), "{} {b:#x}", named.name);
            }
        }
    }

    #[test]
    fn compress8_packs_the_kept_lanes() {
        for m in 0..256usize {
            let lanes: Vec<u8> = (0..8).filter(|i| m >> i & 1 != 0).collect();
            let entry = COMPRESS8[m].to_le_bytes();
            assert_eq!(&entry[..lanes.len()], &lanes[..], "mask {m:08b}");
            assert!(entry[lanes.len()..].iter().all(|&i| i == 0));
            assert_eq!(usize::from(KEPT8[m]), lanes.len());
        }
    }

    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    #[test]
    fn expand8_lays_out_escapes() {
        let a: [u8; 16] = *b"abcdefghHIJKLMNO";
        let b_low: [u8; 16] = *b"pqrstuvw%%%%%%%%";
        let b_high: [u8; 16] = *b"%%%%%%%%pqrstuvw";
        // What `pshufb` does with one lane of a row.
        let lane =
            |src: &[u8; 16], index: u8| if index & 0x80 != 0 { 0 } else { src[usize::from(index & 15)] };
        for (m, row) in EXPAND8.0.iter().enumerate() {
            let len = 8 + 2 * (m as u32).count_ones() as usize;
            let want: Vec<u8> = (0..8)
                .flat_map(|i| if m >> i & 1 != 0 { vec![b'%', a[8 + i], b_low[i]] } else { vec![a[i]] })
                .collect();
            for (b, flip) in [(&b_low, 0x80), (&b_high, 0x88)] {
                let out: Vec<u8> = row[..len].iter().map(|&r| lane(&a, r) | lane(b, r ^ flip)).collect();
                assert_eq!(out, want, "mask {m:08b}, flip {flip:#x}");
            }
            assert!(row[len..].iter().all(|&i| i == 0x80));
        }
    }

    #[test]
    fn expand8_tbl2_lays_out_escapes() {
        // `A` then `B`, as `vqtbl2q_u8` reads them: lanes 0..32, anything else is zero.
        let sources: [u8; 32] = *b"abcdefghHIJKLMNOpqrstuvw%%%%%%%%";
        let lane = |index: u8| sources.get(usize::from(index)).copied().unwrap_or(0);
        for (m, row) in EXPAND8_TBL2.0.iter().enumerate() {
            let len = 8 + 2 * (m as u32).count_ones() as usize;
            let want: Vec<u8> = (0..8)
                .flat_map(|i| {
                    if m >> i & 1 != 0 {
                        vec![b'%', sources[8 + i], sources[16 + i]]
                    } else {
                        vec![sources[i]]
                    }
                })
                .collect();
            let out: Vec<u8> = row[..len].iter().map(|&r| lane(r)).collect();
            assert_eq!(out, want, "mask {m:08b}");
            assert!(row[len..].iter().all(|&i| i == 0xFF), "mask {m:08b}");
        }
    }

    /// The same output lanes as `EXPAND8`'s: `A[r]` for a lane `r` below `0x80`, and
    /// `B[r & 0x0F]`, which is lane `16 + (r & 0x0F)` of `vqtbl2q_u8`'s pair, for the others.
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    #[test]
    fn expand8_tbl2_is_expand8() {
        for (m, (tbl2, pshufb)) in EXPAND8_TBL2.0.iter().zip(&EXPAND8.0).enumerate() {
            let len = 8 + 2 * (m as u32).count_ones() as usize;
            let want: Vec<u8> =
                pshufb[..len].iter().map(|&r| if r & 0x80 != 0 { 16 + (r & 0x0F) } else { r }).collect();
            assert_eq!(&tbl2[..len], &want[..], "mask {m:08b}");
        }
    }

    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    #[test]
    fn expand4_lays_out_escapes() {
        let src: [u8; 16] = *b"abcdHHHHLLLL%%%%";
        for (m, pattern) in EXPAND4.iter().enumerate() {
            let out: Vec<u8> =
                pattern.iter().take(group_len(m as u64)).map(|&i| src[usize::from(i)]).collect();
            let want: Vec<u8> = (0..4)
                .flat_map(|i| if m >> i & 1 != 0 { vec![b'%', b'H', b'L'] } else { vec![b"abcd"[i]] })
                .collect();
            assert_eq!(out, want, "mask {m:04b}");
            assert!(pattern[group_len(m as u64)..].iter().all(|&i| i == 0x80));
        }
    }
}
