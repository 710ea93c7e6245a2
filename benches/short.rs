//! Short strings, the proxy case: nanoseconds per call for inputs of 8 to 256 bytes, pctenc
//! on every backend against the `percent-encoding` crate.
//!
//! Run:
//!
//! ```text
//! cargo bench --bench short                                    # every size (about 8 min)
//! PCTENC_BENCH_SIZES=16,64 cargo bench --bench short -- short-encode/query
//! ```
//!
//! A call this short is dominated by its set-up and its tail, and a benchmark that repeats
//! one input lets the branch predictor learn it. So each group holds [`COUNT`] different
//! inputs of the same size and every iteration takes the next one: criterion's time per
//! iteration is the time per call, over varied inputs.
//!
//! Ids (stable, as in `benches/encode.rs`): groups `short-encode/<workload>/<size>` and
//! `short-decode/<workload>/<size>`, workload `query` (component set, 26-29% escaped) or
//! `path` (path set, a few percent), size the raw (decoded) length in bytes; decode groups
//! decode the encoding of those raw inputs. Functions:
//!
//! - `pctenc-<backend>`: `Encoder::encode_slice` / `Decoder::decode_slice` into a buffer
//!   sized once for the longest output, the encoder or decoder pinned to the backend;
//! - `pctenc-<best>-string`: `Encoder::encode_string` into a reused, cleared `String`;
//! - `pctenc-<best>-cow`: `Decoder::decode`, which borrows input without escapes and
//!   otherwise allocates;
//! - `percent-encoding`: `percent_encode` with the same set pushed into a reused `String`;
//!   `percent_decode` extended into a reused `Vec`;
//! - `percent-encoding-cow`: `Cow::from(percent_decode(..))`, its allocating decode.

use std::borrow::Cow;
use std::hint::black_box;

use criterion::{Bencher, Criterion, criterion_group, criterion_main};
use pctenc::{Backend, Decoder, Encoder, Engine, Set, sets};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC};

#[allow(dead_code)] // Shared by the benches; each uses a part.
mod common;
use common::{Short, pctenc_id};

/// Distinct inputs per group (a power of two: the next one is `i & (COUNT - 1)`).
const COUNT: usize = 64;

const SIZES: [usize; 9] = [8, 16, 24, 32, 48, 64, 96, 128, 256];

/// percent-encoding's spelling of pctenc's component set.
const PE_COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'!')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')')
    .remove(b'*')
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// percent-encoding's spelling of pctenc's path set.
const PE_PATH: &AsciiSet = &{
    let mut set = NON_ALPHANUMERIC.add(0);
    let kept = b"!$%&'()*+,-./:;=@[\\]_|~";
    let mut i = 0;
    while i < kept.len() {
        set = set.remove(kept[i]);
        i += 1;
    }
    set
};

fn sets_of(kind: Short) -> (Set, &'static AsciiSet) {
    match kind {
        Short::Query => (sets::COMPONENT, PE_COMPONENT),
        Short::Path => (sets::PATH, PE_PATH),
    }
}

fn sizes() -> Vec<usize> {
    match std::env::var("PCTENC_BENCH_SIZES") {
        Ok(list) if !list.trim().is_empty() => common::sizes(),
        _ => SIZES.to_vec(),
    }
}

/// Runs `f` on the next input each iteration.
fn each<T, R>(b: &mut Bencher<'_>, inputs: &[T], mut f: impl FnMut(&T) -> R) {
    let mut i = 0;
    b.iter(|| {
        let input = &inputs[i & (COUNT - 1)];
        i += 1;
        f(black_box(input))
    });
}

fn bench_short(c: &mut Criterion) {
    let best = Backend::detect();
    for kind in Short::ALL {
        let (set, pe_set) = sets_of(kind);
        for size in sizes() {
            let raw = kind.inputs(size, COUNT);
            let encoded: Vec<Vec<u8>> =
                raw.iter().map(|r| Encoder::new(set).encode(r).into_owned().into_bytes()).collect();
            // The functions compared do the same work: same output for every input.
            for (r, e) in raw.iter().zip(&encoded) {
                let pe: String = percent_encoding::percent_encode(r, pe_set).collect();
                assert_eq!(pe.as_bytes(), e, "percent-encoding differs on {:?}", String::from_utf8_lossy(r));
                let back: Vec<u8> = percent_encoding::percent_decode(e).collect();
                assert_eq!(&back, r);
            }
            let longest = encoded.iter().map(Vec::len).max().unwrap_or(0);
            let escaped: usize = raw.iter().zip(&encoded).map(|(r, e)| (e.len() - r.len()) / 2).sum();
            eprintln!(
                "short/{}/{size}: {:.1}% of bytes escaped",
                kind.name(),
                100.0 * escaped as f64 / (COUNT * size) as f64
            );

            let mut group = c.benchmark_group(format!("short-encode/{}/{size}", kind.name()));
            let mut buf = vec![0u8; longest];
            for backend in Backend::ALL.into_iter().filter(|b| b.is_available()) {
                let enc = Encoder::new(set).engine(Engine::new(backend).unwrap());
                group.bench_function(pctenc_id(backend.name(), None), |b| {
                    each(b, &raw, |input| enc.encode_slice(input, black_box(&mut buf)).unwrap())
                });
            }
            let mut out = String::with_capacity(longest);
            group.bench_function(pctenc_id(best.name(), Some("string")), |b| {
                let enc = Encoder::new(set);
                each(b, &raw, |input| {
                    out.clear();
                    enc.encode_string(input, &mut out);
                    out.len()
                })
            });
            group.bench_function("percent-encoding", |b| {
                each(b, &raw, |input| {
                    out.clear();
                    percent_encoding::percent_encode(input, pe_set).for_each(|s| out.push_str(s));
                    out.len()
                })
            });
            group.finish();

            let mut group = c.benchmark_group(format!("short-decode/{}/{size}", kind.name()));
            for backend in Backend::ALL.into_iter().filter(|b| b.is_available()) {
                let dec = Decoder::new().engine(Engine::new(backend).unwrap());
                group.bench_function(pctenc_id(backend.name(), None), |b| {
                    each(b, &encoded, |input| dec.decode_slice(input, black_box(&mut buf)).unwrap())
                });
            }
            group.bench_function(pctenc_id(best.name(), Some("cow")), |b| {
                each(b, &encoded, |input| {
                    black_box(Decoder::new().decode(input).unwrap());
                })
            });
            let mut bytes = Vec::with_capacity(longest);
            group.bench_function("percent-encoding", |b| {
                each(b, &encoded, |input| {
                    bytes.clear();
                    bytes.extend(percent_encoding::percent_decode(input));
                    bytes.len()
                })
            });
            group.bench_function("percent-encoding-cow", |b| {
                each(b, &encoded, |input| {
                    black_box(Cow::from(percent_encoding::percent_decode(input)));
                })
            });
            group.finish();
        }
    }
}

criterion_group!(benches, bench_short);
criterion_main!(benches);
