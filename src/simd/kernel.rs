//! What an instruction set supplies: the per-block operations of [`Kernel`] (encoding) and
//! [`DecodeKernel`] (decoding and validation), written once per file under `x86/` and
//! `aarch64/`, and the build-time check of their constants ([`Fits`]). The algorithms over
//! them are in `generic/`.

use core::mem::MaybeUninit;

use crate::set::Set;

/// The per-block operations of one instruction set.
///
/// Its methods call intrinsics of the instruction set: the caller of every method must know
/// that the CPU supports it (the backend's `Engine` is the proof).
///
/// # Safety
///
/// The algorithms over a kernel size their buffers and bound their pointers by its
/// constants, so an implementation must keep to them:
/// - `BYTES` is between 2 and 64, `SLACK` at most 64 and `RUN` at least 1 (checked when an algorithm is
///   compiled for the kernel, by `cargo build` though not `cargo check`: [`Fits`]);
/// - `classify` reads only the `BYTES` bytes at `src`;
/// - `emit` reads only the `BYTES` bytes at `src`, writes only within the returned length
///   plus `SLACK` bytes at `dst`, and returns at most `3 * BYTES`.
/// - with `EXACT`, `classify_partial` reads only the `n` bytes at `src`, and `emit_exact`
///   reads only those and writes only within the returned length at `dst`.
pub(crate) unsafe trait Kernel {
    /// Input bytes per block (2 to 64: the masks are `u64`, and the decoder and validator
    /// look two bytes past a `%`).
    const BYTES: usize;
    /// How many bytes past its output a block's stores may write (at most 64).
    const SLACK: usize;
    /// Blocks classified per step over a run that needs no escaping: enough to keep the
    /// vector units busy, about 128 bytes (64 on SSE2, whose classification of a block
    /// costs a dozen ranges).
    const RUN: usize;
    /// The set's constants, kept in registers across blocks.
    type Prepared: Copy;

    /// # Safety
    /// The CPU supports the kernel's instruction set.
    unsafe fn prepare(set: &Set, digits: &[u8; 16]) -> Self::Prepared;

    /// The block's masks, bit `i` for byte `i`: bytes written as `%HH`, and spaces written as
    /// `+`.
    ///
    /// # Safety
    /// As for `prepare`, and `src` is valid for reading [`BYTES`](Kernel::BYTES) bytes.
    unsafe fn classify(p: &Self::Prepared, src: *const u8) -> (u64, u64);

    /// Writes the encoding of the block at `src`, whose masks are `escaped` and `plus`, to
    /// `dst` and returns its length.
    ///
    /// # Safety
    /// As for `classify`, and `dst` is valid for writing the output plus
    /// [`SLACK`](Kernel::SLACK) bytes.
    unsafe fn emit(p: &Self::Prepared, src: *const u8, escaped: u64, plus: u64, dst: *mut u8) -> usize;

    /// Whether the kernel can classify and encode a partial block in place
    /// ([`classify_partial`](Kernel::classify_partial), [`emit_exact`](Kernel::emit_exact)),
    /// reading only the input's bytes and writing only the output's (masked loads and
    /// stores). The encoder then needs no scratch copy near the end of its output and no
    /// overlapping last block, and inputs shorter than a block stay with this kernel.
    const EXACT: bool = false;

    /// [`classify`](Kernel::classify) of the first `n` bytes at `src` (`n <= BYTES`): the
    /// lanes from `n` on are clear in both masks.
    ///
    /// # Safety
    /// As for `prepare`, and `src` is valid for reading `n` bytes; only kernels with `EXACT`.
    #[inline(always)]
    unsafe fn classify_partial(p: &Self::Prepared, src: *const u8, n: usize) -> (u64, u64) {
        let _ = (p, src, n);
        unreachable!("classify_partial of a kernel without EXACT")
    }

    /// [`emit`](Kernel::emit) of the first `n` bytes at `src` (`n <= BYTES`), writing exactly
    /// the output, nothing past it. The masks are those of [`classify`](Kernel::classify) or
    /// [`classify_partial`](Kernel::classify_partial): no bit set from lane `n` on.
    ///
    /// # Safety
    /// As for `classify_partial`, and `dst` is valid for writing the output
    /// (`n + 2 * popcount(escaped)` bytes); only kernels with `EXACT`.
    #[inline(always)]
    unsafe fn emit_exact(
        p: &Self::Prepared,
        src: *const u8,
        n: usize,
        escaped: u64,
        plus: u64,
        dst: *mut u8,
    ) -> usize {
        let _ = (p, src, n, escaped, plus, dst);
        unreachable!("emit_exact of a kernel without EXACT")
    }
}

/// Room for the output of one block and its slack.
pub(crate) const SCRATCH: usize = 3 * 64 + 64;

/// The compile-time check of a kernel's constants: every algorithm over `K` evaluates
/// [`FITS`](Fits::FITS) (`let () = K::FITS;`), so a kernel whose blocks the masks or the
/// scratch buffer cannot hold does not build.
pub(crate) trait Fits: Kernel {
    const FITS: () = assert!(
        Self::BYTES >= 2
            && Self::BYTES <= 64
            && Self::SLACK <= 64
            && 3 * Self::BYTES + Self::SLACK <= SCRATCH
            && Self::RUN >= 1,
        "a kernel's BYTES must be 2 to 64, its SLACK at most 64 and its RUN at least 1"
    );
}

impl<K: Kernel> Fits for K {}

/// The decoder's per-block operations of one instruction set.
///
/// As for [`Kernel`]: the caller of every method knows that the CPU supports the kernel's
/// instruction set.
///
/// # Safety
///
/// As for [`Kernel`], the decoder and the validator bound their pointers by the kernel's
/// constants: `specials`, `non_hex` and `scan` read only the `BYTES` bytes at `src`;
/// `emit_checked` reads only `BYTES + 2` bytes at `src` and writes only within
/// `BYTES + DECODE_SLACK` bytes at `dst`; `decode_escapes` reads only `3 * ESCAPE_GROUP` bytes at
/// `src` and writes only within `ESCAPE_GROUP` bytes at `dst`; `decode_whole` reads only
/// `input` and writes only within `out`.
pub(crate) unsafe trait DecodeKernel: Kernel {
    /// How much output the scalar decoder writes when a block is handed to it, before the
    /// vector loop resumes (a kernel that hands over dense blocks wants more).
    const HANDOVER: usize = Self::BYTES;

    /// Whether the decoder's last partial block runs through this kernel over a zero-padded
    /// copy (the generic decoder's `padded_tail`) rather than byte by byte: off for a kernel
    /// that leaves dense blocks to the scalar decoder anyway.
    const PADDED_TAIL: bool = true;

    /// How many bytes past a block's `BYTES` `emit_checked` may write: the encoder's
    /// [`SLACK`](Kernel::SLACK) unless the kernel's decoding stores reach less far (at most
    /// 64, as `SLACK`).
    const DECODE_SLACK: usize = Self::SLACK;

    /// How many escapes [`decode_escapes`](DecodeKernel::decode_escapes) decodes at once,
    /// for the runs of escapes that text in other scripts becomes; 0 for a kernel without
    /// that path, whose decoder then never looks for such runs.
    const ESCAPE_GROUP: usize = 0;

    /// Decodes the `ESCAPE_GROUP` escapes `%HH%HH...` at `src` into `ESCAPE_GROUP` bytes at
    /// `dst`, if the `3 * ESCAPE_GROUP` bytes there are that many valid escapes, and returns
    /// whether they were; otherwise `dst` is written or not.
    ///
    /// # Safety
    /// As for `specials`; `src` is valid for reading `3 * ESCAPE_GROUP` bytes and `dst` for
    /// writing `ESCAPE_GROUP` bytes.
    #[inline(always)]
    unsafe fn decode_escapes(src: *const u8, dst: *mut u8) -> bool {
        let _ = (src, dst);
        false
    }

    /// The longest input [`decode_whole`](DecodeKernel::decode_whole) takes: 0 for a kernel
    /// without that path.
    const WHOLE: usize = 0;

    /// Decodes all of `input` (at most `WHOLE` bytes, with no escape rejected) into `out` in
    /// one step, without copying it anywhere first: the number of bytes written, if every
    /// `%` starts a valid escape and the output fits. Otherwise `None`, with `out` written or
    /// not, and the block decoder does it (and names the error). A kernel that can load and
    /// store a partial block without touching memory past it (masked loads and stores) has
    /// this path for the short values a proxy decodes, whose cost is otherwise the calls and
    /// copies around one block.
    ///
    /// # Safety
    /// The CPU supports the instruction set. Reads only `input`, writes only within `out`.
    #[inline(always)]
    unsafe fn decode_whole(input: &[u8], out: &mut [MaybeUninit<u8>], plus: bool) -> Option<usize> {
        let _ = (input, out, plus);
        None
    }

    /// The lanes of the block at `src` that hold `%`, and those that hold `+` (0 unless
    /// `plus`).
    ///
    /// # Safety
    /// The CPU supports the instruction set; `src` is valid for reading `BYTES` bytes.
    unsafe fn specials(src: *const u8, plus: bool) -> (u64, u64);

    /// The lanes of the block at `src` that are not hex digits.
    ///
    /// # Safety
    /// As for `specials`.
    unsafe fn non_hex(src: *const u8) -> u64;

    /// Decodes the block at `src` if every `%` lane (`pct`) starts a valid escape, and
    /// returns `true`: each `%` lane becomes the byte `src[i + 1..i + 3]` stands for, each
    /// `+` a space when `plus`, and the lanes in `keep` are written to `dst` in order.
    /// Otherwise returns `false`, with `dst` written or not.
    ///
    /// # Safety
    /// As for `specials`; `src` is valid for reading `BYTES + 2` bytes and `dst` for writing
    /// `BYTES + DECODE_SLACK` bytes.
    unsafe fn emit_checked(src: *const u8, pct: u64, plus: bool, keep: u64, dst: *mut u8) -> bool;

    /// The three masks validation needs for the block at `src`: the lanes in the set `p` was
    /// prepared for (as [`Kernel::classify`]), the `%` lanes, and the non-hex lanes. Kernels
    /// that can get all three from one lookup override it.
    ///
    /// # Safety
    /// As for `specials`.
    #[inline(always)]
    unsafe fn scan(p: &Self::Prepared, src: *const u8) -> (u64, u64, u64) {
        // SAFETY: as the caller guarantees.
        unsafe { (Self::classify(p, src).0, Self::specials(src, false).0, Self::non_hex(src)) }
    }
}
