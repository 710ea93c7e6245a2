//! Legacy character encodings (feature `encoding`): `Encoder::encode_in` and
//! `Decoder::decode_in` next to the UTF-8 paths they fall back on for ASCII, and next to what
//! a Rust program does without pctenc (`encoding_rs`, then `percent-encoding`).
//!
//! Workloads, 64 KiB: `ascii`, the access-log workload's ASCII bytes (about 20% escaped),
//! which must run at the speed of the UTF-8 encoder; `japanese`, the Japanese article of
//! `benches/data`, converted to Shift_JIS.
//!
//!     cargo bench --bench charset

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use pctenc::charset::Charset;
use pctenc::{Decoder, Encoder, Utf8Mode, sets};

// Only the workloads: the rest of the module serves the other benchmarks.
#[allow(dead_code)]
mod common;
use common::Workload;

const SIZE: usize = 64 << 10;

fn workloads() -> [(&'static str, String); 2] {
    let log = Workload::Log.generate(SIZE);
    let mut ascii: String = log.iter().filter(|b| b.is_ascii()).map(|&b| char::from(b)).collect();
    while ascii.len() < SIZE {
        ascii = ascii.repeat(2);
    }
    ascii.truncate(SIZE);
    let article = include_str!("data/article-ja.txt");
    let mut japanese = String::new();
    while japanese.len() < SIZE {
        japanese.push_str(article);
    }
    let cut = (0..=SIZE).rev().find(|&i| japanese.is_char_boundary(i)).unwrap();
    japanese.truncate(cut);
    [("ascii", ascii), ("japanese", japanese)]
}

/// RFC 3986's unreserved characters kept, as `sets::RFC3986`.
const PE_SET: &percent_encoding::AsciiSet =
    &percent_encoding::NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

fn bench(c: &mut Criterion) {
    let encoder = Encoder::new(sets::RFC3986);
    let strict = Decoder::new().utf8(Utf8Mode::Strict);
    let sjis = Charset::SHIFT_JIS;
    for (name, text) in workloads() {
        let mut group = c.benchmark_group(format!("charset-encode/{name}/{SIZE}"));
        group.throughput(Throughput::Bytes(text.len() as u64));
        let mut out = String::with_capacity(3 * text.len());
        if name == "ascii" {
            group.bench_function("pctenc-utf-8", |b| {
                b.iter(|| {
                    out.clear();
                    encoder.encode_string(black_box(&text), &mut out);
                })
            });
            group.bench_function("pctenc-windows-1252", |b| {
                b.iter(|| {
                    out.clear();
                    encoder.encode_string_in(black_box(&text), Charset::WINDOWS_1252, &mut out);
                })
            });
        }
        group.bench_function("pctenc-shift_jis", |b| {
            b.iter(|| {
                out.clear();
                encoder.encode_string_in(black_box(&text), sjis, &mut out);
            })
        });
        group.bench_function("encoding_rs+percent-encoding", |b| {
            b.iter(|| {
                out.clear();
                let (bytes, _, _) = sjis.encoding().encode(black_box(&text));
                out.extend(percent_encoding::percent_encode(&bytes, PE_SET));
            })
        });
        // Both sides write the same bytes (no unmappable characters here).
        let (bytes, _, unmappable) = sjis.encoding().encode(&text);
        assert!(!unmappable);
        let theirs: String = percent_encoding::percent_encode(&bytes, PE_SET).collect();
        assert_eq!(encoder.encode_in(&text, sjis), theirs);
        group.finish();

        let encoded = theirs;
        let mut group = c.benchmark_group(format!("charset-decode/{name}/{SIZE}"));
        group.throughput(Throughput::Bytes(encoded.len() as u64));
        if name == "ascii" {
            group.bench_function("pctenc-utf-8", |b| b.iter(|| strict.decode(black_box(&encoded)).unwrap()));
            group.bench_function("pctenc-windows-1252", |b| {
                b.iter(|| strict.decode_in(black_box(&encoded), Charset::WINDOWS_1252).unwrap())
            });
        }
        group.bench_function("pctenc-shift_jis", |b| {
            b.iter(|| strict.decode_in(black_box(&encoded), sjis).unwrap())
        });
        group.bench_function("encoding_rs+percent-encoding", |b| {
            b.iter(|| {
                let bytes: std::borrow::Cow<'_, [u8]> =
                    percent_encoding::percent_decode_str(black_box(&encoded)).into();
                sjis.encoding()
                    .decode_without_bom_handling_and_without_replacement(&bytes)
                    .map(|s| s.into_owned())
            })
        });
        assert_eq!(strict.decode_to_str_in(&encoded, sjis).unwrap(), text);
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
