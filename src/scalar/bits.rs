//! A set as a 256-bit bitmap: one shift and a mask per byte, for the scalar loops.

use crate::set::Set;

/// The set as a 256-bit bitmap, for a branch-free per-byte test.
#[derive(Clone, Copy)]
pub(crate) struct Bits([u64; 4]);

impl Bits {
    #[inline]
    pub(crate) fn new(set: &Set) -> Bits {
        let ascii = set.ascii_bits();
        let high = if set.contains(0x80) { u64::MAX } else { 0 };
        Bits([ascii as u64, (ascii >> 64) as u64, high, high])
    }

    #[inline]
    pub(crate) fn escaped(self, b: u8) -> bool {
        (self.0[usize::from(b >> 6)] >> (b & 63)) & 1 != 0
    }
}
