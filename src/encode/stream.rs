//! [`StreamEncoder`]: encoding input that arrives in pieces, with bounded memory.

use alloc::vec::Vec;

use super::Encoder;

/// Encodes input that arrives in pieces (a pipe, a socket, a large file), giving the same
/// output as encoding it all at once ([`Encoder::encode_vec`]), whatever the pieces.
///
/// Most bytes are encoded as soon as they are fed. The few whose encoding depends on the
/// bytes after them are held back until those arrive: when re-quoting
/// ([`Encoder::keep_escapes`]), a `%` or `%H` at the end of a piece, which may start an
/// escape; with an IRI set, an unfinished UTF-8 sequence, which is kept raw only once whole.
/// That is at most three bytes; [`finish`](StreamEncoder::finish) encodes them.
///
/// With the `rayon` feature, a piece of at least [`PAR_ENCODE_THRESHOLD`](crate::PAR_ENCODE_THRESHOLD)
/// bytes is encoded on the rayon pool, as [`Encoder::par_encode_vec`] does.
///
/// ```
/// use pctenc::{sets, Encoder, StreamEncoder};
///
/// let enc = Encoder::new(sets::COMPONENT.with_iri(true)).keep_escapes(true);
/// let mut stream = StreamEncoder::new(enc);
/// let mut out = Vec::new();
/// for piece in [&b"caf\xC3"[..], b"\xA9 100%", b"4", b"1%"] {
///     stream.feed(piece, &mut out);
/// }
/// assert_eq!(out, "café%20100%41".as_bytes()); // the last `%` is held back
/// stream.finish(&mut out);
/// assert_eq!(out, "café%20100%41%25".as_bytes());
/// assert_eq!(out, enc.encode("café 100%41%").as_bytes());
/// ```
///
/// A `StreamEncoder` writes only into the `Vec` of each call, so the bytes it holds back are
/// output only [`finish`](StreamEncoder::finish) gives: dropping the stream without finishing
/// it discards them ([`held_back`](StreamEncoder::held_back) tells how many there are). Call
/// `finish` at the end of the input;
/// [`EncodeWriter`](crate::EncodeWriter), which owns a writer, writes them when dropped.
#[derive(Clone, Debug)]
pub struct StreamEncoder {
    encoder: Encoder,
    /// `held[..held_len]`: the end of the input so far, which the next piece may change the
    /// encoding of.
    held: [u8; 3],
    held_len: usize,
    fed: usize,
    /// The output buffers of `feed_to`, kept from piece to piece.
    #[cfg(feature = "rayon")]
    buffers: crate::par::Buffers,
    /// An earlier `feed_to` failed to write: the stream is not to go on.
    #[cfg(feature = "rayon")]
    broken: bool,
}

impl StreamEncoder {
    /// A stream encoder with the rules of `encoder`.
    pub fn new(encoder: Encoder) -> StreamEncoder {
        StreamEncoder {
            encoder,
            held: [0; 3],
            held_len: 0,
            fed: 0,
            #[cfg(feature = "rayon")]
            buffers: Default::default(),
            #[cfg(feature = "rayon")]
            broken: false,
        }
    }

    /// The encoder whose rules this stream follows.
    ///
    /// ```
    /// use pctenc::{sets, Encoder, StreamEncoder};
    ///
    /// let stream = StreamEncoder::new(Encoder::new(sets::FORM));
    /// assert_eq!(stream.encoder().set(), &sets::FORM);
    /// ```
    pub fn encoder(&self) -> &Encoder {
        &self.encoder
    }

    /// The number of input bytes fed since the stream started (or was last finished).
    ///
    /// ```
    /// let mut stream = pctenc::StreamEncoder::new(pctenc::Encoder::new(pctenc::sets::URI));
    /// stream.feed(b"a b", &mut Vec::new());
    /// assert_eq!(stream.fed(), 3);
    /// ```
    pub fn fed(&self) -> usize {
        self.fed
    }

    /// The number of input bytes fed whose encoding is held back, waiting for the next piece
    /// or for [`finish`](StreamEncoder::finish): at most three. A stream with nothing held
    /// back can be dropped without losing output; check this before dropping one unfinished.
    ///
    /// ```
    /// use pctenc::{sets, Encoder, StreamEncoder};
    ///
    /// let mut stream = StreamEncoder::new(Encoder::new(sets::COMPONENT).keep_escapes(true));
    /// let mut out = Vec::new();
    /// stream.feed(b"100%4", &mut out);
    /// assert_eq!((out.as_slice(), stream.held_back()), (&b"100"[..], 2));
    /// stream.finish(&mut out);
    /// assert_eq!((out.as_slice(), stream.held_back()), (&b"100%254"[..], 0));
    /// ```
    pub fn held_back(&self) -> usize {
        self.held_len
    }

    /// Encodes `input`, the next piece of the stream, appending to `out` the encoding of
    /// everything but the at most three bytes at the end that later input may change the
    /// encoding of.
    ///
    /// # Panics
    ///
    /// Only where any `Vec` growth panics: when the output's length overflows `usize`.
    ///
    /// # Examples
    ///
    /// ```
    /// use pctenc::{sets, Encoder, StreamEncoder};
    ///
    /// // Neither re-quoting nor IRI: nothing waits, each piece comes out whole.
    /// let mut stream = StreamEncoder::new(Encoder::new(sets::COMPONENT));
    /// let mut out = Vec::new();
    /// stream.feed(b"a b%", &mut out);
    /// assert_eq!(out, b"a%20b%25");
    /// stream.feed(&"é".as_bytes()[..1], &mut out); // half of `é`
    /// assert_eq!(out, b"a%20b%25%C3");
    /// ```
    pub fn feed(&mut self, input: &[u8], out: &mut Vec<u8>) {
        self.feed_with(input, |encoder, data| encode_piece(encoder, data, out));
    }

    /// [`feed`](StreamEncoder::feed), writing the encoding to `out` instead of appending it
    /// to a `Vec`. A large piece (at least [`PAR_ENCODE_THRESHOLD`](crate::PAR_ENCODE_THRESHOLD)
    /// bytes) is encoded on every thread of the rayon pool in one pass, a window of chunks at
    /// a time into buffers the stream keeps, and written as it goes: memory stays bounded
    /// (about 5 MiB for text, 12 MiB at most, whatever the number of threads) however large
    /// the piece, such as a memory-mapped file of gigabytes.
    ///
    /// # Errors
    ///
    /// The first error of `out`, as it is. Part of the piece's encoding may have been
    /// written; the stream is then broken, and every later `feed_to` fails.
    ///
    /// # Examples
    ///
    /// ```
    /// use pctenc::{sets, Encoder, StreamEncoder};
    ///
    /// let mut stream = StreamEncoder::new(Encoder::new(sets::COMPONENT));
    /// let mut file = Vec::new(); // any `io::Write + Send`
    /// stream.feed_to("a b ".repeat(100_000).as_bytes(), &mut file).unwrap();
    /// stream.finish(&mut file);
    /// assert_eq!(&file[..12], b"a%20b%20a%20");
    /// ```
    #[cfg(feature = "rayon")]
    pub fn feed_to<W: std::io::Write + Send>(&mut self, input: &[u8], out: &mut W) -> std::io::Result<()> {
        if self.broken {
            return Err(std::io::Error::other("an earlier write of this stream failed"));
        }
        let mut result = Ok(());
        let mut buffers = core::mem::take(&mut self.buffers);
        self.feed_with(input, |encoder, data| {
            if result.is_ok() && !data.is_empty() {
                result = encoder.par_encode_to_with(data, out, &mut buffers);
            }
        });
        self.buffers = buffers;
        self.broken = result.is_err();
        result
    }

    /// Feeds `input`, handing every piece of it whose encoding is settled to `emit`, in
    /// order, and holding back the rest.
    fn feed_with(&mut self, input: &[u8], mut emit: impl FnMut(&Encoder, &[u8])) {
        self.fed = self.fed.saturating_add(input.len());
        let mut rest = input;
        if self.held_len > 0 {
            // Settle the held bytes with the first bytes of `input`. Three are enough: the
            // rule holds back at most three bytes, so the held ones come out.
            let held = self.held_len;
            let take = input.len().min(3);
            let mut joined = [0u8; 6];
            joined[..held].copy_from_slice(&self.held[..held]);
            joined[held..held + take].copy_from_slice(&input[..take]);
            let joined = &joined[..held + take];
            let ready = joined.len() - held_back(&self.encoder, joined);
            emit(&self.encoder, &joined[..ready]);
            if take == input.len() {
                self.hold(&joined[ready..]);
                return;
            }
            // `ready >= held`: the stream goes on from there with nothing held.
            rest = &input[ready - held..];
        }
        let ready = rest.len() - held_back(&self.encoder, rest);
        emit(&self.encoder, &rest[..ready]);
        self.hold(&rest[ready..]);
    }

    /// Ends the stream: appends the encoding of the bytes held back to `out`. The encoder can
    /// then start a new stream.
    ///
    /// ```
    /// use pctenc::{sets, Encoder, StreamEncoder};
    ///
    /// let mut stream = StreamEncoder::new(Encoder::new(sets::COMPONENT).keep_escapes(true));
    /// let mut out = Vec::new();
    /// stream.feed(b"50%", &mut out);
    /// assert_eq!(out, b"50");
    /// stream.finish(&mut out);
    /// assert_eq!(out, b"50%25");
    /// assert_eq!(stream.fed(), 0);
    /// ```
    pub fn finish(&mut self, out: &mut Vec<u8>) {
        encode_piece(&self.encoder, &self.held[..self.held_len], out);
        self.held_len = 0;
        self.fed = 0;
    }

    /// Holds `bytes` (at most three, by `held_back`) for the next piece.
    fn hold(&mut self, bytes: &[u8]) {
        self.held[..bytes.len()].copy_from_slice(bytes);
        self.held_len = bytes.len();
    }
}

/// Appends the encoding of `data` to `out` (on the rayon pool when it is large).
fn encode_piece(encoder: &Encoder, data: &[u8], out: &mut Vec<u8>) {
    if !data.is_empty() {
        #[cfg(feature = "rayon")]
        encoder.par_encode_vec(data, out);
        #[cfg(not(feature = "rayon"))]
        encoder.encode_vec(data, out);
    }
}

/// How many bytes at the end of `data` (at most three) must wait for the next input: a `%`
/// or `%H` that may start an escape (re-quoting), an unfinished UTF-8 sequence (IRI sets,
/// which keep a sequence raw only once it is whole). When it is 0, the encoding of `data`
/// does not depend on what follows it.
fn held_back(encoder: &Encoder, data: &[u8]) -> usize {
    let n = data.len();
    let last = |k: usize| if k <= n { Some(data[n - k]) } else { None };
    let requote = encoder.is_keeping_escapes();
    match last(1) {
        Some(b'%') if requote => 1,
        Some(h) if requote && h.is_ascii_hexdigit() && last(2) == Some(b'%') => 2,
        Some(0x80..=0xFF) if encoder.set().is_iri() => unfinished_utf8(data),
        _ => 0,
    }
}

/// The length of the start of a UTF-8 sequence at the end of `data` that more bytes could
/// complete (0 if there is none).
fn unfinished_utf8(data: &[u8]) -> usize {
    for k in 1..=data.len().min(3) {
        let needs = match data[data.len() - k] {
            0x80..=0xBF => continue,
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xFF => 4,
            _ => return 0,
        };
        return if needs > k { k } else { 0 };
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sets;

    #[test]
    fn unfinished_sequences() {
        assert_eq!(unfinished_utf8(b"a\xC3"), 1);
        assert_eq!(unfinished_utf8("é".as_bytes()), 0);
        assert_eq!(unfinished_utf8(b"\xE2\x82"), 2);
        assert_eq!(unfinished_utf8(b"\xF0\x9F\x98"), 3);
        assert_eq!(unfinished_utf8(b"\x9F\x98\x80"), 0);
        assert_eq!(unfinished_utf8(b"\xFF"), 1);
        assert_eq!(unfinished_utf8(b""), 0);
    }

    #[test]
    fn what_is_held_back() {
        let plain = Encoder::new(sets::COMPONENT);
        let requote = plain.keep_escapes(true);
        let iri = Encoder::new(sets::COMPONENT.with_iri(true));
        assert_eq!(held_back(&plain, b"a%4"), 0);
        assert_eq!(held_back(&requote, b"a%"), 1);
        assert_eq!(held_back(&requote, b"a%4"), 2);
        assert_eq!(held_back(&requote, b"%41"), 0);
        assert_eq!(held_back(&requote, b"a%g"), 0);
        assert_eq!(held_back(&requote, b"\xC3"), 0);
        assert_eq!(held_back(&iri, b"a\xC3"), 1);
        assert_eq!(held_back(&iri, b"a%"), 0);
    }

    /// Three bytes after held ones settle them (the `ready >= held` step).
    #[test]
    fn held_bytes_are_settled_by_three_more() {
        let both = Encoder::new(sets::PATH.with_iri(true)).keep_escapes(true);
        let mut out = Vec::new();
        let mut stream = StreamEncoder::new(both);
        stream.feed(b"\xF0\x9F\x98", &mut out);
        assert_eq!(stream.held_len, 3);
        stream.feed(b"\x80%4%4%", &mut out);
        assert_eq!((stream.held_len, &out[..]), (1, "😀%254%254".as_bytes()));
        stream.finish(&mut out);
        assert_eq!(out, "😀%254%254%25".as_bytes());
        // The three bytes are all held in turn: the `%` alone comes out.
        stream.feed(b"%", &mut out);
        stream.feed("€x".as_bytes(), &mut out);
        assert_eq!(&out[out.len() - 7..], "%25€x".as_bytes());
    }
}
