//! The streaming APIs (`StreamEncoder`, `StreamDecoder` and the `std::io` adapters) give
//! exactly what the one-shot functions give, errors included, however the input is split;
//! they cope with readers and writers that misbehave, and keep memory bounded.

mod common;

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::{self, BufRead, Read, Write};
use std::rc::Rc;

use common::{Outcome, all_decoders, show};
use pctenc::io::{CHUNK, MAX_BUFFERED};
use pctenc::{
    DecodeError, DecodeErrorKind, DecodeReader, DecodeWriter, Decoder, EncodeReader, EncodeWriter, Encoder,
    Reject, StreamEncoder, Utf8Mode, sets,
};

// ---------------------------------------------------------------------------------------------
// Inputs and splits

/// Small inputs with the cases a split can get wrong: escapes, `%` at the end, `+`, UTF-8
/// sequences (valid, unfinished, invalid), `%u` escapes.
const TRICKY: &[&[u8]] = &[
    b"",
    b"%",
    b"%%",
    b"%C3",
    b"%C3%A9",
    b"a%c3%A9b",
    b"%%41",
    b"100%",
    b"%4",
    b"%zz",
    b"%4g%",
    b"+a+%2B+",
    "é€😀 ".as_bytes(),
    b"\xC3",
    b"\xE2\x82",
    b"a\xF0\x9F\x98",
    b"\xFF\xFE\x80",
    b"\xC3(",
    b"%C3(",
    b"%E2%82%AC%F0%9F%98%80",
    b"%ED%A0%80",
    b"%C0%AF",
    b"a%F0%9F%98%",
    b"%E2%82%AC%",
    b"%uD83D%uDE00",
    b"%u00e9x",
    b"%uD83D",
    b"%uD83D%u",
    b"%uDE00a",
    b"%u12",
    b"a%2Fb%00",
    b"%4%41%%e9%",
    "é%C3%A9%é%\u{20AC}".as_bytes(),
];

/// `input` cut at `cuts` (sorted offsets; equal cuts give empty pieces).
fn split<'a>(input: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
    let mut pieces = Vec::new();
    let mut from = 0;
    for &to in cuts.iter().chain([&input.len()]) {
        pieces.push(&input[from..to]);
        from = to;
    }
    pieces
}

/// No cut, and every way to cut at one or two points (a double cut gives an empty piece).
fn all_cuts(len: usize) -> Vec<Vec<usize>> {
    let mut all = vec![vec![]];
    for a in 0..=len {
        for b in a..=len {
            all.push(vec![a, b]);
        }
    }
    all
}

/// A seeded xorshift generator: the large tests are random but reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// `k` random cut points of `0..=len`, sorted.
    fn cuts(&mut self, len: usize, k: usize) -> Vec<usize> {
        let mut cuts: Vec<usize> = (0..k).map(|_| self.below(len + 1)).collect();
        cuts.sort_unstable();
        cuts
    }
}

/// Random input with every kind of trouble for the decoder and the encoder.
fn noisy(rng: &mut Rng, len: usize) -> Vec<u8> {
    const PARTS: &[&[u8]] = &[
        b" ",
        b"+",
        b"%",
        b"%4",
        b"%41",
        b"%C3%A9",
        b"%e2%82%ac",
        b"%F0%9F%98%80",
        b"%zz",
        b"%u00e9",
        b"%uD83D%uDE00",
        b"%uD83D",
        b"\xC3",
        b"\xFF",
        b"\x80",
        b"/",
        b"\r\n",
    ];
    const TEXT: &[&str] = &["a", "Z", "0", "é", "€", "😀", "-", "~"];
    let mut out = Vec::with_capacity(len + 16);
    while out.len() < len {
        if rng.below(3) == 0 {
            out.extend_from_slice(PARTS[rng.below(PARTS.len())]);
        } else {
            out.extend_from_slice(TEXT[rng.below(TEXT.len())].as_bytes());
        }
    }
    out
}

/// Random UTF-8 text, encoded: valid input for every decoder, strict ones included.
fn clean(rng: &mut Rng, len: usize) -> Vec<u8> {
    const TEXT: &[&str] = &["a", "b", " ", "é", "€", "😀", "+", "%", "/", "~", "中文"];
    let mut text = String::new();
    while text.len() < len / 2 {
        text.push_str(TEXT[rng.below(TEXT.len())]);
    }
    Encoder::new(sets::COMPONENT).encode(&text).into_owned().into_bytes()
}

fn encoders() -> Vec<Encoder> {
    vec![
        Encoder::new(sets::COMPONENT),
        Encoder::new(sets::RFC3986).lowercase(true),
        Encoder::new(sets::QUERY),
        Encoder::new(sets::COMPONENT).keep_escapes(true),
        Encoder::new(sets::FORM).keep_escapes(true),
        Encoder::new(sets::COMPONENT.with_iri(true)),
        Encoder::new(sets::PATH.with_iri(true)).keep_escapes(true),
        Encoder::new(sets::FORM.with_iri(true)).keep_escapes(true).lowercase(true),
    ]
}

/// The three switches in every combination, with and without `%u`, and two with the
/// escape options.
fn decoders() -> Vec<Decoder> {
    let mut all = all_decoders();
    all.extend(all_decoders().into_iter().map(|d| d.legacy_u(true)));
    all.push(Decoder::URI);
    all.push(
        Decoder::new().utf8(Utf8Mode::Lossy).reject(Reject::ALL).legacy_u(true).keep_encoded(sets::RFC3986),
    );
    all
}

// ---------------------------------------------------------------------------------------------
// Peers

/// A reader that gives the pieces one by one (a piece larger than the buffer over several
/// reads); empty pieces are skipped, since `Ok(0)` means end of file.
struct Pieces<'a>(VecDeque<&'a [u8]>);

impl<'a> Pieces<'a> {
    fn new(pieces: &[&'a [u8]]) -> Self {
        Pieces(pieces.iter().copied().filter(|p| !p.is_empty()).collect())
    }
}

impl Read for Pieces<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let Some(piece) = self.0.pop_front() else { return Ok(0) };
        let n = piece.len().min(buf.len());
        buf[..n].copy_from_slice(&piece[..n]);
        if n < piece.len() {
            self.0.push_front(&piece[n..]);
        }
        Ok(n)
    }
}

/// Gives one byte per read.
struct OneByte<R>(R);

impl<R: Read> Read for OneByte<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf.len().min(1);
        self.0.read(&mut buf[..n])
    }
}

/// Fails with `Interrupted` every other call.
struct Interrupting<R> {
    inner: R,
    calls: usize,
}

impl<R: Read> Read for Interrupting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.calls += 1;
        if self.calls % 2 == 1 {
            return Err(io::ErrorKind::Interrupted.into());
        }
        self.inner.read(buf)
    }
}

impl<W: Write> Write for Interrupting<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.calls += 1;
        if self.calls % 2 == 1 {
            return Err(io::ErrorKind::Interrupted.into());
        }
        self.inner.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Reads or writes a random number of bytes (at least one), fewer than asked most times.
struct Short<T> {
    inner: T,
    rng: Rng,
}

impl<R: Read> Read for Short<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = (1 + self.rng.below(buf.len().clamp(1, 5000))).min(buf.len());
        self.inner.read(&mut buf[..n])
    }
}

impl<W: Write> Write for Short<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = (1 + self.rng.below(buf.len().clamp(1, 5000))).min(buf.len());
        self.inner.write(&buf[..n])
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Accepts one byte per write.
struct OneByteWriter(Vec<u8>);

impl Write for OneByteWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = buf.len().min(1);
        self.0.extend_from_slice(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Accepts nothing.
#[derive(Debug)]
struct ZeroWriter;

impl Write for ZeroWriter {
    fn write(&mut self, _: &[u8]) -> io::Result<usize> {
        Ok(0)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Fails (writes and flushes) on the calls whose number `fails` says, and otherwise writes
/// a part of what it is given.
struct Flaky {
    out: Vec<u8>,
    calls: usize,
    failures: usize,
    fails: fn(usize) -> bool,
}

impl Flaky {
    fn call(&mut self) -> io::Result<()> {
        self.calls += 1;
        if (self.fails)(self.calls) {
            self.failures += 1;
            return Err(io::Error::other("disk on fire"));
        }
        Ok(())
    }
}

impl Write for Flaky {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.call()?;
        let n = buf.len().min(1 + self.calls % 1000);
        self.out.extend_from_slice(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.call()
    }
}

/// Records the largest single write and the largest read asked for.
#[derive(Default)]
struct Counting {
    total: usize,
    largest: usize,
}

impl Write for Counting {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.total += buf.len();
        self.largest = self.largest.max(buf.len());
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A reader of `len` copies of `byte` that records the largest read asked for.
struct Repeat {
    byte: u8,
    left: usize,
    largest_ask: usize,
}

impl Read for Repeat {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.largest_ask = self.largest_ask.max(buf.len());
        let n = buf.len().min(self.left);
        buf[..n].fill(self.byte);
        self.left -= n;
        Ok(n)
    }
}

/// A writer into a buffer the test keeps, to look at after the adapter is dropped.
#[derive(Clone, Default)]
struct Shared(Rc<RefCell<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// Runners: each feeds the pieces through one streaming API.

fn decode_error(err: &io::Error) -> (usize, DecodeErrorKind) {
    assert_eq!(err.kind(), io::ErrorKind::InvalidData, "{err}");
    let e = err.get_ref().and_then(|e| e.downcast_ref::<DecodeError>()).expect("wraps a DecodeError");
    (e.offset(), e.kind())
}

fn encode_stream(enc: Encoder, pieces: &[&[u8]]) -> Vec<u8> {
    let mut stream = StreamEncoder::new(enc);
    let mut out = b"<prefix>".to_vec();
    let mut fed = 0;
    for piece in pieces {
        stream.feed(piece, &mut out);
        fed += piece.len();
        assert_eq!(stream.fed(), fed);
    }
    stream.finish(&mut out);
    assert_eq!(stream.fed(), 0);
    out.split_off(8)
}

fn encode_writer<W: Write>(enc: Encoder, pieces: &[&[u8]], inner: W) -> W {
    let mut writer = EncodeWriter::new(enc, inner);
    for piece in pieces {
        writer.write_all(piece).unwrap();
    }
    writer.finish().unwrap()
}

/// Reads everything with reads of at most `size` bytes, checking that the end stays the end.
fn read_all(reader: &mut impl Read, size: usize) -> io::Result<Vec<u8>> {
    let (mut out, mut buf) = (Vec::new(), vec![0u8; size]);
    loop {
        let n = reader.read(&mut buf)?;
        if n == 0 {
            assert_eq!(reader.read(&mut buf)?, 0, "the end stays the end");
            return Ok(out);
        }
        out.extend_from_slice(&buf[..n]);
    }
}

/// Reads everything through `fill_buf` and `consume`, at most `size` bytes at a time.
fn buf_read_all(reader: &mut impl BufRead, size: usize) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let available = reader.fill_buf()?;
        if available.is_empty() {
            return Ok(out);
        }
        let n = available.len().min(size);
        out.extend_from_slice(&available[..n]);
        reader.consume(n);
    }
}

/// The output of every encoding API on `pieces`, which must be `want`.
fn check_encode(enc: Encoder, input: &[u8], pieces: &[&[u8]], want: &[u8]) {
    let ctx = || format!("{enc:?} on b\"{}\" in {} pieces", show(input), pieces.len());
    assert_eq!(encode_stream(enc, pieces), want, "StreamEncoder: {}", ctx());
    assert_eq!(encode_writer(enc, pieces, Vec::new()), want, "EncodeWriter: {}", ctx());
    let mut reader = EncodeReader::new(enc, Pieces::new(pieces));
    assert_eq!(read_all(&mut reader, 64).unwrap(), want, "EncodeReader: {}", ctx());
    let mut reader = EncodeReader::new(enc, Pieces::new(pieces));
    assert_eq!(buf_read_all(&mut reader, 2).unwrap(), want, "EncodeReader as BufRead: {}", ctx());
}

/// What a decoding API gave: the result, and on an error, the output written before it.
type Decoded = (Outcome, Vec<u8>);

fn decode_writer(dec: Decoder, pieces: &[&[u8]]) -> Decoded {
    let mut writer = DecodeWriter::new(dec, Vec::new());
    let failed = |writer: &mut DecodeWriter<Vec<u8>>, e: io::Error| {
        let err = decode_error(&e);
        // The stream is over: every call says so again.
        assert_eq!(decode_error(&writer.write(b"%41").unwrap_err()), err);
        assert_eq!(decode_error(&writer.flush().unwrap_err()), err);
        assert_eq!(decode_error(&writer.try_finish().unwrap_err()), err);
        (Err(err), writer.get_ref().clone())
    };
    for piece in pieces {
        if let Err(e) = writer.write_all(piece) {
            return failed(&mut writer, e);
        }
    }
    if let Err(e) = writer.try_finish() {
        return failed(&mut writer, e);
    }
    // Finishing again finishes an empty stream.
    let out = writer.finish().unwrap();
    (Ok(out.clone()), out)
}

fn decode_reader(dec: Decoder, pieces: &[&[u8]], buf_read: bool) -> Decoded {
    let mut reader = DecodeReader::new(dec, Pieces::new(pieces));
    let (mut out, mut buf) = (Vec::new(), [0u8; 5]);
    loop {
        let step = if buf_read {
            reader.fill_buf().map(|available| {
                let n = available.len().min(3);
                out.extend_from_slice(&available[..n]);
                n
            })
        } else {
            reader.read(&mut buf).inspect(|&n| out.extend_from_slice(&buf[..n]))
        };
        match step {
            Ok(0) => {
                assert_eq!(reader.read(&mut buf).unwrap(), 0, "the end stays the end");
                return (Ok(out.clone()), out);
            }
            Ok(n) if buf_read => reader.consume(n),
            Ok(_) => {}
            Err(e) => {
                let err = decode_error(&e);
                assert_eq!(decode_error(&reader.read(&mut buf).unwrap_err()), err);
                assert_eq!(decode_error(&reader.fill_buf().unwrap_err()), err);
                return (Err(err), out);
            }
        }
    }
}

/// The result of every decoding API on `pieces`, which must be `want`. On an error, what
/// was written before it must be the start of what the input before the error decodes to.
fn check_decode(dec: Decoder, input: &[u8], cuts: &[usize], want: &Outcome) {
    let pieces = split(input, cuts);
    let ctx = || format!("{dec:?} on b\"{}\" cut at {cuts:?}", show(input));
    assert_eq!(&common::stream(dec, input, cuts), want, "StreamDecoder: {}", ctx());
    let runs = [
        ("DecodeWriter", decode_writer(dec, &pieces)),
        ("DecodeReader", decode_reader(dec, &pieces, false)),
        ("DecodeReader as BufRead", decode_reader(dec, &pieces, true)),
    ];
    for (what, (got, written)) in runs {
        assert_eq!(&got, want, "{what}: {}", ctx());
        if let Err((offset, _)) = got
            && let Ok(before) = dec.decode(&input[..offset])
        {
            assert!(
                before.starts_with(&written),
                "{what} wrote more than the input before the error: {}",
                ctx()
            );
        }
    }
}

fn one_shot_decode(dec: Decoder, input: &[u8]) -> Outcome {
    let mut out = Vec::new();
    dec.decode_vec(input, &mut out).map(|()| out).map_err(|e| (e.offset(), e.kind()))
}

fn one_shot_encode(enc: Encoder, input: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    enc.encode_vec(input, &mut out);
    out
}

// ---------------------------------------------------------------------------------------------
// Split invariance

#[test]
fn encoding_is_the_same_for_every_split() {
    for enc in encoders() {
        for &input in TRICKY {
            let want = one_shot_encode(enc, input);
            for cuts in all_cuts(input.len()) {
                check_encode(enc, input, &split(input, &cuts), &want);
            }
            let bytewise: Vec<&[u8]> = input.chunks(1).collect();
            check_encode(enc, input, &bytewise, &want);
        }
    }
}

#[test]
fn decoding_is_the_same_for_every_split() {
    for dec in decoders() {
        for &input in TRICKY {
            let want = one_shot_decode(dec, input);
            for cuts in all_cuts(input.len()) {
                check_decode(dec, input, &cuts, &want);
            }
            let bytewise: Vec<usize> = (1..input.len()).collect();
            check_decode(dec, input, &bytewise, &want);
        }
    }
}

#[test]
fn large_inputs_in_random_pieces() {
    let mut rng = Rng(0x5EED_1234_ABCD_0001);
    let encs = encoders();
    let decs = decoders();
    for round in 0..6 {
        let len = 150_000 + rng.below(400_000);
        let input = if round % 2 == 0 { noisy(&mut rng, len) } else { clean(&mut rng, len) };
        for _ in 0..2 {
            let k = 1 + rng.below(30);
            let cuts = rng.cuts(input.len(), k);
            let pieces = split(&input, &cuts);
            let enc = encs[rng.below(encs.len())];
            check_encode(enc, &input, &pieces, &one_shot_encode(enc, &input));
            let dec = decs[rng.below(decs.len())];
            check_decode(dec, &input, &cuts, &one_shot_decode(dec, &input));
            // A lenient decoder gets through the noise to the end.
            let lenient = dec.lenient(true).utf8(Utf8Mode::Lossy).reject(Reject::NONE);
            let want = one_shot_decode(lenient, &input);
            assert!(want.is_ok());
            check_decode(lenient, &input, &cuts, &want);
        }
    }
}

#[test]
fn errors_far_into_the_stream_have_stream_offsets() {
    let mut rng = Rng(77);
    let mut input = clean(&mut rng, 3 * CHUNK + 1000);
    let bad = input.len();
    input.extend_from_slice(b"%zz");
    input.extend_from_slice(&clean(&mut rng, 5000));
    let want = Err((bad, DecodeErrorKind::InvalidEscape));
    assert_eq!(one_shot_decode(Decoder::URI_COMPONENT, &input), want);
    for k in [0, 1, 7] {
        let cuts = rng.cuts(input.len(), k);
        check_decode(Decoder::URI_COMPONENT, &input, &cuts, &want);
    }
    // Invalid UTF-8 split across the adapters' steps.
    let mut input = vec![b'a'; CHUNK - 1];
    input.extend_from_slice(b"%C3%28");
    let want = Err((CHUNK - 1, DecodeErrorKind::InvalidUtf8));
    assert_eq!(one_shot_decode(Decoder::URI_COMPONENT, &input), want);
    check_decode(Decoder::URI_COMPONENT, &input, &[], &want);
    check_decode(Decoder::URI_COMPONENT, &input, &[CHUNK + 1], &want);
}

/// On a 32-bit target a stream can be longer than `usize` counts: 4 GiB fed in pieces.
/// Offsets up to `usize::MAX` are exact; past it they saturate at `usize::MAX`, never wrap
/// around to a wrong place nor panic. (Zeros decode to themselves; every call decodes the
/// same piece again, so little memory is touched.)
#[cfg(target_pointer_width = "32")]
#[test]
fn stream_offsets_past_4_gib_saturate_on_32_bit() {
    let piece = vec![0u8; 64 << 20];
    let mut stream = pctenc::StreamDecoder::new(Decoder::new());
    let mut out = Vec::with_capacity(piece.len());
    let whole = (usize::MAX - 15) / piece.len();
    for _ in 0..whole {
        out.clear();
        stream.feed(&piece, &mut out).unwrap();
    }
    let rest = usize::MAX - 15 - whole * piece.len();
    out.clear();
    stream.feed(&piece[..rest], &mut out).unwrap();
    assert_eq!(stream.fed(), usize::MAX - 15);
    // An error 16 bytes before the limit is where it is, in a copy of the stream.
    let mut near = stream.clone();
    let err = near.feed(b"%zz", &mut out).unwrap_err();
    assert_eq!((err.offset(), err.kind()), (usize::MAX - 15, DecodeErrorKind::InvalidEscape));
    // Past the limit: saturated.
    stream.feed(&[0u8; 64], &mut out).unwrap();
    assert_eq!(stream.fed(), usize::MAX);
    let err = stream.feed(b"%zz", &mut out).unwrap_err();
    assert_eq!((err.offset(), err.kind()), (usize::MAX, DecodeErrorKind::InvalidEscape));
}

// ---------------------------------------------------------------------------------------------
// Misbehaving peers

fn peer_inputs() -> (Vec<u8>, Vec<u8>) {
    let mut rng = Rng(0xBAD_C0DE);
    (noisy(&mut rng, 200_000), clean(&mut rng, 200_000))
}

#[test]
fn misbehaving_readers() {
    let (noise, text) = peer_inputs();
    let enc = Encoder::new(sets::PATH.with_iri(true)).keep_escapes(true);
    let want = one_shot_encode(enc, &noise);
    let lossy = Decoder::FORM.legacy_u(true);
    let want_lossy = one_shot_decode(lossy, &noise).unwrap();
    let want_text = one_shot_decode(Decoder::URI_COMPONENT, &text).unwrap();

    let got = read_all(&mut EncodeReader::new(enc, OneByte(&noise[..])), 4096).unwrap();
    assert_eq!(got, want, "one byte per read");
    let got = read_all(&mut DecodeReader::new(lossy, OneByte(&noise[..])), 4096).unwrap();
    assert_eq!(got, want_lossy, "one byte per read");

    let interrupting = Interrupting { inner: &noise[..], calls: 0 };
    assert_eq!(read_all(&mut EncodeReader::new(enc, interrupting), 999).unwrap(), want, "interrupted");
    let interrupting = Interrupting { inner: &text[..], calls: 0 };
    let got = read_all(&mut DecodeReader::new(Decoder::URI_COMPONENT, interrupting), 999).unwrap();
    assert_eq!(got, want_text, "interrupted");

    for seed in 1..4 {
        let short = Short { inner: &noise[..], rng: Rng(seed) };
        assert_eq!(read_all(&mut EncodeReader::new(enc, short), 1 << 20).unwrap(), want, "short reads");
        let short = Short { inner: &noise[..], rng: Rng(seed) };
        assert_eq!(read_all(&mut DecodeReader::new(lossy, short), 7).unwrap(), want_lossy, "short reads");
        let short = Short { inner: &text[..], rng: Rng(seed) };
        let got = buf_read_all(&mut DecodeReader::new(Decoder::URI_COMPONENT, short), 100).unwrap();
        assert_eq!(got, want_text, "short reads");
    }
}

/// A reader that has nothing but held-back bytes to give reads more instead of saying end
/// of file; then ends the stream.
#[test]
fn readers_read_on_when_everything_is_held_back() {
    let pieces: [&[u8]; 4] = [b"%", b"4", b"1%", b"C3"];
    let mut reader = DecodeReader::new(Decoder::new(), Pieces::new(&pieces));
    let mut buf = [0u8; 16];
    assert_eq!(reader.read(&mut buf).unwrap(), 1);
    assert_eq!(buf[0], b'A');
    assert_eq!(reader.read(&mut buf).unwrap(), 1);
    assert_eq!(buf[0], 0xC3);
    assert_eq!(reader.read(&mut buf).unwrap(), 0);

    let enc = Encoder::new(sets::COMPONENT).keep_escapes(true);
    let mut reader = EncodeReader::new(enc, Pieces::new(&pieces));
    assert_eq!(read_all(&mut reader, 1).unwrap(), b"%41%C3");
    let mut reader = EncodeReader::new(enc, Pieces::new(&[b"%"]));
    assert_eq!(reader.fill_buf().unwrap(), b"%25");
}

#[test]
fn misbehaving_writers() {
    let (noise, text) = peer_inputs();
    let enc = Encoder::new(sets::FORM.with_iri(true)).keep_escapes(true);
    let want = one_shot_encode(enc, &noise);
    let lossy = Decoder::FORM.legacy_u(true);
    let want_lossy = one_shot_decode(lossy, &noise).unwrap();
    let want_text = one_shot_decode(Decoder::URI_COMPONENT, &text).unwrap();

    assert_eq!(encode_writer(enc, &[&noise], OneByteWriter(Vec::new())).0, want, "one byte per write");
    let mut writer = DecodeWriter::new(lossy, OneByteWriter(Vec::new()));
    writer.write_all(&noise).unwrap();
    assert_eq!(writer.finish().unwrap().0, want_lossy, "one byte per write");

    let interrupting = Interrupting { inner: Vec::new(), calls: 0 };
    assert_eq!(encode_writer(enc, &[&noise], interrupting).inner, want, "interrupted");
    let mut writer = DecodeWriter::new(Decoder::URI_COMPONENT, Interrupting { inner: Vec::new(), calls: 0 });
    writer.write_all(&text).unwrap();
    assert_eq!(writer.finish().unwrap().inner, want_text, "interrupted");

    let short = Short { inner: Vec::new(), rng: Rng(9) };
    let pieces = split(&noise, &Rng(10).cuts(noise.len(), 20));
    assert_eq!(encode_writer(enc, &pieces, short).inner, want, "short writes");
}

#[test]
fn a_writer_that_accepts_nothing_is_write_zero() {
    let mut writer = EncodeWriter::new(Encoder::new(sets::COMPONENT), ZeroWriter);
    // The first write only fills the buffer; passing it on fails.
    assert_eq!(writer.write(b"a b").unwrap(), 3);
    assert_eq!(writer.flush().unwrap_err().kind(), io::ErrorKind::WriteZero);
    assert_eq!(writer.write(b"c").unwrap_err().kind(), io::ErrorKind::WriteZero);
    assert_eq!(writer.try_finish().unwrap_err().kind(), io::ErrorKind::WriteZero);
    assert_eq!(writer.finish().unwrap_err().kind(), io::ErrorKind::WriteZero);

    let mut writer = DecodeWriter::new(Decoder::new(), ZeroWriter);
    writer.write_all(b"%41").unwrap();
    assert_eq!(writer.write_all(b"b").unwrap_err().kind(), io::ErrorKind::WriteZero);
    // Empty output is nothing to write.
    let writer = DecodeWriter::new(Decoder::new(), ZeroWriter);
    assert!(writer.finish().is_ok());
}

/// The writers' `try_finish`.
trait TryFinish: Write {
    fn try_finish(&mut self) -> io::Result<()>;
}

impl<W: Write> TryFinish for EncodeWriter<W> {
    fn try_finish(&mut self) -> io::Result<()> {
        EncodeWriter::try_finish(self)
    }
}

impl<W: Write> TryFinish for DecodeWriter<W> {
    fn try_finish(&mut self) -> io::Result<()> {
        DecodeWriter::try_finish(self)
    }
}

/// Writes `input` with `write` calls of at most `size` bytes, retrying each failed call with
/// the same bytes, then finishes, retrying too; returns the number of errors.
fn write_retrying(writer: &mut impl TryFinish, input: &[u8], size: usize) -> usize {
    let (mut at, mut errors) = (0, 0);
    while at < input.len() {
        let end = input.len().min(at + size);
        match writer.write(&input[at..end]) {
            Ok(n) => {
                assert!(n > 0 && n <= end - at);
                at += n;
            }
            Err(e) => {
                assert_eq!(e.to_string(), "disk on fire");
                errors += 1;
            }
        }
    }
    while let Err(e) = writer.try_finish() {
        assert_eq!(e.to_string(), "disk on fire");
        errors += 1;
    }
    errors
}

#[test]
fn a_failing_writer_loses_and_repeats_nothing() {
    let (noise, text) = peer_inputs();
    let enc = Encoder::new(sets::COMPONENT.with_iri(true)).keep_escapes(true);
    let want = one_shot_encode(enc, &noise);
    // The first few calls fail, then every seventh.
    let schedules: [fn(usize) -> bool; 3] = [|call| call <= 3, |call| call % 7 == 0, |call| call % 2 == 0];
    for fails in schedules {
        for size in [1, 1000, 3 * CHUNK] {
            let flaky = Flaky { out: Vec::new(), calls: 0, failures: 0, fails };
            let mut writer = EncodeWriter::new(enc, flaky);
            let errors = write_retrying(&mut writer, &noise, size);
            assert_eq!(writer.get_ref().failures, errors);
            assert!(errors > 0);
            assert_eq!(writer.get_ref().out, want, "size {size}");

            let flaky = Flaky { out: Vec::new(), calls: 0, failures: 0, fails };
            let mut writer = DecodeWriter::new(Decoder::URI_COMPONENT, flaky);
            write_retrying(&mut writer, &text, size);
            assert_eq!(writer.get_ref().out, one_shot_decode(Decoder::URI_COMPONENT, &text).unwrap());
        }
    }
    // Flushing retries too.
    let flaky = Flaky { out: Vec::new(), calls: 0, failures: 0, fails: |call| call <= 2 };
    let mut writer = EncodeWriter::new(Encoder::new(sets::COMPONENT), flaky);
    writer.write_all(b"a b").unwrap();
    assert!(writer.flush().is_err());
    assert!(writer.flush().is_err());
    writer.flush().unwrap();
    assert_eq!(writer.get_ref().out, b"a%20b");
}

// ---------------------------------------------------------------------------------------------
// The end of the stream

#[test]
fn finish_settles_a_dangling_percent() {
    for (input, offset) in [(&b"100%"[..], 3), (b"%4", 0), (b"ab%C3%A9%", 8)] {
        let mut writer = DecodeWriter::new(Decoder::new(), Vec::new());
        writer.write_all(input).unwrap();
        writer.flush().unwrap();
        let err = writer.try_finish().unwrap_err();
        assert_eq!(decode_error(&err), (offset, DecodeErrorKind::TruncatedEscape));
        assert_eq!(writer.get_ref(), &one_shot_decode(Decoder::new(), &input[..offset]).unwrap());
        assert_eq!(decode_error(&writer.finish().unwrap_err()), (offset, DecodeErrorKind::TruncatedEscape));

        let lenient = Decoder::new().lenient(true);
        let mut writer = DecodeWriter::new(lenient, Vec::new());
        writer.write_all(input).unwrap();
        assert_eq!(writer.finish().unwrap(), one_shot_decode(lenient, input).unwrap());
        assert!(writer_output(lenient, input).ends_with(&input[offset..]));
    }
    // Far into the stream.
    let mut input = vec![b'a'; CHUNK + 5];
    input.push(b'%');
    let mut writer = DecodeWriter::new(Decoder::new(), io::sink());
    writer.write_all(&input).unwrap();
    assert_eq!(decode_error(&writer.finish().unwrap_err()), (CHUNK + 5, DecodeErrorKind::TruncatedEscape));
    let mut reader = DecodeReader::new(Decoder::new(), &input[..]);
    let err = reader.read_to_end(&mut Vec::new()).unwrap_err();
    assert_eq!(decode_error(&err), (CHUNK + 5, DecodeErrorKind::TruncatedEscape));
}

fn writer_output(dec: Decoder, input: &[u8]) -> Vec<u8> {
    let mut writer = DecodeWriter::new(dec, Vec::new());
    writer.write_all(input).unwrap();
    writer.finish().unwrap()
}

#[test]
fn a_finished_writer_starts_a_new_stream() {
    let mut writer = DecodeWriter::new(Decoder::new(), Vec::new());
    writer.write_all(b"a%41").unwrap();
    writer.try_finish().unwrap();
    writer.write_all(b"%zz").unwrap_err();
    let err = writer.try_finish().unwrap_err();
    assert_eq!(decode_error(&err), (0, DecodeErrorKind::InvalidEscape), "offsets count from the new start");
    assert_eq!(writer.get_ref(), b"aA");

    let mut writer = EncodeWriter::new(Encoder::new(sets::COMPONENT).keep_escapes(true), Vec::new());
    writer.write_all(b"%4").unwrap();
    writer.try_finish().unwrap();
    writer.write_all(b"1").unwrap();
    assert_eq!(writer.finish().unwrap(), b"%2541");
}

#[test]
fn dropping_a_writer_finishes_it_as_documented() {
    // Encoder: everything written, the held-back `%` included.
    let mut out = Vec::new();
    let mut writer = EncodeWriter::new(Encoder::new(sets::COMPONENT).keep_escapes(true), &mut out);
    writer.write_all(b"a b%").unwrap();
    drop(writer);
    assert_eq!(out, b"a%20b%25");

    // Decoder: what is held back is written as lenient decoding would, whatever the mode.
    let legacy_u = Decoder::new().legacy_u(true);
    let cases: &[(Decoder, &[u8], &[u8])] = &[
        (Decoder::new(), b"abc%4", b"abc%4"),
        (Decoder::new(), b"ab%", b"ab%"),
        (Decoder::new().lenient(true), b"ab%4", b"ab%4"),
        // Strict UTF-8: an unfinished sequence becomes U+FFFD, as lossy decoding writes it.
        (Decoder::URI_COMPONENT, b"ok%C3", "ok\u{FFFD}".as_bytes()),
        (Decoder::URI_COMPONENT, b"ok%C3%A", "ok\u{FFFD}%A".as_bytes()),
        (Decoder::URI_COMPONENT, b"ok%E2%82", "ok\u{FFFD}".as_bytes()),
        (Decoder::FORM, b"ok%C3", "ok\u{FFFD}".as_bytes()),
        (Decoder::new(), b"ok%C3", b"ok\xC3"),
        // `%u`: a high surrogate waiting for its low half, a `%u` waiting for its digits.
        (legacy_u, b"x%uD83D", "x\u{FFFD}".as_bytes()),
        (legacy_u, b"x%uD83D%uDE0", "x\u{FFFD}%uDE0".as_bytes()),
        (legacy_u, b"x%u00", b"x%u00"),
        (legacy_u.utf8(Utf8Mode::Strict), b"%C3%uD83D", "\u{FFFD}\u{FFFD}".as_bytes()),
    ];
    for &(dec, input, want) in cases {
        let mut out = Vec::new();
        let mut writer = DecodeWriter::new(dec, &mut out);
        writer.write_all(input).unwrap();
        drop(writer);
        assert_eq!(out, want, "{dec:?} on {}", show(input));
    }

    // A stream that failed reported its error: dropping it writes nothing more.
    let mut out = Vec::new();
    let mut writer = DecodeWriter::new(Decoder::new(), &mut out);
    writer.write_all(b"ok ").unwrap();
    assert!(writer.write_all(b"%zz%4").is_err());
    drop(writer);
    assert_eq!(out, b"ok ");
    // Finished already: nothing is written twice.
    let mut out = Vec::new();
    let mut writer = DecodeWriter::new(Decoder::new().lenient(true), &mut out);
    writer.write_all(b"a%").unwrap();
    writer.try_finish().unwrap();
    drop(writer);
    assert_eq!(out, b"a%");
}

/// No byte written to a `DecodeWriter` vanishes when it is dropped: whatever the decoder and
/// however the input was written, a writer whose writes all succeeded writes, when dropped,
/// what the same decoder made lenient (and lossy instead of strict UTF-8) gives for the whole
/// input.
#[test]
fn a_dropped_decode_writer_writes_what_lenient_decoding_gives() {
    for dec in common::option_decoders() {
        let utf8 = if dec.utf8_value() == Utf8Mode::Strict { Utf8Mode::Lossy } else { dec.utf8_value() };
        let relaxed = dec.lenient(true).utf8(utf8);
        for &input in TRICKY {
            let want = relaxed.decode(input);
            for cut in 0..=input.len() {
                let mut out = Vec::new();
                let mut writer = DecodeWriter::new(dec, &mut out);
                let written = writer.write_all(&input[..cut]).and_then(|()| writer.write_all(&input[cut..]));
                drop(writer);
                let case = || format!("{dec:?} on {} cut at {cut}", show(input));
                match (written, &want) {
                    (Ok(()), Ok(want)) => assert_eq!(out, want[..], "{}", case()),
                    // Only a rejected byte fails lenient decoding: strict writes fail there too.
                    (Ok(()), Err(e)) => panic!("{}: writes succeeded, lenient decoding fails: {e}", case()),
                    (Err(_), _) => {}
                }
            }
        }
    }
}

#[test]
fn a_writer_dropped_by_a_panic_writes_nothing_more() {
    let shared = Shared::default();
    let inner = shared.clone();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
        let mut writer = EncodeWriter::new(Encoder::new(sets::COMPONENT), inner);
        writer.write_all(b"a b").unwrap();
        panic!("unwinding past the writer (expected by the test)");
    }));
    assert!(result.is_err());
    assert_eq!(*shared.0.borrow(), b"");
}

// ---------------------------------------------------------------------------------------------
// Bounded memory

const TEN_MIB: usize = 10 << 20;

/// Writes all of `input` with `write` calls, each of which must take at most a chunk.
fn write_in_steps(writer: &mut impl Write, input: &[u8]) {
    let mut at = 0;
    while at < input.len() {
        let n = writer.write(&input[at..]).unwrap();
        assert!(n > 0 && n <= CHUNK, "write took {n}");
        at += n;
    }
}

#[test]
fn writers_never_buffer_more_than_the_bound() {
    assert_eq!((CHUNK, MAX_BUFFERED), (64 * 1024, 3 * 64 * 1024 + 64));
    // Every byte escaped, and every byte an invalid UTF-8 sequence: three bytes out for each.
    let input = vec![0xFFu8; TEN_MIB];
    let mut writer = EncodeWriter::new(Encoder::new(sets::COMPONENT), Counting::default());
    write_in_steps(&mut writer, &input);
    let encoded = writer.finish().unwrap();
    let mut writer = DecodeWriter::new(Decoder::FORM, Counting::default());
    write_in_steps(&mut writer, &input);
    let decoded = writer.finish().unwrap();
    for (what, counting) in [("encode", encoded), ("decode, lossy", decoded)] {
        assert_eq!(counting.total, 3 * TEN_MIB, "{what}");
        assert!(counting.largest <= MAX_BUFFERED, "{what}: {} in one write", counting.largest);
    }
}

#[test]
fn readers_never_buffer_more_than_the_bound() {
    let source = || Repeat { byte: 0xFF, left: TEN_MIB, largest_ask: 0 };
    let mut encoder = EncodeReader::new(Encoder::new(sets::COMPONENT), source());
    let mut decoder = DecodeReader::new(Decoder::FORM, source());
    let readers: [(&str, &mut dyn BufRead); 2] = [("encode", &mut encoder), ("decode, lossy", &mut decoder)];
    for (what, reader) in readers {
        let mut total = 0;
        loop {
            let n = reader.fill_buf().unwrap().len();
            assert!(n <= MAX_BUFFERED, "{what}: {n} buffered");
            if n == 0 {
                break;
            }
            total += n;
            reader.consume(n);
        }
        assert_eq!(total, 3 * TEN_MIB, "{what}");
    }
    assert!(encoder.get_ref().largest_ask <= CHUNK);
    assert!(decoder.get_ref().largest_ask <= CHUNK);
}

/// What a stream holds back is never out of sight: `held_back()` is 0 exactly when finishing
/// the stream would give no more output and no error, so a stream that reports 0 can be
/// dropped unfinished without losing anything; it never exceeds the documented bound.
#[test]
fn held_back_tells_what_only_finish_gives() {
    for dec in common::option_decoders() {
        for &input in TRICKY {
            for cut in 0..=input.len() {
                let mut stream = pctenc::StreamDecoder::new(dec);
                let mut out = Vec::new();
                if stream.feed(&input[..cut], &mut out).is_err() {
                    continue;
                }
                let held = stream.held_back();
                let mut rest = Vec::new();
                let finished = stream.clone().finish(&mut rest);
                let case = format!("{dec:?} on {} cut at {cut}", show(&input[..cut]));
                assert_eq!(
                    held == 0,
                    finished.is_ok() && rest.is_empty(),
                    "{case}: held {held}, {finished:?} {rest:?}"
                );
                assert!(held <= 11 && held <= cut, "{case}: held {held}");
            }
        }
    }
    for enc in encoders() {
        for &input in TRICKY {
            for cut in 0..=input.len() {
                let mut stream = StreamEncoder::new(enc);
                let mut out = Vec::new();
                stream.feed(&input[..cut], &mut out);
                let held = stream.held_back();
                let mut rest = Vec::new();
                stream.clone().finish(&mut rest);
                assert_eq!(held == 0, rest.is_empty(), "{enc:?} on {} cut at {cut}", show(&input[..cut]));
                assert!(held <= 3);
            }
        }
    }
}
