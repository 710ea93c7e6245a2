//! The comparisons of the fuzz targets, on cases already built from the fuzz input. Each one
//! runs pctenc two ways that must agree (a SIMD backend and scalar, pieces and one shot,
//! parallel and serial, pctenc and the `form_urlencoded` crate) and panics at the first
//! difference, naming the API, both results and the case.
//!
//! Only pctenc, `std`, `rayon` and `form_urlencoded` are used here (no fuzzing crate), so that
//! a plain test can replay a case through this same code.

use std::io::{self, BufRead, Read, Write};
use std::sync::OnceLock;

use pctenc::{
    Backend, DecodeError, DecodeErrorKind, DecodeReader, DecodeWriter, Decoder, EncodeReader, EncodeWriter,
    Encoder, Engine, Set, StreamDecoder, StreamEncoder, Utf8Mode,
};

/// The set that escapes exactly the ASCII bytes whose bits are set in `bits`.
pub fn set_from_bits(bits: u128) -> Set {
    (0..128u8).fold(Set::EMPTY, |set, b| if bits >> b & 1 == 1 { set.add(b) } else { set })
}

/// Every backend this CPU runs, scalar first.
pub fn all_engines() -> &'static [Engine] {
    static ENGINES: OnceLock<Vec<Engine>> = OnceLock::new();
    ENGINES.get_or_init(|| {
        let engines: Vec<Engine> = Backend::ALL.into_iter().filter_map(Engine::new).collect();
        let names: Vec<&str> = engines.iter().map(|e| e.backend().name()).collect();
        eprintln!("pctenc-fuzz: backends compared: {}", names.join(", "));
        engines
    })
}

/// A decoding result, the error as `(offset, kind)`.
pub type Outcome = Result<Vec<u8>, (usize, DecodeErrorKind)>;

fn outcome<T: AsRef<[u8]>>(r: Result<T, DecodeError>) -> Outcome {
    r.map(|v| v.as_ref().to_vec()).map_err(|e| (e.offset(), e.kind()))
}

/// `bytes` as an escaped byte string, cut short when long.
pub fn show(bytes: &[u8]) -> String {
    const MAX: usize = 400;
    if bytes.len() <= MAX {
        bytes.escape_ascii().to_string()
    } else {
        format!("{}... ({} bytes)", bytes[..MAX].escape_ascii(), bytes.len())
    }
}

fn show_outcome(o: &Outcome) -> String {
    match o {
        Ok(v) => format!("Ok(b\"{}\")", show(v)),
        Err((offset, kind)) => format!("Err(offset {offset}, {kind:?})"),
    }
}

#[track_caller]
fn same<T: PartialEq + std::fmt::Debug>(what: &str, got: T, want: T, case: &dyn Fn() -> String) {
    if got != want {
        panic!("{what} differs\n  got:  {got:?}\n  want: {want:?}\n  case: {}", case());
    }
}

/// Where two byte strings first differ, and both around there (all of them when short).
fn diff(got: &[u8], want: &[u8]) -> String {
    let at = got.iter().zip(want).position(|(g, w)| g != w).unwrap_or(got.len().min(want.len()));
    let (from, lens) = (at.saturating_sub(40), format!("lengths {} and {}", got.len(), want.len()));
    if got.len().max(want.len()) <= 400 {
        return format!("at byte {at} ({lens})\n  got:  b\"{}\"\n  want: b\"{}\"", show(got), show(want));
    }
    let window = |b: &[u8]| show(&b[from.min(b.len())..(at + 40).min(b.len())]);
    format!(
        "at byte {at} ({lens}); from byte {from}:\n  got:  b\"{}\"\n  want: b\"{}\"",
        window(got),
        window(want)
    )
}

#[track_caller]
fn same_bytes(what: &str, got: &[u8], want: &[u8], case: &dyn Fn() -> String) {
    if got != want {
        panic!("{what} differs {}\n  case: {}", diff(got, want), case());
    }
}

#[track_caller]
fn same_outcome(what: &str, got: &Outcome, want: &Outcome, case: &dyn Fn() -> String) {
    match (got, want) {
        _ if got == want => {}
        (Ok(g), Ok(w)) => panic!("{what} differs {}\n  case: {}", diff(g, w), case()),
        _ => panic!(
            "{what} differs\n  got:  {}\n  want: {}\n  case: {}",
            show_outcome(got),
            show_outcome(want),
            case()
        ),
    }
}

#[track_caller]
fn ensure(what: &str, ok: bool, case: &dyn Fn() -> String) {
    if !ok {
        panic!("{what}\n  case: {}", case());
    }
}

/// Runs `decode`, which appends to the `Vec` it is given, on one that holds `prefix` first:
/// the bytes appended, or the error. Checks that success keeps the prefix and that an error
/// leaves the `Vec` as it was.
fn appended(
    api: &str,
    decode: impl FnOnce(&mut Vec<u8>) -> Result<(), DecodeError>,
    case: &dyn Fn() -> String,
) -> Outcome {
    let mut out = b"prefix".to_vec();
    match decode(&mut out) {
        Ok(()) => {
            ensure(&format!("{api} lost what `out` held"), out.starts_with(b"prefix"), case);
            Ok(out[6..].to_vec())
        }
        Err(e) => {
            same_bytes(&format!("{api} changed `out` on error"), &out, b"prefix", case);
            Err((e.offset(), e.kind()))
        }
    }
}

/// Guard bytes after an output slice: nothing may be written there.
const GUARD: usize = 80;
const FILL: u8 = 0xA5;

// ---------------------------------------------------------------------------------------
// encode

/// Every backend against scalar: `encode`, `encoded_len`, `checked_encoded_len`,
/// `encode_vec`, `encode_slice` into an exact-size slice and one byte short (nothing written
/// past either), and `validate` of the input and of the output. Also: the lazy form gives the
/// same string, the output of a set that escapes `%` (or of re-quoting) validates, and
/// re-quoting leaves its own output unchanged.
pub fn encode(enc: Encoder, input: &[u8]) {
    let case = || format!("{enc:?} on b\"{}\"", show(input));
    let scalar = enc.engine(Engine::scalar());
    let want = scalar.encode(input).into_owned();
    let n = want.len();
    let want_valid = scalar.validate(input).map_err(|e| (e.offset(), e.kind()));
    let want_valid_out = scalar.validate(&want).map_err(|e| (e.offset(), e.kind()));
    same("scalar lazy form against encode", scalar.lazy(input).to_string(), want.clone(), &case);
    if enc.set().contains(b'%') || enc.is_keeping_escapes() {
        same("scalar validate of the output", want_valid_out, Ok(()), &case);
    }
    if enc.is_keeping_escapes() {
        same("re-quoting the re-quoted output", scalar.encode(&want).into_owned(), want.clone(), &case);
    }
    // Parts as rows of a column: cut before every byte that is 0 mod 7 (empty parts when
    // the input starts with one), measured in one pass against each part on its own.
    let bounds: Vec<usize> = core::iter::once(0)
        .chain((0..input.len()).filter(|&i| input[i] % 7 == 0))
        .chain([input.len()])
        .collect();
    let want_lens: Vec<usize> = bounds.windows(2).map(|w| scalar.encoded_len(&input[w[0]..w[1]])).collect();
    same("scalar encoded_lens", scalar.encoded_lens(input, &bounds), want_lens.clone(), &case);
    // The same parts but the first and the last: bounds that start past 0 and end before
    // the input does.
    let inner = &bounds[1..bounds.len() - 1];
    let want_inner = want_lens.get(1..want_lens.len().saturating_sub(1)).unwrap_or(&[]).to_vec();
    for &engine in all_engines() {
        let fast = enc.engine(engine);
        let b = engine.backend().name();
        same_bytes(&format!("{b} encode"), fast.encode(input).as_bytes(), want.as_bytes(), &case);
        same(&format!("{b} encoded_len"), fast.encoded_len(input), n, &case);
        same(&format!("{b} encoded_lens"), fast.encoded_lens(input, &bounds), want_lens.clone(), &case);
        same(
            &format!("{b} encoded_lens, inner parts"),
            fast.encoded_lens(input, inner),
            want_inner.clone(),
            &case,
        );
        same(&format!("{b} checked_encoded_len"), fast.checked_encoded_len(input), Some(n), &case);

        let mut out = b"prefix".to_vec();
        fast.encode_vec(input, &mut out);
        ensure(&format!("{b} encode_vec lost what `out` held"), out.starts_with(b"prefix"), &case);
        same_bytes(&format!("{b} encode_vec"), &out[6..], want.as_bytes(), &case);
        // Into less room than the output needs (a length that depends on the input): the
        // encoder grows the vector where it runs out.
        let mut out = Vec::with_capacity(6 + n * usize::from(input.first().copied().unwrap_or(0) % 4) / 4);
        out.extend_from_slice(b"prefix");
        fast.encode_vec(input, &mut out);
        same_bytes(&format!("{b} encode_vec into a short vector"), &out[6..], want.as_bytes(), &case);
        let borrowed = matches!(fast.encode(input), std::borrow::Cow::Borrowed(_));
        same(&format!("{b} encode borrows when nothing changes"), borrowed, want.as_bytes() == input, &case);

        let mut buf = vec![FILL; n + GUARD];
        let got = fast.encode_slice(input, &mut buf[..n]);
        same(&format!("{b} encode_slice (exact size)"), got, Ok(n), &case);
        same_bytes(&format!("{b} encode_slice (exact size)"), &buf[..n], want.as_bytes(), &case);
        ensure(&format!("{b} encode_slice wrote past its slice"), buf[n..].iter().all(|&x| x == FILL), &case);
        if n > 0 {
            let mut buf = vec![FILL; n + GUARD];
            let err = fast.encode_slice(input, &mut buf[..n - 1]).map_err(|e| (e.needed(), e.available()));
            same(&format!("{b} encode_slice (one byte short)"), err, Err((n, n - 1)), &case);
            let untouched = buf[n - 1..].iter().all(|&x| x == FILL);
            ensure(&format!("{b} encode_slice (one byte short) wrote past its slice"), untouched, &case);
        }

        let valid = fast.validate(input).map_err(|e| (e.offset(), e.kind()));
        same(&format!("{b} validate (input)"), valid, want_valid, &case);
        let valid = fast.validate(&want).map_err(|e| (e.offset(), e.kind()));
        same(&format!("{b} validate (output)"), valid, want_valid_out, &case);
    }
}

// ---------------------------------------------------------------------------------------
// decode

// The lossy-overflow model of the tests, shared so the two cannot drift apart.
#[path = "../../tests/common/lossy.rs"]
mod lossy;
use lossy::lossy_overflow;

/// Every backend against scalar: `decode` (output, or error offset and kind), `decode_vec`,
/// `decode_to_str`, `decode_slice` into a roomy slice, an exact-size one and too-small ones
/// (one short, half, and `room` modulo the size; nothing written past any), and
/// `decode_in_place` (the one-shot result, or when a lossy output outgrows the input, the
/// documented `BufferTooSmall` at the first decoded byte that does not fit).
pub fn decode(dec: Decoder, input: &[u8], room: usize) {
    let case = || format!("{dec:?} on b\"{}\"", show(input));
    let scalar = dec.engine(Engine::scalar());
    let want = outcome(scalar.decode(input));
    let want_str = outcome(scalar.decode_to_str(input).map(|s| s.into_owned().into_bytes()));
    let want_in_place = match &want {
        Ok(v) if v.len() > input.len() => {
            // Only a lossy replacement makes the output longer than the input.
            ensure("output longer than input outside lossy mode", dec.utf8_value() == Utf8Mode::Lossy, &case);
            let bytes = outcome(scalar.utf8(Utf8Mode::Bytes).decode(input));
            let Ok(bytes) = bytes else {
                panic!("lossy decoding succeeded, bytes failed\n  case: {}", case())
            };
            let at = lossy_overflow(&bytes, input.len());
            let Some(at) = at else { panic!("lossy output outgrows the input, fits\n  case: {}", case()) };
            Err((at, DecodeErrorKind::BufferTooSmall))
        }
        other => other.clone(),
    };
    // Slice sizes, each with scalar's result.
    let roomy = input.len() * 3 + 4;
    let mut sizes = vec![roomy];
    match &want {
        Ok(v) => {
            sizes.push(v.len());
            if !v.is_empty() {
                sizes.extend([v.len() - 1, v.len() / 2, room % v.len()]);
            }
        }
        Err(_) => sizes.extend([input.len() / 2, room % (input.len() + 1)]),
    }
    let slice = |d: Decoder, size: usize| -> (Outcome, bool) {
        let mut buf = vec![FILL; size + GUARD];
        let got = outcome(d.decode_slice(input, &mut buf[..size]).map(|k| buf[..k].to_vec()));
        (got, buf[size..].iter().all(|&x| x == FILL))
    };
    let want_slices: Vec<Outcome> = sizes.iter().map(|&size| slice(scalar, size).0).collect();
    same_outcome("scalar decode_slice (roomy)", &want_slices[0], &want, &case);
    if let Ok(v) = &want {
        same_outcome("scalar decode_slice (exact size)", &want_slices[1], &want, &case);
        for (size, got) in sizes.iter().zip(&want_slices).skip(2) {
            ensure(
                &format!("scalar decode_slice into {size} bytes succeeded"),
                got.is_err() || *size >= v.len(),
                &case,
            );
        }
    }

    for &engine in all_engines() {
        let fast = dec.engine(engine);
        let b = engine.backend().name();
        same_outcome(&format!("{b} decode"), &outcome(fast.decode(input)), &want, &case);

        let got = appended(&format!("{b} decode_vec"), |out| fast.decode_vec(input, out), &case);
        same_outcome(&format!("{b} decode_vec"), &got, &want, &case);

        let got = outcome(fast.decode_to_str(input).map(|s| s.into_owned().into_bytes()));
        same_outcome(&format!("{b} decode_to_str"), &got, &want_str, &case);

        for (&size, want_slice) in sizes.iter().zip(&want_slices) {
            let (got, guard) = slice(fast, size);
            same_outcome(&format!("{b} decode_slice into {size} bytes"), &got, want_slice, &case);
            ensure(&format!("{b} decode_slice into {size} bytes wrote past its slice"), guard, &case);
        }

        let mut buf = input.to_vec();
        let got = outcome(fast.decode_in_place(&mut buf).map(|k| buf[..k].to_vec()));
        same_outcome(&format!("{b} decode_in_place"), &got, &want_in_place, &case);
    }
}

// ---------------------------------------------------------------------------------------
// roundtrip

/// On every backend: strict decoding (bytes mode, `+` as space when `plus`) of the encoding
/// of `input` gives `input` back, in one shot and in place; the encoding validates, and
/// re-quoting leaves it as it is. When `input` is UTF-8, the strict and lossy UTF-8 modes
/// and `decode_to_str` give it back too.
///
/// The encoder's set must escape `%` (else a `%` in the input would be taken for an
/// escape), and `+` when `plus`; `plus` must be on when the set writes a space as `+`; the
/// encoder must not re-quote.
pub fn roundtrip(enc: Encoder, plus: bool, input: &[u8]) {
    let case = || format!("{enc:?}, plus_as_space {plus}, on b\"{}\"", show(input));
    let set = enc.set();
    let fits = set.contains(b'%')
        && (!plus || set.contains(b'+'))
        && (plus || !set.space_as_plus())
        && !enc.is_keeping_escapes();
    ensure("not a round-trip case (the set must escape `%`, and `+` with plus_as_space)", fits, &case);
    let text = std::str::from_utf8(input).is_ok();
    for &engine in all_engines() {
        let b = engine.backend().name();
        let e = enc.engine(engine);
        let encoded = e.encode(input);
        let dec = Decoder::new().plus_as_space(plus).engine(engine);
        let ok = Ok(input.to_vec());
        same_outcome(&format!("{b} decode(encode(x))"), &outcome(dec.decode(encoded.as_bytes())), &ok, &case);
        let mut buf = encoded.as_bytes().to_vec();
        let got = outcome(dec.decode_in_place(&mut buf).map(|k| buf[..k].to_vec()));
        same_outcome(&format!("{b} decode_in_place(encode(x))"), &got, &ok, &case);
        let valid = e.validate(encoded.as_bytes()).map_err(|e| (e.offset(), e.kind()));
        same(&format!("{b} validate(encode(x))"), valid, Ok(()), &case);
        let requoted = e.keep_escapes(true).encode(encoded.as_bytes());
        same_bytes(&format!("{b} requote(encode(x))"), requoted.as_bytes(), encoded.as_bytes(), &case);
        if text {
            for mode in [Utf8Mode::Strict, Utf8Mode::Lossy] {
                let got = outcome(dec.utf8(mode).decode(encoded.as_bytes()));
                same_outcome(&format!("{b} decode(encode(x)) in {mode:?} mode"), &got, &ok, &case);
            }
            let got = outcome(dec.decode_to_str(encoded.as_bytes()).map(|s| s.into_owned().into_bytes()));
            same_outcome(&format!("{b} decode_to_str(encode(x))"), &got, &ok, &case);
        }
    }
}

// ---------------------------------------------------------------------------------------
// stream

/// How the `io` adapters' inner reader and writer behave.
#[derive(Clone, Copy, Debug)]
pub struct IoShape {
    /// The most bytes the inner writer takes per `write` (at least 1).
    pub write_max: usize,
    /// The size of the buffer the adapter's reader is read into (at least 1).
    pub read_max: usize,
    /// Whether the inner reader and writer return `Interrupted` before each real call.
    pub interrupt: bool,
    /// Whether the readers are read through `BufRead` (`fill_buf` / `consume`).
    pub buf_read: bool,
}

/// `input` cut at `cuts` (clamped to its length and sorted; repeated cuts and cuts at either
/// end give empty pieces).
pub fn pieces<'a>(input: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
    let mut cuts: Vec<usize> = cuts.iter().map(|&c| c.min(input.len())).collect();
    cuts.sort_unstable();
    let mut from = 0;
    let mut out = Vec::with_capacity(cuts.len() + 1);
    for to in cuts.into_iter().chain([input.len()]) {
        out.push(&input[from..to]);
        from = to;
    }
    out
}

/// An inner writer that takes at most `max` bytes a call, and, if asked, fails with
/// `Interrupted` every other call.
struct Trickle {
    out: Vec<u8>,
    max: usize,
    interrupt: bool,
    calls: usize,
}

impl Trickle {
    fn new(io: IoShape) -> Trickle {
        Trickle { out: Vec::new(), max: io.write_max.max(1), interrupt: io.interrupt, calls: 0 }
    }
}

impl Write for Trickle {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.calls += 1;
        if self.interrupt && self.calls % 2 == 1 {
            return Err(io::ErrorKind::Interrupted.into());
        }
        let n = buf.len().min(self.max);
        self.out.extend_from_slice(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// An inner reader that gives the non-empty pieces, one (or as much of it as fits) per
/// `read`, and, if asked, fails with `Interrupted` before each.
struct PieceReader<'a> {
    pieces: Vec<&'a [u8]>,
    next: usize,
    interrupt: bool,
    calls: usize,
}

impl<'a> PieceReader<'a> {
    fn new(pieces: &[&'a [u8]], io: IoShape) -> PieceReader<'a> {
        let pieces = pieces.iter().copied().filter(|p| !p.is_empty()).collect();
        PieceReader { pieces, next: 0, interrupt: io.interrupt, calls: 0 }
    }
}

impl Read for PieceReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.calls += 1;
        if self.interrupt && self.calls % 2 == 1 {
            return Err(io::ErrorKind::Interrupted.into());
        }
        let Some(piece) = self.pieces.get_mut(self.next) else { return Ok(0) };
        let n = piece.len().min(buf.len());
        buf[..n].copy_from_slice(&piece[..n]);
        *piece = &piece[n..];
        if piece.is_empty() {
            self.next += 1;
        }
        Ok(n)
    }
}

/// Reads `reader` to its end in reads of at most `io.read_max` bytes (through `BufRead` if
/// `io.buf_read`). An error ends the reading: it is returned with what was read before it.
fn read_all<R: BufRead>(mut reader: R, io: IoShape) -> (Vec<u8>, Option<io::Error>) {
    let mut out = Vec::new();
    let mut buf = vec![0u8; io.read_max.max(1)];
    loop {
        let n = if io.buf_read {
            match reader.fill_buf() {
                Ok(avail) => {
                    let n = avail.len().min(buf.len());
                    out.extend_from_slice(&avail[..n]);
                    reader.consume(n);
                    n
                }
                Err(e) => return (out, Some(e)),
            }
        } else {
            match reader.read(&mut buf) {
                Ok(n) => {
                    out.extend_from_slice(&buf[..n]);
                    n
                }
                Err(e) => return (out, Some(e)),
            }
        };
        if n == 0 {
            return (out, None);
        }
    }
}

/// The decoding error an adapter's `io::Error` carries: it must be one.
#[track_caller]
fn decode_error(e: &io::Error, case: &dyn Fn() -> String) -> (usize, DecodeErrorKind) {
    let inner = e.get_ref().and_then(|inner| inner.downcast_ref::<DecodeError>());
    match inner {
        Some(d) if e.kind() == io::ErrorKind::InvalidData => (d.offset(), d.kind()),
        _ => panic!("an I/O error that is no decoding error: {e:?}\n  case: {}", case()),
    }
}

/// Split invariance of encoding: `input` fed in `pieces` to a `StreamEncoder` (`feed`, and
/// `feed_to`), written in them to an `EncodeWriter` over an inner writer shaped by `io`, and
/// read through an `EncodeReader` from an inner reader that gives them, each gives exactly
/// `encode_vec` of the whole input. `fed()` counts every byte, and a finished stream starts
/// again.
pub fn stream_encode(enc: Encoder, input: &[u8], cuts: &[usize], io: IoShape) {
    let pieces = pieces(input, cuts);
    let case = || format!("{enc:?}, {io:?}, on b\"{}\" cut at {cuts:?}", show(input));
    let mut want = Vec::new();
    enc.encode_vec(input, &mut want);

    let mut stream = StreamEncoder::new(enc);
    for round in 0..2 {
        let mut out = b"prefix".to_vec();
        let mut fed = 0;
        for piece in &pieces {
            stream.feed(piece, &mut out);
            fed += piece.len();
            same("StreamEncoder::fed", stream.fed(), fed, &case);
        }
        stream.finish(&mut out);
        same("StreamEncoder::fed after finish", stream.fed(), 0, &case);
        ensure("StreamEncoder::feed lost what `out` held", out.starts_with(b"prefix"), &case);
        same_bytes(&format!("StreamEncoder::feed (stream {round})"), &out[6..], &want, &case);
    }

    let mut stream = StreamEncoder::new(enc);
    let mut out = Vec::new();
    for piece in &pieces {
        if let Err(e) = stream.feed_to(piece, &mut out) {
            panic!("StreamEncoder::feed_to into a Vec failed: {e}\n  case: {}", case());
        }
    }
    stream.finish(&mut out);
    same_bytes("StreamEncoder::feed_to", &out, &want, &case);

    let mut writer = EncodeWriter::new(enc, Trickle::new(io));
    for piece in &pieces {
        if let Err(e) = writer.write_all(piece) {
            panic!("EncodeWriter::write_all failed: {e}\n  case: {}", case());
        }
    }
    match writer.finish() {
        Ok(inner) => same_bytes("EncodeWriter", &inner.out, &want, &case),
        Err(e) => panic!("EncodeWriter::finish failed: {e}\n  case: {}", case()),
    }

    let reader = EncodeReader::new(enc, PieceReader::new(&pieces, io));
    match read_all(reader, io) {
        (out, None) => same_bytes("EncodeReader", &out, &want, &case),
        (_, Some(e)) => panic!("EncodeReader failed: {e}\n  case: {}", case()),
    }
}

/// Split invariance of decoding, errors included (same offset and kind): `input` fed in
/// `pieces` to a `StreamDecoder` (`feed`, and `feed_to`), written in them to a
/// `DecodeWriter` over an inner writer shaped by `io`, and read through a `DecodeReader`
/// from an inner reader that gives them, each gives exactly `decode_vec` of the whole input.
/// After an error, `feed` leaves `out` as it was, and later calls return the same error.
pub fn stream_decode(dec: Decoder, input: &[u8], cuts: &[usize], io: IoShape) {
    let pieces = pieces(input, cuts);
    let case = || format!("{dec:?}, {io:?}, on b\"{}\" cut at {cuts:?}", show(input));
    let mut want = Vec::new();
    let want = outcome(dec.decode_vec(input, &mut want).map(|()| want));

    let got = (|| {
        let mut stream = StreamDecoder::new(dec);
        let mut out = b"prefix".to_vec();
        let mut fed = 0;
        for piece in &pieces {
            let before = out.clone();
            if let Err(e) = stream.feed(piece, &mut out) {
                same_bytes("StreamDecoder::feed changed `out` on error", &out, &before, &case);
                same("StreamDecoder::feed after an error", stream.feed(b"%41", &mut out), Err(e), &case);
                same("StreamDecoder::finish after an error", stream.finish(&mut out), Err(e), &case);
                return Err((e.offset(), e.kind()));
            }
            fed += piece.len();
            same("StreamDecoder::fed", stream.fed(), fed, &case);
        }
        let before = out.clone();
        match stream.finish(&mut out) {
            Ok(()) => {
                same("StreamDecoder::fed after finish", stream.fed(), 0, &case);
                ensure("StreamDecoder::feed lost what `out` held", out.starts_with(b"prefix"), &case);
                Ok(out[6..].to_vec())
            }
            Err(e) => {
                same_bytes("StreamDecoder::finish changed `out` on error", &out, &before, &case);
                same("StreamDecoder::finish after an error", stream.finish(&mut out), Err(e), &case);
                Err((e.offset(), e.kind()))
            }
        }
    })();
    same_outcome("StreamDecoder::feed", &got, &want, &case);

    let got = (|| {
        let mut stream = StreamDecoder::new(dec);
        let mut out = Vec::new();
        for piece in &pieces {
            if let Err(e) = stream.feed_to(piece, &mut out) {
                return Err(decode_error(&e, &case));
            }
        }
        outcome(stream.finish(&mut out).map(|()| out))
    })();
    same_outcome("StreamDecoder::feed_to", &got, &want, &case);

    let got = (|| {
        let mut writer = DecodeWriter::new(dec, Trickle::new(io));
        for piece in &pieces {
            if let Err(e) = writer.write_all(piece) {
                let err = decode_error(&e, &case);
                let again = writer.write(b"%41").map_err(|e| decode_error(&e, &case));
                same("DecodeWriter::write after an error", again, Err(err), &case);
                return Err(err);
            }
        }
        match writer.finish() {
            Ok(inner) => Ok(inner.out),
            Err(e) => Err(decode_error(&e, &case)),
        }
    })();
    same_outcome("DecodeWriter", &got, &want, &case);

    let mut reader = DecodeReader::new(dec, PieceReader::new(&pieces, io));
    let got = match read_all(&mut reader, io) {
        (out, None) => Ok(out),
        (_, Some(e)) => {
            let err = decode_error(&e, &case);
            let again = reader.read(&mut [0u8; 8]).map_err(|e| decode_error(&e, &case));
            same("DecodeReader::read after an error", again, Err(err), &case);
            Err(err)
        }
    };
    same_outcome("DecodeReader", &got, &want, &case);
}

// ---------------------------------------------------------------------------------------
// parallel

/// The input bytes per chunk of the parallel paths (`par::CHUNK`, which `pctenc::__par` uses).
pub const PAR_CHUNK: usize = 64 * 1024;

/// A pool of four threads for the parallel paths, whatever the machine: with one thread,
/// the public `par_*` functions would stay serial.
pub fn pool() -> &'static rayon::ThreadPool {
    static POOL: OnceLock<rayon::ThreadPool> = OnceLock::new();
    POOL.get_or_init(|| rayon::ThreadPoolBuilder::new().num_threads(4).build().expect("a rayon pool"))
}

/// Parallel encoding against serial (`encode_vec`), on the four-thread pool:
/// `pctenc::__par::encode_vec`, which runs the chunked algorithm at any size; and with
/// `public`, on an input at least `PAR_ENCODE_THRESHOLD` long, `par_encode_vec`,
/// `par_encode_to` and `StreamEncoder::feed_to` (in two pieces cut at `cut`, or earlier so
/// that the second one is at least the threshold long). (`par_encode` and
/// `StreamEncoder::feed` are `par_encode_vec` with a wrapper: left out, as every pass over an
/// input this large costs.)
///
/// How we know the parallel path runs: `__par::encode_vec` calls `encode::par::encode_vec` with
/// 64 KiB chunks unconditionally (src/lib.rs), and the targets give it more than twice that,
/// so the input is cut into several chunks (wherever `par::borders` finds a safe place). The
/// public functions go parallel when the input is at least the threshold and the pool has
/// more than one thread (src/encode/output.rs): both are asserted here.
pub fn parallel_encode(enc: Encoder, big: &[u8], cut: usize, public: bool) {
    let case = || format!("{enc:?} on b\"{}\", cut at {cut}, public API {public}", show(big));
    pool().install(|| {
        let mut want = Vec::new();
        enc.encode_vec(big, &mut want);

        let mut out = b"prefix".to_vec();
        pctenc::__par::encode_vec(&enc, big, &mut out);
        ensure("__par::encode_vec lost what `out` held", out.starts_with(b"prefix"), &case);
        same_bytes("__par::encode_vec", &out[6..], &want, &case);
        if !public {
            return;
        }
        let above = big.len() >= pctenc::PAR_ENCODE_THRESHOLD && rayon::current_num_threads() > 1;
        ensure("the parallel encoding path would not run", above, &case);

        let mut out = b"prefix".to_vec();
        enc.par_encode_vec(big, &mut out);
        ensure("par_encode_vec lost what `out` held", out.starts_with(b"prefix"), &case);
        same_bytes("par_encode_vec", &out[6..], &want, &case);

        let mut out = Vec::new();
        if let Err(e) = enc.par_encode_to(big, &mut out) {
            panic!("par_encode_to into a Vec failed: {e}\n  case: {}", case());
        }
        same_bytes("par_encode_to", &out, &want, &case);

        // The second piece is at least the threshold long: it goes parallel.
        let cut = cut.min(big.len() - pctenc::PAR_ENCODE_THRESHOLD);
        let mut stream = StreamEncoder::new(enc);
        let mut out = Vec::new();
        for piece in [&big[..cut], &big[cut..]] {
            if let Err(e) = stream.feed_to(piece, &mut out) {
                panic!("StreamEncoder::feed_to into a Vec failed: {e}\n  case: {}", case());
            }
        }
        stream.finish(&mut out);
        same_bytes("StreamEncoder::feed_to (large pieces)", &out, &want, &case);
    });
}

/// Whether `dec` decodes in parallel chunks at all: `%u` escapes and kept escapes decode
/// serially (`decode::par::splits`), and `__par::decode_vec` requires that they be off.
pub fn splits(dec: &Decoder) -> bool {
    let keep = dec.keep_encoded_value();
    !dec.is_legacy_u() && keep.ascii_bits() == 0 && keep.is_iri()
}

/// Parallel decoding against serial (`decode_vec`), output or error, on the four-thread
/// pool: `pctenc::__par::decode_vec` (when the options allow chunks: [`splits`]); and with
/// `public`, on an input at least `PAR_DECODE_THRESHOLD` long, `par_decode_vec`, and
/// `StreamDecoder::feed_to` / `feed` (in two pieces cut at `cut`, or earlier so that the
/// second one is at least the threshold long; `feed_to` goes parallel in bytes mode, `feed`
/// in every mode). (`par_decode` is `par_decode_vec` with a wrapper: left out.)
///
/// How we know the parallel path runs: as for [`parallel_encode`], `__par::decode_vec` calls
/// `decode::par::decode_vec` with 64 KiB chunks unconditionally, on more than two chunks' worth;
/// `par_decode_vec` goes parallel at the threshold, on more than one thread, when
/// [`splits`] holds (src/decode/output.rs), which is asserted here.
pub fn parallel_decode(dec: Decoder, big: &[u8], cut: usize, public: bool) {
    let case = || format!("{dec:?} on b\"{}\", cut at {cut}, public API {public}", show(big));
    pool().install(|| {
        let mut want = Vec::new();
        let want = outcome(dec.decode_vec(big, &mut want).map(|()| want));

        if splits(&dec) {
            let got = appended("__par::decode_vec", |out| pctenc::__par::decode_vec(&dec, big, out), &case);
            same_outcome("__par::decode_vec", &got, &want, &case);
        }
        if !public {
            return;
        }
        let above = big.len() >= pctenc::PAR_DECODE_THRESHOLD && rayon::current_num_threads() > 1;
        ensure("the parallel decoding path would not run", above, &case);

        let got = appended("par_decode_vec", |out| dec.par_decode_vec(big, out), &case);
        same_outcome("par_decode_vec", &got, &want, &case);

        // The second piece is at least the threshold long: it goes parallel.
        let cut = cut.min(big.len() - pctenc::PAR_DECODE_THRESHOLD);
        let halves = [&big[..cut], &big[cut..]];
        let got = (|| {
            let mut stream = StreamDecoder::new(dec);
            let mut out = Vec::new();
            for piece in halves {
                if let Err(e) = stream.feed_to(piece, &mut out) {
                    return Err(decode_error(&e, &case));
                }
            }
            outcome(stream.finish(&mut out).map(|()| out))
        })();
        same_outcome("StreamDecoder::feed_to (large pieces)", &got, &want, &case);

        let got = (|| {
            let mut stream = StreamDecoder::new(dec);
            let mut out = Vec::new();
            for piece in halves {
                stream.feed(piece, &mut out).map_err(|e| (e.offset(), e.kind()))?;
            }
            outcome(stream.finish(&mut out).map(|()| out))
        })();
        same_outcome("StreamDecoder::feed (large pieces)", &got, &want, &case);
    });
}

// ---------------------------------------------------------------------------------------
// form

/// `pctenc::form::parse` against `form_urlencoded::parse`: the same names and values, as
/// strings, in the same order.
pub fn form_parse(input: &[u8]) {
    let case = || format!("b\"{}\"", show(input));
    let ours: Vec<(String, String)> =
        pctenc::form::parse(input).map(|(n, v)| (n.into_owned(), v.into_owned())).collect();
    let theirs: Vec<(String, String)> =
        form_urlencoded::parse(input).map(|(n, v)| (n.into_owned(), v.into_owned())).collect();
    same("form::parse", ours, theirs, &case);
}

/// `pctenc::form::Serializer` against `form_urlencoded::Serializer`, byte for byte: from
/// scratch (`append_pair`, `extend_pairs`, `serialize`) and after `target`
/// (`Serializer::append_to` against `for_suffix`); and parsing the output gives the pairs
/// back.
pub fn form_serialize(pairs: &[(String, String)], target: &str) {
    let case = || format!("pairs {pairs:?}, target {target:?}");
    let mut theirs = form_urlencoded::Serializer::new(String::new());
    let mut ours = pctenc::form::Serializer::new();
    for (name, value) in pairs {
        theirs.append_pair(name, value);
        ours.append_pair(name, value);
    }
    let want = theirs.finish();
    same("Serializer::append_pair", ours.finish(), want.clone(), &case);
    same("form::serialize", pctenc::form::serialize(pairs), want.clone(), &case);
    let mut ours = pctenc::form::Serializer::new();
    ours.extend_pairs(pairs);
    same("Serializer::extend_pairs", ours.as_str(), want.as_str(), &case);

    let mut theirs = form_urlencoded::Serializer::for_suffix(target.to_owned(), target.len());
    let mut ours = pctenc::form::Serializer::append_to(target.to_owned());
    for (name, value) in pairs {
        theirs.append_pair(name, value);
        ours.append_pair(name, value);
    }
    same("Serializer::append_to", ours.finish(), theirs.finish(), &case);

    let parsed: Vec<(String, String)> =
        pctenc::form::parse(&want).map(|(n, v)| (n.into_owned(), v.into_owned())).collect();
    same("form::parse(serialize(pairs))", parsed.as_slice(), pairs, &case);
}

/// `decode_in` in the encoding and decoder options `pick` chooses: in bytes mode the byte
/// decoder's result; in lossy mode that result decoded by `encoding_rs` (never an error when
/// the byte decoder succeeds); in strict mode the same text when the bytes are valid in the
/// encoding, else an `InvalidCharset` error at an input offset before which the input
/// decodes to valid text. Then, when the input is UTF-8, `encode_in` of it is ASCII and
/// decodes back to what its characters give one by one (themselves, or the `&#N;` of one the
/// encoding lacks).
pub fn charset(pick: u8, input: &[u8]) {
    use pctenc::charset::Charset;
    let all: Vec<Charset> = Charset::all().collect();
    let cs = all[usize::from(pick) % all.len()];
    let base = Decoder::new().lenient(pick & 0x40 != 0).plus_as_space(pick & 0x80 != 0);
    let bytes = base.decode(input);
    assert_eq!(base.decode_in(input, cs), bytes, "bytes mode, {cs} {}", show(input));
    let lossy = base.utf8(Utf8Mode::Lossy).decode_in(input, cs);
    let strict = base.utf8(Utf8Mode::Strict).decode_in(input, cs);
    match &bytes {
        Err(e) => {
            if cs != Charset::UTF_8 {
                assert_eq!(lossy.as_ref().unwrap_err(), e, "lossy, {cs} {}", show(input));
            }
            let s = strict.as_ref().unwrap_err();
            assert!(s.offset() <= e.offset(), "strict {s} after {e}, {cs} {}", show(input));
        }
        Ok(b) => {
            let (text, malformed) = cs.encoding().decode_without_bom_handling(b);
            assert_eq!(lossy.as_deref().unwrap(), text.as_bytes(), "lossy, {cs} {}", show(input));
            match &strict {
                Ok(s) => {
                    assert!(!malformed, "strict accepted malformed bytes, {cs} {}", show(input));
                    assert_eq!(s.as_ref(), text.as_bytes(), "strict, {cs} {}", show(input));
                }
                Err(e) => {
                    assert!(malformed, "strict refused valid bytes: {e}, {cs} {}", show(input));
                    let kind = if cs == Charset::UTF_8 {
                        DecodeErrorKind::InvalidUtf8
                    } else {
                        DecodeErrorKind::InvalidCharset
                    };
                    assert_eq!(e.kind(), kind, "{cs} {}", show(input));
                    assert!(e.offset() < input.len(), "{e}, {cs} {}", show(input));
                }
            }
        }
    }
    let Ok(text) = std::str::from_utf8(input) else { return };
    let enc = Encoder::new(pctenc::sets::RFC3986).keep_escapes(pick & 0x20 != 0).lowercase(pick & 0x10 != 0);
    let encoded = enc.encode_in(text, cs);
    assert!(encoded.is_ascii(), "{cs} {}", show(input));
    if enc.is_keeping_escapes() {
        return; // the text's escapes are copied, so decoding does not give the text back
    }
    let back = Decoder::new().utf8(Utf8Mode::Strict).decode_to_str_in(&*encoded, cs.output());
    let back = back.unwrap_or_else(|e| panic!("{e}: {encoded}, {cs} {}", show(input)));
    // Character by character: each decodes to itself, or to the `&#N;` it was written as.
    let mut expected = String::new();
    for c in text.chars() {
        let mut buf = [0; 4];
        let alone = enc.encode_in(c.encode_utf8(&mut buf), cs);
        expected
            .push_str(&Decoder::new().utf8(Utf8Mode::Strict).decode_to_str_in(&*alone, cs.output()).unwrap());
    }
    assert_eq!(back, expected, "round trip, {cs} {}", show(input));
}
