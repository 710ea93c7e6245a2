//! The output forms of an [`Encoder`]: `Cow`, `String`, `Vec`, slice, UTF-16, lazy, the
//! parallel `Vec`, `String` and writer; and sizing ([`Encoder::encoded_len`] and its kin).

#[cfg(feature = "alloc")]
use alloc::{borrow::Cow, string::String, vec::Vec};
use core::mem::MaybeUninit;

use super::Encoder;
use super::lazy::PercentEncode;
use super::parts::{Part, try_segments};
#[cfg(feature = "alloc")]
use crate::error::Utf16Error;
use crate::{error::BufferTooSmall, simd};

impl Encoder {
    /// The exact length of the encoded output, or `None` if it does not fit in a `usize`
    /// (possible on 32-bit targets, where a 1.5 GiB input can need more than 4 GiB).
    ///
    /// ```
    /// let enc = pctenc::Encoder::new(pctenc::sets::COMPONENT);
    /// assert_eq!(enc.checked_encoded_len("a b"), Some(5));
    /// ```
    pub fn checked_encoded_len(&self, input: impl AsRef<[u8]>) -> Option<usize> {
        let input = input.as_ref();
        if self.is_plain() {
            return escaped_len(input.len(), simd::count_escapes(self.engine_value(), input, &self.set));
        }
        let (engine, text_set) = (self.engine_value(), self.text_set());
        // Each byte written as three: escapes, and stray `%`s when re-quoting (a copied
        // escape is as long as its input).
        let mut escapes = 0usize;
        let _ = self.try_parts(input, |part| {
            match part {
                Part::Text(text) => {
                    let _ = try_segments(text, &text_set, |seg, set| {
                        escapes += simd::count_escapes(engine, seg, set);
                        Some(())
                    });
                }
                Part::Escape(_) => {}
                Part::Stray => escapes += 1,
            }
            Some(())
        });
        escaped_len(input.len(), escapes)
    }

    /// The exact length of the encoded output, saturating at `usize::MAX` (a length no
    /// allocation can have) instead of overflowing.
    ///
    /// ```
    /// let enc = pctenc::Encoder::new(pctenc::sets::COMPONENT);
    /// assert_eq!(enc.encoded_len("Jürgen"), 11);
    /// ```
    pub fn encoded_len(&self, input: impl AsRef<[u8]>) -> usize {
        self.checked_encoded_len(input).unwrap_or(usize::MAX)
    }

    /// The exact length of the encoding of each part of `input` that `bounds` delimits, part
    /// `i` being `input[bounds[i]..bounds[i + 1]]`: what [`encoded_len`](Encoder::encoded_len)
    /// gives for each part, in one pass over the bytes. For columnar data, where the parts
    /// are the rows of one buffer (Arrow's offsets, as `usize`) and are short and many: one
    /// call per row costs more than the row's bytes. Empty when `bounds` has fewer than two
    /// elements.
    ///
    /// # Panics
    ///
    /// If `bounds` is not ascending, or its last element is past the end of `input`.
    ///
    /// # Examples
    ///
    /// ```
    /// let enc = pctenc::Encoder::new(pctenc::sets::COMPONENT);
    /// assert_eq!(enc.encoded_lens("a bcé/", &[0, 1, 3, 6, 7]), [1, 4, 7, 3]);
    /// ```
    #[cfg(feature = "alloc")]
    pub fn encoded_lens(&self, input: impl AsRef<[u8]>, bounds: &[usize]) -> Vec<usize> {
        let input = input.as_ref();
        assert!(bounds.windows(2).all(|w| w[0] <= w[1]), "bounds are not ascending");
        let (Some(&base), Some(&last)) = (bounds.first(), bounds.last()) else { return Vec::new() };
        assert!(last <= input.len(), "bounds end at {last}, past the input's {} bytes", input.len());
        if !self.is_plain() {
            // Re-quoting and IRI sets look at neighbouring bytes: part by part.
            return bounds.windows(2).map(|w| self.encoded_len(&input[w[0]..w[1]])).collect();
        }
        // The escapes before each bound, then each part's length from two of them.
        let mut lens = alloc::vec![0; bounds.len()];
        simd::count_escapes_before(self.engine_value(), input, &self.set, base, bounds, &mut lens);
        for i in 0..bounds.len() - 1 {
            let escapes = lens[i + 1] - lens[i];
            lens[i] = escaped_len(bounds[i + 1] - bounds[i], escapes).unwrap_or(usize::MAX);
        }
        lens.pop();
        lens
    }

    /// Encodes `input` into the start of `out` and returns the number of bytes written.
    /// Never allocates, never writes past `out`, and reads the input once when it fits. Size
    /// `out` with [`encoded_len`](Encoder::encoded_len), or use a buffer at hand and retry on
    /// the error.
    ///
    /// # Errors
    ///
    /// [`BufferTooSmall`], with the size needed, when `out` is too small; what was written
    /// into `out` is then unspecified.
    ///
    /// # Examples
    ///
    /// ```
    /// let enc = pctenc::Encoder::new(pctenc::sets::COMPONENT);
    /// let mut buf = [0u8; 64];
    /// let n = enc.encode_slice("a&b", &mut buf).unwrap();
    /// assert_eq!(&buf[..n], b"a%26b");
    /// ```
    pub fn encode_slice(&self, input: impl AsRef<[u8]>, out: &mut [u8]) -> Result<usize, BufferTooSmall> {
        let input = input.as_ref();
        let available = out.len();
        // SAFETY: the encoders write only initialised bytes (and never read `out`).
        let uninit = unsafe { crate::kernel_io::as_uninit(out) };
        // One pass: the size is only computed when it turns out not to fit.
        self.write(input, uninit).ok_or_else(|| BufferTooSmall { needed: self.encoded_len(input), available })
    }

    /// Encodes `input` into the start of `out`: the length, or `None` if `out` is too small.
    /// Writes only initialised bytes, and reads nothing of `out`.
    fn write(&self, input: &[u8], out: &mut [MaybeUninit<u8>]) -> Option<usize> {
        if self.is_plain() {
            return simd::encode(self.engine_value(), input, &self.set, self.digits(), out).ok();
        }
        let (engine, digits, text_set) = (self.engine_value(), self.digits(), self.text_set());
        let mut written = 0;
        self.try_parts(input, |part| {
            let copy = match part {
                Part::Text(text) => {
                    return try_segments(text, &text_set, |seg, set| {
                        written += simd::encode(engine, seg, set, digits, out.get_mut(written..)?).ok()?;
                        Some(())
                    });
                }
                Part::Escape(escape) => escape,
                Part::Stray => b"%25",
            };
            crate::kernel_io::put(out.get_mut(written..written + copy.len())?, copy);
            written += copy.len();
            Some(())
        })?;
        Some(written)
    }

    /// Encodes `input`, borrowing it when nothing needs escaping. A scan finds the first byte
    /// that changes; the bytes before it are copied and the rest is encoded as
    /// [`encode_vec`](Encoder::encode_vec) does, without counting the escapes first (except
    /// for re-quoting and IRI encoders, and inputs over 1 MiB, which are counted so that
    /// the output is allocated once, at its exact size).
    ///
    /// # Panics
    ///
    /// Only where any `String` growth panics: when the output's length overflows `usize`.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::borrow::Cow;
    ///
    /// let enc = pctenc::Encoder::new(pctenc::sets::COMPONENT);
    /// assert!(matches!(enc.encode("plain"), Cow::Borrowed("plain")));
    /// assert_eq!(enc.encode("a b"), "a%20b");
    /// ```
    #[cfg(feature = "alloc")]
    pub fn encode<'a, I: AsRef<[u8]> + ?Sized>(&self, input: &'a I) -> Cow<'a, str> {
        let input = input.as_ref();
        let out = if self.is_plain() && input.len() <= ESTIMATED {
            // Found, not counted: the output is written from the first byte that changes.
            let first = simd::first_change(self.engine_value(), input, &self.set);
            if first == input.len() {
                // SAFETY: nothing changes, so every byte is one the set keeps: ASCII (a plain
                // set escapes every non-ASCII byte).
                return Cow::Borrowed(unsafe { core::str::from_utf8_unchecked(input) });
            }
            let rest = &input[first..];
            let mut out = Vec::with_capacity(first.saturating_add(self.room(0, rest)));
            out.extend_from_slice(&input[..first]);
            self.append_plain(rest, &mut out);
            out
        } else {
            let len = self.checked_encoded_len(input).expect("encoded output overflows usize");
            if len == input.len() && !self.has_plus_space(input) {
                // SAFETY: nothing is escaped, so every byte is one the set keeps: with an IRI
                // set, ASCII or part of valid UTF-8 (`try_segments` escapes the bytes that
                // are not); re-quoting, also part of a copied `%HH` escape or a kept `+`.
                return Cow::Borrowed(unsafe { core::str::from_utf8_unchecked(input) });
            }
            // The length is known: write the output without counting the escapes again.
            let mut out = Vec::with_capacity(len);
            self.append_sized(input, &mut out, len);
            out
        };
        // SAFETY: as in `encode_string`: escapes are ASCII, kept bytes are ASCII or (IRI)
        // whole valid UTF-8 sequences.
        Cow::Owned(unsafe { String::from_utf8_unchecked(out) })
    }

    #[cfg(feature = "alloc")]
    fn has_plus_space(&self, input: &[u8]) -> bool {
        self.set.space_as_plus() && input.contains(&b' ')
    }

    /// Appends the encoding of `input` to `out`.
    ///
    /// # Panics
    ///
    /// Only where any `String` growth panics: when the output's length overflows `usize`.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut url = String::from("https://example.org/search?q=");
    /// pctenc::Encoder::new(pctenc::sets::FORM).encode_string("rust simd", &mut url);
    /// assert_eq!(url, "https://example.org/search?q=rust+simd");
    /// ```
    #[cfg(feature = "alloc")]
    pub fn encode_string(&self, input: impl AsRef<[u8]>, out: &mut String) {
        // SAFETY: `encode_vec` appends only ASCII escapes (written, or copied when re-quoting)
        // and bytes that the set keeps, which are ASCII or (IRI) whole valid UTF-8 sequences,
        // so `out` stays valid UTF-8.
        self.encode_vec(input, unsafe { out.as_mut_vec() });
    }

    /// Appends the encoding of `input` to a byte vector (the output is ASCII, or valid UTF-8
    /// with an IRI set).
    ///
    /// # Panics
    ///
    /// Only where any `Vec` growth panics: when the output's length overflows `usize`.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut out = b"key=".to_vec();
    /// pctenc::Encoder::new(pctenc::sets::FORM).encode_vec("a&b", &mut out);
    /// assert_eq!(out, b"key=a%26b");
    /// ```
    #[cfg(feature = "alloc")]
    pub fn encode_vec(&self, input: impl AsRef<[u8]>, out: &mut Vec<u8>) {
        let input = input.as_ref();
        if !self.is_plain() || input.len() > ESTIMATED {
            // Re-quoting and IRI sets look at neighbouring bytes, and a large input's output
            // is worth sizing exactly (an estimate misled by its start could reserve three
            // times its length): measured, then written.
            let len = self.checked_encoded_len(input).expect("encoded output overflows usize");
            return self.append_sized(input, out, len);
        }
        out.reserve(self.room(out.capacity() - out.len(), input));
        self.append_plain(input, out);
    }

    /// Appends the encoding of `input` by a plain encoder to `out`: written straight into
    /// spare capacity, grown when it runs out, neither counted first nor zeroed. `out.len()`
    /// covers only what is written, so a panic leaves `out` valid (and a `String` UTF-8).
    #[cfg(feature = "alloc")]
    fn append_plain(&self, input: &[u8], out: &mut Vec<u8>) {
        debug_assert!(self.is_plain());
        let (engine, digits) = (self.engine_value(), self.digits());
        let mut rest = input;
        loop {
            match simd::encode(engine, rest, &self.set, digits, out.spare_capacity_mut()) {
                Ok(written) => {
                    // SAFETY: the encoder wrote `written` bytes at the start of the spare
                    // capacity.
                    unsafe { out.set_len(out.len() + written) };
                    return;
                }
                Err(partial) => {
                    // SAFETY: as above, `partial.written` bytes.
                    unsafe { out.set_len(out.len() + partial.written) };
                    rest = &rest[partial.read..];
                    out.reserve(regrow(rest.len(), partial));
                }
            }
        }
    }

    /// The room to reserve for the encoding of `input` by a plain encoder, in an output with
    /// `spare` bytes of spare capacity. A short input gets three bytes per byte, the most it
    /// can need. A long one (at most [`ESTIMATED`] bytes) gets nothing more when the output
    /// has room for light escaping already (a reused buffer, the hot path: should the room
    /// run out, the vector grows at the density seen); otherwise its length plus the escapes
    /// that its first bytes suggest, and a margin.
    #[cfg(feature = "alloc")]
    fn room(&self, spare: usize, input: &[u8]) -> usize {
        /// The bytes whose escapes predict the rest's.
        const SAMPLE: usize = 512;
        if input.len() <= SAMPLE {
            return 3 * input.len();
        }
        let light = input.len().saturating_add(input.len() / 4 + 64);
        if spare >= light {
            return light;
        }
        let escapes = simd::count_escapes(self.engine_value(), &input[..SAMPLE], &self.set);
        let extra = (input.len() / SAMPLE + 1).saturating_mul(2 * escapes);
        input
            .len()
            .saturating_add(extra)
            .saturating_add(input.len() / 16 + 64)
            .min(input.len().saturating_mul(3))
    }

    /// Appends the encoding of `input`, whose length is `len`, to `out`.
    #[cfg(feature = "alloc")]
    fn append_sized(&self, input: &[u8], out: &mut Vec<u8>, len: usize) {
        out.reserve(len);
        let written =
            self.write(input, &mut out.spare_capacity_mut()[..len]).expect("room for the measured length");
        debug_assert_eq!(written, len);
        // SAFETY: `write` wrote `written` bytes at the start of the spare capacity.
        unsafe { out.set_len(out.len() + written) };
    }

    /// Appends the encoding of `input` to `out`, using every thread of the rayon pool
    /// when `input` is large (at least [`PAR_ENCODE_THRESHOLD`](crate::PAR_ENCODE_THRESHOLD)
    /// bytes, and more than one thread; otherwise it is [`encode_vec`](Encoder::encode_vec)). The output is exactly
    /// `encode_vec`'s, whatever the number of threads; it is allocated once, and each
    /// thread writes its own part of it.
    ///
    /// Runs on the current rayon pool: `rayon::ThreadPool::install` chooses another.
    ///
    /// # Panics
    ///
    /// Only where any `Vec` growth panics: when the output's length overflows `usize`.
    ///
    /// # Examples
    ///
    /// ```
    /// let log = "GET /search?q=caf\u{e9} HTTP/1.1\n".repeat(50_000);
    /// let enc = pctenc::Encoder::new(pctenc::sets::COMPONENT);
    /// let mut out = Vec::new();
    /// enc.par_encode_vec(&log, &mut out);
    /// assert_eq!(out, enc.encode(&log).as_bytes());
    /// ```
    #[cfg(feature = "rayon")]
    pub fn par_encode_vec(&self, input: impl AsRef<[u8]>, out: &mut Vec<u8>) {
        let input = input.as_ref();
        if input.len() < crate::par::PAR_ENCODE_THRESHOLD || crate::par::single_thread() {
            self.encode_vec(input, out);
        } else {
            super::par::encode_vec(self, input, out, crate::par::CHUNK);
        }
    }

    /// Writes the encoding of `input` to `out`, using every thread of the rayon pool when
    /// `input` is large (at least [`PAR_ENCODE_THRESHOLD`](crate::PAR_ENCODE_THRESHOLD) bytes).
    /// Unlike
    /// [`par_encode_vec`](Encoder::par_encode_vec), the output is never assembled in memory:
    /// chunks are encoded a window at a time into reused buffers and written in order while
    /// the next window is encoded, so memory stays bounded (about 5 MiB for text, 12 MiB at
    /// most, whatever the number of threads) however large the input, and the input is read
    /// once.
    ///
    /// # Errors
    ///
    /// The first error of `out`, as it is; part of the encoding may have been written.
    ///
    /// # Examples
    ///
    /// ```
    /// let log = "GET /caf\u{e9} 200\n".repeat(50_000);
    /// let enc = pctenc::Encoder::new(pctenc::sets::PATH);
    /// let mut file = Vec::new(); // any `io::Write + Send`
    /// enc.par_encode_to(&log, &mut file).unwrap();
    /// assert_eq!(file, enc.encode(&log).as_bytes());
    /// ```
    #[cfg(feature = "rayon")]
    pub fn par_encode_to<W: std::io::Write + Send>(
        &self,
        input: impl AsRef<[u8]>,
        out: &mut W,
    ) -> std::io::Result<()> {
        self.par_encode_to_with(input.as_ref(), out, &mut Default::default())
    }

    /// [`par_encode_to`](Encoder::par_encode_to) with output buffers kept by the caller.
    #[cfg(feature = "rayon")]
    pub(crate) fn par_encode_to_with<W: std::io::Write + Send>(
        &self,
        input: &[u8],
        out: &mut W,
        buffers: &mut crate::par::Buffers,
    ) -> std::io::Result<()> {
        if input.len() < crate::par::PAR_ENCODE_THRESHOLD {
            let mut encoded = Vec::new();
            self.encode_vec(input, &mut encoded);
            out.write_all(&encoded)
        } else {
            super::par::encode_to(self, input, out, buffers, crate::par::WRITE_CHUNK)
        }
    }

    /// [`encode`](Encoder::encode) on every thread of the rayon pool when `input` is large
    /// (at least [`PAR_ENCODE_THRESHOLD`](crate::PAR_ENCODE_THRESHOLD) bytes, on a pool of
    /// more than one thread): the same text, and the same type, so that one can stand in for
    /// the other. Below that, it is `encode`, borrowing `input` when nothing needs escaping;
    /// above it, the output is always owned ([`par_encode_vec`](Encoder::par_encode_vec)).
    ///
    /// ```
    /// let text = "Jürgen & Björk ".repeat(100_000);
    /// let enc = pctenc::Encoder::new(pctenc::sets::COMPONENT);
    /// assert_eq!(enc.par_encode(&text), enc.encode(&text));
    /// ```
    #[cfg(feature = "rayon")]
    pub fn par_encode<'a, I: AsRef<[u8]> + ?Sized>(&self, input: &'a I) -> Cow<'a, str> {
        let input = input.as_ref();
        if input.len() < crate::par::PAR_ENCODE_THRESHOLD || crate::par::single_thread() {
            return self.encode(input);
        }
        let mut out = String::new();
        // SAFETY: as in `encode_string`, `par_encode_vec` appends only valid UTF-8.
        self.par_encode_vec(input, unsafe { out.as_mut_vec() });
        Cow::Owned(out)
    }

    /// Encodes UTF-16 text (a JavaScript or Windows string) as its UTF-8 bytes, failing on a
    /// lone surrogate exactly where `encodeURIComponent` throws `URIError`
    /// ([`encode_utf16_lossy`](Encoder::encode_utf16_lossy) writes U+FFFD instead).
    ///
    /// # Errors
    ///
    /// A [`Utf16Error`] naming the index and value of the first lone surrogate.
    ///
    /// # Examples
    ///
    /// ```
    /// let enc = pctenc::Encoder::new(pctenc::sets::COMPONENT);
    /// let text: Vec<u16> = "😀 ok".encode_utf16().collect();
    /// assert_eq!(enc.encode_utf16(&text).unwrap(), "%F0%9F%98%80%20ok");
    /// assert_eq!(enc.encode_utf16(&[0xDC00]).unwrap_err().index(), 0);
    /// ```
    #[cfg(feature = "alloc")]
    pub fn encode_utf16(&self, input: &[u16]) -> Result<String, Utf16Error> {
        let mut utf8 = String::with_capacity(input.len());
        let mut index = 0;
        for unit in char::decode_utf16(input.iter().copied()) {
            match unit {
                Ok(c) => {
                    utf8.push(c);
                    index += c.len_utf16();
                }
                Err(e) => return Err(Utf16Error { index, unit: e.unpaired_surrogate() }),
            }
        }
        Ok(self.encode(&utf8).into_owned())
    }

    /// A lazy encoding of `input`: an iterator over the pieces of the output (runs of kept
    /// input and escapes) that also implements `Display`. Nothing is allocated; see
    /// [`PercentEncode`].
    ///
    /// ```
    /// let enc = pctenc::Encoder::new(pctenc::sets::COMPONENT);
    /// let pieces: Vec<&str> = enc.lazy("ab c").collect();
    /// assert_eq!(pieces, ["ab", "%20", "c"]);
    /// assert_eq!(format!("/q/{}", enc.lazy("a b")), "/q/a%20b");
    /// ```
    pub fn lazy<'a, I: AsRef<[u8]> + ?Sized>(&self, input: &'a I) -> PercentEncode<'a> {
        PercentEncode::new(input.as_ref(), self.text_set(), self.escapes(), self.keep_escapes)
    }
}

/// UTF-16 text that may hold lone surrogates.
impl Encoder {
    /// Encodes UTF-16 text as its UTF-8 bytes, writing each lone surrogate as U+FFFD (so
    /// `%EF%BF%BD` unless the set keeps it): what `URLSearchParams` and the URL parser do with
    /// a JavaScript string, and what [`String::from_utf16_lossy`] gives. Never fails; on
    /// valid UTF-16 it is [`encode_utf16`](Encoder::encode_utf16).
    ///
    /// ```
    /// use pctenc::{sets, Encoder};
    ///
    /// let enc = Encoder::new(sets::FORM);
    /// // new URLSearchParams({"c\uD83D": "23"}).toString() is "c%EF%BF%BD=23"
    /// assert_eq!(enc.encode_utf16_lossy(&[0x63, 0xD83D]), "c%EF%BF%BD");
    /// let text: Vec<u16> = "😀 ok".encode_utf16().collect();
    /// assert_eq!(enc.encode_utf16_lossy(&text), enc.encode_utf16(&text).unwrap());
    /// ```
    #[cfg(feature = "alloc")]
    pub fn encode_utf16_lossy(&self, input: &[u16]) -> String {
        let utf8 = String::from_utf16_lossy(input);
        let mut out = String::new();
        self.encode_string(&utf8, &mut out);
        out
    }
}

/// `len + 2 * escapes` without overflow.
pub(crate) fn escaped_len(len: usize, escapes: usize) -> Option<usize> {
    escapes.checked_mul(2)?.checked_add(len)
}

/// The largest input whose owned encoding is sized by an estimate (`Encoder::room`) rather
/// than counted: the most an estimate can over-reserve is three times this.
#[cfg(feature = "alloc")]
const ESTIMATED: usize = 1 << 20;

/// What to reserve for the encoding of the `rest` of an input after a call that ran out of
/// room: the rest at that call's output-per-input ratio (at least 1, at most 3), plus a
/// margin; always room for the next block, so each round makes progress.
#[cfg(feature = "alloc")]
fn regrow(rest: usize, done: crate::kernel_io::Partial) -> usize {
    // In eighths: 8 to 24.
    let ratio = match done.read {
        0 => 24,
        read => done.written.saturating_mul(8).div_ceil(read).clamp(8, 24),
    };
    (rest / 8 * ratio + rest % 8 * 3).saturating_add(rest / 8 + 256)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaped_len_is_checked() {
        assert_eq!(escaped_len(3, 1), Some(5));
        assert_eq!(escaped_len(usize::MAX / 3 + 1, usize::MAX / 3 + 1), None);
        assert_eq!(escaped_len(usize::MAX, 1), None);
        assert_eq!(escaped_len(1, usize::MAX / 2 + 1), None);
    }
}
