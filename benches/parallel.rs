//! Where parallel encoding and decoding start to pay: serial against the rayon paths, on the
//! access-log workload, at sizes around `pctenc::PAR_ENCODE_THRESHOLD` and
//! `pctenc::PAR_DECODE_THRESHOLD`.
//!
//! Run:
//!
//! ```text
//! cargo bench --bench parallel -- --warm-up-time 1 --measurement-time 2
//! ```
//!
//! Groups `parallel-encode/log/<size>` and `parallel-decode/log/<size>` (size: the raw
//! workload's length; decoding reads its rfc3986 encoding). Functions:
//!
//! - `serial`: `Encoder::encode_vec` / `Decoder::decode_vec` into a reused `Vec`;
//! - `rayon-<n>t`: the parallel path without its threshold, on a pool of `n` threads, for
//!   `n` = 1 (the chunking's own cost) and every core of the machine.
//!
//! Each threshold belongs where `rayon-<cores>t` starts beating `serial`. (`rayon-1t` also
//! pays for handing the call to the pool from outside it, which is what a caller outside
//! the pool pays too; the library's entry points go serial on a one-thread pool.)

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use pctenc::{Decoder, Encoder, sets};

#[allow(dead_code)] // Shared with the other benches; this one uses a part.
mod common;
use common::{Workload, configure_large};

fn sizes() -> Vec<usize> {
    match std::env::var("PCTENC_BENCH_SIZES") {
        Ok(_) => common::sizes(),
        Err(_) => vec![32 << 10, 64 << 10, 128 << 10, 256 << 10, 512 << 10, 1 << 20, 4 << 20, 16 << 20],
    }
}

fn bench_parallel(c: &mut Criterion) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut threads = vec![1];
    if cores > 1 {
        threads.push(cores);
    }
    let pools: Vec<(usize, rayon::ThreadPool)> = threads
        .iter()
        .map(|&n| (n, rayon::ThreadPoolBuilder::new().num_threads(n).build().expect("thread pool")))
        .collect();
    let encoder = Encoder::new(sets::RFC3986);
    let decoder = Decoder::new();
    for size in sizes() {
        let raw = Workload::Log.generate(size);
        let encoded = encoder.encode(&raw).into_owned().into_bytes();
        let mut out = Vec::with_capacity(encoded.len());

        let mut group = c.benchmark_group(format!("parallel-encode/log/{size}"));
        configure_large(&mut group, size);
        group.throughput(Throughput::Bytes(size as u64));
        group.bench_function("serial", |b| {
            b.iter(|| {
                out.clear();
                encoder.encode_vec(black_box(&raw), &mut out);
            })
        });
        for (n, pool) in &pools {
            out.clear();
            pool.install(|| pctenc::__par::encode_vec(&encoder, &raw, &mut out));
            assert!(out == encoded, "parallel encoding differs from serial");
            group.bench_function(format!("rayon-{n}t"), |b| {
                b.iter(|| {
                    out.clear();
                    pool.install(|| pctenc::__par::encode_vec(&encoder, black_box(&raw), &mut out));
                })
            });
        }
        group.finish();

        let mut group = c.benchmark_group(format!("parallel-decode/log/{size}"));
        configure_large(&mut group, size);
        group.throughput(Throughput::Bytes(encoded.len() as u64));
        group.bench_function("serial", |b| {
            b.iter(|| {
                out.clear();
                decoder.decode_vec(black_box(&encoded), &mut out).unwrap();
            })
        });
        for (n, pool) in &pools {
            out.clear();
            pool.install(|| pctenc::__par::decode_vec(&decoder, &encoded, &mut out)).unwrap();
            assert!(out == raw, "parallel decoding differs from serial");
            group.bench_function(format!("rayon-{n}t"), |b| {
                b.iter(|| {
                    out.clear();
                    pool.install(|| pctenc::__par::decode_vec(&decoder, black_box(&encoded), &mut out))
                        .unwrap();
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench_parallel);
criterion_main!(benches);
