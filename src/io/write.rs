//! [`EncodeWriter`] and [`DecodeWriter`].

use alloc::vec::Vec;
use core::fmt;
use std::io::{self, Write};

use super::{CHUNK, Codec, SLACK, invalid_data, reserve};
use crate::{
    decode::Decoder, decode::StreamDecoder, encode::Encoder, encode::StreamEncoder, error::DecodeError,
};

/// The state both writers share: the stream, the inner writer, and the output not passed on
/// yet.
struct Sink<C: Codec, W: Write> {
    codec: C,
    /// `None` only once `finish` has taken it.
    inner: Option<W>,
    /// Output; `out[..passed]` has been written to `inner` already.
    out: Vec<u8>,
    passed: usize,
    failed: Option<DecodeError>,
}

const TAKEN: &str = "the inner writer is there until `finish` consumes the adapter";

impl<C: Codec, W: Write> Sink<C, W> {
    fn new(codec: C, inner: W) -> Self {
        Sink { codec, inner: Some(inner), out: Vec::new(), passed: 0, failed: None }
    }

    fn get_ref(&self) -> &W {
        self.inner.as_ref().expect(TAKEN)
    }

    fn get_mut(&mut self) -> &mut W {
        self.inner.as_mut().expect(TAKEN)
    }

    fn check(&self) -> io::Result<()> {
        self.failed.map_or(Ok(()), |err| Err(invalid_data(err)))
    }

    fn fail(&mut self, err: DecodeError) -> io::Error {
        self.failed = Some(err);
        invalid_data(err)
    }

    /// Writes the buffered output to the inner writer. On an error, what was not written
    /// stays buffered for the next call.
    fn pass_on(&mut self) -> io::Result<()> {
        let Some(inner) = self.inner.as_mut() else { return Ok(()) };
        while self.passed < self.out.len() {
            match inner.write(&self.out[self.passed..]) {
                Ok(0) => {
                    return Err(io::Error::new(
                        io::ErrorKind::WriteZero,
                        "failed to write the buffered output",
                    ));
                }
                // `min`: a writer claiming more than it was given must not make us panic.
                Ok(n) => self.passed += n.min(self.out.len() - self.passed),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        self.out.clear();
        self.passed = 0;
        Ok(())
    }

    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.check()?;
        // The output buffer must be empty before it takes a new step's output.
        self.pass_on()?;
        let take = buf.len().min(CHUNK);
        if take > 0 {
            reserve(&mut self.out, take);
            if let Err(err) = self.codec.feed(&buf[..take], &mut self.out) {
                return Err(self.fail(err));
            }
        }
        Ok(take)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.check()?;
        self.pass_on()?;
        self.get_mut().flush()
    }

    fn try_finish(&mut self) -> io::Result<()> {
        self.end(C::finish)
    }

    /// Ends the stream with `finish` (the codec's `finish`, or `finish_on_drop`).
    fn end(&mut self, finish: fn(&mut C, &mut Vec<u8>) -> Result<(), DecodeError>) -> io::Result<()> {
        self.check()?;
        self.pass_on()?;
        self.out.reserve_exact(SLACK);
        if let Err(err) = finish(&mut self.codec, &mut self.out) {
            return Err(self.fail(err));
        }
        // If this fails, a retry writes the rest: the stream is finished (and empty) already.
        self.pass_on()?;
        self.get_mut().flush()
    }

    fn finish(&mut self) -> io::Result<W> {
        self.try_finish()?;
        Ok(self.inner.take().expect(TAKEN))
    }

    fn buffered(&self) -> usize {
        self.out.len() - self.passed
    }
}

impl<C: Codec, W: Write> Drop for Sink<C, W> {
    fn drop(&mut self) {
        // As `BufWriter` does: a best effort, errors ignored, and nothing while panicking
        // (the inner writer may be in any state, and a second panic would abort). What is
        // held back is written as lenient decoding would: no byte vanishes for want of an
        // error to report it with. (A stream that failed already reported its error.)
        if self.inner.is_some() && !std::thread::panicking() {
            let _ = self.end(C::finish_on_drop);
        }
    }
}

/// A writer that percent-encodes: the bytes written to it are encoded with an [`Encoder`],
/// and the encoding goes to the inner writer.
///
/// The output is what [`Encoder::encode_vec`] gives for all the bytes written, however they
/// were split into writes. A [`write`](Write::write) takes at most [`CHUNK`] bytes (64 KiB)
/// and returns how many it took; it encodes them into an internal buffer, which the next
/// `write`, [`flush`](Write::flush) or [`finish`](EncodeWriter::finish) passes on (at most
/// [`MAX_BUFFERED`](super::MAX_BUFFERED) bytes are ever buffered). `flush` passes on all the
/// output so far and flushes the inner writer, but the at most three bytes that the next
/// input may change the encoding of stay held back: when re-quoting
/// ([`Encoder::keep_escapes`]), a `%` or `%H` at the end; with an IRI set, an unfinished
/// UTF-8 sequence. Only [`finish`](EncodeWriter::finish) or
/// [`try_finish`](EncodeWriter::try_finish) ends the stream and writes them.
///
/// Dropping the writer without finishing it finishes it as well as it can, ignoring
/// errors, as `BufWriter` does (but not while a panic unwinds: then the buffered output is
/// lost). Errors of the inner writer are only reported by `write`, `flush`, `finish` and
/// `try_finish`: call `finish` to know that everything was written.
///
/// ```
/// use std::io::Write;
/// use pctenc::{sets, EncodeWriter, Encoder};
///
/// let mut writer = EncodeWriter::new(Encoder::new(sets::FORM), Vec::new());
/// write!(writer, "{} & {}", "C++", "C#")?;
/// assert_eq!(writer.finish()?, b"C%2B%2B+%26+C%23");
///
/// // Re-quoting: a `%` at the end may still start an escape.
/// let mut writer = EncodeWriter::new(Encoder::new(sets::COMPONENT).keep_escapes(true), Vec::new());
/// writer.write_all(b"a b%")?;
/// writer.flush()?;
/// assert_eq!(writer.get_ref(), b"a%20b");
/// writer.write_all(b"41%")?;
/// assert_eq!(writer.finish()?, b"a%20b%41%25");
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct EncodeWriter<W: Write> {
    sink: Sink<StreamEncoder, W>,
}

impl<W: Write> EncodeWriter<W> {
    /// A writer that encodes with `encoder` and writes the encoding to `inner`.
    pub fn new(encoder: Encoder, inner: W) -> EncodeWriter<W> {
        EncodeWriter { sink: Sink::new(StreamEncoder::new(encoder), inner) }
    }

    /// The encoder this writer encodes with.
    ///
    /// ```
    /// use pctenc::{sets, EncodeWriter, Encoder};
    ///
    /// let writer = EncodeWriter::new(Encoder::new(sets::URI), std::io::sink());
    /// assert_eq!(writer.encoder().set(), &sets::URI);
    /// ```
    pub fn encoder(&self) -> &Encoder {
        self.sink.codec.encoder()
    }

    /// The inner writer.
    ///
    /// ```
    /// use std::io::Write;
    ///
    /// let mut writer = pctenc::EncodeWriter::new(pctenc::Encoder::new(pctenc::sets::URI), Vec::new());
    /// writer.write_all(b"a b")?;
    /// writer.flush()?;
    /// assert_eq!(writer.get_ref(), b"a%20b");
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn get_ref(&self) -> &W {
        self.sink.get_ref()
    }

    /// The inner writer, mutably. Writing to it directly puts those bytes before the output
    /// still buffered (call [`flush`](Write::flush) first; with re-quoting or an IRI set, the
    /// few bytes held back stay behind until [`try_finish`](EncodeWriter::try_finish)).
    ///
    /// ```
    /// use std::io::Write;
    /// use pctenc::{sets, EncodeWriter, Encoder};
    ///
    /// // Encode the name and the value, write the `=` between them as it is.
    /// let mut writer = EncodeWriter::new(Encoder::new(sets::COMPONENT), Vec::new());
    /// writer.write_all(b"a b")?;
    /// writer.flush()?;
    /// writer.get_mut().write_all(b"=")?;
    /// writer.write_all(b"c&d")?;
    /// assert_eq!(writer.finish()?, b"a%20b=c%26d");
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn get_mut(&mut self) -> &mut W {
        self.sink.get_mut()
    }

    /// Ends the stream: encodes the bytes held back, writes all the output to the inner
    /// writer and flushes it. After success, the writer can start a new stream.
    ///
    /// # Errors
    ///
    /// An error of the inner writer, as it is; calling `try_finish` again retries what is
    /// left.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::io::Write;
    /// use pctenc::{sets, EncodeWriter, Encoder};
    ///
    /// let mut writer = EncodeWriter::new(Encoder::new(sets::COMPONENT.with_iri(true)), Vec::new());
    /// writer.write_all(b"caf\xC3")?; // an unfinished UTF-8 sequence
    /// writer.try_finish()?;
    /// assert_eq!(writer.get_ref(), b"caf%C3");
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn try_finish(&mut self) -> io::Result<()> {
        self.sink.try_finish()
    }

    /// Ends the stream as [`try_finish`](EncodeWriter::try_finish) does and returns the
    /// inner writer.
    ///
    /// # Errors
    ///
    /// An error of the inner writer, as it is. The writer is gone then, and the inner writer
    /// with it: to retry, call [`try_finish`](EncodeWriter::try_finish) first.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::io::Write;
    ///
    /// let mut writer = pctenc::EncodeWriter::new(pctenc::Encoder::new(pctenc::sets::RFC3986), Vec::new());
    /// writer.write_all("é!".as_bytes())?;
    /// assert_eq!(writer.finish()?, b"%C3%A9%21");
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn finish(mut self) -> io::Result<W> {
        self.sink.finish()
    }
}

impl<W: Write> Write for EncodeWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.sink.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.sink.flush()
    }
}

impl<W: Write + fmt::Debug> fmt::Debug for EncodeWriter<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EncodeWriter")
            .field("encoder", self.encoder())
            .field("inner", &self.sink.inner)
            .field("buffered", &self.sink.buffered())
            .finish_non_exhaustive()
    }
}

/// A writer that percent-decodes: the text written to it is decoded with a [`Decoder`], and
/// the decoded bytes go to the inner writer.
///
/// The output is what [`Decoder::decode_vec`] gives for all the text written, however it was
/// split into writes, and so are the errors. A [`write`](Write::write) takes at most
/// [`CHUNK`] bytes (64 KiB) and returns how many it took; it decodes them into an internal
/// buffer, which the next `write`, [`flush`](Write::flush) or
/// [`finish`](DecodeWriter::finish) passes on (at most [`MAX_BUFFERED`](super::MAX_BUFFERED)
/// bytes are ever buffered). `flush` passes on all the output so far and flushes the inner
/// writer, but a `%` whose escape is not complete yet and the bytes of an unfinished UTF-8
/// sequence stay held back (at most two input bytes and three decoded ones; eleven input
/// bytes with [`Decoder::legacy_u`]). Only [`finish`](DecodeWriter::finish) or
/// [`try_finish`](DecodeWriter::try_finish) ends the stream: a `%` or a UTF-8 sequence left
/// unfinished is then an error in strict mode, and written as it is in lenient mode (exactly
/// what [`StreamDecoder::finish`] does).
///
/// A decoding error is an [`io::Error`] of kind [`InvalidData`](io::ErrorKind::InvalidData)
/// wrapping the [`DecodeError`], whose offset counts from the first byte written. The
/// output of the writes before the one that failed has been passed to the inner writer;
/// nothing of the failed one is. Every later call returns the same error.
///
/// Dropping the writer without finishing it finishes it as well as it can, ignoring
/// errors, as `BufWriter` does (but not while a panic unwinds: then the buffered output is
/// lost). What it holds back is then written as lenient decoding would, whatever the mode,
/// so that no byte written vanishes: an unfinished `%` or `%H` is copied as it is (`abc%4`
/// gives `abc%4`), a lone `%u` high surrogate becomes U+FFFD, and so does an unfinished UTF-8
/// sequence in [`Utf8Mode::Strict`](crate::Utf8Mode::Strict) (the output stays UTF-8). Only
/// `write`, `flush`, `finish` and `try_finish` report errors, decoding errors included:
/// call `finish` to know that the input was well-formed and everything was written.
///
/// ```
/// use std::io::Write;
/// use pctenc::{DecodeWriter, Decoder};
///
/// let mut out = Vec::new();
/// let mut writer = DecodeWriter::new(Decoder::new(), &mut out);
/// writer.write_all(b"abc%4")?; // strict: `finish` would fail on `%4`
/// drop(writer);
/// assert_eq!(out, b"abc%4");
/// # Ok::<(), std::io::Error>(())
/// ```
///
/// ```
/// use std::io::Write;
/// use pctenc::{DecodeError, DecodeWriter, Decoder};
///
/// let mut writer = DecodeWriter::new(Decoder::URI_COMPONENT, Vec::new());
/// writer.write_all(b"J%C3%BC")?;
/// writer.write_all(b"rgen%2")?;
/// writer.write_all(b"0!")?;
/// assert_eq!(writer.finish()?, "Jürgen !".as_bytes());
///
/// let mut writer = DecodeWriter::new(Decoder::new(), Vec::new());
/// writer.write_all(b"100%")?;
/// let err = writer.try_finish().unwrap_err();
/// let decode_error = err.get_ref().and_then(|e| e.downcast_ref::<DecodeError>()).unwrap();
/// assert_eq!(decode_error.offset(), 3);
/// assert_eq!(writer.get_ref(), b"100");
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct DecodeWriter<W: Write> {
    sink: Sink<StreamDecoder, W>,
}

impl<W: Write> DecodeWriter<W> {
    /// A writer that decodes with `decoder` and writes the decoded bytes to `inner`.
    pub fn new(decoder: Decoder, inner: W) -> DecodeWriter<W> {
        DecodeWriter { sink: Sink::new(StreamDecoder::new(decoder), inner) }
    }

    /// The decoder this writer decodes with.
    ///
    /// ```
    /// use pctenc::{DecodeWriter, Decoder};
    ///
    /// let writer = DecodeWriter::new(Decoder::FORM, std::io::sink());
    /// assert!(writer.decoder().is_plus_as_space());
    /// ```
    pub fn decoder(&self) -> &Decoder {
        self.sink.codec.decoder()
    }

    /// The inner writer.
    ///
    /// ```
    /// use std::io::Write;
    ///
    /// let mut writer = pctenc::DecodeWriter::new(pctenc::Decoder::new(), Vec::new());
    /// writer.write_all(b"a%20b%2")?;
    /// writer.flush()?;
    /// assert_eq!(writer.get_ref(), b"a b"); // `%2` waits for its last digit
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn get_ref(&self) -> &W {
        self.sink.get_ref()
    }

    /// The inner writer, mutably. Writing to it directly puts those bytes before the output
    /// still buffered (call [`flush`](Write::flush) first).
    pub fn get_mut(&mut self) -> &mut W {
        self.sink.get_mut()
    }

    /// Ends the stream: decodes what was held back (an unfinished `%` or UTF-8 sequence is
    /// an error in strict mode, written as it is in lenient mode), writes all the output to
    /// the inner writer and flushes it. After success, the writer can start a new stream,
    /// whose offsets count from zero.
    ///
    /// # Errors
    ///
    /// A decoding error (an unfinished `%` or UTF-8 sequence in strict mode, or an error of an
    /// earlier call) as an [`io::Error`] of kind [`InvalidData`](io::ErrorKind::InvalidData)
    /// wrapping the [`DecodeError`]: the stream is over, and every later call returns it. An
    /// error of the inner writer, as it is: calling `try_finish` again retries what is left.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::io::Write;
    /// use pctenc::{DecodeWriter, Decoder};
    ///
    /// let mut writer = DecodeWriter::new(Decoder::new().lenient(true), Vec::new());
    /// writer.write_all(b"100%")?;
    /// writer.try_finish()?;
    /// assert_eq!(writer.get_ref(), b"100%");
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn try_finish(&mut self) -> io::Result<()> {
        self.sink.try_finish()
    }

    /// Ends the stream as [`try_finish`](DecodeWriter::try_finish) does and returns the
    /// inner writer.
    ///
    /// # Errors
    ///
    /// Those of [`try_finish`](DecodeWriter::try_finish). The writer is gone then, and the
    /// inner writer with it: to keep it, call `try_finish` first.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::io::Write;
    ///
    /// let mut writer = pctenc::DecodeWriter::new(pctenc::Decoder::FORM, Vec::new());
    /// writer.write_all(b"a+b%21")?;
    /// assert_eq!(writer.finish()?, b"a b!");
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn finish(mut self) -> io::Result<W> {
        self.sink.finish()
    }
}

impl<W: Write> Write for DecodeWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.sink.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.sink.flush()
    }
}

impl<W: Write + fmt::Debug> fmt::Debug for DecodeWriter<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DecodeWriter")
            .field("decoder", self.decoder())
            .field("inner", &self.sink.inner)
            .field("buffered", &self.sink.buffered())
            .field("failed", &self.sink.failed)
            .finish_non_exhaustive()
    }
}
