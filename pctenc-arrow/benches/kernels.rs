//! The kernels on 1 million access-log-like values of about 100 bytes, in each array kind
//! users hold (`Utf8`, `Utf8View`, `Binary`), beside a copy of the output's bytes into fresh
//! memory (what any kernel that writes a new array pays at least); and on 4 million rows
//! with one thread and with two.
//!
//! `cargo bench -p pctenc-arrow --bench kernels`. pctenc-datafusion's benchmark measures the
//! same kernels against `datafusion-spark` and through SQL.

use std::sync::Arc;
use std::time::Duration;

use arrow_array::{Array, ArrayRef, BinaryArray, StringArray, StringViewArray};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use pctenc::{Decoder, Encoder, sets};

mod rows;
use rows::raw_rows;

/// The rows as `kind`.
fn array(kind: &str, rows: &[String]) -> ArrayRef {
    match kind {
        "utf8" => Arc::new(StringArray::from_iter_values(rows)),
        "utf8view" => Arc::new(StringViewArray::from_iter_values(rows)),
        "binary" => Arc::new(BinaryArray::from_iter_values(rows.iter().map(|s| s.as_bytes()))),
        _ => unreachable!(),
    }
}

fn values(a: &ArrayRef) -> &[u8] {
    a.as_any().downcast_ref::<StringArray>().unwrap().value_data()
}

fn strings(a: &ArrayRef) -> Vec<String> {
    let a = a.as_any().downcast_ref::<StringArray>().unwrap();
    a.iter().map(|s| s.unwrap().to_string()).collect()
}

fn total(rows: &[String]) -> u64 {
    rows.iter().map(|s| s.len() as u64).sum()
}

fn bench_kinds(c: &mut Criterion) {
    let raw = raw_rows(1_000_000);
    let utf8: ArrayRef = array("utf8", &raw);
    let form = strings(&pctenc_arrow::url_encode(utf8.as_ref()).unwrap());
    let component = strings(&pctenc_arrow::encode(utf8.as_ref(), &Encoder::new(sets::COMPONENT)).unwrap());
    type Kernel = fn(&dyn Array) -> ArrayRef;
    let cases: [(&str, &[String], &[String], Kernel); 4] = [
        ("url_encode", &raw, &form, |a| pctenc_arrow::url_encode(a).unwrap()),
        ("url_decode", &form, &raw, |a| pctenc_arrow::url_decode(a).unwrap()),
        ("encode", &raw, &component, |a| pctenc_arrow::encode(a, &Encoder::new(sets::COMPONENT)).unwrap()),
        ("decode", &component, &raw, |a| pctenc_arrow::decode(a, &Decoder::new()).unwrap()),
    ];
    for (name, input, output, kernel) in cases {
        let mut g = c.benchmark_group(format!("arrow/{name}/1M"));
        g.throughput(Throughput::Bytes(total(input)));
        for kind in ["utf8", "utf8view", "binary"] {
            let a = array(kind, input);
            assert_eq!(kernel(a.as_ref()).as_ref(), array(kind, output).as_ref());
            g.bench_function(kind, |b| b.iter(|| kernel(a.as_ref())));
        }
        // A copy of the output's values into a new buffer: an array's worth of fresh memory.
        let out = array("utf8", output);
        let bytes = values(&out);
        g.bench_function("memcpy-output", |b| b.iter(|| bytes.to_vec()));
        g.finish();
    }
}

/// The layout check a caller runs on data from the C data interface (`check_layout`), beside
/// the kernel it guards: one pass over the offsets or views, none over the values.
fn bench_check_layout(c: &mut Criterion) {
    let raw = raw_rows(1_000_000);
    let mut g = c.benchmark_group("arrow/check_layout/1M");
    g.throughput(Throughput::Bytes(total(&raw)));
    for kind in ["utf8", "utf8view", "binary"] {
        let a = array(kind, &raw);
        g.bench_function(kind, |b| b.iter(|| pctenc_arrow::check_layout(a.as_ref()).unwrap()));
    }
    g.finish();
}

fn bench_threads(c: &mut Criterion) {
    let raw = raw_rows(4_000_000);
    let utf8 = array("utf8", &raw);
    let form = pctenc_arrow::url_encode(utf8.as_ref()).unwrap();
    for (name, input, decode) in
        [("arrow-threads/url_encode/4M", &utf8, false), ("arrow-threads/url_decode/4M", &form, true)]
    {
        let mut g = c.benchmark_group(name);
        g.throughput(Throughput::Bytes(values(input).len() as u64));
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            g.bench_with_input(BenchmarkId::from_parameter(threads), &threads, |b, _| {
                b.iter(|| {
                    pool.install(|| {
                        if decode {
                            pctenc_arrow::url_decode(input.as_ref())
                        } else {
                            pctenc_arrow::url_encode(input.as_ref())
                        }
                    })
                    .unwrap()
                })
            });
        }
        g.finish();
    }
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
}

criterion_group! { name = benches; config = config(); targets = bench_kinds, bench_check_layout, bench_threads }
criterion_main!(benches);
