//! The parallel paths of [`Encoder`] (`par_encode_vec`, `par_encode_to_with`): the input cut
//! where a serial encoder is at a token boundary, each chunk encoded on the rayon pool into
//! its slot (`crate::par`).

use alloc::vec::Vec;

use rayon::prelude::*;

use std::io::{self, Write};

use crate::encode::Encoder;
use crate::par::{Buffers, Slot, at_char_boundary, borders, fill_slots, outside_escape, windows};

/// `input` cut into chunks of about `chunk` bytes that encode independently.
fn encode_pieces<'a>(encoder: &Encoder, input: &'a [u8], chunk: usize) -> Vec<&'a [u8]> {
    let requote = encoder.is_keeping_escapes();
    let iri = encoder.set().is_iri();
    let cuts = borders(input, chunk, |at| {
        (!requote || outside_escape(input, at)) && (!iri || at_char_boundary(input, at))
    });
    cuts.windows(2).map(|w| &input[w[0]..w[1]]).collect()
}

/// Encodes `input` into `out` (appended), in parallel chunks of about `chunk` bytes.
pub(crate) fn encode_vec(encoder: &Encoder, input: &[u8], out: &mut Vec<u8>, chunk: usize) {
    let pieces = encode_pieces(encoder, input, chunk);
    let lens: Vec<Option<usize>> = pieces.par_iter().map(|p| encoder.checked_encoded_len(p)).collect();
    let lens: Option<Vec<usize>> = lens.into_iter().collect();
    let total = lens.as_ref().and_then(|lens| lens.iter().try_fold(0usize, |t, &n| t.checked_add(n)));
    let (Some(lens), Some(total)) = (lens, total) else {
        // An output longer than memory can hold: the serial encoder fails as it would.
        return encoder.encode_vec(input, out);
    };
    let filled =
        fill_slots(out, &lens, total, |i, slot| encoder.encode_slice(pieces[i], slot) == Ok(slot.len()));
    // Each slot is exactly its chunk's encoding (the length came from the same encoder).
    debug_assert!(filled);
    if !filled {
        encoder.encode_vec(input, out);
    }
}

/// Encodes `input` and writes the encoding to `out`, in parallel chunks of about `chunk`
/// bytes, a window of chunks at a time: one pass over the input, and memory bounded by the
/// window whatever the input's size.
pub(crate) fn encode_to<W: Write + Send>(
    encoder: &Encoder,
    input: &[u8],
    out: &mut W,
    buffers: &mut Buffers,
    chunk: usize,
) -> io::Result<()> {
    let pieces = encode_pieces(encoder, input, chunk);
    let work = |piece: &[u8], slot: &mut Slot| -> Result<(), crate::error::BufferTooSmall> {
        if slot.buf.len() < piece.len() {
            // Room for a piece's encoding when a sixth of its bytes are escaped; a piece that
            // needs more grows its buffer once (buffers are reused).
            slot.buf.resize(piece.len() + piece.len() / 3 + 64, 0);
        }
        slot.len = match encoder.encode_slice(piece, &mut slot.buf) {
            Ok(n) => n,
            Err(short) => {
                slot.buf.resize(short.needed(), 0);
                encoder.encode_slice(piece, &mut slot.buf)?
            }
        };
        Ok(())
    };
    windows(&pieces, out, buffers, chunk, work).map_err(|(_, e)| match e {
        Err(e) => e,
        // (Unreachable: the buffer was grown to the size the encoder asked for.)
        Ok(short) => io::Error::other(short),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::par::samples::{chunks, inputs};
    use crate::sets;

    #[test]
    fn encode_matches_serial_at_every_chunk_size() {
        let encoders = [
            Encoder::new(sets::COMPONENT),
            Encoder::new(sets::COMPONENT).keep_escapes(true),
            Encoder::new(sets::PATH.with_iri(true)),
            Encoder::new(sets::PATH.with_iri(true)).keep_escapes(true),
            Encoder::new(sets::FORM).lowercase(true),
        ];
        for input in inputs() {
            for encoder in &encoders {
                let mut want = b"head".to_vec();
                encoder.encode_vec(&input, &mut want);
                for chunk in chunks() {
                    let mut got = b"head".to_vec();
                    encode_vec(encoder, &input, &mut got, chunk);
                    assert_eq!(got, want, "{encoder:?} chunk {chunk} input {input:?}");
                }
            }
        }
    }
}
