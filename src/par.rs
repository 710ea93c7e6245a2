//! Parallel encoding and decoding of large inputs on the rayon pool (feature `rayon`).
//!
//! The input is cut into chunks at borders where a serial pass would be at a token boundary,
//! so every chunk encodes (decodes) to exactly the part of the serial output it stands for.
//! A first parallel pass counts each chunk's output length; their prefix sums give each
//! chunk its own disjoint slot of one allocation, which a second parallel pass fills. The
//! output is the serial output byte for byte, whatever the number of threads.

use alloc::vec::Vec;
use core::mem::MaybeUninit;

use rayon::prelude::*;

use std::io::{self, Write};

use crate::scalar::decode::Step;
use crate::{DecodeError, Decoder, Encoder, Utf8Mode, simd};

/// `Write::write_all`, except that a writer claiming to have written more than it was
/// given is taken at its word for what it was given, instead of making the caller panic.
fn write_all<W: Write + ?Sized>(out: &mut W, mut buf: &[u8]) -> io::Result<()> {
    while !buf.is_empty() {
        match out.write(buf) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => buf = &buf[n.min(buf.len())..],
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Inputs shorter than this are encoded serially: below it, handing the work to the pool
/// costs more than the other cores save. Measured with `benches/parallel.rs` on two cores
/// (Zen 4, AVX-512; `docs/BENCHMARKS.md`): two threads first win at 128 KiB (1.06x) and
/// clearly at 256 KiB (1.45x).
pub const PAR_ENCODE_THRESHOLD: usize = 256 * 1024;

/// Inputs shorter than this are decoded serially. Decoding runs at three times the speed of
/// encoding, so it takes more input to pay for the hand-over: on two cores, two threads first
/// win at 1 MiB (1.07x; 1.4x at 4 MiB).
pub const PAR_DECODE_THRESHOLD: usize = 1024 * 1024;

/// Whether the current pool has one thread only: the in-memory parallel paths then gain
/// nothing over the serial ones.
pub(crate) fn single_thread() -> bool {
    rayon::current_num_threads() <= 1
}

/// Input bytes per chunk: large enough that a task's bookkeeping is noise, small enough that
/// a chunk's output slot stays in the core's L2 cache between zeroing and writing it, and
/// that the pool can balance the load.
pub(crate) const CHUNK: usize = 64 * 1024;

/// The set of `%` alone.
const PERCENT: crate::Set = crate::Set::EMPTY.with_iri(true).add(b'%');

/// Where the chunks of `input` start and end: `0`, then borders about `chunk` bytes apart,
/// each moved forward to the first position `safe` accepts, then `input.len()`.
fn borders(input: &[u8], chunk: usize, safe: impl Fn(usize) -> bool) -> Vec<usize> {
    let mut cuts = Vec::with_capacity(input.len() / chunk + 2);
    cuts.push(0);
    let mut next = chunk;
    while next < input.len() {
        let mut at = next;
        while at < input.len() && !safe(at) {
            at += 1;
        }
        if at >= input.len() {
            break;
        }
        cuts.push(at);
        next = at + chunk;
    }
    cuts.push(input.len());
    cuts
}

/// Whether a serial decoder (or a re-quoting encoder) is at a token boundary at `at`: no
/// `%` in the two bytes before it, so `at` is not inside an escape. (A `%` there might start
/// no escape; moving on past it is still correct.)
fn outside_escape(input: &[u8], at: usize) -> bool {
    at >= 2 && input[at - 1] != b'%' && input[at - 2] != b'%'
}

/// Whether `at` is not inside a UTF-8 sequence: `input[at]` is not a continuation byte.
fn at_char_boundary(input: &[u8], at: usize) -> bool {
    !matches!(input[at], 0x80..=0xBF)
}

/// Splits `out` into consecutive slots of the given lengths.
fn slots<'a, T>(mut out: &'a mut [T], lens: &[usize]) -> Vec<&'a mut [T]> {
    let mut slots = Vec::with_capacity(lens.len());
    for &len in lens {
        let (slot, rest) = core::mem::take(&mut out).split_at_mut(len);
        slots.push(slot);
        out = rest;
    }
    slots
}

/// Zeroes `slot` and gives it as bytes. The slot is zeroed just before its task writes it,
/// while it is in that core's cache.
fn zeroed(slot: &mut [MaybeUninit<u8>]) -> &mut [u8] {
    slot.fill(MaybeUninit::new(0));
    // SAFETY: every element was just initialized, and `MaybeUninit<u8>` has the layout of
    // `u8`.
    unsafe { &mut *(slot as *mut [MaybeUninit<u8>] as *mut [u8]) }
}

/// Appends `total` bytes to `out`, written by `fill(chunk_index, slot)` in parallel into the
/// slots of `lens` (which sum to `total`). `fill` returns whether it filled its slot exactly;
/// if one did not, `out` is left as it was and the result is `false`.
fn fill_slots(
    out: &mut Vec<u8>,
    lens: &[usize],
    total: usize,
    fill: impl Fn(usize, &mut [u8]) -> bool + Sync,
) -> bool {
    out.reserve(total);
    let start = out.len();
    let filled = fill_spare(&mut out.spare_capacity_mut()[..total], lens, fill);
    if filled {
        // SAFETY: `fill_spare` initialized all of `out[start..start + total]`; the capacity
        // was reserved above.
        unsafe { out.set_len(start + total) };
    }
    filled
}

/// Fills `spare` in parallel: the slots of `lens` (which sum to its length), each zeroed then
/// written by `fill(chunk_index, slot)`. Returns whether every `fill` filled its slot; either
/// way every byte of `spare` is initialized.
fn fill_spare(
    spare: &mut [MaybeUninit<u8>],
    lens: &[usize],
    fill: impl Fn(usize, &mut [u8]) -> bool + Sync,
) -> bool {
    slots(spare, lens)
        .into_par_iter()
        .enumerate()
        .map(|(i, slot)| fill(i, zeroed(slot)))
        .reduce(|| true, |a, b| a && b)
}

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
        let utf8_ok = match decoder.utf8_mode() {
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
    let engine = decoder.engine_in_use();
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
            matches!(decoder.bytes(piece, slot, true), Ok(s) if s.read == piece.len() && s.written == slot.len())
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

/// Input bytes per chunk of the writing paths ([`encode_to`], [`decode_to`]): each chunk's
/// output goes to a buffer of its own, reused from window to window, which stays in the
/// core's L2 cache while it is written.
pub(crate) const WRITE_CHUNK: usize = 64 * 1024;

/// Input bytes per window: enough chunks for every thread of a small machine to take
/// several (balancing the load), and a bound on memory whatever the number of threads: the
/// writing paths hold two windows of output buffers (about 5 MiB for text with a third of it
/// escaped, 12 MiB at most).
const WINDOW_BYTES: usize = 2 << 20;

/// Chunks per window: [`WINDOW_BYTES`] of them, or two per thread when there are more
/// threads than that.
fn window(chunk: usize) -> usize {
    (WINDOW_BYTES / chunk).max(2 * rayon::current_num_threads()).max(1)
}

/// A chunk's output buffer: `buf[..len]` is the output; all of `buf` is initialized, so it
/// is reused without zeroing.
#[derive(Default)]
struct Slot {
    buf: Vec<u8>,
    len: usize,
}

/// The output buffers of the writing paths: the window being written and the one being
/// worked on. A stream keeps its own, so that large inputs fed in segments (a mapped file)
/// do not allocate and fault in new buffers for each segment; they go with the stream.
#[derive(Default)]
pub(crate) struct Buffers {
    ready: Vec<Slot>,
    next: Vec<Slot>,
}

impl Clone for Buffers {
    /// A clone starts with no buffers of its own.
    fn clone(&self) -> Buffers {
        Buffers::default()
    }
}

impl core::fmt::Debug for Buffers {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Buffers")
    }
}

/// Runs `work` over `pieces` a window at a time into reused slots, and writes each window's
/// output to `out` in order while the next window is worked on. `work` fills a slot from a
/// piece, or fails; on a failure, the output of the pieces before the failing one is written,
/// and the failure is returned with its piece's index.
fn windows<W, E>(
    pieces: &[&[u8]],
    out: &mut W,
    buffers: &mut Buffers,
    chunk: usize,
    work: impl Fn(&[u8], &mut Slot) -> Result<(), E> + Sync,
) -> Result<(), (usize, Result<E, io::Error>)>
where
    W: Write + Send,
    E: Send,
{
    // `ready` holds the window being written, `next` the one being worked on.
    let Buffers { ready, next } = buffers;
    let window = window(chunk);
    let run = |batch: &[&[u8]], slots: &mut Vec<Slot>| -> Vec<Result<(), E>> {
        slots.resize_with(slots.len().max(batch.len()), Slot::default);
        batch.par_iter().zip(slots.par_iter_mut()).map(|(piece, slot)| work(piece, slot)).collect()
    };
    let write = |out: &mut W, slots: &[Slot], n: usize| -> io::Result<()> {
        slots[..n].iter().try_for_each(|slot| write_all(out, &slot.buf[..slot.len]))
    };
    let mut done = 0;
    let mut results = run(&pieces[..window.min(pieces.len())], ready);
    loop {
        let count = results.len();
        if let Some(bad) = results.iter().position(Result::is_err) {
            write(out, ready, bad).map_err(|e| (done + bad, Err(e)))?;
            let Some(Err(e)) = results.into_iter().nth(bad) else { unreachable!() };
            return Err((done + bad, Ok(e)));
        }
        let upcoming = &pieces[(done + count).min(pieces.len())..(done + count + window).min(pieces.len())];
        if upcoming.is_empty() {
            return write(out, ready, count).map_err(|e| (done + count, Err(e)));
        }
        // Write this window while the pool works on the next one.
        let (written, next_results) = rayon::join(|| write(out, ready, count), || run(upcoming, next));
        written.map_err(|e| (done + count, Err(e)))?;
        done += count;
        results = next_results;
        core::mem::swap(ready, next);
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
    let work = |piece: &[u8], slot: &mut Slot| -> Result<(), crate::BufferTooSmall> {
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
        slot.len = decoder.bytes(piece, &mut slot.buf, true)?.written;
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
    use crate::{Reject, sets};

    /// Inputs built from the tokens whose borders matter: escapes (valid, truncated,
    /// malformed), UTF-8 sequences (whole and broken), `+` and `%` runs.
    fn inputs() -> Vec<Vec<u8>> {
        let tokens: [&[u8]; 17] = [
            b"%",
            b"%4",
            b"%41",
            b"%C3%A9",
            "é".as_bytes(),
            "\u{1F600}".as_bytes(),
            b"+",
            b" ",
            b"a",
            b"\xFF",
            b"%zz",
            b"%%",
            b"\xC3",
            b"%2F",
            b"%00",
            b"%e9",
            b"\xF0\x9F",
        ];
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut all = Vec::new();
        // Miri interprets every operation: a few inputs there.
        let (lens, each): (&[usize], usize) =
            if cfg!(miri) { (&[0, 5, 40, 97], 1) } else { (&[0, 1, 2, 5, 17, 40, 97, 300], 12) };
        for &len in lens {
            for _ in 0..each {
                let mut v = Vec::new();
                while v.len() < len {
                    v.extend_from_slice(tokens[(next() % tokens.len() as u64) as usize]);
                }
                all.push(v);
            }
        }
        // Runs that leave no safe border at all, and valid text only.
        if cfg!(miri) {
            return all;
        }
        all.push(vec![b'%'; 50]);
        all.push(vec![0x80; 50]);
        all.push("%C3%A9é+".repeat(40).into_bytes());
        all
    }

    /// The chunk sizes tried: every small one, and some around the vector sizes.
    fn chunks() -> std::vec::Vec<usize> {
        if cfg!(miri) { std::vec![3, 33] } else { (1..=20).chain([33, 64, 65, 130]).collect() }
    }

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
        for backend in crate::Backend::ALL {
            let Some(engine) = crate::Engine::new(backend) else { continue };
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
        assert!(ran.contains(&crate::Engine::detect().backend().name()));
    }

    #[test]
    fn utf8_check_in_pieces() {
        for input in inputs() {
            for chunk in 1..=9 {
                assert_eq!(utf8_valid(&input, chunk), core::str::from_utf8(&input).is_ok(), "{input:?}");
            }
        }
    }

    #[test]
    fn borders_are_safe_and_increasing() {
        let input = b"ab%41cd%%%%ef";
        let cuts = borders(input, 2, |at| outside_escape(input, at));
        assert_eq!(cuts, [0, 2, 5, 7, 13]);
        assert_eq!(borders(b"", 4, |_| true), [0, 0]);
        assert_eq!(borders(b"%%%%", 1, |at| outside_escape(b"%%%%", at)), [0, 4]);
    }
}
