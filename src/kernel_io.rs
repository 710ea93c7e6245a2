//! What every layer of kernels takes and gives back: the decoding [`Rules`], how far a call
//! got ([`Partial`] for an encoder, [`Step`] for a decoder), and the output memory, written
//! through [`put`] and taken as [`as_uninit`]. The scalar reference kernels
//! (`crate::scalar`), the vector kernels (`crate::simd`) and the API modules above them all
//! speak these, so they sit below all three and use nothing of the crate.

use core::mem::MaybeUninit;

/// How far an encoding got before its output ran out: the first `read` input bytes are
/// encoded as the first `written` output bytes, and encoding `input[read..]` into the rest
/// (in one call or more) gives the same bytes as one call with room. Encoding is byte by
/// byte, so the cut may fall anywhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Partial {
    pub(crate) read: usize,
    pub(crate) written: usize,
}

impl Partial {
    /// An encoder's result as how far it got: all `len` bytes of its input when it finished
    /// (a `Partial` from an encoder always has `read < len`).
    #[inline]
    pub(crate) fn of(result: Result<usize, Partial>, len: usize) -> Partial {
        match result {
            Ok(written) => Partial { read: len, written },
            Err(partial) => partial,
        }
    }

    /// Back to a result: the length written, or how far it got.
    #[inline]
    pub(crate) fn result(self, len: usize) -> Result<usize, Partial> {
        if self.read == len { Ok(self.written) } else { Err(self) }
    }
}

/// How far one call to a decoder got (`crate::scalar::decode::decode`, or a vector decoder,
/// which gives the same).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Step {
    /// Input bytes consumed.
    pub read: usize,
    /// Output bytes written.
    pub written: usize,
}

/// The decoding rules: the malformed-`%` and `+` switches, and the options that act on
/// escapes (kept escapes, `%uHHHH`, rejected bytes). With none of the latter on, the rules
/// are *basic* ([`Rules::is_basic`]) and the scalar decoder takes its fast path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Rules {
    pub lenient: bool,
    pub plus: bool,
    /// `%uHHHH` escapes are decoded.
    pub legacy_u: bool,
    /// Bit `b`: an escape that decodes to ASCII byte `b` is copied as written.
    pub keep: u128,
    /// An escape that decodes to bytes `0x80..=0xFF` is copied as written.
    pub keep_high: bool,
    /// Bit `b`: an escape that decodes to ASCII byte `b` is an error.
    pub reject: u128,
}

impl Rules {
    /// The rules with only the malformed-`%` and `+` switches.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) const fn basic(lenient: bool, plus: bool) -> Rules {
        Rules { lenient, plus, legacy_u: false, keep: 0, keep_high: false, reject: 0 }
    }

    /// Whether no option beyond the malformed-`%` and `+` switches is on: every escape is
    /// `%HH` and decodes to its byte.
    #[inline]
    pub(crate) const fn is_basic(&self) -> bool {
        self.reject == 0 && self.vectorizable()
    }

    /// Whether every escape is `%HH` decoded to its byte or rejected (no `%u`, nothing kept):
    /// the rules the vector decoders handle.
    #[inline]
    pub(crate) const fn vectorizable(&self) -> bool {
        !self.legacy_u && self.keep == 0 && !self.keep_high
    }
}

/// Writes `src` to the start of `dst`, which must be at least as long (it panics if not).
/// The output of every encoder is written through this or a raw pointer: it may be spare
/// capacity, never read before it is written.
#[inline]
pub(crate) fn put(dst: &mut [MaybeUninit<u8>], src: &[u8]) {
    let dst = &mut dst[..src.len()];
    // SAFETY: `dst` has `src.len()` bytes, and a shared slice cannot overlap a mutable one;
    // the bytes written are initialised.
    unsafe { core::ptr::copy_nonoverlapping(src.as_ptr(), dst.as_mut_ptr().cast::<u8>(), src.len()) }
}

/// `out` as memory to write into: what the encoders and decoders take, so that they can
/// also write into a vector's spare capacity.
///
/// # Safety
/// Nothing uninitialised may be written through the result (the kernels write only bytes).
#[inline]
pub(crate) unsafe fn as_uninit(out: &mut [u8]) -> &mut [MaybeUninit<u8>] {
    // SAFETY: `MaybeUninit<u8>` has the layout of `u8`; the caller keeps the bytes initialised.
    unsafe { &mut *(core::ptr::from_mut::<[u8]>(out) as *mut [MaybeUninit<u8>]) }
}
