//! `std::io` adapters: percent-encode or decode bytes as they go through a [`Read`] or a
//! [`Write`] (feature `std`).
//!
//! | adapter | takes | gives |
//! |---|---|---|
//! | [`EncodeWriter`] | raw bytes, written to it | their encoding, written to the inner writer |
//! | [`DecodeWriter`] | encoded text, written to it | the decoded bytes, written to the inner writer |
//! | [`EncodeReader`] | raw bytes, read from the inner reader | their encoding, read from it |
//! | [`DecodeReader`] | encoded text, read from the inner reader | the decoded bytes, read from it |
//!
//! The output is exactly what [`Encoder::encode_vec`] or [`Decoder::decode_vec`] gives for the
//! whole input, however it is cut into reads and writes: the adapters run a
//! [`StreamEncoder`] or a [`StreamDecoder`], which hold back the few bytes at the end of a
//! piece whose meaning the next piece may change (a `%` that may start an escape, an
//! unfinished UTF-8 sequence), and the end of the input (end of file for a reader,
//! `finish` for a writer) settles them.
//!
//! ```
//! use std::io::{Read, Write};
//! use pctenc::io::{DecodeReader, EncodeWriter};
//! use pctenc::{sets, Decoder, Encoder};
//!
//! let mut writer = EncodeWriter::new(Encoder::new(sets::COMPONENT), Vec::new());
//! writer.write_all("Jürgen & Björk".as_bytes())?;
//! let encoded = writer.finish()?;
//! assert_eq!(encoded, b"J%C3%BCrgen%20%26%20Bj%C3%B6rk");
//!
//! let mut decoded = String::new();
//! DecodeReader::new(Decoder::URI_COMPONENT, &encoded[..]).read_to_string(&mut decoded)?;
//! assert_eq!(decoded, "Jürgen & Björk");
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! # Memory
//!
//! Memory is bounded, whatever the size of the input. An adapter works in steps of at most
//! [`CHUNK`] (64 KiB) of input: a writer's `write` takes at most that many bytes (and says
//! how many it took), a reader asks its inner reader for at most that many at a time. The
//! output of one step is buffered until it is passed on, and is at most [`MAX_BUFFERED`]
//! bytes (3 × 64 KiB + 64): an encoded byte takes up to three bytes, and so can a decoded
//! one with [`Utf8Mode::Lossy`], where an invalid byte becomes U+FFFD. Between steps, the
//! stream holds back at most 3 input bytes when encoding, and when decoding at most 2 input
//! bytes (11 with [`Decoder::legacy_u`]) and 3 decoded ones. A reader also has its 64 KiB
//! input buffer.
//!
//! # Errors
//!
//! An I/O error of the inner reader or writer is returned as it is, and loses nothing:
//! calling again retries. [`ErrorKind::Interrupted`](io::ErrorKind::Interrupted) from the
//! inner reader or writer is retried at once, and a writer whose inner writer accepts no
//! byte (`Ok(0)`) fails with [`ErrorKind::WriteZero`](io::ErrorKind::WriteZero).
//!
//! A decoding error is an [`io::Error`] of kind
//! [`InvalidData`](io::ErrorKind::InvalidData) that wraps the [`DecodeError`], whose offset
//! counts from the start of the stream. The stream is over then: every later call returns
//! the same error.
//!
//! ```
//! use std::io::Read;
//! use pctenc::{io::DecodeReader, DecodeError, Decoder};
//!
//! let mut out = Vec::new();
//! let err = DecodeReader::new(Decoder::new(), &b"ok%2C fine%"[..]).read_to_end(&mut out).unwrap_err();
//! assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
//! let decode_error = err.get_ref().and_then(|e| e.downcast_ref::<DecodeError>()).unwrap();
//! assert_eq!(decode_error.offset(), 10);
//! ```
//!
//! # Dropping
//!
//! A writer dropped without [`finish`](EncodeWriter::finish) finishes itself, as
//! `BufWriter` flushes itself, ignoring errors: everything written to it reaches the inner
//! writer, the bytes held back included ([`DecodeWriter`] writes those as lenient decoding
//! would, since a drop has no way to report a decoding error). Only `finish` and
//! `try_finish` say whether that worked. A reader dropped before the end discards the
//! output it has read from the inner reader but not given yet, as a `BufReader` discards
//! its buffer. [`StreamEncoder`] and [`StreamDecoder`] own no writer: their held-back bytes
//! come out of their `finish` only.
//!
//! [`Encoder::encode_vec`]: crate::Encoder::encode_vec
//! [`Decoder::decode_vec`]: crate::Decoder::decode_vec
//! [`Decoder::legacy_u`]: crate::Decoder::legacy_u
//! [`Utf8Mode::Lossy`]: crate::Utf8Mode::Lossy
//! [`Read`]: std::io::Read
//! [`Write`]: std::io::Write

mod read;
mod write;

use alloc::vec::Vec;
use std::io;

use crate::{decode::StreamDecoder, encode::StreamEncoder, error::DecodeError};

pub use read::{DecodeReader, EncodeReader};
pub use write::{DecodeWriter, EncodeWriter};

/// The most input an adapter handles in one step: 64 KiB.
///
/// ```
/// use std::io::Write;
///
/// let mut writer = pctenc::EncodeWriter::new(pctenc::Encoder::new(pctenc::sets::URI), Vec::new());
/// assert_eq!(writer.write(&vec![b'a'; 1 << 20])?, pctenc::io::CHUNK);
/// # Ok::<(), std::io::Error>(())
/// ```
pub const CHUNK: usize = 64 * 1024;

/// The most output an adapter buffers: the output of one step of [`CHUNK`] bytes of input,
/// three bytes for each (an escape, or U+FFFD for an invalid byte when decoding lossily),
/// plus those of the few bytes held back from the step before.
pub const MAX_BUFFERED: usize = 3 * CHUNK + SLACK;

/// Room for the output of the bytes held back between steps (at most 11 input bytes and 3
/// decoded ones, 3 output bytes each).
const SLACK: usize = 64;

/// A stream encoder or decoder, as the adapters drive it.
trait Codec {
    fn feed(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<(), DecodeError>;
    fn finish(&mut self, out: &mut Vec<u8>) -> Result<(), DecodeError>;
    /// `finish` for an adapter dropped unfinished: what is held back is written as lenient
    /// decoding would, never dropped. Fails only with the error of an earlier call.
    fn finish_on_drop(&mut self, out: &mut Vec<u8>) -> Result<(), DecodeError>;
}

impl Codec for StreamEncoder {
    fn feed(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<(), DecodeError> {
        StreamEncoder::feed(self, input, out);
        Ok(())
    }

    fn finish(&mut self, out: &mut Vec<u8>) -> Result<(), DecodeError> {
        StreamEncoder::finish(self, out);
        Ok(())
    }

    fn finish_on_drop(&mut self, out: &mut Vec<u8>) -> Result<(), DecodeError> {
        StreamEncoder::finish(self, out);
        Ok(())
    }
}

impl Codec for StreamDecoder {
    fn feed(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<(), DecodeError> {
        StreamDecoder::feed(self, input, out)
    }

    fn finish(&mut self, out: &mut Vec<u8>) -> Result<(), DecodeError> {
        StreamDecoder::finish(self, out)
    }

    fn finish_on_drop(&mut self, out: &mut Vec<u8>) -> Result<(), DecodeError> {
        StreamDecoder::finish_lenient(self, out)
    }
}

/// Makes room in `out` (empty) for the output of `input` bytes, so that it never grows
/// past [`MAX_BUFFERED`].
fn reserve(out: &mut Vec<u8>, input: usize) {
    out.reserve_exact(3 * input + SLACK);
}

/// A decoding error as an I/O error.
fn invalid_data(err: DecodeError) -> io::Error {
    err.into_io()
}
