//! [`StreamDecoder`]: decoding input that arrives in pieces, with bounded memory.

use alloc::{borrow::Cow, vec::Vec};

use super::{Decoder, Utf8Mode, utf8, utf8::Utf8End};
use crate::scalar::decode as scalar;
use crate::{error::DecodeError, error::DecodeErrorKind};

/// Decodes input that arrives in pieces (a pipe, a socket, a large file), giving the same
/// output and the same errors as decoding it all at once, whatever the pieces.
///
/// An escape split across pieces (`%C` | `3`) and a UTF-8 sequence split across pieces are
/// carried over: the decoder holds at most two input bytes and three decoded bytes between
/// calls. With [`Decoder::legacy_u`] it holds up to eleven input bytes: a high-surrogate
/// escape and the start of what may be its low half (`%uD83D%uDE0` | `0`). Error offsets
/// count from the start of the whole stream; past `usize::MAX` bytes (4 GiB, on a 32-bit
/// target) they saturate at `usize::MAX`, as [`fed`](StreamDecoder::fed) does. The bytes held
/// back are kept in the stream itself: [`feed`](StreamDecoder::feed) and
/// [`finish`](StreamDecoder::finish) allocate nothing but what `out` grows by (without the
/// `rayon` feature's large pieces), so a `Vec` with room enough makes them allocation-free.
///
/// With the `rayon` feature, a piece of at least [`PAR_DECODE_THRESHOLD`](crate::PAR_DECODE_THRESHOLD)
/// bytes is decoded on the rayon pool, as [`Decoder::par_decode_vec`] does: feed large
/// pieces (a memory-mapped file in segments of megabytes) to use every core.
///
/// ```
/// use pctenc::{Decoder, StreamDecoder, Utf8Mode};
///
/// let mut stream = StreamDecoder::new(Decoder::new().utf8(Utf8Mode::Strict));
/// let mut out = Vec::new();
/// for piece in ["J%C", "3%B", "Crgen%2", "0!"] {
///     stream.feed(piece.as_bytes(), &mut out).unwrap();
/// }
/// stream.finish(&mut out).unwrap();
/// assert_eq!(out, "Jürgen !".as_bytes());
///
/// let mut stream = StreamDecoder::new(Decoder::new());
/// stream.feed(b"100", &mut out).unwrap();
/// stream.feed(b"%", &mut out).unwrap(); // might still become `%25`
/// assert_eq!(stream.finish(&mut out).unwrap_err().offset(), 3);
/// ```
///
/// A `StreamDecoder` writes only into the `Vec` of each call, so what it holds back between
/// calls is output only [`finish`](StreamDecoder::finish) can give: dropping the stream
/// without finishing it discards those few bytes (and the error they may be);
/// [`held_back`](StreamDecoder::held_back) tells how many input bytes they are. Call `finish`
/// at the end of the input; [`DecodeWriter`](crate::DecodeWriter), which owns a writer,
/// writes them when dropped.
#[derive(Clone, Debug)]
pub struct StreamDecoder {
    decoder: Decoder,
    /// Input bytes not decoded yet: a `%` whose escape the next piece may complete (or a
    /// `%uHHHH` high surrogate that the next piece may pair).
    pending: Held,
    /// Stream offset of `pending[0]` (of the next input byte when `pending` is empty),
    /// saturating at `usize::MAX` (a stream longer than that on a 32-bit target).
    offset: usize,
    /// Decoded bytes of an unfinished UTF-8 sequence, not written yet.
    carry: [u8; 4],
    carried: usize,
    /// Stream offset of the input bytes that `carry` came from.
    carried_at: usize,
    /// The error already returned; the stream is over after one.
    failed: Option<DecodeError>,
    /// The output buffers of `feed_to`, kept from piece to piece.
    #[cfg(feature = "rayon")]
    buffers: crate::par::Buffers,
    /// An earlier `feed_to` failed to write: the stream is not to go on.
    #[cfg(feature = "rayon")]
    broken: bool,
}

/// The most input bytes a stream holds back: a `%u` high surrogate and the start of what may
/// be its low half (`%uD83D%uDE0`), 11; a `%` and a digit otherwise.
const HELD_MAX: usize = 11;

/// The input bytes held back, in place: feeding never allocates for them, so a stream fed
/// into a `Vec` with room enough allocates nothing at all (the C API's streams count on it).
#[derive(Clone, Copy, Debug, Default)]
struct Held {
    bytes: [u8; HELD_MAX],
    len: u8,
}

impl Held {
    fn as_slice(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }

    fn len(&self) -> usize {
        usize::from(self.len)
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Holds `bytes`: what the decoder left unread, never more than `HELD_MAX` bytes.
    fn set(&mut self, bytes: &[u8]) {
        assert!(bytes.len() <= HELD_MAX, "a stream held back {} bytes, more than {HELD_MAX}", bytes.len());
        self.bytes[..bytes.len()].copy_from_slice(bytes);
        // At most HELD_MAX (11): fits a u8.
        self.len = bytes.len() as u8;
    }
}

impl StreamDecoder {
    /// A stream decoder with the rules of `decoder`.
    pub fn new(decoder: Decoder) -> StreamDecoder {
        StreamDecoder {
            decoder,
            pending: Held::default(),
            offset: 0,
            carry: [0; 4],
            carried: 0,
            carried_at: 0,
            failed: None,
            #[cfg(feature = "rayon")]
            buffers: Default::default(),
            #[cfg(feature = "rayon")]
            broken: false,
        }
    }

    /// The decoder whose rules this stream follows.
    ///
    /// ```
    /// use pctenc::{Decoder, StreamDecoder};
    ///
    /// let stream = StreamDecoder::new(Decoder::FORM);
    /// assert!(stream.decoder().is_plus_as_space());
    /// ```
    pub fn decoder(&self) -> &Decoder {
        &self.decoder
    }

    /// The number of input bytes fed so far (saturating at `usize::MAX`).
    ///
    /// ```
    /// let mut stream = pctenc::StreamDecoder::new(pctenc::Decoder::new());
    /// stream.feed(b"ab%4", &mut Vec::new()).unwrap();
    /// assert_eq!(stream.fed(), 4);
    /// ```
    pub fn fed(&self) -> usize {
        self.offset.saturating_add(self.pending.len())
    }

    /// The number of input bytes fed whose output is held back, waiting for the next piece
    /// or for [`finish`](StreamDecoder::finish): an escape that may still be completed, a
    /// `%u` high surrogate that may still be paired, the escapes of an unfinished UTF-8
    /// sequence (when the decoder checks UTF-8). A stream with nothing held back can be
    /// dropped without losing output; check this before dropping one unfinished.
    ///
    /// ```
    /// use pctenc::{Decoder, StreamDecoder, Utf8Mode};
    ///
    /// let mut stream = StreamDecoder::new(Decoder::new().utf8(Utf8Mode::Strict));
    /// let mut out = Vec::new();
    /// stream.feed(b"ab%4", &mut out).unwrap();
    /// assert_eq!((out.as_slice(), stream.held_back()), (&b"ab"[..], 2));
    /// stream.feed(b"1%C3", &mut out).unwrap(); // `%C3`: the first byte of a character
    /// assert_eq!((out.as_slice(), stream.held_back()), (&b"abA"[..], 3));
    /// stream.feed(b"%A9", &mut out).unwrap();
    /// assert_eq!((out.as_slice(), stream.held_back()), ("abA\u{e9}".as_bytes(), 0));
    /// ```
    pub fn held_back(&self) -> usize {
        let first = if self.carried > 0 { self.carried_at } else { self.offset };
        self.fed().saturating_sub(first)
    }

    /// Decodes `input`, the next piece of the stream, appending what can be decoded so far to
    /// `out`.
    ///
    /// # Errors
    ///
    /// The first problem in the stream that the decoder's options make an error (see
    /// [`Decoder::decode`]), at its offset from the start of the stream, as soon as the
    /// input fed shows it. `out` is then as it was before the call, and every later call
    /// returns the same error.
    ///
    /// # Examples
    ///
    /// ```
    /// use pctenc::{Decoder, StreamDecoder};
    ///
    /// let mut stream = StreamDecoder::new(Decoder::new());
    /// let mut out = Vec::new();
    /// stream.feed(b"a%2", &mut out).unwrap();
    /// assert_eq!(out, b"a"); // `%2` waits for its last digit
    /// let err = stream.feed(b"0b%zz", &mut out).unwrap_err();
    /// assert_eq!(err.offset(), 5); // in `a%20b%zz`
    /// assert_eq!(out, b"a"); // nothing of the failed piece
    /// assert_eq!(stream.feed(b"ok", &mut out), Err(err)); // the stream is over
    /// ```
    pub fn feed(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<(), DecodeError> {
        self.run(input, out, false)
    }

    /// Ends the stream: decodes what was held back, and reports a `%` or a UTF-8 sequence
    /// left unfinished (strict) or writes it out (lenient, lossy). The decoder can then
    /// start a new stream, whose offsets count from zero.
    ///
    /// # Errors
    ///
    /// A `%` left unfinished ([`TruncatedEscape`](crate::DecodeErrorKind::TruncatedEscape),
    /// unless lenient), a UTF-8 sequence left unfinished (in [`Utf8Mode::Strict`]), or the
    /// error of an earlier call; `out` is then as it was.
    ///
    /// # Examples
    ///
    /// ```
    /// use pctenc::{Decoder, StreamDecoder};
    ///
    /// let mut stream = StreamDecoder::new(Decoder::new().lenient(true));
    /// let mut out = Vec::new();
    /// stream.feed(b"50%", &mut out).unwrap();
    /// assert_eq!(out, b"50");
    /// stream.finish(&mut out).unwrap();
    /// assert_eq!(out, b"50%"); // lenient: the lone `%` is copied
    /// assert_eq!(stream.fed(), 0); // ready for a new stream
    /// ```
    pub fn finish(&mut self, out: &mut Vec<u8>) -> Result<(), DecodeError> {
        let result = self.run(&[], out, true);
        if result.is_ok() {
            *self = StreamDecoder::new(self.decoder);
        }
        result
    }

    /// Ends the stream as [`finish`](StreamDecoder::finish) does, but settles what was held
    /// back as lenient decoding would: a `%` left unfinished is copied, a lone `%u` high
    /// surrogate becomes U+FFFD, and in [`Utf8Mode::Strict`] an unfinished UTF-8 sequence
    /// becomes U+FFFD, as [`Utf8Mode::Lossy`] writes it. What a dropped [`DecodeWriter`]
    /// writes, so that no byte written to it vanishes. Fails only with the error of an
    /// earlier call.
    ///
    /// [`DecodeWriter`]: crate::DecodeWriter
    #[cfg(feature = "std")]
    pub(crate) fn finish_lenient(&mut self, out: &mut Vec<u8>) -> Result<(), DecodeError> {
        let rules = self.decoder;
        let utf8 = if rules.utf8 == Utf8Mode::Strict { Utf8Mode::Lossy } else { rules.utf8 };
        self.decoder = rules.lenient(true).utf8(utf8);
        let result = self.finish(out);
        self.decoder = rules;
        result
    }

    /// [`feed`](StreamDecoder::feed), writing the output to `out` instead of appending it to
    /// a `Vec`. A large piece (at least [`PAR_DECODE_THRESHOLD`](crate::PAR_DECODE_THRESHOLD)
    /// bytes) with [`Utf8Mode::Bytes`] is decoded on every thread of the rayon pool in one
    /// pass, a window of chunks at a time into buffers the stream keeps, and written as it
    /// goes: memory stays bounded (at most 4 MiB of buffers, whatever the number of threads)
    /// however large the piece, such as a memory-mapped file of gigabytes. The other modes,
    /// `%u` and kept escapes decode the piece into memory first
    /// ([`feed`](StreamDecoder::feed)), then write it.
    ///
    /// # Errors
    ///
    /// A decoding error is an [`io::Error`](std::io::Error) of kind
    /// [`InvalidData`](std::io::ErrorKind::InvalidData) that wraps the [`DecodeError`] (offset
    /// from the start of the stream), as in [`pctenc::io`](crate::io); unlike
    /// [`feed`](StreamDecoder::feed), the output of the piece before the error may have been
    /// written. An error of `out` is returned as it is; the stream is then broken, and every
    /// later `feed_to` fails.
    ///
    /// # Examples
    ///
    /// ```
    /// use pctenc::{Decoder, DecodeError, StreamDecoder};
    ///
    /// let input = "caf%C3%A9 ".repeat(110_000); // 1.1 MB: decoded on every thread
    /// let mut stream = StreamDecoder::new(Decoder::new());
    /// let mut file = Vec::new(); // any `io::Write + Send`
    /// stream.feed_to(input.as_bytes(), &mut file).unwrap();
    /// stream.finish(&mut file).unwrap();
    /// assert_eq!(file, "café ".repeat(110_000).as_bytes());
    ///
    /// let err = StreamDecoder::new(Decoder::new()).feed_to(b"100%!", &mut file).unwrap_err();
    /// let err = err.get_ref().and_then(|e| e.downcast_ref::<DecodeError>()).unwrap();
    /// assert_eq!(err.offset(), 3);
    /// ```
    #[cfg(feature = "rayon")]
    pub fn feed_to<W: std::io::Write + Send>(&mut self, input: &[u8], out: &mut W) -> std::io::Result<()> {
        if let Some(err) = self.failed {
            return Err(err.into_io());
        }
        if self.broken {
            return Err(std::io::Error::other("an earlier write of this stream failed"));
        }
        let result = self.feed_to_unchecked(input, out);
        self.broken = matches!(&result, Err(e) if DecodeError::from_io(e).is_none());
        result
    }

    /// `feed_to` on a stream that has not failed.
    #[cfg(feature = "rayon")]
    fn feed_to_unchecked<W: std::io::Write + Send>(
        &mut self,
        input: &[u8],
        out: &mut W,
    ) -> std::io::Result<()> {
        let mut decoded = Vec::new();
        if self.decoder.utf8 != Utf8Mode::Bytes
            || !super::par::splits(&self.decoder)
            || input.len() < crate::par::PAR_DECODE_THRESHOLD
        {
            self.feed(input, &mut decoded).map_err(DecodeError::into_io)?;
            return out.write_all(&decoded);
        }
        let mut rest = input;
        if !self.pending.is_empty() {
            let settled = self.settle(input, &mut decoded, false).inspect_err(|&e| self.failed = Some(e));
            // (A large piece is never used up by the settling.)
            rest = settled.map_err(DecodeError::into_io)?.unwrap_or_default();
            out.write_all(&decoded)?;
        }
        let mut buffers = core::mem::take(&mut self.buffers);
        let result =
            super::par::decode_to(&self.decoder, rest, out, &mut buffers, crate::par::WRITE_CHUNK, false);
        self.buffers = buffers;
        match result {
            Ok(read) => {
                self.offset = self.offset.saturating_add(read);
                self.pending.set(&rest[read..]);
                Ok(())
            }
            Err(super::par::Stop::Decode(e)) => {
                let e = e.shifted(self.offset);
                self.failed = Some(e);
                Err(e.into_io())
            }
            Err(super::par::Stop::Io(e)) => Err(e),
        }
    }

    fn run(&mut self, input: &[u8], out: &mut Vec<u8>, last: bool) -> Result<(), DecodeError> {
        if let Some(err) = self.failed {
            return Err(err);
        }
        let start = out.len();
        let result = self.run_pieces(input, out, last);
        if let Err(err) = result {
            out.truncate(start);
            self.failed = Some(err);
        }
        result
    }

    /// `run` without the error bookkeeping.
    fn run_pieces(&mut self, mut input: &[u8], out: &mut Vec<u8>, last: bool) -> Result<(), DecodeError> {
        if !self.pending.is_empty() {
            match self.settle(input, out, last)? {
                Some(rest) => input = rest,
                None => return Ok(()),
            }
        }
        let read = self.decode_piece(input, out, last)?;
        self.offset = self.offset.saturating_add(read);
        self.pending.set(&input[read..]);
        Ok(())
    }

    /// Settles the held-back bytes with the first sixteen bytes of `input`, joined in a copy,
    /// so that the rest of a large piece is decoded where it is, never copied: after sixteen
    /// more bytes the held-back ones are decoded (at most eleven wait). Appends the decoding
    /// to `out` and returns the rest of `input`, from its first byte not read; or `None` when
    /// `input` had no more than sixteen bytes, all now read or held back.
    fn settle<'a>(
        &mut self,
        input: &'a [u8],
        out: &mut Vec<u8>,
        last: bool,
    ) -> Result<Option<&'a [u8]>, DecodeError> {
        let take = input.len().min(16);
        let held = self.pending.len();
        let mut buf = [0u8; HELD_MAX + 16];
        buf[..held].copy_from_slice(self.pending.as_slice());
        buf[held..held + take].copy_from_slice(&input[..take]);
        let joined = &buf[..held + take];
        self.pending = Held::default();
        let whole = take == input.len();
        let read = self.decode_piece(joined, out, last && whole)?;
        self.offset = self.offset.saturating_add(read);
        if whole {
            self.pending.set(&joined[read..]);
            return Ok(None);
        }
        Ok(Some(&input[take - (joined.len() - read)..]))
    }

    /// Decodes `src` (which starts at `self.offset`) after the carried UTF-8 bytes, and
    /// returns how many bytes of `src` it consumed.
    fn decode_piece(&mut self, src: &[u8], out: &mut Vec<u8>, last: bool) -> Result<usize, DecodeError> {
        let rules = self.decoder.rules();
        let start = out.len();
        out.extend_from_slice(&self.carry[..self.carried]);
        let decoded_start = out.len();
        let read = match self.decode_bytes(src, out, last) {
            Ok(read) => read,
            Err(err) => {
                let before = self.decoder.decoded_before(src, err);
                if self.decoder.utf8 == Utf8Mode::Strict
                    && let Utf8End::Invalid(at) = utf8::check(&out[start..decoded_start + before])
                {
                    return Err(self.utf8_error(src, at));
                }
                return Err(err.shifted(self.offset));
            }
        };
        // Decoded bytes from `end` on are an unfinished UTF-8 sequence, held back.
        let end = match self.decoder.utf8 {
            Utf8Mode::Bytes => out.len(),
            Utf8Mode::Strict => match utf8::check(&out[start..]) {
                Utf8End::Valid => out.len(),
                Utf8End::Incomplete(at) if !last => start + at,
                Utf8End::Invalid(at) | Utf8End::Incomplete(at) => return Err(self.utf8_error(src, at)),
            },
            Utf8Mode::Lossy if last => out.len(),
            Utf8Mode::Lossy => start + incomplete_tail(&out[start..]),
        };
        // Keep the bytes from `end` on for the next piece.
        let tail = out.len() - end;
        let tail_index = end - start;
        if tail > 0 && tail_index >= self.carried {
            // Where the held-back bytes came from (for an error the next piece may reveal),
            // found from the end: a pass over a large piece for a few bytes would cost as much
            // as decoding it.
            let from = if rules.vectorizable() {
                scalar::source_offset_back(src, read, tail)
            } else {
                scalar::source_offset(src, rules, tail_index - self.carried)
            };
            self.carried_at = self.offset.saturating_add(from);
        }
        self.carry[..tail].copy_from_slice(&out[end..]);
        self.carried = tail;
        out.truncate(end);
        if self.decoder.utf8 == Utf8Mode::Lossy
            && let Cow::Owned(fixed) = utf8::lossy(&out[start..])
        {
            out.truncate(start);
            out.extend_from_slice(fixed.as_bytes());
        }
        Ok(read)
    }

    /// Decodes `src` as bytes, appending to `out`, and returns how much of it was read. On an
    /// error, `out` holds (at least) the bytes decoded before it.
    fn decode_bytes(&self, src: &[u8], out: &mut Vec<u8>, last: bool) -> Result<usize, DecodeError> {
        #[cfg(feature = "rayon")]
        if src.len() >= crate::par::PAR_DECODE_THRESHOLD
            && !crate::par::single_thread()
            && super::par::splits(&self.decoder)
        {
            return super::par::decode_bytes(&self.decoder, src, out, crate::par::CHUNK, last)
                .map(|s| s.read);
        }
        self.decoder.append_bytes(src, out, last).map(|s| s.read)
    }

    /// The error for an invalid UTF-8 sequence that starts at index `at` of the bytes this
    /// call decoded (the carried bytes first, then the decoding of `src`).
    fn utf8_error(&self, src: &[u8], at: usize) -> DecodeError {
        let offset = if at < self.carried {
            self.carried_at
        } else {
            self.offset.saturating_add(scalar::source_offset(src, self.decoder.rules(), at - self.carried))
        };
        DecodeError::new(offset, DecodeErrorKind::InvalidUtf8)
    }
}

/// Where the unfinished UTF-8 sequence at the end of `bytes` starts (`bytes.len()` if the
/// last sequence is finished, or already known to be invalid).
fn incomplete_tail(bytes: &[u8]) -> usize {
    let Some(last) = bytes.utf8_chunks().last() else { return bytes.len() };
    let start = bytes.len() - last.invalid().len();
    // `utf8_chunks` does not tell an invalid last sequence from an unfinished one; `check`
    // does.
    match utf8::check(&bytes[start..]) {
        Utf8End::Incomplete(0) => start,
        _ => bytes.len(),
    }
}
