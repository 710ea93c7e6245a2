//! The scalar encoder: the reference every other backend must match byte for byte.
//!
//! It treats the set as a per-byte predicate; bytes `0x80..=0xFF` of an IRI set are kept
//! here, and the caller (`crate::encode::try_segments`) escapes the ones that are not valid UTF-8.

use crate::Set;
use crate::scalar::bits::Bits;

/// How many bytes of `input` are written as a three-byte `%HH` (a space written as `+` is not
/// counted: it stays one byte).
pub(crate) fn count_escapes(input: &[u8], set: &Set) -> usize {
    let bits = Bits::new(set);
    let escaped = input.iter().filter(|&&b| bits.escaped(b)).count();
    if set.space_as_plus() { escaped - input.iter().filter(|&&b| b == b' ').count() } else { escaped }
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

/// Encodes `input` into the start of `out` and returns how many bytes it wrote, or `None`
/// when `out` is too small (then what was written is unspecified).
pub(crate) fn encode(input: &[u8], set: &Set, digits: &[u8; 16], out: &mut [u8]) -> Option<usize> {
    let plus = set.space_as_plus();
    let bits = Bits::new(set);
    let mut written = 0;
    let mut rest = input;
    while !rest.is_empty() {
        // Copy the run of bytes that the set keeps in one go.
        let run = rest.iter().position(|&b| bits.escaped(b)).unwrap_or(rest.len());
        out.get_mut(written..written + run)?.copy_from_slice(&rest[..run]);
        written += run;
        let Some(&b) = rest.get(run) else { break };
        if plus && b == b' ' {
            *out.get_mut(written)? = b'+';
            written += 1;
        } else {
            out.get_mut(written..written + 3)?.copy_from_slice(&[
                b'%',
                digits[usize::from(b >> 4)],
                digits[usize::from(b & 15)],
            ]);
            written += 3;
        }
        rest = &rest[run + 1..];
    }
    Some(written)
}
