//! The parallel paths of [`Decoder`] (`par_decode_vec`, and large pieces of a
//! `StreamDecoder`): chunks cut outside escapes, decoded as bytes on the rayon pool into their
//! slots (`crate::par`), the UTF-8 step checked in parallel after.

use alloc::vec::Vec;

use rayon::prelude::*;

use std::io::{self, Write};

use crate::kernel_io::Step;
use crate::par::{
    Buffers, Slot, at_char_boundary, borders, fill_spare, outside_escape, window, windows, write_all,
};
use crate::{decode::Decoder, decode::Utf8Mode, error::DecodeError, simd};

/// The set of `%` alone.
const PERCENT: crate::set::Set = crate::set::Set::EMPTY.with_iri(true).add(b'%');

/// Whether `decoder`'s rules decode chunks on their own: `%u` escapes (whose surrogate
/// halves pair across escapes) and kept escapes (whose output length the count does not
/// give) decode serially.
pub(crate) fn splits(decoder: &Decoder) -> bool {
    let rules = decoder.rules();
    !rules.legacy_u && rules.keep == 0 && !rules.keep_high
}

/// Decodes `input` into `out` (appended) in parallel chunks of about `chunk` bytes, with
/// exactly the result of [`Decoder::decode_vec`]. `splits(decoder)` must hold.
///
/// Chunks decode as bytes; the UTF-8 step then checks the whole output in parallel. Input
/// that fails (an error, or invalid UTF-8 in the lossy mode) is decoded again serially,
/// which gives the exact error or replacement: the parallel pass is for the common case.
pub(crate) fn decode_vec(
    decoder: &Decoder,
    input: &[u8],
    out: &mut Vec<u8>,
    chunk: usize,
) -> Result<(), DecodeError> {
    let start = out.len();
    if let Ok(step) = decode_bytes(decoder, input, out, chunk, true)
        && step.read == input.len()
    {
        let utf8_ok = match decoder.utf8_value() {
            Utf8Mode::Bytes => true,
            Utf8Mode::Strict | Utf8Mode::Lossy => utf8_valid(&out[start..], chunk),
        };
        if utf8_ok {
            return Ok(());
        }
    }
    out.truncate(start);
    decoder.decode_vec(input, out)
}

/// Decodes `input` as bytes (whatever the UTF-8 mode), appending to `out`: exactly the
/// serial `Decoder::bytes`, including, when not `last`, the `%` at the end left unread for
/// the next input to complete. On an error, `out` holds at least the bytes decoded before
/// it, as after [`Decoder::append_bytes`].
pub(crate) fn decode_bytes(
    decoder: &Decoder,
    input: &[u8],
    out: &mut Vec<u8>,
    chunk: usize,
    last: bool,
) -> Result<Step, DecodeError> {
    let start = out.len();
    let (cut, _, pieces) = decode_pieces(input, chunk, last);
    let engine = decoder.engine_value();
    // Strict: every `%` must start an escape (if one does not, the input fails, and decodes
    // again serially), so counting `%` is enough, and cheaper than checking digits.
    let lenient = decoder.is_lenient();
    let count = |p: &&[u8]| {
        let escapes = if lenient {
            simd::count_valid_escapes(engine, p)
        } else {
            simd::count_escapes(engine, p, &PERCENT)
        };
        // (Saturating: `%%%` counts three escapes that cannot all be; it fails to decode.)
        p.len().saturating_sub(2 * escapes)
    };
    // A window of chunks at a time, counted then decoded, so that the decoding reads input
    // the count has just brought into the cache. The output is allocated once: as bytes it is
    // never longer than the input.
    out.reserve(cut);
    let mut written = 0;
    let mut filled = true;
    for batch in pieces.chunks(window(chunk)) {
        let lens: Vec<usize> = batch.par_iter().map(count).collect();
        let total: usize = lens.iter().sum();
        let spare = &mut out.spare_capacity_mut()[written..written + total];
        filled = fill_spare(spare, &lens, |i, slot| {
            let piece = batch[i];
            matches!(decoder.bytes_into(piece, slot, true), Ok(s) if s.read == piece.len() && s.written == slot.len())
        });
        if !filled {
            break;
        }
        written += total;
    }
    if filled {
        // SAFETY: the windows initialized `out[start..start + written]`, within the capacity
        // reserved above (each chunk's length counts at most its input's).
        unsafe { out.set_len(start + written) };
    }
    // The end held back from the chunks; or, after a malformed `%` or a rejected byte, all of
    // it: the serial decoder names the first error.
    let from = if filled { cut } else { 0 };
    let step = decoder.append_bytes(&input[from..], out, last).map_err(|e| e.shifted(from))?;
    Ok(Step { read: from + step.read, written: out.len() - start })
}

/// The chunks of a parallel decode of `input`: where they end (see [`body_end`]), their
/// borders, and the chunks.
fn decode_pieces(input: &[u8], chunk: usize, last: bool) -> (usize, Vec<usize>, Vec<&[u8]>) {
    let cut = body_end(input, last);
    let body = &input[..cut];
    let cuts = borders(body, chunk, |at| outside_escape(body, at));
    let pieces = cuts.windows(2).map(|w| &body[w[0]..w[1]]).collect();
    (cut, cuts, pieces)
}

/// Whether `bytes` is valid UTF-8, checked in parallel pieces that start at character
/// boundaries.
fn utf8_valid(bytes: &[u8], chunk: usize) -> bool {
    // A border moves past at most three continuation bytes: a fourth one in a row is
    // invalid UTF-8 wherever the border falls, and the piece starting at it says so.
    let cuts = borders(bytes, chunk, |at| {
        at_char_boundary(bytes, at)
            || (at >= 3 && bytes[at - 3..at].iter().all(|&b| matches!(b, 0x80..=0xBF)))
    });
    cuts.par_windows(2).all(|w| crate::decode::utf8::is_valid(&bytes[w[0]..w[1]]))
}

/// Why [`decode_to`] stopped.
#[derive(Debug)]
pub(crate) enum Stop {
    Decode(DecodeError),
    Io(io::Error),
}

/// Decodes `input` as bytes (whatever the UTF-8 mode) and writes the output to `out`, in
/// parallel chunks of about `chunk` bytes, a window at a time; as the serial decoder with
/// `last`, except that on an error the output of the chunks before the failing one has been
/// written. Returns how much of `input` was read (when not `last`, a `%` at the end that the
/// next input may complete is left). `splits(decoder)` must hold.
pub(crate) fn decode_to<W: Write + Send>(
    decoder: &Decoder,
    input: &[u8],
    out: &mut W,
    buffers: &mut Buffers,
    chunk: usize,
    last: bool,
) -> Result<usize, Stop> {
    let (cut, cuts, pieces) = decode_pieces(input, chunk, last);
    let work = |piece: &[u8], slot: &mut Slot| -> Result<(), DecodeError> {
        // As bytes, the decoding is never longer than the input.
        if slot.buf.len() < piece.len() {
            slot.buf.resize(piece.len(), 0);
        }
        slot.len = decoder.bytes_into(piece, &mut slot.buf, true)?.written;
        Ok(())
    };
    match windows(&pieces, out, buffers, chunk, work) {
        Ok(()) => {}
        Err((_, Err(e))) => return Err(Stop::Io(e)),
        Err((at, Ok(e))) => return Err(Stop::Decode(e.shifted(cuts[at]))),
    }
    // The end held back from the chunks, decoded serially.
    let mut tail = Vec::new();
    let step =
        decoder.append_bytes(&input[cut..], &mut tail, last).map_err(|e| Stop::Decode(e.shifted(cut)))?;
    write_all(out, &tail).map_err(Stop::Io)?;
    Ok(cut + step.read)
}

/// Where the chunks of a decode end: the end of the input when `last`; otherwise before the
/// last two bytes, moved back out of any escape, leaving the serial decoder what the next
/// input may complete.
fn body_end(input: &[u8], last: bool) -> usize {
    let mut cut = input.len();
    if !last {
        cut = cut.saturating_sub(2);
        while cut > 0 && !outside_escape(input, cut) {
            cut -= 1;
        }
    }
    cut
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::Reject;
    use crate::par::samples::{chunks, inputs};

    #[test]
    fn decode_matches_serial_at_every_chunk_size() {
        let base = [
            Decoder::new(),
            Decoder::new().lenient(true),
            Decoder::FORM,
            Decoder::URI_COMPONENT,
            Decoder::URI_COMPONENT.lenient(true),
            Decoder::new().utf8(Utf8Mode::Lossy),
            Decoder::new().lenient(true).reject(Reject::ALL),
        ];
        for input in inputs() {
            for decoder in &base {
                assert!(splits(decoder));
                let mut want = b"head".to_vec();
                let want_result = decoder.decode_vec(&input, &mut want);
                for chunk in chunks() {
                    let mut got = b"head".to_vec();
                    let result = decode_vec(decoder, &input, &mut got, chunk);
                    assert_eq!(result, want_result, "{decoder:?} chunk {chunk} input {input:?}");
                    assert_eq!(got, want, "{decoder:?} chunk {chunk} input {input:?}");
                }
                // Not the end of the input: the same held-back `%` as the serial decoder.
                let mut serial = b"head".to_vec();
                let serial_step = decoder.append_bytes(&input, &mut serial, false);
                for chunk in [3, 1, 8].into_iter().take(if cfg!(miri) { 1 } else { 3 }) {
                    let mut got = b"head".to_vec();
                    let step = decode_bytes(decoder, &input, &mut got, chunk, false);
                    assert_eq!(step, serial_step, "{decoder:?} chunk {chunk} input {input:?}");
                    // (After an error, both hold the bytes decoded before it and then bytes
                    // that mean nothing.)
                    if step.is_ok() {
                        assert_eq!(got, serial, "{decoder:?} chunk {chunk} input {input:?}");
                    }
                    assert_eq!(got[..4], *b"head");
                }
            }
        }
        assert!(!splits(&Decoder::URI));
        assert!(!splits(&Decoder::new().legacy_u(true)));
    }

    #[test]
    fn valid_escapes_counted_alike_on_every_backend() {
        let mut long = Vec::new();
        for input in inputs() {
            long.extend_from_slice(&input);
        }
        let mut ran = Vec::new();
        for backend in crate::simd::engine::Backend::ALL {
            let Some(engine) = crate::simd::engine::Engine::new(backend) else { continue };
            ran.push(backend.name());
            for input in inputs().iter().chain([&long]) {
                for from in (0..input.len().min(70)).step_by(if cfg!(miri) { 13 } else { 1 }) {
                    let piece = &input[from..];
                    let want = crate::scalar::decode::count_valid_escapes(piece, 0);
                    assert_eq!(simd::count_valid_escapes(engine, piece), want, "{backend:?} {piece:?}");
                }
            }
        }
        std::println!("count_valid_escapes ran on: {}", ran.join(", "));
        assert!(ran.contains(&crate::simd::engine::Engine::detect().backend().name()));
    }

    #[test]
    fn utf8_check_in_pieces() {
        for input in inputs() {
            for chunk in 1..=9 {
                assert_eq!(utf8_valid(&input, chunk), core::str::from_utf8(&input).is_ok(), "{input:?}");
            }
        }
    }
}
