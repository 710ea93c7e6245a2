//! The scalar encoder: the reference every other backend must match byte for byte.
//!
//! It treats the set as a per-byte predicate; bytes `0x80..=0xFF` of an IRI set are kept
//! here, and the caller ([`super::segments`]) escapes the ones that are not valid UTF-8.

use crate::Set;

/// How many bytes of `input` are written as a three-byte `%HH` (a space written as `+` is not
/// counted: it stays one byte).
pub(crate) fn count_escapes(input: &[u8], set: &Set) -> usize {
    let plus = set.space_as_plus();
    input.iter().filter(|&&b| set.contains(b) && !(plus && b == b' ')).count()
}

/// Encodes `input` into the start of `out` and returns how many bytes it wrote.
///
/// `out` must hold the whole output (`input.len() + 2 * count_escapes(input, set)` bytes);
/// a shorter `out` is a bug in the caller and panics on the slice bounds check.
pub(crate) fn encode(input: &[u8], set: &Set, digits: &[u8; 16], out: &mut [u8]) -> usize {
    let plus = set.space_as_plus();
    let mut written = 0;
    let mut rest = input;
    while !rest.is_empty() {
        // Copy the run of bytes that the set keeps in one go.
        let run = rest.iter().position(|&b| set.contains(b)).unwrap_or(rest.len());
        out[written..written + run].copy_from_slice(&rest[..run]);
        written += run;
        let Some(&b) = rest.get(run) else { break };
        if plus && b == b' ' {
            out[written] = b'+';
            written += 1;
        } else {
            out[written..written + 3].copy_from_slice(&[
                b'%',
                digits[usize::from(b >> 4)],
                digits[usize::from(b & 15)],
            ]);
            written += 3;
        }
        rest = &rest[run + 1..];
    }
    written
}
