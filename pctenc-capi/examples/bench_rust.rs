//! The Rust half of `pctenc-capi/bench.sh`: writes the benchmark inputs that `bench/bench.c`
//! reads, and times the Rust API on them the way `bench/bench.c` times the C API (batches of
//! calls, the median batch, nanoseconds per call). It also times the C API from here, through
//! the FFI, in batches that alternate with the Rust API's: on a busy machine that comparison
//! is the steadier one.
//!
//! ```sh
//! cargo run --release -p pctenc-capi --example bench_rust -- DIR
//! cargo run --release -p pctenc-capi --example bench_rust -- --backend   # the backend in use
//! ```

use std::hint::black_box;
use std::time::Instant;

use pctenc_core::{Decoder, Encoder, sets};

/// Access-log-like text (paths, queries, some UTF-8), from a fixed seed: the same bytes on
/// every run.
fn log_text(size: usize) -> Vec<u8> {
    const PIECES: &[&str] = &[
        "GET ",
        "/static/",
        "img/",
        "caf\u{e9}",
        " cr\u{e8}me",
        "/search?q=",
        "hello world",
        "&lang=",
        "fr",
        "\u{65e5}\u{672c}",
        "index.html",
        " HTTP/1.1",
        "user=ada",
        "&page=2",
        "#top",
        "2024-05-01",
        "a+b",
        "100%",
        "/api/v1/",
        "items",
        "[x]",
        "\"quoted\"",
        "-",
        "_",
        "~",
        ".",
        "\n",
    ];
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut out = Vec::with_capacity(size + 32);
    while out.len() < size {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        out.extend_from_slice(PIECES[(state >> 33) as usize % PIECES.len()].as_bytes());
    }
    // Cut at a character boundary at or below `size`.
    let mut end = size;
    while end > 0 && end < out.len() && (out[end] & 0xC0) == 0x80 {
        end -= 1;
    }
    out.truncate(end);
    out
}

/// Nanoseconds per call of `a` and of `b`, timed in batches of `iters` calls that alternate
/// (a, b, b, a, a, b, ...) so that both see the same machine: the median batch of each, and
/// the medians of the paired ratios `b / a` and differences `b - a` of adjacent batches, and
/// the fastest batch of `a`.
fn time_pair(iters: usize, mut a: impl FnMut() -> usize, mut b: impl FnMut() -> usize) -> [f64; 5] {
    const ROUNDS: usize = 201;
    let mut sink = 0usize;
    let mut batch = |f: &mut dyn FnMut() -> usize| {
        let start = Instant::now();
        for _ in 0..iters {
            sink = sink.wrapping_add(f());
        }
        start.elapsed().as_nanos() as f64 / iters as f64
    };
    batch(&mut a);
    batch(&mut b);
    let (mut ta, mut tb) = (Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        let (x, y) = if round % 2 == 0 {
            let x = batch(&mut a);
            (x, batch(&mut b))
        } else {
            let y = batch(&mut b);
            (batch(&mut a), y)
        };
        ta.push(x);
        tb.push(y);
    }
    black_box(sink);
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let ratios = ta.iter().zip(&tb).map(|(x, y)| y / x).collect();
    let diffs = ta.iter().zip(&tb).map(|(x, y)| y - x).collect();
    let best = ta.iter().copied().fold(f64::INFINITY, f64::min);
    [median(ta), median(tb), median(ratios), median(diffs), best]
}

fn main() {
    let dir = std::env::args().nth(1).expect("usage: bench_rust DIR | --backend");
    if dir == "--backend" {
        println!("{}", pctenc_core::Backend::detect().name());
        return;
    }
    let dir = std::path::Path::new(&dir);
    let enc = Encoder::new(sets::COMPONENT);
    let dec = Decoder::new();
    // The encoding of log text, cut to `size` bytes where no escape is cut.
    let encoded = |size: usize| {
        let mut text = enc.encode(&log_text(size)).into_owned().into_bytes();
        let mut end = size.min(text.len());
        while end >= 2 && (text[end - 1] == b'%' || text[end - 2] == b'%') {
            end -= 1;
        }
        text.truncate(end);
        text
    };

    let encode_64k = log_text(65536);
    let decode_64k = encoded(65536);
    let encode_32 = log_text(32);
    let decode_32 = encoded(32);
    let inputs = [
        ("encode-64k", &encode_64k, 200),
        ("decode-64k", &decode_64k, 200),
        ("encode-32", &encode_32, 50_000),
        ("decode-32", &decode_32, 50_000),
    ];
    let mut out = vec![0u8; 3 * 65536 + 64];
    let mut out2 = vec![0u8; 3 * 65536 + 64];
    let (mut c_enc, mut c_dec) = (core::ptr::null_mut(), core::ptr::null_mut());
    // SAFETY: valid name and out pointers.
    unsafe {
        assert_eq!(
            pctenc::pctenc_encoder_new(c"component".as_ptr(), 9, 0, &mut c_enc, core::ptr::null_mut()),
            pctenc::pctenc_status::PCTENC_OK
        );
        assert_eq!(
            pctenc::pctenc_decoder_new(0, core::ptr::null(), &mut c_dec, core::ptr::null_mut()),
            pctenc::pctenc_status::PCTENC_OK
        );
    }
    for (name, input, iters) in inputs {
        std::fs::write(dir.join(format!("{name}.bin")), input).unwrap();
        // The Rust API, and the C API called through the FFI (not inlined: another crate,
        // no LTO), in alternating batches.
        let ffi = |out: &mut [u8]| {
            let mut n = 0;
            let input = black_box(&input[..]);
            // SAFETY: live handles, valid buffers.
            unsafe {
                if name.starts_with("encode") {
                    pctenc::pctenc_encode(
                        c_enc,
                        input.as_ptr(),
                        input.len(),
                        out.as_mut_ptr(),
                        out.len(),
                        &mut n,
                        core::ptr::null_mut(),
                    );
                } else {
                    pctenc::pctenc_decode(
                        c_dec,
                        input.as_ptr(),
                        input.len(),
                        out.as_mut_ptr(),
                        out.len(),
                        &mut n,
                        core::ptr::null_mut(),
                    );
                }
            }
            n
        };
        let [rust, c, ratio, diff, best] = if name.starts_with("encode") {
            time_pair(
                iters,
                || enc.encode_slice(black_box(&input[..]), black_box(&mut out[..])).unwrap(),
                || ffi(&mut out2),
            )
        } else {
            time_pair(
                iters,
                || dec.decode_slice(black_box(&input[..]), black_box(&mut out[..])).unwrap(),
                || ffi(&mut out2),
            )
        };
        println!("rust\t{name}\t{}\t{rust:.2}\t{best:.2}", input.len());
        println!("ffi\t{name}\t{}\t{c:.2}\t{ratio:.4}\t{diff:.2}", input.len());
    }
    // SAFETY: live handles, freed once.
    unsafe {
        pctenc::pctenc_encoder_free(c_enc);
        pctenc::pctenc_decoder_free(c_dec);
    }
}
