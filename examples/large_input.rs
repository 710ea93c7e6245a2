//! Helper for `scripts/large-inputs.py`: writes the access-log workload of the benchmarks
//! to a file, and measures the library's in-memory throughput on a file's contents, so
//! that the CLI's figures on the same file have a reference.
//!
//! ```text
//! cargo run --release --example large_input -- gen-log FILE MIB
//! cargo run --release --example large_input -- encode-file IN OUT
//! cargo run --release --example large_input -- in-memory FILE OPERATION [THREADS]
//! ```
//!
//! `in-memory` reads FILE into memory, then runs OPERATION on it five times, and prints the
//! best time's throughput in input bytes per second, as `GB/s <figure>`:
//!
//! - `encode` / `decode`: `encode_vec` with rfc3986 / `decode_vec`, into a reused `Vec`; with
//!   THREADS, `par_encode_vec` / `par_decode_vec` on a pool of that many threads;
//! - `encode-to` / `decode-to`: the CLI's path, `StreamEncoder::feed_to` /
//!   `StreamDecoder::feed_to` into `io::sink()` (one pass, output in reused chunk buffers),
//!   on a pool of THREADS threads (default 1);
//! - `map`: no encoding at all: maps FILE and enters its pages into the page table
//!   (`MADV_POPULATE_READ`, as the CLI does), then unmaps it: what the kernel charges for
//!   reading a file of the page cache through a mapping, which the CLI pays and the in-memory
//!   figures do not.

use std::time::Instant;

use pctenc::{Decoder, Encoder, sets};

#[allow(dead_code)] // Shared with the benches; this uses the workload generator only.
#[path = "../benches/common/mod.rs"]
mod common;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["gen-log", path, mib] => {
            let size = mib.parse::<usize>().expect("MIB is a number") << 20;
            // Generated in 64 MiB parts (different contents, as the generator's seed runs on),
            // so memory stays small.
            let part = common::Workload::Log.generate(size.min(64 << 20));
            let mut out = std::fs::File::create(path).expect("create FILE");
            let mut written = 0;
            while written < size {
                let n = part.len().min(size - written);
                std::io::Write::write_all(&mut out, &part[..n]).expect("write FILE");
                written += n;
            }
        }
        ["encode-file", input, output] => {
            // The rfc3986 encoding of IN, written in one call (as `gen-log` writes in large
            // parts, so that the kernel caches both files alike: see `map`).
            let input = std::fs::read(input).expect("read IN");
            let encoded = Encoder::new(sets::RFC3986).encode(&input).into_owned();
            std::fs::write(output, encoded).expect("write OUT");
        }
        ["in-memory", path, op, rest @ ..] => {
            let input = std::fs::read(path).expect("read FILE");
            let threads = rest.first().map(|t| t.parse::<usize>().expect("THREADS is a number"));
            let pool = threads.map(|n| rayon::ThreadPoolBuilder::new().num_threads(n).build().expect("pool"));
            let encoder = Encoder::new(sets::RFC3986);
            let decoder = Decoder::new();
            let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("pool");
            let mut out = Vec::new();
            let mut best = f64::INFINITY;
            for _ in 0..5 {
                out.clear();
                let start = Instant::now();
                match (*op, &pool) {
                    ("encode", None) => encoder.encode_vec(&input, &mut out),
                    ("encode", Some(pool)) => pool.install(|| encoder.par_encode_vec(&input, &mut out)),
                    ("decode", None) => decoder.decode_vec(&input, &mut out).expect("FILE decodes"),
                    ("decode", Some(pool)) => {
                        pool.install(|| decoder.par_decode_vec(&input, &mut out)).expect("FILE decodes")
                    }
                    ("encode-to", _) => pool.as_ref().unwrap_or(&one).install(|| {
                        let mut stream = pctenc::StreamEncoder::new(encoder);
                        stream.feed_to(&input, &mut std::io::sink()).expect("sink");
                    }),
                    ("decode-to", _) => pool.as_ref().unwrap_or(&one).install(|| {
                        let mut stream = pctenc::StreamDecoder::new(decoder);
                        stream.feed_to(&input, &mut std::io::sink()).expect("FILE decodes");
                        stream.finish(&mut out).expect("FILE decodes");
                    }),
                    ("map", _) => {
                        let file = std::fs::File::open(path).expect("open FILE");
                        // SAFETY: read-only map of a file nobody changes during the run.
                        let map = unsafe { memmap2::Mmap::map(&file) }.expect("map FILE");
                        #[cfg(target_os = "linux")]
                        map.advise(memmap2::Advice::PopulateRead).expect("MADV_POPULATE_READ");
                        drop(map);
                    }
                    _ => panic!("unknown OPERATION"),
                }
                best = best.min(start.elapsed().as_secs_f64());
            }
            println!("GB/s {:.3}", input.len() as f64 / best / 1e9);
        }
        _ => {
            eprintln!(
                "usage: large_input gen-log FILE MIB | encode-file IN OUT | in-memory FILE OPERATION [THREADS]"
            );
            std::process::exit(2);
        }
    }
}
