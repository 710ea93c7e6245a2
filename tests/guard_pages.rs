//! No backend reads or writes one byte outside its slices, not even inside the same page.
//!
//! Inputs and exact-size outputs are placed so that they end exactly where a `PROT_NONE` page
//! begins, or start right where one ends (`mmap` + `mprotect`); a load or store past either
//! end faults and kills the test. Every length `0..=256` (four vectors of the widest backend),
//! for every backend this CPU has, and the results must equal the scalar ones.
//!
//! A fault ends the process with SIGSEGV and no message; `PCTENC_GUARD_TRACE=1` prints each
//! case before it runs, so the last line printed names the one that faulted.
//!
//! Miri cannot call `mmap`; its runs check the same bounds with its own borrow tracking.

#![cfg(all(unix, not(miri)))]

use pctenc::{Decoder, Encoder, Engine, Reject, Set, Utf8Mode, sets};

mod common;
use common::{all_decoders, engines_with_scalar, outcome};

/// The longest input tried: four vectors of AVX-512, so every loop, tail and overlap runs.
const MAX_LEN: usize = 256;

/// One readable and writable page between two `PROT_NONE` pages.
struct Guarded {
    /// The start of the mapping: the first guard page.
    map: *mut u8,
    page: usize,
}

impl Guarded {
    fn new() -> Guarded {
        // SAFETY: sysconf has no preconditions.
        let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap();
        assert!(page >= 4 * MAX_LEN, "page of {page} bytes too small for the outputs tried");
        // SAFETY: a fresh anonymous private mapping at an address the kernel chooses; the
        // result is checked before use.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                3 * page,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert_ne!(map, libc::MAP_FAILED, "mmap failed");
        let map = map.cast::<u8>();
        for guard in [0, 2 * page] {
            // SAFETY: both guard pages lie inside the mapping made above.
            let rc = unsafe { libc::mprotect(map.add(guard).cast(), page, libc::PROT_NONE) };
            assert_eq!(rc, 0, "mprotect failed");
        }
        Guarded { map, page }
    }

    /// `len` bytes that end exactly where the second guard page begins.
    fn tail(&mut self, len: usize) -> &mut [u8] {
        assert!(len <= self.page);
        // SAFETY: the bytes `2 * page - len .. 2 * page` lie in the middle, readable and
        // writable page, which only this value owns, and `&mut self` keeps the slice unique.
        unsafe { std::slice::from_raw_parts_mut(self.map.add(2 * self.page - len), len) }
    }

    /// `len` bytes that start right where the first guard page ends.
    fn head(&mut self, len: usize) -> &mut [u8] {
        assert!(len <= self.page);
        // SAFETY: as in `tail`, for `page .. page + len`.
        unsafe { std::slice::from_raw_parts_mut(self.map.add(self.page), len) }
    }

    /// `len` bytes at one of the two edges.
    fn at(&mut self, edge: Edge, len: usize) -> &mut [u8] {
        match edge {
            Edge::End => self.tail(len),
            Edge::Start => self.head(len),
        }
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping made in `new`; no slice into it outlives `self`.
        unsafe { libc::munmap(self.map.cast(), 3 * self.page) };
    }
}

#[derive(Clone, Copy, Debug)]
enum Edge {
    /// The slice ends where a guard page begins.
    End,
    /// The slice starts where a guard page ends.
    Start,
}

const EDGES: [Edge; 2] = [Edge::End, Edge::Start];

/// Inputs of `len` bytes that take each path of a block: all kept, all escaped, text with
/// multi-byte UTF-8, escapes (valid, malformed, `%u`, cut at the end), a run of valid
/// escapes (the decoders' path for runs), random bytes.
fn inputs(len: usize) -> Vec<Vec<u8>> {
    let cycle = |pattern: &[u8]| pattern.iter().copied().cycle().take(len).collect::<Vec<u8>>();
    let mut x = (len as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let random = (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 32) as u8
        })
        .collect();
    vec![
        cycle(b"a"),
        cycle(b" "),
        cycle("é中 a/b".as_bytes()),
        cycle(b"%41%e9+%zz%"),
        cycle(b"x%u00e9%C3%A9%2"),
        cycle(b"%"),
        cycle(b"%E4%B8%AD%e6%96%87"),
        random,
    ]
}

fn encoders() -> Vec<Encoder> {
    vec![
        Encoder::new(sets::COMPONENT),
        Encoder::new(sets::PATH),
        Encoder::new(sets::FORM),
        Encoder::new(sets::FORM).lowercase(true),
        Encoder::new(sets::COMPONENT.with_iri(true)),
        Encoder::new(sets::RFC3986).keep_escapes(true),
        Encoder::new(Set::ALL),
        Encoder::new(Set::EMPTY),
    ]
}

fn decoders() -> Vec<Decoder> {
    let mut all = all_decoders();
    all.push(Decoder::new().keep_encoded(Decoder::URI_RESERVED).reject(Reject::ALL));
    all.push(Decoder::new().lenient(true).legacy_u(true).utf8(Utf8Mode::Lossy));
    all.push(Decoder::new().legacy_u(true).reject(Reject::NUL | Reject::CR_LF));
    all
}

/// Encoding, its length (of the whole and of parts) and validation read only the input; the
/// output written is exact.
fn check_encode(engine: Engine, input: &[u8], edge: Edge, out: &mut Guarded) {
    for encoder in encoders() {
        let (fast, scalar) = (encoder.engine(engine), encoder.engine(Engine::scalar()));
        let want = scalar.encode(input);
        let ctx = || format!("{:?}, {edge:?}, {:?}, input {input:?}", engine.backend(), encoder.set());
        assert_eq!(fast.encode(input), want, "encode: {}", ctx());
        assert_eq!(fast.encoded_len(input), want.len(), "encoded_len: {}", ctx());
        let (half, end) = (input.len() / 2, input.len());
        let lens = [scalar.encoded_len(&input[..half]), scalar.encoded_len(&input[half..])];
        assert_eq!(fast.encoded_lens(input, &[0, half, end]), lens, "encoded_lens: {}", ctx());
        assert_eq!(fast.encoded_lens(input, &[1.min(end), end]), [scalar.encoded_len(&input[1.min(end)..])]);
        assert_eq!(fast.validate(input), scalar.validate(input), "validate: {}", ctx());
        let n = want.len();
        let slot = out.at(edge, n);
        assert_eq!(fast.encode_slice(input, slot), Ok(n), "encode_slice: {}", ctx());
        assert_eq!(slot, want.as_bytes(), "encode_slice: {}", ctx());
        if n > 0 {
            let short = out.at(edge, n - 1);
            assert!(fast.encode_slice(input, short).is_err(), "encode_slice into {} bytes: {}", n - 1, ctx());
        }
    }
}

/// Decoding into exact-size and one-byte-short outputs, and in place at the edge.
fn check_decode(engine: Engine, input: &[u8], edge: Edge, out: &mut Guarded) {
    for decoder in decoders() {
        let (fast, scalar) = (decoder.engine(engine), decoder.engine(Engine::scalar()));
        let want = outcome(scalar.decode(input));
        let ctx = || format!("{:?}, {edge:?}, {decoder:?}, input {input:?}", engine.backend());
        assert_eq!(outcome(fast.decode(input)), want, "decode: {}", ctx());
        let exact = want.as_ref().map_or(input.len(), Vec::len);
        for room in [exact, exact.wrapping_sub(1)].into_iter().filter(|&r| r <= exact) {
            let mut reference = vec![0; room];
            let expected = scalar.decode_slice(input, &mut reference).map(|n| reference[..n].to_vec());
            let slot = out.at(edge, room);
            let got = fast.decode_slice(input, slot).map(|n| slot[..n].to_vec());
            assert_eq!(outcome(got), outcome(expected), "decode_slice into {room} bytes: {}", ctx());
        }
        let buf = out.at(edge, input.len());
        buf.copy_from_slice(input);
        let got = fast.decode_in_place(buf).map(|n| buf[..n].to_vec());
        let mut reference = input.to_vec();
        let expected = scalar.decode_in_place(&mut reference).map(|n| reference[..n].to_vec());
        assert_eq!(outcome(got), outcome(expected), "decode_in_place: {}", ctx());
    }
}

/// The functions that run on the detected engine only.
fn check_detected(input: &[u8], edge: Edge, out: &mut Guarded) {
    let want = pctenc::normalize(input).into_owned();
    let slot = out.at(edge, want.len());
    assert_eq!(pctenc::normalize_slice(input, slot), Ok(want.len()), "normalize_slice, {edge:?}, {input:?}");
    assert_eq!(*slot, *want);
    let buf = out.at(edge, input.len());
    buf.copy_from_slice(input);
    let n = pctenc::normalize_in_place(buf);
    assert_eq!(buf[..n], *want, "normalize_in_place, {edge:?}, {input:?}");
    let _ = pctenc::requote(input, &sets::PATH);
    let _ = pctenc::form::parse(input).count();
}

#[test]
fn every_backend_stays_inside_slices_that_touch_a_guard_page() {
    let engines = engines_with_scalar();
    let (mut input_pages, mut output_pages) = (Guarded::new(), Guarded::new());
    let trace = std::env::var_os("PCTENC_GUARD_TRACE").is_some();
    let mut checked = 0usize;
    for engine in &engines {
        for len in 0..=MAX_LEN {
            for data in inputs(len) {
                for edge in EDGES {
                    let input = input_pages.at(edge, len);
                    input.copy_from_slice(&data);
                    let input: &[u8] = input;
                    if trace {
                        eprintln!("{:?}, {edge:?}, {input:?}", engine.backend());
                    }
                    check_encode(*engine, input, edge, &mut output_pages);
                    check_decode(*engine, input, edge, &mut output_pages);
                    if engine.backend() == pctenc::Backend::detect() {
                        check_detected(input, edge, &mut output_pages);
                    }
                    checked += 1;
                }
            }
        }
    }
    let names: Vec<_> = engines.iter().map(|e| e.backend()).collect();
    eprintln!("guard pages: {checked} placed inputs, lengths 0..={MAX_LEN}, backends {names:?}");
}
