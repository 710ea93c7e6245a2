//! Decoding throughput: pctenc against `memcpy` and the peer crates.
//!
//! Run:
//!
//! ```text
//! cargo bench --bench decode                                   # everything (about 12 min)
//! PCTENC_BENCH_SIZES=65536 cargo bench --bench decode -- --warm-up-time 1 --measurement-time 2
//! PCTENC_BENCH_SIZES=64,4K cargo bench --bench decode -- decode/log   # a criterion filter
//! ```
//!
//! `PCTENC_BENCH_SIZES` (comma-separated byte counts, `K`/`M` suffixes allowed) selects the
//! sizes; the default is `64,4096,65536,16777216`. Groups of 1 MiB and more use 10 samples,
//! flat sampling, 1 s warm-up and 4 s measurement, whatever the command line says.
//! Under `cargo test --benches` (criterion's test mode: each function runs once, in a debug
//! build, after the output checks) the default leaves out 16 MiB; set the variable to test it.
//!
//! Inputs: each workload of `benches/common` encoded with pctenc's rfc3986 set. The `safe`
//! workload encodes to itself, so it appears once, as `no-escape` (no `%` at all: the
//! borrowing fast path). Ids (stable, parsed by scripts reading
//! `target/criterion/**/benchmark.json`): group `decode/<input>/<size>` with input
//! `no-escape`, `log`, `multilingual`, `random`, and size the length of the workload
//! *before* encoding (the decoded length); throughput is `Bytes(encoded input length)`, the
//! bytes the decoder reads. Functions:
//!
//! - `memcpy`: `copy_from_slice` of the encoded input into a preallocated buffer;
//! - `memcpy-output`: `copy_from_slice` of as many bytes as the *output* (the decoded
//!   length): what writing the output costs the memory system (throughput still counts the
//!   input's bytes, so the ratio to it is the fraction reached);
//! - `pctenc-<backend>`: `Decoder::new().engine(..).decode_slice` (strict, bytes) into a
//!   preallocated buffer, for every backend this CPU has;
//! - `pctenc-<best>-cow`: `pctenc::decode` (strict; borrows when there is no `%`, else
//!   allocates its result every call), on the detected backend;
//! - `pctenc-<best>-lenient`: `pctenc::decode_lenient` (WHATWG rule, also a `Cow`);
//! - `pctenc-<best>-utf8`: `Decoder::URI_COMPONENT.decode` (strict escapes and strict UTF-8,
//!   a `Cow`): the cost of the UTF-8 step (not for `random`, which is not UTF-8);
//! - `pctenc-<backend>-validate`: `Encoder::validate` with rfc3986 (the input is valid), the
//!   encoder pinned to each backend this CPU has;
//! - `percent-encoding`: `percent_decode(input)` extended into a reused, cleared `Vec<u8>`;
//! - `urlencoding`: `urlencoding::decode_binary` (a `Cow`, allocates when there is a `%`).
//!
//! `form_urlencoded` is not measured: its decoder, `form_urlencoded::parse`, splits `&`/`=`
//! pairs, maps `+` to space and decodes to UTF-8 strings lossily; there is no plain
//! byte-decoding function in it to compare with.
//!

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use pctenc::{Backend, Decoder, Encoder, Engine, sets};

#[allow(dead_code)] // Shared by the benches; each uses a part.
mod common;
use common::{WORKLOADS, Workload, bench_output_copy, configure_large, escaped_percent, pctenc_id, sizes};

fn pe_decode(input: &[u8], out: &mut Vec<u8>) {
    out.extend(percent_encoding::percent_decode(input));
}

/// Checks that every decoder gives back the original bytes, so that the comparison is between
/// equal work.
fn check(id: &str, encoded: &[u8], original: &[u8]) {
    let mut buf = vec![0u8; encoded.len()];
    let n = Decoder::new().decode_slice(encoded, &mut buf).expect("pctenc output decodes strictly");
    assert!(&buf[..n] == original, "{id}: decode_slice does not give the original back");
    assert!(pctenc::decode(encoded).unwrap() == original, "{id}: decode != original");
    assert!(pctenc::decode_lenient(encoded) == original, "{id}: decode_lenient != original");
    let mut pe = Vec::new();
    pe_decode(encoded, &mut pe);
    assert!(pe == original, "{id}: percent_decode != original");
    assert!(urlencoding::decode_binary(encoded) == original, "{id}: urlencoding != original");
    eprintln!(
        "{id}: {} -> {n} bytes ({:.1}% of the original's bytes were escaped)",
        encoded.len(),
        escaped_percent(original)
    );
}

/// Malformed input, where the lenient decoders must agree with percent-encoding's
/// `percent_decode` (the WHATWG rule) and the strict one must fail.
fn check_malformed() {
    for input in ["%", "%4", "%%41", "%zz%41", "a%4%41b", "100%", "%G0%0G%0g", "%%%", "%e9%E9%Ee"] {
        let pe: Vec<u8> = percent_encoding::percent_decode(input.as_bytes()).collect();
        assert!(pctenc::decode_lenient(input) == pe, "decode_lenient({input:?}) != percent_decode");
        assert!(
            urlencoding::decode_binary(input.as_bytes()) == pe,
            "urlencoding({input:?}) != percent_decode"
        );
        let strict_ok = pctenc::decode(input).is_ok();
        assert_eq!(strict_ok, input == "%e9%E9%Ee", "decode({input:?}) strictness");
    }
}

fn bench_decode(c: &mut Criterion) {
    check_malformed();
    for size in sizes() {
        for workload in WORKLOADS {
            let name = if workload == Workload::Safe { "no-escape" } else { workload.name() };
            let original = workload.generate(size);
            let input = pctenc::encode(&original, &sets::RFC3986).into_owned().into_bytes();
            let group_id = format!("decode/{name}/{size}");
            check(&group_id, &input, &original);
            let text = std::str::from_utf8(&original).is_ok();
            let out_len = original.len();
            drop(original);
            let input = input.as_slice();

            let mut group = c.benchmark_group(&group_id);
            group.throughput(Throughput::Bytes(input.len() as u64));
            configure_large(&mut group, size);

            let mut buf = vec![0u8; input.len()];
            group.bench_function("memcpy", |b| {
                b.iter(|| {
                    buf.copy_from_slice(black_box(input));
                    black_box(&mut buf);
                })
            });

            bench_output_copy(&mut group, out_len);

            let best = Backend::detect();
            for backend in Backend::ALL.into_iter().filter(|b| b.is_available()) {
                let decoder = Decoder::new().engine(Engine::new(backend).unwrap());
                group.bench_function(pctenc_id(backend.name(), None), |b| {
                    b.iter(|| black_box(decoder).decode_slice(black_box(input), black_box(&mut buf)).unwrap())
                });
            }
            drop(buf);

            group.bench_function(pctenc_id(best.name(), Some("cow")), |b| {
                b.iter(|| pctenc::decode(black_box(input)).unwrap())
            });

            group.bench_function(pctenc_id(best.name(), Some("lenient")), |b| {
                b.iter(|| pctenc::decode_lenient(black_box(input)))
            });

            if text {
                group.bench_function(pctenc_id(best.name(), Some("utf8")), |b| {
                    b.iter(|| Decoder::URI_COMPONENT.decode(black_box(input)).unwrap())
                });
            }

            let mut out = Vec::with_capacity(input.len());
            group.bench_function("percent-encoding", |b| {
                b.iter(|| {
                    out.clear();
                    pe_decode(black_box(input), &mut out);
                    black_box(&mut out);
                })
            });
            drop(out);

            group.bench_function("urlencoding", |b| b.iter(|| urlencoding::decode_binary(black_box(input))));

            // Validation of the same (valid) input, on every backend.
            for backend in Backend::ALL.into_iter().filter(|b| b.is_available()) {
                let enc = Encoder::new(sets::RFC3986).engine(Engine::new(backend).unwrap());
                assert!(enc.validate(input).is_ok(), "{group_id}: {backend} rejects valid input");
                group.bench_function(pctenc_id(backend.name(), Some("validate")), |b| {
                    b.iter(|| enc.validate(black_box(input)).unwrap())
                });
            }

            group.finish();
        }
    }
}

criterion_group!(benches, bench_decode);
criterion_main!(benches);
