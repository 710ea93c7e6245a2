//! The validator: is this input already a correct encoding for a set? The scalar scan is the
//! reference; a vector scan may first prove a prefix valid (`crate::simd::valid_prefix`).

use crate::error::{ValidationError, ValidationErrorKind};
use crate::scalar::bits::Bits;
use crate::{hex, set::Set};

/// The scalar validator, from `from` (a token boundary) to the end: the reference.
pub(crate) fn validate_from(input: &[u8], set: &Set, from: usize) -> Result<(), ValidationError> {
    // The bytes wrong where they appear raw: the set's, but a `+` where it stands for a
    // space (`%` is looked at first).
    let reject = Bits::new(&if set.space_as_plus() { set.remove(b'+') } else { *set });
    let err = |offset: usize, kind| Err(ValidationError::new(offset, kind, input[offset]));
    let mut i = from;
    while i < input.len() {
        let b = input[i];
        if b == b'%' {
            match input.get(i + 1..i + 3) {
                Some(&[h, l]) if hex::pair(h, l).is_some() => {
                    i += 3;
                    continue;
                }
                _ => {
                    let rest = &input[i + 1..];
                    let truncated = rest.len() < 2 && rest.iter().all(|&d| hex::value(d).is_some());
                    let kind = if truncated {
                        ValidationErrorKind::TruncatedEscape
                    } else {
                        ValidationErrorKind::InvalidEscape
                    };
                    return err(i, kind);
                }
            }
        }
        if reject.escaped(b) {
            return err(i, ValidationErrorKind::Unescaped);
        }
        i += 1;
    }
    Ok(())
}

/// Validates `input` for `set`, with `prefix(input, set)` telling how far a vector scan
/// proved it valid (a token boundary, from which the scalar validator takes over).
pub(crate) fn validate(
    input: &[u8],
    set: &Set,
    prefix: impl Fn(&[u8], &Set) -> usize,
) -> Result<(), ValidationError> {
    // The per-byte check passes raw non-ASCII for IRI sets; they must also be valid UTF-8,
    // and characters such a set keeps raw (`crate::iri`).
    let utf8 = if set.is_iri() { crate::iri::first_escaped(input) } else { None };
    let bytes = validate_from(input, set, prefix(input, set));
    match (bytes, utf8) {
        (Err(e), Some(at)) if at < e.offset() => {
            Err(ValidationError::new(at, ValidationErrorKind::Unescaped, input[at]))
        }
        (Err(e), _) => Err(e),
        (Ok(()), Some(at)) => Err(ValidationError::new(at, ValidationErrorKind::Unescaped, input[at])),
        (Ok(()), None) => Ok(()),
    }
}
