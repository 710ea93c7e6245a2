// Streams: input that arrives in pieces (a request body in several buffers, a long URI split
// across reads). Running the one-shot functions piece by piece is wrong wherever a piece ends
// inside an escape, a UTF-8 sequence or a `%u` surrogate pair; these handles keep that
// undecidable tail between calls, over the core's `StreamEncoder` and `StreamDecoder`.
//
// The core's streams append to a `Vec`. Each handle owns one, allocated when it is built and
// large enough for the output of `CHUNK` input bytes and of what the stream holds back, and
// copies from it into the caller's buffer: so `update` and `finish` never allocate, and the
// caller's capacity is never exceeded (the input is fed in chunks whose output is sure to
// fit).

use core::panic::AssertUnwindSafe;
use core::ptr;

use pctenc_core::{StreamDecoder, StreamEncoder, Utf8Mode};

use crate::decoder::pctenc_decoder;
use crate::encoder::pctenc_encoder;
use crate::error::{Failure, Outcome, pctenc_error, pctenc_status, run};
use crate::ffi::{handle, input, new_handle, output, overlap, store};

/// An output buffer of this many bytes always takes at least one more input byte, whatever
/// the stream holds back: a fixed-size buffer this large (or larger) never gets stuck. The
/// most one byte and the held-back bytes give: 3 x (1 + 3) = 12 encoding; decoding, 3 for
/// the byte, up to 11 for a `%u` pair's start and 9 for the escapes of a UTF-8 sequence cut
/// short, 3 for its replacement when lossy: 26; rounded up.
pub const PCTENC_STREAM_MIN_CAPACITY: usize = 32;

/// The most input fed to the core's stream at once: the handle's buffer holds its output.
const CHUNK: usize = 4096;

/// Room, besides `CHUNK` input bytes' worth, for what the held-back bytes give (at most 12
/// encoding, 23 decoding): the buffer is reserved once, so that feeding never grows it.
const HELD_OUTPUT_MAX: usize = 64;

/// An encoding stream: an encoder's rules, and the at most three input bytes at the end of the
/// last piece whose encoding the next piece may change. Built by `pctenc_encode_stream_new`,
/// freed by `pctenc_encode_stream_free`. Unlike an encoder, a stream changes at every call:
/// one thread at a time.
pub struct pctenc_encode_stream {
    stream: StreamEncoder,
    buffer: Vec<u8>,
}

/// A decoding stream: a decoder's rules, and what the next piece may still complete (an
/// escape, a UTF-8 sequence, a `%u` surrogate pair). Built by `pctenc_decode_stream_new`,
/// freed by `pctenc_decode_stream_free`. One thread at a time.
pub struct pctenc_decode_stream {
    stream: StreamDecoder,
    buffer: Vec<u8>,
}

/// What `update` and `finish` need of either stream.
trait Piecewise {
    /// The most output bytes one input byte gives.
    fn factor(&self) -> usize;
    /// The most output bytes what is held back can still give.
    fn held_output(&self) -> usize;
    fn feed(&mut self, input: &[u8], out: &mut Vec<u8>) -> Outcome;
    fn finish(&mut self, out: &mut Vec<u8>) -> Outcome;
}

impl Piecewise for StreamEncoder {
    fn factor(&self) -> usize {
        3
    }

    fn held_output(&self) -> usize {
        // Each held byte (a UTF-8 sequence cut short, or `%` and a digit) may become `%HH`.
        3 * StreamEncoder::held_back(self)
    }

    fn feed(&mut self, input: &[u8], out: &mut Vec<u8>) -> Outcome {
        StreamEncoder::feed(self, input, out);
        Ok(())
    }

    fn finish(&mut self, out: &mut Vec<u8>) -> Outcome {
        StreamEncoder::finish(self, out);
        Ok(())
    }
}

impl Piecewise for StreamDecoder {
    fn factor(&self) -> usize {
        // A replacement character (3 bytes) for one raw invalid byte; otherwise decoding
        // never lengthens (as `pctenc_decoded_len_max`).
        if self.decoder().utf8_value() == Utf8Mode::Lossy { 3 } else { 1 }
    }

    fn held_output(&self) -> usize {
        // What a decoder holds back is escapes (a `%` and a digit, a `%u` pair's start) and a
        // UTF-8 sequence cut short: escapes give no more bytes than they are; the sequence,
        // in lossy mode, one replacement character (3 bytes) however it ends, which may be
        // more than its bytes when they came raw. Charging every held byte at three, as raw
        // input, would make a small fixed buffer unable to take another byte.
        let (held, lossy) = (StreamDecoder::held_back(self), self.decoder().utf8_value() == Utf8Mode::Lossy);
        held + if lossy && held > 0 { 3 } else { 0 }
    }

    fn feed(&mut self, input: &[u8], out: &mut Vec<u8>) -> Outcome {
        StreamDecoder::feed(self, input, out).map_err(Failure::decode)
    }

    fn finish(&mut self, out: &mut Vec<u8>) -> Outcome {
        StreamDecoder::finish(self, out).map_err(Failure::decode)
    }
}

/// The most bytes the next `update` with `len` input bytes (or `finish`, with 0) writes.
fn max_output(stream: &impl Piecewise, len: usize) -> usize {
    stream.factor().saturating_mul(len).saturating_add(stream.held_output())
}

/// A buffer for the output of `CHUNK` input bytes and all a stream may hold back, allocated
/// now so that no later call allocates.
fn buffer(factor: usize) -> Result<Vec<u8>, Failure> {
    let mut buffer = Vec::new();
    buffer.try_reserve_exact(factor * CHUNK + HELD_OUTPUT_MAX).map_err(|_| Failure::out_of_memory(0))?;
    Ok(buffer)
}

/// Feeds the longest prefix of `src` whose output surely fits in `dst`, `CHUNK` bytes at a
/// time; returns (input consumed, bytes written).
fn update(
    stream: &mut impl Piecewise,
    buffer: &mut Vec<u8>,
    src: &[u8],
    dst: &mut [u8],
) -> Result<(usize, usize), Failure> {
    if src.is_empty() {
        // Nothing to feed, but a stream that failed says so again: the core's stream returns
        // its error to every call. An empty piece gives no output.
        buffer.clear();
        stream.feed(&[], buffer)?;
        if !buffer.is_empty() {
            return Err(Failure::internal());
        }
        return Ok((0, 0));
    }
    let (mut consumed, mut written) = (0, 0);
    while consumed < src.len() {
        let room = dst.len() - written;
        let fits = room.saturating_sub(stream.held_output()) / stream.factor();
        let n = (src.len() - consumed).min(fits).min(CHUNK);
        if n == 0 {
            break;
        }
        buffer.clear();
        stream.feed(&src[consumed..consumed + n], buffer)?;
        dst[written..written + buffer.len()].copy_from_slice(buffer);
        written += buffer.len();
        consumed += n;
    }
    if consumed == 0 && !src.is_empty() {
        return Err(Failure::too_small(0));
    }
    Ok((consumed, written))
}

/// Ends the stream into `dst`: `PCTENC_BUFFER_TOO_SMALL` with the room needed when `dst` is
/// shorter than the most the held-back bytes can give (the stream is then unchanged).
fn finish(
    stream: &mut impl Piecewise,
    buffer: &mut Vec<u8>,
    dst: &mut [u8],
) -> Result<usize, (usize, Failure)> {
    let needed = max_output(stream, 0);
    if dst.len() < needed {
        return Err((needed, Failure::too_small(0)));
    }
    buffer.clear();
    stream.finish(buffer).map_err(|f| (0, f))?;
    dst[..buffer.len()].copy_from_slice(buffer);
    Ok(buffer.len())
}

/// A stream as a mutable reference.
///
/// # Safety
///
/// `ptr` is NULL or a live stream from this library, used by no other thread, valid for `'a`.
unsafe fn stream_mut<'a, T>(ptr: *mut T) -> Result<&'a mut T, Failure> {
    // SAFETY: the caller's contract: NULL, or a live handle no one else uses.
    unsafe { ptr.as_mut() }.ok_or(Failure::bad_argument())
}

/// `update` for both kinds of stream: checks the arguments, writes `*consumed` and
/// `*written`.
///
/// # Safety
///
/// As `pctenc_encode_stream_update`, with `get` giving the stream's parts.
#[allow(clippy::too_many_arguments)]
unsafe fn update_c<S, P: Piecewise>(
    stream: *mut S,
    get: fn(&mut S) -> (&mut P, &mut Vec<u8>),
    src: *const u8,
    len: usize,
    dst: *mut u8,
    cap: usize,
    consumed: *mut usize,
    written: *mut usize,
    err: *mut pctenc_error,
) -> pctenc_status {
    let body = AssertUnwindSafe(|| {
        // SAFETY: the caller's contract on `consumed` and `written`.
        unsafe {
            store(consumed, 0)?;
            store(written, 0)?;
        }
        if overlap(src, len, dst, cap) {
            return Err(Failure::bad_argument());
        }
        // SAFETY: the caller's contract on every pointer; the buffers do not overlap.
        let (stream, src, dst) = unsafe { (stream_mut(stream)?, input(src, len)?, output(dst, cap)?) };
        let (stream, buffer) = get(stream);
        let (n, w) = update(stream, buffer, src, dst)?;
        // SAFETY: checked non-NULL and writable above.
        unsafe {
            ptr::write(consumed, n);
            ptr::write(written, w);
        }
        Ok(())
    });
    // SAFETY: the caller's contract on `err`.
    unsafe { run(err, body) }
}

/// `finish` for both kinds of stream.
///
/// # Safety
///
/// As `pctenc_encode_stream_finish`, with `get` giving the stream's parts.
unsafe fn finish_c<S, P: Piecewise>(
    stream: *mut S,
    get: fn(&mut S) -> (&mut P, &mut Vec<u8>),
    dst: *mut u8,
    cap: usize,
    written: *mut usize,
    err: *mut pctenc_error,
) -> pctenc_status {
    let body = AssertUnwindSafe(|| {
        // SAFETY: the caller's contract on `written`.
        unsafe { store(written, 0)? };
        // SAFETY: the caller's contract on `stream`, `dst` and `cap`.
        let (stream, dst) = unsafe { (stream_mut(stream)?, output(dst, cap)?) };
        let (stream, buffer) = get(stream);
        let (n, outcome) = match finish(stream, buffer, dst) {
            Ok(n) => (n, Ok(())),
            Err((needed, failure)) => (needed, Err(failure)),
        };
        // SAFETY: checked non-NULL and writable above.
        unsafe { ptr::write(written, n) };
        outcome
    });
    // SAFETY: the caller's contract on `err`.
    unsafe { run(err, body) }
}

fn encode_parts(s: &mut pctenc_encode_stream) -> (&mut StreamEncoder, &mut Vec<u8>) {
    (&mut s.stream, &mut s.buffer)
}

fn decode_parts(s: &mut pctenc_decode_stream) -> (&mut StreamDecoder, &mut Vec<u8>) {
    (&mut s.stream, &mut s.buffer)
}

/// Starts an encoding stream with the rules of `enc` (which may be freed afterwards: the
/// stream keeps a copy).
///
/// Writes: `*out`, the new stream (NULL on failure); `*err` when not NULL.
/// Returns `PCTENC_OK`, `PCTENC_BAD_ARGUMENT` (NULL `enc` or `out`), or
/// `PCTENC_OUT_OF_MEMORY` (the stream's 12 KiB buffer and the handle are its only
/// allocations: `update` and `finish` allocate nothing).
/// Ownership: the caller owns the stream and frees it with `pctenc_encode_stream_free`.
///
/// # Safety
///
/// `enc` is NULL or a live encoder; `out` and `err` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pctenc_encode_stream_new(
    enc: *const pctenc_encoder,
    out: *mut *mut pctenc_encode_stream,
    err: *mut pctenc_error,
) -> pctenc_status {
    let body = AssertUnwindSafe(|| {
        // SAFETY: the caller's contract on `out` and `enc`.
        unsafe {
            new_handle(out, || {
                let enc = handle(enc)?;
                Ok(pctenc_encode_stream { stream: StreamEncoder::new(enc.0), buffer: buffer(3)? })
            })
        }
    });
    // SAFETY: the caller's contract on `err`.
    unsafe { run(err, body) }
}

/// The most bytes `pctenc_encode_stream_update` writes for `len` more input bytes, or, with
/// `len` 0, the room `pctenc_encode_stream_finish` needs: three bytes for each input byte and
/// each byte the stream holds back. A buffer that large takes all of the input in one call.
///
/// Returns the size, `SIZE_MAX` when it does not fit in a `size_t`, or for a NULL `stream`.
///
/// # Safety
///
/// `stream` is NULL or a live encoding stream.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pctenc_encode_stream_max_output(
    stream: *const pctenc_encode_stream,
    len: usize,
) -> usize {
    // SAFETY: the caller's contract on `stream`.
    match unsafe { stream.as_ref() } {
        Some(s) => max_output(&s.stream, len),
        None => usize::MAX,
    }
}

/// Encodes the next piece of the stream, `src` (`len` bytes), into `dst` (room for `cap`
/// bytes). Consumes as much of `src` as surely fits: all of it when `cap` is at least
/// `pctenc_encode_stream_max_output(stream, len)`; otherwise a prefix, and the caller calls
/// again with the rest (`src + *consumed`) once it has drained `dst`. The last bytes consumed
/// may be held back, when the next piece can change their encoding (`PCTENC_ENCODE_IRI`: a
/// UTF-8 sequence cut short; `PCTENC_ENCODE_KEEP_ESCAPES`: a `%` and up to one hex digit):
/// `pctenc_encode_stream_finish` writes them at the end. The output of all the pieces and the
/// finish is exactly `pctenc_encode` of their concatenation.
///
/// Writes: `dst[0..*written)`; `*consumed` and `*written` (both 0 on failure); `*err` when not
/// NULL.
/// Returns `PCTENC_OK`; `PCTENC_BUFFER_TOO_SMALL` when `len > 0` and not one byte fits
/// (nothing consumed; `pctenc_encode_stream_max_output(stream, 1)` bytes are enough, and
/// `PCTENC_STREAM_MIN_CAPACITY` (32) bytes always are);
/// `PCTENC_BAD_ARGUMENT` (NULL `stream`, `consumed` or `written`, a NULL buffer with a
/// length, overlapping buffers). Encoding never fails on input.
/// One thread at a time per stream.
///
/// # Safety
///
/// `stream` is NULL or a live encoding stream no other thread is using; `src` is readable for
/// `len` bytes and `dst` writable for `cap` bytes (or the length is 0); `consumed`,
/// `written` and `err` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pctenc_encode_stream_update(
    stream: *mut pctenc_encode_stream,
    src: *const u8,
    len: usize,
    dst: *mut u8,
    cap: usize,
    consumed: *mut usize,
    written: *mut usize,
    err: *mut pctenc_error,
) -> pctenc_status {
    // SAFETY: the caller's contract, passed on.
    unsafe { update_c(stream, encode_parts, src, len, dst, cap, consumed, written, err) }
}

/// Ends the stream: writes the encoding of the bytes held back into `dst` (room for `cap`
/// bytes; `pctenc_encode_stream_max_output(stream, 0)` is enough). The stream can then start
/// again, as new.
///
/// Writes: `dst[0..*written)`; `*written` (the room needed on `PCTENC_BUFFER_TOO_SMALL`, else 0
/// on failure); `*err` when not NULL.
/// Returns `PCTENC_OK`; `PCTENC_BUFFER_TOO_SMALL` (the stream unchanged: call again with more
/// room); `PCTENC_BAD_ARGUMENT` (NULL `stream` or `written`, NULL `dst` with `cap > 0`).
///
/// # Safety
///
/// `stream` is NULL or a live encoding stream no other thread is using; `dst` is writable for
/// `cap` bytes (or `cap` is 0); `written` and `err` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pctenc_encode_stream_finish(
    stream: *mut pctenc_encode_stream,
    dst: *mut u8,
    cap: usize,
    written: *mut usize,
    err: *mut pctenc_error,
) -> pctenc_status {
    // SAFETY: the caller's contract, passed on.
    unsafe { finish_c(stream, encode_parts, dst, cap, written, err) }
}

/// Frees an encoding stream, with what it holds back (call `pctenc_encode_stream_finish`
/// first to have it). NULL is allowed and does nothing.
///
/// # Safety
///
/// `stream` is NULL or a stream from `pctenc_encode_stream_new` not freed yet, and no other
/// thread is using it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pctenc_encode_stream_free(stream: *mut pctenc_encode_stream) {
    if !stream.is_null() {
        // SAFETY: the caller's contract: a live handle from `Box::into_raw`, freed once.
        drop(unsafe { Box::from_raw(stream) });
    }
}

/// Starts a decoding stream with the rules of `dec` (which may be freed afterwards: the
/// stream keeps a copy).
///
/// Writes: `*out`, the new stream (NULL on failure); `*err` when not NULL.
/// Returns `PCTENC_OK`, `PCTENC_BAD_ARGUMENT` (NULL `dec` or `out`), or
/// `PCTENC_OUT_OF_MEMORY` (the stream's buffer, 4 KiB or 12 KiB with
/// `PCTENC_DECODE_UTF8_LOSSY`, and the handle are its only allocations: `update` and
/// `finish` allocate nothing).
/// Ownership: the caller owns the stream and frees it with `pctenc_decode_stream_free`.
///
/// # Safety
///
/// `dec` is NULL or a live decoder; `out` and `err` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pctenc_decode_stream_new(
    dec: *const pctenc_decoder,
    out: *mut *mut pctenc_decode_stream,
    err: *mut pctenc_error,
) -> pctenc_status {
    let body = AssertUnwindSafe(|| {
        // SAFETY: the caller's contract on `out` and `dec`.
        unsafe {
            new_handle(out, || {
                let stream = StreamDecoder::new(handle(dec)?.0);
                let buffer = buffer(stream.factor())?;
                Ok(pctenc_decode_stream { stream, buffer })
            })
        }
    });
    // SAFETY: the caller's contract on `err`.
    unsafe { run(err, body) }
}

/// The most bytes `pctenc_decode_stream_update` writes for `len` more input bytes, or, with
/// `len` 0, the room `pctenc_decode_stream_finish` needs: one byte for each input byte
/// (three with `PCTENC_DECODE_UTF8_LOSSY`, as `pctenc_decoded_len_max`) and one for each byte
/// held back (escapes, which never give more than they are).
///
/// Returns the size, `SIZE_MAX` when it does not fit in a `size_t`, or for a NULL `stream`.
///
/// # Safety
///
/// `stream` is NULL or a live decoding stream.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pctenc_decode_stream_max_output(
    stream: *const pctenc_decode_stream,
    len: usize,
) -> usize {
    // SAFETY: the caller's contract on `stream`.
    match unsafe { stream.as_ref() } {
        Some(s) => max_output(&s.stream, len),
        None => usize::MAX,
    }
}

/// Decodes the next piece of the stream, `src` (`len` bytes), into `dst` (room for `cap`
/// bytes). Consumes as much of `src` as surely fits, as `pctenc_encode_stream_update` does.
/// What the next piece may complete is held back: a `%` and up to one digit, the escapes of a
/// UTF-8 sequence cut short (`PCTENC_DECODE_UTF8_STRICT` or `_LOSSY`), a `%u` high surrogate
/// and the start of what may be its low half (`PCTENC_DECODE_LEGACY_U`).
/// `pctenc_decode_stream_finish` settles them at the end. The output of all the pieces and the
/// finish is exactly `pctenc_decode` of their concatenation, and so are the errors: an error
/// is reported as soon as the input consumed shows it, with its offset from the start of the
/// stream (not of this piece), and a truncated tail by `finish`.
///
/// Writes: `dst[0..*written)`; `*consumed` and `*written` (both 0 on failure, and `dst`'s
/// contents then unspecified); `*err` when not NULL.
/// Returns `PCTENC_OK`; `PCTENC_INVALID_INPUT` (kind and stream offset in `*err`; the stream
/// is then over, and every later call returns the same error); `PCTENC_BUFFER_TOO_SMALL` when
/// `len > 0` and not one byte fits (nothing consumed;
/// `pctenc_decode_stream_max_output(stream, 1)` bytes are enough, and
/// `PCTENC_STREAM_MIN_CAPACITY` (32) bytes always are);
/// `PCTENC_BAD_ARGUMENT` (NULL `stream`, `consumed` or `written`, a NULL buffer with a length,
/// overlapping buffers).
/// One thread at a time per stream.
///
/// # Safety
///
/// `stream` is NULL or a live decoding stream no other thread is using; `src` is readable for
/// `len` bytes and `dst` writable for `cap` bytes (or the length is 0); `consumed`,
/// `written` and `err` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pctenc_decode_stream_update(
    stream: *mut pctenc_decode_stream,
    src: *const u8,
    len: usize,
    dst: *mut u8,
    cap: usize,
    consumed: *mut usize,
    written: *mut usize,
    err: *mut pctenc_error,
) -> pctenc_status {
    // SAFETY: the caller's contract, passed on.
    unsafe { update_c(stream, decode_parts, src, len, dst, cap, consumed, written, err) }
}

/// Ends the stream: decodes what was held back into `dst` (room for `cap` bytes;
/// `pctenc_decode_stream_max_output(stream, 0)` is enough), and reports a tail left
/// unfinished as `pctenc_decode` reports it at the end of an input: a `%` without its two
/// digits (`PCTENC_KIND_TRUNCATED_ESCAPE`, unless lenient, which copies it), a UTF-8 sequence
/// cut short (`PCTENC_KIND_INVALID_UTF8` with `PCTENC_DECODE_UTF8_STRICT`; U+FFFD with
/// `_LOSSY`), a lone `%u` high surrogate. On success the stream can start again, as new.
///
/// Writes: `dst[0..*written)`; `*written` (the room needed on `PCTENC_BUFFER_TOO_SMALL`, else 0
/// on failure); `*err` when not NULL.
/// Returns `PCTENC_OK`; `PCTENC_INVALID_INPUT` (kind and stream offset in `*err`);
/// `PCTENC_BUFFER_TOO_SMALL` (the stream unchanged: call again with more room);
/// `PCTENC_BAD_ARGUMENT` (NULL `stream` or `written`, NULL `dst` with `cap > 0`).
///
/// # Safety
///
/// `stream` is NULL or a live decoding stream no other thread is using; `dst` is writable for
/// `cap` bytes (or `cap` is 0); `written` and `err` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pctenc_decode_stream_finish(
    stream: *mut pctenc_decode_stream,
    dst: *mut u8,
    cap: usize,
    written: *mut usize,
    err: *mut pctenc_error,
) -> pctenc_status {
    // SAFETY: the caller's contract, passed on.
    unsafe { finish_c(stream, decode_parts, dst, cap, written, err) }
}

/// Frees a decoding stream, with what it holds back (call `pctenc_decode_stream_finish` first
/// to have it, or to learn that the input ended inside an escape). NULL is allowed and does
/// nothing.
///
/// # Safety
///
/// `stream` is NULL or a stream from `pctenc_decode_stream_new` not freed yet, and no other
/// thread is using it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pctenc_decode_stream_free(stream: *mut pctenc_decode_stream) {
    if !stream.is_null() {
        // SAFETY: the caller's contract: a live handle from `Box::into_raw`, freed once.
        drop(unsafe { Box::from_raw(stream) });
    }
}
