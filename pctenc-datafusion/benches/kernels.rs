//! pctenc's kernels and SQL functions against `datafusion-spark`'s `url_encode` and
//! `url_decode` (the per-row implementation DataFusion users have today), on 1 million rows
//! of access-log-like values of about 100 bytes; and the kernels on 16 million rows with one
//! thread and with two.
//!
//! `cargo bench -p pctenc-datafusion --bench kernels`, or `bash pctenc-datafusion/bench.sh`;
//! figures in `docs/BENCHMARKS.md`.

use std::sync::Arc;
use std::time::Duration;

use arrow::array::{Array, ArrayRef, StringArray};
use arrow::datatypes::{DataType, Field};
use arrow::record_batch::RecordBatch;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use datafusion::config::ConfigOptions;
use datafusion::logical_expr::{ColumnarValue, ScalarFunctionArgs, ScalarUDF};
use datafusion::prelude::SessionContext;
use pctenc_datafusion::kernels;

#[path = "../../pctenc-arrow/benches/rows.rs"]
mod rows;
use rows::raw_rows;

fn arrays(n: usize) -> (ArrayRef, ArrayRef) {
    let raw: ArrayRef = Arc::new(StringArray::from(raw_rows(n)));
    let encoded = kernels::url_encode(raw.as_ref()).unwrap();
    (raw, encoded)
}

fn invoke(udf: &ScalarUDF, input: &ArrayRef) -> ArrayRef {
    let field = Arc::new(Field::new("s", DataType::Utf8, true));
    let args = ScalarFunctionArgs {
        args: vec![ColumnarValue::Array(Arc::clone(input))],
        arg_fields: vec![Arc::clone(&field)],
        number_rows: input.len(),
        return_field: field,
        config_options: Arc::new(ConfigOptions::default()),
    };
    match udf.invoke_with_args(args).unwrap() {
        ColumnarValue::Array(a) => a,
        ColumnarValue::Scalar(_) => unreachable!(),
    }
}

fn bytes(a: &ArrayRef) -> u64 {
    a.as_any().downcast_ref::<StringArray>().unwrap().value_data().len() as u64
}

fn bench_kernels(c: &mut Criterion) {
    let (raw, encoded) = arrays(1_000_000);
    // Both give Java's output on these rows.
    let spark_enc = datafusion_spark::function::url::url_encode();
    let spark_dec = datafusion_spark::function::url::url_decode();
    assert_eq!(invoke(&spark_enc, &raw).as_ref(), encoded.as_ref());
    assert_eq!(invoke(&spark_dec, &encoded).as_ref(), raw.as_ref());

    // The bound: a copy of the output's bytes into a new buffer (an array's worth of fresh
    // memory, as each kernel call writes).
    let copy = |a: &ArrayRef| a.as_any().downcast_ref::<StringArray>().unwrap().value_data().to_vec();

    let mut g = c.benchmark_group("kernel/url_encode/1M");
    g.throughput(Throughput::Bytes(bytes(&raw)));
    g.bench_function("pctenc", |b| b.iter(|| kernels::url_encode(raw.as_ref()).unwrap()));
    g.bench_function("datafusion-spark", |b| b.iter(|| invoke(&spark_enc, &raw)));
    g.bench_function("memcpy-output", |b| b.iter(|| copy(&encoded)));
    g.finish();

    let mut g = c.benchmark_group("kernel/url_decode/1M");
    g.throughput(Throughput::Bytes(bytes(&encoded)));
    g.bench_function("pctenc", |b| b.iter(|| kernels::url_decode(encoded.as_ref()).unwrap()));
    g.bench_function("datafusion-spark", |b| b.iter(|| invoke(&spark_dec, &encoded)));
    g.bench_function("memcpy-output", |b| b.iter(|| copy(&raw)));
    g.finish();
}

fn bench_sql(c: &mut Criterion) {
    let (raw, encoded) = arrays(1_000_000);
    let batch = RecordBatch::try_from_iter([("raw", raw.clone()), ("enc", encoded.clone())]).unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let make = |pctenc: bool| {
        let ctx = SessionContext::new();
        if pctenc {
            pctenc_datafusion::register(&ctx);
        } else {
            ctx.register_udf((*datafusion_spark::function::url::url_encode()).clone());
            ctx.register_udf((*datafusion_spark::function::url::url_decode()).clone());
        }
        // In batches of 8192 rows, as a scan gives them.
        let batches: Vec<RecordBatch> = (0..batch.num_rows())
            .step_by(8192)
            .map(|o| batch.slice(o, 8192.min(batch.num_rows() - o)))
            .collect();
        let table = datafusion::datasource::MemTable::try_new(batch.schema(), vec![batches]).unwrap();
        ctx.register_table("t", Arc::new(table)).unwrap();
        ctx
    };
    let run = |ctx: &SessionContext, sql: &str| {
        rt.block_on(async {
            let out = ctx.sql(sql).await.unwrap().collect().await.unwrap();
            out.iter().map(|b| b.num_rows()).sum::<usize>()
        })
    };
    for (name, sql, input) in [
        ("sql/url_encode/1M", "SELECT url_encode(raw) FROM t", &raw),
        ("sql/url_decode/1M", "SELECT url_decode(enc) FROM t", &encoded),
    ] {
        let mut g = c.benchmark_group(name);
        g.throughput(Throughput::Bytes(bytes(input)));
        for (who, ctx) in [("pctenc", make(true)), ("datafusion-spark", make(false))] {
            assert_eq!(run(&ctx, sql), 1_000_000);
            g.bench_function(who, |b| b.iter(|| run(&ctx, sql)));
        }
        g.finish();
    }
}

fn bench_threads(c: &mut Criterion) {
    let (raw, encoded) = arrays(16_000_000);
    for (name, input, decode) in
        [("threads/url_encode/16M", &raw, false), ("threads/url_decode/16M", &encoded, true)]
    {
        let mut g = c.benchmark_group(name);
        g.throughput(Throughput::Bytes(bytes(input)));
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            g.bench_with_input(BenchmarkId::from_parameter(threads), &threads, |b, _| {
                b.iter(|| {
                    pool.install(|| {
                        if decode {
                            kernels::url_decode(input.as_ref())
                        } else {
                            kernels::url_encode(input.as_ref())
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
        .measurement_time(Duration::from_secs(5))
}

criterion_group! { name = benches; config = config(); targets = bench_kernels, bench_sql, bench_threads }
criterion_main!(benches);
