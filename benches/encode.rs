//! Encoding throughput: pctenc against `memcpy` and the peer crates, with the rfc3986 set.
//!
//! Run:
//!
//! ```text
//! cargo bench --bench encode                                   # everything (about 12 min)
//! PCTENC_BENCH_SIZES=65536 cargo bench --bench encode -- --warm-up-time 1 --measurement-time 2
//! PCTENC_BENCH_SIZES=64,4K cargo bench --bench encode -- encode/log   # a criterion filter
//! ```
//!
//! `PCTENC_BENCH_SIZES` (comma-separated byte counts, `K`/`M` suffixes allowed) selects the
//! input sizes; the default is `64,4096,65536,16777216`. Groups of 1 MiB and more use
//! 10 samples, flat sampling, 1 s warm-up and 4 s measurement, whatever the command line says.
//! Under `cargo test --benches` (criterion's test mode: each function runs once, in a debug
//! build, after the output checks) the default leaves out 16 MiB; set the variable to test it.
//!
//! Ids (stable, parsed by scripts reading `target/criterion/**/benchmark.json`):
//! group `encode/<workload>/<size>` with workload `safe`, `log`, `multilingual`, `random` and
//! size the input length in bytes; throughput `Bytes(input length)`; functions:
//!
//! - `memcpy`: `copy_from_slice` into a preallocated buffer, the upper bound;
//! - `memcpy-output`: `copy_from_slice` of as many bytes as the *output* (`encoded_len`):
//!   what writing the output costs the memory system, the bound an escape-dense encoder
//!   meets (throughput still counts the input's bytes, so the ratio to it is the fraction
//!   reached);
//! - `pctenc-<backend>` for every backend this CPU has (`scalar`, `sse2`, `ssse3`, `avx2`,
//!   `avx512`, `neon`): `Encoder::encode_slice` (the encoder pinned to the backend with
//!   `Encoder::engine`) into a buffer sized with `encoded_len`, in one pass;
//! - `pctenc-<best>-string`: `pctenc::encode_string` (the detected backend) into a reused,
//!   cleared `String`;
//! - `pctenc-<best>-vec`: `Encoder::encode_vec` into a reused, cleared `Vec<u8>`;
//! - `pctenc-<best>-cow`: `pctenc::encode`, which borrows an input that needs no escaping
//!   and otherwise allocates its output on every call;
//! - `percent-encoding`: `percent_encode` with an `AsciiSet` equal to rfc3986, pushed into a
//!   reused `String`;
//! - `urlencoding`: `urlencoding::encode_binary` (same set as rfc3986; it allocates its
//!   result every call, there is no API to reuse a buffer for it);
//! - `form_urlencoded`: `form_urlencoded::byte_serialize` into a reused `String`. Its set is
//!   the form set (keeps `*`, escapes `~`, space as `+`), not rfc3986: close, but not the same
//!   output; it is checked against `pctenc::sets::FORM` instead.
//!

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use pctenc::{Backend, Encoder, Engine, sets};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC};

#[allow(dead_code)] // Shared by the benches; each uses a part.
mod common;
use common::{WORKLOADS, bench_output_copy, configure_large, escaped_percent, pctenc_id, sizes};

/// percent-encoding's spelling of rfc3986: everything but letters, digits and `-._~`.
const PE_RFC3986: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

fn pe_encode(input: &[u8], out: &mut String) {
    percent_encoding::percent_encode(input, PE_RFC3986).for_each(|s| out.push_str(s));
}

fn form_encode(input: &[u8], out: &mut String) {
    form_urlencoded::byte_serialize(input).for_each(|s| out.push_str(s));
}

/// Checks that the functions compared produce the same output, so that the comparison is
/// between equal work.
fn check(id: &str, input: &[u8]) {
    let len = pctenc::encoded_len(input, &sets::RFC3986);
    for backend in Backend::ALL.into_iter().filter(|b| b.is_available()) {
        let fast = Encoder::new(sets::RFC3986).engine(Engine::new(backend).unwrap());
        let scalar = Encoder::new(sets::RFC3986).engine(Engine::scalar());
        assert_eq!(fast.encode(input), scalar.encode(input), "{id}: {backend} != scalar");
    }
    let mut buf = vec![0u8; len];
    let n = pctenc::encode_slice(input, &sets::RFC3986, &mut buf).expect("buffer sized by encoded_len");
    assert_eq!(n, len, "{id}: encode_slice wrote a length other than encoded_len");
    let slice = std::str::from_utf8(&buf).expect("encode_slice output is ASCII");

    let mut string = String::from("junk to clear");
    string.clear();
    pctenc::encode_string(input, &sets::RFC3986, &mut string);
    assert_eq!(string, slice, "{id}: encode_string != encode_slice");
    assert_eq!(pctenc::encode(input, &sets::RFC3986), slice, "{id}: encode != encode_slice");
    let mut vec = b"junk".to_vec();
    vec.clear();
    Encoder::new(sets::RFC3986).encode_vec(input, &mut vec);
    assert_eq!(vec, slice.as_bytes(), "{id}: encode_vec != encode_slice");

    let mut pe = String::new();
    pe_encode(input, &mut pe);
    assert_eq!(slice, pe, "{id}: pctenc rfc3986 != percent-encoding");
    assert_eq!(slice, urlencoding::encode_binary(input), "{id}: pctenc rfc3986 != urlencoding");

    let mut form = String::new();
    form_encode(input, &mut form);
    assert_eq!(pctenc::encode(input, &sets::FORM), form, "{id}: pctenc form != form_urlencoded");

    eprintln!("{id}: {} -> {} bytes, {:.1}% of bytes escaped", input.len(), len, escaped_percent(input));
}

fn bench_encode(c: &mut Criterion) {
    for size in sizes() {
        for workload in WORKLOADS {
            let input = workload.generate(size);
            let group_id = format!("encode/{}/{size}", workload.name());
            check(&group_id, &input);
            let input = input.as_slice();

            let mut group = c.benchmark_group(&group_id);
            group.throughput(Throughput::Bytes(input.len() as u64));
            configure_large(&mut group, size);

            let mut copy = vec![0u8; input.len()];
            group.bench_function("memcpy", |b| {
                b.iter(|| {
                    copy.copy_from_slice(black_box(input));
                    black_box(&mut copy);
                })
            });
            drop(copy);

            let out_len = pctenc::encoded_len(input, &sets::RFC3986);
            bench_output_copy(&mut group, out_len);

            let mut buf = vec![0u8; out_len];
            for backend in Backend::ALL.into_iter().filter(|b| b.is_available()) {
                let enc = Encoder::new(sets::RFC3986).engine(Engine::new(backend).unwrap());
                group.bench_function(pctenc_id(backend.name(), None), |b| {
                    b.iter(|| enc.encode_slice(black_box(input), black_box(&mut buf)).unwrap())
                });
            }
            let cap = buf.len();
            drop(buf);

            let mut out = String::with_capacity(cap);
            group.bench_function(pctenc_id(Backend::detect().name(), Some("string")), |b| {
                b.iter(|| {
                    out.clear();
                    pctenc::encode_string(black_box(input), &sets::RFC3986, &mut out);
                    black_box(&mut out);
                })
            });

            let mut vec = Vec::with_capacity(cap);
            group.bench_function(pctenc_id(Backend::detect().name(), Some("vec")), |b| {
                b.iter(|| {
                    vec.clear();
                    Encoder::new(sets::RFC3986).encode_vec(black_box(input), &mut vec);
                    black_box(&mut vec);
                })
            });
            drop(vec);

            // The owned case allocates its output on every call, as a caller of `encode` does;
            // an input that needs no escaping is borrowed instead (a scan, no copy).
            group.bench_function(pctenc_id(Backend::detect().name(), Some("cow")), |b| {
                b.iter(|| pctenc::encode(black_box(input), &sets::RFC3986))
            });

            group.bench_function("percent-encoding", |b| {
                b.iter(|| {
                    out.clear();
                    pe_encode(black_box(input), &mut out);
                    black_box(&mut out);
                })
            });

            group.bench_function("urlencoding", |b| b.iter(|| urlencoding::encode_binary(black_box(input))));

            // Form set, not rfc3986 (see the top of the file): similar work, different output.
            group.bench_function("form_urlencoded", |b| {
                b.iter(|| {
                    out.clear();
                    form_encode(black_box(input), &mut out);
                    black_box(&mut out);
                })
            });

            group.finish();
        }
    }
}

criterion_group!(benches, bench_encode);
criterion_main!(benches);
