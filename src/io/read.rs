//! [`EncodeReader`] and [`DecodeReader`].

use alloc::{vec, vec::Vec};
use core::fmt;
use std::io::{self, BufRead, Read};

use super::{CHUNK, Codec, invalid_data, reserve};
use crate::{
    decode::Decoder, decode::StreamDecoder, encode::Encoder, encode::StreamEncoder, error::DecodeError,
};

/// Where a reader's stream is.
#[derive(Clone, Copy, Debug)]
enum State {
    Open,
    /// The inner reader said end of file, and the stream is finished.
    Ended,
    Failed(DecodeError),
}

/// The state both readers share: the stream, the inner reader, and the output not read yet.
struct Source<C: Codec, R> {
    codec: C,
    inner: R,
    /// The inner reader's bytes: [`CHUNK`] bytes once the first read is due.
    input: Vec<u8>,
    /// Output; `out[..pos]` has been read already.
    out: Vec<u8>,
    pos: usize,
    state: State,
}

impl<C: Codec, R: Read> Source<C, R> {
    fn new(codec: C, inner: R) -> Self {
        Source { codec, inner, input: Vec::new(), out: Vec::new(), pos: 0, state: State::Open }
    }

    /// The output not read yet; empty only at the end of the stream.
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        // A step can give no output (all of it held back): then read more.
        while self.pos == self.out.len() {
            match self.state {
                State::Open => {}
                State::Ended => break,
                State::Failed(err) => return Err(invalid_data(err)),
            }
            if self.input.is_empty() {
                self.input = vec![0; CHUNK];
            }
            let n = loop {
                match self.inner.read(&mut self.input) {
                    // `min`: a reader claiming more than it was given must not make us panic.
                    Ok(n) => break n.min(CHUNK),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            };
            self.out.clear();
            self.pos = 0;
            reserve(&mut self.out, n);
            let step = if n == 0 {
                self.state = State::Ended;
                self.codec.finish(&mut self.out)
            } else {
                self.codec.feed(&self.input[..n], &mut self.out)
            };
            if let Err(err) = step {
                self.state = State::Failed(err);
                return Err(invalid_data(err));
            }
        }
        Ok(&self.out[self.pos..])
    }

    fn consume(&mut self, amount: usize) {
        self.pos = self.pos.saturating_add(amount).min(self.out.len());
    }

    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        let available = self.fill_buf()?;
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

/// A reader that percent-encodes: it reads raw bytes from the inner reader and gives their
/// encoding with an [`Encoder`].
///
/// The output is what [`Encoder::encode_vec`] gives for everything the inner reader gives
/// until it says end of file, however it cuts it into reads. The inner reader is asked for
/// at most [`CHUNK`] bytes (64 KiB) at a time; their encoding (at most
/// [`MAX_BUFFERED`](super::MAX_BUFFERED) bytes) is buffered until it is read, which also
/// makes this a [`BufRead`]. A read that comes back with only bytes whose encoding the next
/// ones may change (a `%` when re-quoting, the start of a UTF-8 sequence with an IRI set)
/// makes it read more: a `read` gives `Ok(0)` only at the end. Once the inner reader has
/// said end of file, this reader stays at the end.
///
/// ```
/// use std::io::Read;
/// use pctenc::{sets, EncodeReader, Encoder};
///
/// let mut reader = EncodeReader::new(Encoder::new(sets::COMPONENT), &b"a&b=c d"[..]);
/// let mut encoded = String::new();
/// reader.read_to_string(&mut encoded)?;
/// assert_eq!(encoded, "a%26b%3Dc%20d");
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct EncodeReader<R> {
    source: Source<StreamEncoder, R>,
}

impl<R: Read> EncodeReader<R> {
    /// A reader that gives the encoding, with `encoder`, of what `inner` gives.
    pub fn new(encoder: Encoder, inner: R) -> EncodeReader<R> {
        EncodeReader { source: Source::new(StreamEncoder::new(encoder), inner) }
    }

    /// The encoder this reader encodes with.
    ///
    /// ```
    /// use pctenc::{sets, EncodeReader, Encoder};
    ///
    /// let reader = EncodeReader::new(Encoder::new(sets::URI), std::io::empty());
    /// assert_eq!(reader.encoder().set(), &sets::URI);
    /// ```
    pub fn encoder(&self) -> &Encoder {
        self.source.codec.encoder()
    }

    /// The inner reader, to see how far the input has been read (for a progress bar). It runs
    /// ahead of what this reader has given by up to one step of [`CHUNK`] bytes.
    ///
    /// ```
    /// use std::io::{Cursor, Read};
    /// use pctenc::{io::CHUNK, sets, EncodeReader, Encoder};
    ///
    /// let input = Cursor::new(vec![b' '; 100_000]);
    /// let mut reader = EncodeReader::new(Encoder::new(sets::URI), input);
    /// let mut first = [0u8; 3];
    /// reader.read_exact(&mut first)?;
    /// assert_eq!(&first, b"%20");
    /// assert_eq!(reader.get_ref().position(), CHUNK as u64); // one step read ahead
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn get_ref(&self) -> &R {
        &self.source.inner
    }

    /// The inner reader, mutably. Reading from it directly takes those bytes out of the
    /// stream.
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.source.inner
    }

    /// The inner reader; the output not read yet and the bytes held back are lost.
    ///
    /// ```
    /// use std::io::Read;
    /// use pctenc::{sets, EncodeReader, Encoder};
    ///
    /// let mut reader = EncodeReader::new(Encoder::new(sets::URI), &b"a b"[..]);
    /// let mut first = [0u8; 1];
    /// reader.read_exact(&mut first)?;
    /// assert_eq!(reader.into_inner(), b""); // the inner reader was read to its end
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn into_inner(self) -> R {
        self.source.inner
    }
}

impl<R: Read> Read for EncodeReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.source.read(buf)
    }
}

impl<R: Read> BufRead for EncodeReader<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.source.fill_buf()
    }

    fn consume(&mut self, amount: usize) {
        self.source.consume(amount)
    }
}

impl<R: fmt::Debug> fmt::Debug for EncodeReader<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EncodeReader")
            .field("encoder", self.source.codec.encoder())
            .field("inner", &self.source.inner)
            .field("buffered", &(self.source.out.len() - self.source.pos))
            .field("state", &self.source.state)
            .finish_non_exhaustive()
    }
}

/// A reader that percent-decodes: it reads encoded text from the inner reader and gives the
/// decoded bytes, with a [`Decoder`].
///
/// The output is what [`Decoder::decode_vec`] gives for everything the inner reader gives
/// until it says end of file, however it cuts it into reads, and so are the errors. The
/// inner reader is asked for at most [`CHUNK`] bytes (64 KiB) at a time; the decoded bytes
/// (at most [`MAX_BUFFERED`](super::MAX_BUFFERED)) are buffered until they are read, which
/// also makes this a [`BufRead`]. A read that comes back with only bytes that the next ones
/// may change the decoding of (a `%`, the start of a UTF-8 sequence) makes it read more: a
/// `read` gives `Ok(0)` only at the end. At end of file the stream is finished: a `%` or a
/// UTF-8 sequence left unfinished is an error in strict mode, given as it is in lenient
/// mode (as [`StreamDecoder::finish`] does). Then the reader stays at the end.
///
/// A decoding error is an [`io::Error`] of kind [`InvalidData`](io::ErrorKind::InvalidData)
/// wrapping the [`DecodeError`], whose offset counts from the first byte of the stream. The
/// bytes decoded from earlier reads of the inner reader come first; nothing of the read in
/// which the error is found is given. Every later call returns the same error.
///
/// ```
/// use std::io::BufRead;
/// use pctenc::{DecodeReader, Decoder};
///
/// let lines = DecodeReader::new(Decoder::FORM, &b"a+b\nc%2Bd%0A%C3%A9"[..]).lines();
/// let lines: Vec<String> = lines.collect::<Result<_, _>>()?;
/// assert_eq!(lines, ["a b", "c+d", "é"]);
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct DecodeReader<R> {
    source: Source<StreamDecoder, R>,
}

impl<R: Read> DecodeReader<R> {
    /// A reader that gives the decoding, with `decoder`, of what `inner` gives.
    pub fn new(decoder: Decoder, inner: R) -> DecodeReader<R> {
        DecodeReader { source: Source::new(StreamDecoder::new(decoder), inner) }
    }

    /// The decoder this reader decodes with.
    ///
    /// ```
    /// use pctenc::{DecodeReader, Decoder};
    ///
    /// let reader = DecodeReader::new(Decoder::FORM, std::io::empty());
    /// assert!(reader.decoder().is_lenient());
    /// ```
    pub fn decoder(&self) -> &Decoder {
        self.source.codec.decoder()
    }

    /// The inner reader.
    pub fn get_ref(&self) -> &R {
        &self.source.inner
    }

    /// The inner reader, mutably. Reading from it directly takes those bytes out of the
    /// stream.
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.source.inner
    }

    /// The inner reader; the output not read yet and the bytes held back are lost.
    ///
    /// ```
    /// use std::io::Read;
    /// use pctenc::{io::CHUNK, DecodeReader, Decoder};
    ///
    /// let input = vec![b'a'; 100_000];
    /// let mut reader = DecodeReader::new(Decoder::new(), &input[..]);
    /// let mut first = [0u8; 10];
    /// reader.read_exact(&mut first)?;
    /// // The inner reader gave one step: the rest of that step is lost with the reader.
    /// let rest = reader.into_inner();
    /// assert_eq!(rest.len(), input.len() - CHUNK);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn into_inner(self) -> R {
        self.source.inner
    }
}

impl<R: Read> Read for DecodeReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.source.read(buf)
    }
}

impl<R: Read> BufRead for DecodeReader<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.source.fill_buf()
    }

    fn consume(&mut self, amount: usize) {
        self.source.consume(amount)
    }
}

impl<R: fmt::Debug> fmt::Debug for DecodeReader<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DecodeReader")
            .field("decoder", self.source.codec.decoder())
            .field("inner", &self.source.inner)
            .field("buffered", &(self.source.out.len() - self.source.pos))
            .field("state", &self.source.state)
            .finish_non_exhaustive()
    }
}
