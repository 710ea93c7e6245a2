//! Cases from the fuzzer's bytes, with `arbitrary::Unstructured`: every choice (set bits,
//! flags, options, split points, backend) is read from the input, so that the fuzzer can
//! steer it and a crash replays exactly.

use arbitrary::{Result, Unstructured};
use pctenc::{Decoder, Encoder, Engine, Reject, Set, Utf8Mode, sets};

use crate::checks::{IoShape, all_engines, set_from_bits};

/// True one time in `n`, on a byte; false on a zero byte (and so when the input has run
/// out), which picks the common case. (`Unstructured::ratio` is true on a zero byte.)
pub fn one_in(u: &mut Unstructured, n: u8) -> Result<bool> {
    Ok(u.arbitrary::<u8>()? % n == n - 1)
}

/// A set: a predefined one (a quarter of the time) or one from random ASCII bits, with the
/// space-as-`+` and IRI rules each on or off.
pub fn set(u: &mut Unstructured) -> Result<Set> {
    let base = if one_in(u, 4)? { u.choose(sets::NAMED)?.set } else { set_from_bits(u.arbitrary()?) };
    Ok(base.with_space_as_plus(u.arbitrary()?).with_iri(u.arbitrary()?))
}

/// An encoder: a [`set`], lowercase hex or not, re-quoting or not.
pub fn encoder(u: &mut Unstructured) -> Result<Encoder> {
    let set = set(u)?;
    Ok(Encoder::new(set).lowercase(u.arbitrary()?).keep_escapes(u.arbitrary()?))
}

/// A decoder: strict or lenient, `+` as space or not, one of the three UTF-8 modes, any
/// union of the rejected classes; `%u` escapes a quarter of the time and kept escapes
/// (random bits, `decodeURI`'s set or a predefined one) three times in eight, as both make
/// the decoder scalar-only.
pub fn decoder(u: &mut Unstructured) -> Result<Decoder> {
    let utf8 = *u.choose(&[Utf8Mode::Bytes, Utf8Mode::Strict, Utf8Mode::Lossy])?;
    let mut reject = Reject::NONE;
    for class in [Reject::NUL, Reject::CONTROLS, Reject::CR_LF, Reject::SLASHES] {
        if u.arbitrary()? {
            reject |= class;
        }
    }
    let dec = Decoder::new()
        .lenient(u.arbitrary()?)
        .plus_as_space(u.arbitrary()?)
        .utf8(utf8)
        .reject(reject)
        .legacy_u(one_in(u, 4)?);
    let keep = match u.int_in_range(0..=7u8)? {
        0..=4 => return Ok(dec),
        5 => Decoder::URI_RESERVED,
        6 => set_from_bits(u.arbitrary()?).with_iri(u.arbitrary()?),
        _ => u.choose(sets::NAMED)?.set.with_iri(u.arbitrary()?),
    };
    Ok(dec.keep_encoded(keep))
}

/// One of the backends this CPU runs, scalar included.
pub fn engine(u: &mut Unstructured) -> Result<Engine> {
    u.choose(all_engines()).copied()
}

/// How the `io` adapters' inner reader and writer behave.
pub fn io_shape(u: &mut Unstructured) -> Result<IoShape> {
    Ok(IoShape {
        write_max: u.int_in_range(1..=64)?,
        read_max: u.int_in_range(1..=64)?,
        interrupt: u.arbitrary()?,
        buf_read: u.arbitrary()?,
    })
}

/// Up to 16 raw split points, to be taken modulo the input's length plus one (see
/// [`cuts_for`]), or `None` for one-byte pieces.
pub fn raw_cuts(u: &mut Unstructured) -> Result<Option<Vec<u16>>> {
    if one_in(u, 8)? {
        return Ok(None);
    }
    let n = u.int_in_range(0..=16)?;
    (0..n).map(|_| u.arbitrary::<u16>()).collect::<Result<Vec<u16>>>().map(Some)
}

/// The split points of an input of `len` bytes: the raw ones modulo `len + 1`, or every
/// offset (one-byte pieces, for inputs of at most 1024 bytes).
pub fn cuts_for(raw: &Option<Vec<u16>>, len: usize) -> Vec<usize> {
    match raw {
        Some(raw) => raw.iter().map(|&c| usize::from(c) % (len + 1)).collect(),
        None => (1..len.min(1024)).collect(),
    }
}

/// A large input grown from two small ones: `pad` bytes of `a`, then `unit` repeated (`a`
/// when it is empty), then `tail`, at least `min_len` bytes in all. The padding moves the
/// chunk borders (every 64 KiB) to any position within `unit`; the tail puts what it holds
/// (an error, say) only at the end, in the last chunk.
pub fn grow(unit: &[u8], tail: &[u8], pad: usize, min_len: usize) -> Vec<u8> {
    let unit = if unit.is_empty() { &b"a"[..] } else { unit };
    let pad = pad % unit.len();
    let reps = min_len.saturating_sub(pad + tail.len()).div_ceil(unit.len());
    let mut big = Vec::with_capacity(pad + reps * unit.len() + tail.len());
    big.resize(pad, b'a');
    // (`repeat` doubles what it has copied: a few large copies, not one per unit.)
    big.extend_from_slice(&unit.repeat(reps));
    big.extend_from_slice(tail);
    big
}
