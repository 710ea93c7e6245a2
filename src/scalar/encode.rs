//! The scalar encoder: the reference every other backend must match byte for byte.
//!
//! It treats the set as a per-byte predicate; bytes `0x80..=0xFF` of an IRI set are kept
//! here, and the caller (`crate::encode::try_segments`) escapes the ones that are not valid UTF-8.

use core::mem::MaybeUninit;

use crate::kernel_io::{Partial, put};
use crate::scalar::bits::Bits;
use crate::set::Set;

/// How many bytes of `input` are written as a three-byte `%HH` (a space written as `+` is not
/// counted: it stays one byte).
pub(crate) fn count_escapes(input: &[u8], set: &Set) -> usize {
    let bits = Bits::new(set);
    let escaped = input.iter().filter(|&&b| bits.escaped(b)).count();
    if set.space_as_plus() { escaped - input.iter().filter(|&&b| b == b' ').count() } else { escaped }
}

/// The offset of the first byte that encoding changes (written as `%HH`, or a space written
/// as `+`: the set escapes spaces whenever it writes them as `+`), or `input.len()`.
#[cfg_attr(not(feature = "alloc"), allow(dead_code))]
pub(crate) fn first_change(input: &[u8], set: &Set) -> usize {
    let bits = Bits::new(set);
    input.iter().position(|&b| bits.escaped(b)).unwrap_or(input.len())
}

/// For each of `cuts` (ascending offsets into `input`, the first at least `base`), how many
/// bytes of `input[base..cut]` are written as `%HH`, into `counts` (as long as `cuts`).
pub(crate) fn count_escapes_before(
    input: &[u8],
    set: &Set,
    base: usize,
    cuts: &[usize],
    counts: &mut [usize],
) {
    let (mut running, mut at) = (0, base);
    for (&cut, count) in cuts.iter().zip(counts) {
        running += count_escapes(&input[at..cut], set);
        at = cut;
        *count = running;
    }
}

/// Encodes `input` into the start of `out` and returns how many bytes it wrote, or, when
/// `out` is too small, how far it got ([`Partial`]; nothing is written past `out`).
pub(crate) fn encode(
    input: &[u8],
    set: &Set,
    digits: &[u8; 16],
    out: &mut [MaybeUninit<u8>],
) -> Result<usize, Partial> {
    let plus = set.space_as_plus();
    let bits = Bits::new(set);
    let (mut read, mut written) = (0, 0);
    while read < input.len() {
        let rest = &input[read..];
        // Copy the run of bytes that the set keeps in one go, as much of it as fits.
        let run = rest.iter().position(|&b| bits.escaped(b)).unwrap_or(rest.len());
        let fits = run.min(out.len() - written);
        put(&mut out[written..], &rest[..fits]);
        (read, written) = (read + fits, written + fits);
        if fits < run {
            return Err(Partial { read, written });
        }
        let Some(&b) = rest.get(run) else { break };
        let escape = [b'%', digits[usize::from(b >> 4)], digits[usize::from(b & 15)]];
        let bytes: &[u8] = if plus && b == b' ' { b"+" } else { &escape };
        if out.len() - written < bytes.len() {
            return Err(Partial { read, written });
        }
        put(&mut out[written..], bytes);
        (read, written) = (read + 1, written + bytes.len());
    }
    Ok(written)
}
