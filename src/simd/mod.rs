//! The vectorized kernels and the dispatch to them. [`kernel`] says what an instruction set
//! supplies (the block operations), [`generic`] holds the algorithms written once over it,
//! each instruction set has a small file under `x86/` or `aarch64/` whose one
//! [`entry::backend!`] call compiles the algorithms for it, and [`engine`] holds `Backend`
//! and `Engine`, the proof that a backend's code may run.

pub(crate) mod engine;
#[cfg(any(target_arch = "x86", target_arch = "x86_64", target_arch = "aarch64"))]
pub(crate) mod entry;
#[cfg(any(target_arch = "x86", target_arch = "x86_64", target_arch = "aarch64"))]
pub(crate) mod generic;
#[cfg(any(target_arch = "x86", target_arch = "x86_64", target_arch = "aarch64"))]
pub(crate) mod kernel;
#[cfg(any(target_arch = "x86", target_arch = "x86_64", target_arch = "aarch64"))]
pub(crate) mod tables;

#[cfg(target_arch = "aarch64")]
mod aarch64 {
    pub(crate) mod neon;
}
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
mod x86 {
    pub(crate) mod avx2;
    pub(crate) mod avx512;
    pub(crate) mod sse2;
    pub(crate) mod ssse3;
}

use crate::kernel_io::{Partial, Rules, Step};
use crate::scalar::decode as scalar_decode;
use crate::scalar::encode as scalar;
use crate::{error::DecodeError, set::Set};
use core::mem::MaybeUninit;
#[cfg(any(target_arch = "x86", target_arch = "x86_64", target_arch = "aarch64"))]
use engine::Backend;
use engine::Engine;

/// Calls `$func` of the kernel module for `$engine`'s backend, or `$fallback` for scalar.
macro_rules! dispatch {
    ($engine:expr, $func:ident($($arg:expr),*), $fallback:expr) => {
        match $engine.backend() {
            // SAFETY: an `Engine` exists only for a backend the CPU supports.
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Backend::Sse2 => unsafe { x86::sse2::$func($($arg),*) },
            // SAFETY: as above.
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Backend::Ssse3 => unsafe { x86::ssse3::$func($($arg),*) },
            // SAFETY: as above.
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Backend::Avx2 => unsafe { x86::avx2::$func($($arg),*) },
            // SAFETY: as above.
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Backend::Avx512 => unsafe { x86::avx512::$func($($arg),*) },
            // SAFETY: as above.
            #[cfg(target_arch = "aarch64")]
            Backend::Neon => unsafe { aarch64::neon::$func($($arg),*) },
            _ => $fallback,
        }
    };
}

/// How many bytes of `input` are written as `%HH`, on `engine`'s backend.
#[inline]
pub(crate) fn count_escapes(engine: Engine, input: &[u8], set: &Set) -> usize {
    dispatch!(engine, count_escapes(input, set), scalar::count_escapes(input, set))
}

/// The offset of the first byte that encoding changes (escaped, or a space written as `+`),
/// or `input.len()`, on `engine`'s backend.
#[cfg_attr(not(feature = "alloc"), allow(dead_code))]
#[inline]
pub(crate) fn first_change(engine: Engine, input: &[u8], set: &Set) -> usize {
    dispatch!(engine, first_change(input, set), scalar::first_change(input, set))
}

/// For each of `cuts` (ascending, the first at least `base`), how many bytes of
/// `input[base..cut]` are written as `%HH`, into `counts`, on `engine`'s backend.
#[cfg_attr(not(feature = "alloc"), allow(dead_code))]
#[inline]
pub(crate) fn count_escapes_before(
    engine: Engine,
    input: &[u8],
    set: &Set,
    base: usize,
    cuts: &[usize],
    counts: &mut [usize],
) {
    // What the counts mean (reads stay within `input` whatever the cuts).
    assert!(cuts.first().is_none_or(|&first| base <= first), "a cut before the base");
    dispatch!(
        engine,
        count_escapes_before(input, set, base, cuts, counts),
        scalar::count_escapes_before(input, set, base, cuts, counts)
    )
}

/// Encodes `input` into `out` on `engine`'s backend and returns the output's length, or
/// when `out` is too small how far it got. Never writes past `out`, and never reads it:
/// `out` may be spare capacity.
#[inline]
pub(crate) fn encode(
    engine: Engine,
    input: &[u8],
    set: &Set,
    digits: &[u8; 16],
    out: &mut [MaybeUninit<u8>],
) -> Result<usize, Partial> {
    dispatch!(
        engine,
        encode(input, set, digits, out),
        Partial::of(scalar::encode(input, set, digits, out), input.len())
    )
    .result(input.len())
}

/// How far whole blocks prove `input` a valid encoding for `set`, on `engine`'s backend: a
/// token boundary from which the scalar validator goes on (0 for scalar, which does it all).
#[inline]
pub(crate) fn valid_prefix(engine: Engine, input: &[u8], set: &Set) -> usize {
    dispatch!(engine, valid_prefix(input, set), {
        let _ = (input, set);
        0
    })
}

/// How many `%` in `input` start a valid escape, on `engine`'s backend.
#[cfg_attr(not(feature = "rayon"), allow(dead_code))]
#[inline]
pub(crate) fn count_valid_escapes(engine: Engine, input: &[u8]) -> usize {
    dispatch!(engine, count_valid_escapes(input), scalar_decode::count_valid_escapes(input, 0))
}

/// Decodes `input` into `out` on `engine`'s backend: exactly [`scalar_decode::decode`]'s
/// result, step and error.
#[inline]
pub(crate) fn decode(
    engine: Engine,
    input: &[u8],
    out: &mut [MaybeUninit<u8>],
    rules: Rules,
    last: bool,
) -> Result<Step, DecodeError> {
    dispatch!(engine, decode(input, out, rules, last), scalar_decode::decode(input, out, rules, last))
}
