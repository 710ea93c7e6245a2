//! Workloads and settings shared by `benches/encode.rs` and `benches/decode.rs`.
//!
//! Every workload is deterministic: the same name and size give the same bytes on every
//! machine and every run (a fixed-seed SplitMix64, no `rand`, no network), so results from
//! different runs and different backends can be compared.
//!
//! `pctenc bench` (`pctenc-cli/src/cli/bench/workload.rs`) generates `safe`, `log` and
//! `random` by the same code and seeds, so that its figures and these are of the same bytes:
//! a change to them here is a change there too.

use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, SamplingMode};

/// The benchmark id of a pctenc function on a backend: `pctenc-<backend>` for the slice API,
/// `pctenc-<backend>-<variant>` for the others (`-string`, `-cow`, `-lenient`, `-utf8`,
/// `-validate`). `scripts/bench-report.py` reads these ids, so a new backend joins every
/// table and chart by its name alone.
pub fn pctenc_id(backend: &str, variant: Option<&str>) -> String {
    match variant {
        None => format!("pctenc-{backend}"),
        Some(v) => format!("pctenc-{backend}-{v}"),
    }
}

/// Input sizes in bytes when `PCTENC_BENCH_SIZES` is not set.
pub const DEFAULT_SIZES: [usize; 4] = [64, 4 << 10, 64 << 10, 16 << 20];

/// From this size up, a group gets [`configure_large`]'s short settings.
pub const LARGE: usize = 1 << 20;

/// The sizes to run: `PCTENC_BENCH_SIZES` (comma-separated byte counts, with an optional
/// `K`/`KiB`/`M`/`MiB` suffix: `64,4K,64KiB,16M`) or [`DEFAULT_SIZES`]. In criterion's test
/// mode (`cargo test --benches` / `--all-targets`, which runs each benchmark once in a debug
/// build) the default leaves out the sizes from [`LARGE`] up, which take minutes there.
pub fn sizes() -> Vec<usize> {
    match std::env::var("PCTENC_BENCH_SIZES") {
        Ok(list) if !list.trim().is_empty() => list.split(',').map(|s| parse_size(s.trim())).collect(),
        _ if test_mode() => DEFAULT_SIZES.into_iter().filter(|&n| n < LARGE).collect(),
        _ => DEFAULT_SIZES.to_vec(),
    }
}

/// Whether criterion runs in test mode: as it decides, no `--bench` argument (what
/// `cargo bench` passes) or an explicit `--test`.
fn test_mode() -> bool {
    let has = |flag: &str| std::env::args().skip(1).any(|a| a == flag);
    !has("--bench") || has("--test")
}

fn parse_size(s: &str) -> usize {
    let lower = s.to_ascii_lowercase();
    let (digits, unit) = match lower.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => lower.split_at(i),
        None => (lower.as_str(), ""),
    };
    let shift = match unit.trim() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        _ => panic!("PCTENC_BENCH_SIZES: bad size {s:?} (want e.g. 64, 4096, 64K, 16M)"),
    };
    let n: usize = digits.parse().unwrap_or_else(|_| panic!("PCTENC_BENCH_SIZES: bad size {s:?}"));
    assert!(n > 0, "PCTENC_BENCH_SIZES: size 0");
    n << shift
}

/// Short settings for the multi-megabyte sizes, where one iteration takes milliseconds:
/// 10 samples, flat sampling, 1 s warm-up, 4 s measurement. These override the command
/// line's `--warm-up-time` / `--measurement-time` / `--sample-size` for those groups only.
pub fn configure_large(group: &mut BenchmarkGroup<'_, WallTime>, size: usize) {
    if size >= LARGE {
        group
            .sample_size(10)
            .sampling_mode(SamplingMode::Flat)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(4));
    }
}

/// `memcpy-output`: a copy of `len` bytes (the operation's output size), the bound that
/// writing the output sets. Source and destination are one buffer's two halves, 64 bytes
/// apart modulo 4 KiB: two separate allocations of a page-multiple size start at the same
/// offset in their pages, and then every load aliases the store before it (a decode
/// workload of 4 KiB copied 15 times slower than its input).
pub fn bench_output_copy(group: &mut BenchmarkGroup<'_, WallTime>, len: usize) {
    let mut buf = vec![0x25u8; 2 * len + 64];
    let (from, to) = buf.split_at_mut(len + 64);
    let (from, to) = (&from[..len], &mut to[..len]);
    group.bench_function("memcpy-output", |b| {
        b.iter(|| {
            to.copy_from_slice(std::hint::black_box(from));
            std::hint::black_box(&mut *to);
        })
    });
}

/// The input workloads. See [`Workload::generate`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    /// ASCII letters, digits and `-._~` only: rfc3986 keeps every byte.
    Safe,
    /// Web access-log lines: paths, raw query strings with spaces, `&`, `=`, `/`, `?`,
    /// UTF-8 names in several scripts, user agents. About 20% of bytes escaped by rfc3986.
    Log,
    /// The four articles of `benches/data` (Arabic, Greek, Hindi, Japanese), repeated:
    /// mostly multi-byte UTF-8, about 95% of bytes escaped.
    Multilingual,
    /// Uniformly random bytes: 190 of 256 byte values, about 74%, escaped.
    Random,
}

/// Every workload, in the order the groups run.
pub const WORKLOADS: [Workload; 4] =
    [Workload::Safe, Workload::Log, Workload::Multilingual, Workload::Random];

impl Workload {
    /// The name used in group ids (`encode/<name>/<size>`).
    pub fn name(self) -> &'static str {
        match self {
            Workload::Safe => "safe",
            Workload::Log => "log",
            Workload::Multilingual => "multilingual",
            Workload::Random => "random",
        }
    }

    /// Exactly `size` bytes of this workload. Text workloads are cut at a UTF-8 character
    /// boundary and padded with ASCII (`-` for `safe`, space otherwise), so they stay valid
    /// UTF-8 and `safe` stays safe.
    pub fn generate(self, size: usize) -> Vec<u8> {
        // A different stream per workload, the same for every size.
        let mut rng = SplitMix64::new(0x7063_7465_6e63_0000 ^ self as u64);
        match self {
            Workload::Safe => fit(safe_text(&mut rng, size), size, b'-'),
            Workload::Log => fit(log_text(&mut rng, size), size, b' '),
            Workload::Multilingual => fit(multilingual_text(size), size, b' '),
            Workload::Random => {
                let mut out = Vec::with_capacity(size + 8);
                while out.len() < size {
                    out.extend_from_slice(&rng.next_u64().to_le_bytes());
                }
                out.truncate(size);
                out
            }
        }
    }
}

/// The share of bytes in `input` that the rfc3986 set escapes, in percent.
pub fn escaped_percent(input: &[u8]) -> f64 {
    let kept = input.iter().filter(|&&b| b.is_ascii_alphanumeric() || b"-._~".contains(&b)).count();
    if input.is_empty() { 0.0 } else { 100.0 * (input.len() - kept) as f64 / input.len() as f64 }
}

/// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, good enough for benchmark inputs.
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`; the tiny modulo bias does not matter here).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    pub fn pick<'a, T: ?Sized>(&mut self, items: &[&'a T]) -> &'a T {
        items[self.below(items.len())]
    }
}

/// Truncates `text` to `size` bytes at a character boundary (or exactly, if it is not UTF-8)
/// and pads it to `size` with `pad`.
fn fit(mut text: Vec<u8>, size: usize, pad: u8) -> Vec<u8> {
    assert!(text.len() >= size);
    let mut end = size;
    if std::str::from_utf8(&text).is_ok() {
        while end > 0 && (text[end] & 0xC0) == 0x80 {
            end -= 1;
        }
    }
    text.truncate(end);
    text.resize(size, pad);
    text
}

fn safe_text(rng: &mut SplitMix64, size: usize) -> Vec<u8> {
    const WORDS: &[&str] = &[
        "index", "report", "2024", "Q3", "draft", "v2", "final", "user", "profile", "image", "thumb",
        "sha256", "a1b2c3d4", "README", "Percent", "Encoding", "utf8", "tar", "gz", "release", "build",
        "x86_64", "linux", "main", "api", "v1", "items", "page", "42", "en", "US",
    ];
    const SEPARATORS: &[&str] = &["-", ".", "_", "~", "-", "."];
    let mut out = Vec::with_capacity(size + 32);
    while out.len() <= size {
        out.extend_from_slice(rng.pick(WORDS).as_bytes());
        out.extend_from_slice(rng.pick(SEPARATORS).as_bytes());
    }
    out
}

const NAMES: &[&str] = &[
    "José García",
    "Jürgen Müller",
    "Björk Guðmundsdóttir",
    "François Lefèvre",
    "Zoë Ægir",
    "Łukasz Żółć",
    "Søren Kierkegaard",
    "İbrahim Yılmaz",
    "Nguyễn Văn An",
    "Παναγιώτης Γεωργίου",
    "Дмитрий Иванов",
    "محمد علي",
    "李小龍",
    "田中 さくら",
    "김민준",
    "राहुल शर्मा",
    "Ana Souza",
    "John Smith",
    "Mary O'Neil",
    "Chen Wei",
];

const SEARCHES: &[&str] = &[
    "rust simd",
    "C++ & C#",
    "café au lait",
    "best pizza near me",
    "100% cotton t-shirt",
    "how to percent-encode a URL?",
    "a+b=c",
    "size=M&color=blue",
    "München hotels",
    "東京 ラーメン",
    "naïve bayes",
    "\"exact phrase\"",
    "price < 20",
    "50/50 split",
    "Ελλάδα",
];

const USER_AGENTS: &[&str] = &[
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0",
    "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    "curl/8.5.0",
    "python-requests/2.31.0",
    "okhttp/4.12.0",
];

const PATHS: &[&str] = &[
    "/",
    "/search",
    "/api/v2/users",
    "/products/running-shoes",
    "/static/js/app.3f9a1c.js",
    "/wiki/Percent-encoding",
    "/blog/2024/05/fast-url-encoding",
    "/images/logo.png",
    "/login",
    "/api/v2/orders",
    "/favicon.ico",
    "/profile",
];

const KEYS: &[&str] = &["q", "name", "page", "sort", "lang", "utm_source", "id", "redirect", "filter"];

/// `pairs` query pairs `key=value`, joined by `&`.
fn query_text(rng: &mut SplitMix64, pairs: usize) -> String {
    let mut query = String::new();
    for i in 0..pairs {
        if i > 0 {
            query.push('&');
        }
        let key = rng.pick(KEYS);
        query.push_str(key);
        query.push('=');
        query.push_str(&query_value(rng, key));
    }
    query
}

fn query_value(rng: &mut SplitMix64, key: &str) -> String {
    match key {
        "q" | "filter" => rng.pick(SEARCHES).to_string(),
        "name" => rng.pick(NAMES).to_string(),
        "page" | "id" => rng.below(100_000).to_string(),
        "lang" => rng.pick(&["en", "de", "ja", "ar", "el", "hi", "pt-BR"]).to_string(),
        "redirect" => "https://example.org/account/settings?tab=security".to_string(),
        "sort" => rng.pick(&["price_asc", "date_desc", "relevance"]).to_string(),
        _ => rng.pick(&["newsletter", "twitter", "google"]).to_string(),
    }
}

fn log_text(rng: &mut SplitMix64, size: usize) -> Vec<u8> {
    let mut out = String::with_capacity(size + 512);
    while out.len() <= size {
        let path = rng.pick(PATHS);
        let method = if rng.below(5) == 0 { "POST" } else { "GET" };
        let pairs = rng.below(4);
        let query = query_text(rng, pairs);
        let sep = if query.is_empty() { "" } else { "?" };
        let status = rng.pick(&["200", "200", "200", "304", "404", "302", "500"]);
        let ua = rng.pick(USER_AGENTS);
        // A log processor encoding a request line and its user agent (no IP or timestamp:
        // those are not what gets URL-encoded).
        out.push_str(&format!("{method} {path}{sep}{query} HTTP/1.1 {status} {ua}\n"));
    }
    out.into_bytes()
}

const ARTICLES: [&[u8]; 4] = [
    include_bytes!("../data/article-ar.txt"),
    include_bytes!("../data/article-el.txt"),
    include_bytes!("../data/article-hi.txt"),
    include_bytes!("../data/article-ja.txt"),
];

fn multilingual_text(size: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(size + ARTICLES.iter().map(|a| a.len()).sum::<usize>());
    while out.len() <= size {
        for article in ARTICLES {
            out.extend_from_slice(article);
        }
    }
    out
}

/// The short-string workloads of `benches/short.rs`: what a proxy or a log agent encodes or
/// decodes in one call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Short {
    /// Query values as a proxy builds them (`q=`, `name=`, ... values of the log workload,
    /// separated by spaces), encoded with the component set: 26-29% of bytes escaped.
    Query,
    /// Request paths, some with a UTF-8 segment (`/products/Fußball`), encoded with the path
    /// set: a few percent escaped.
    Path,
}

impl Short {
    pub const ALL: [Short; 2] = [Short::Query, Short::Path];

    pub fn name(self) -> &'static str {
        match self {
            Short::Query => "query",
            Short::Path => "path",
        }
    }

    /// `count` different raw inputs of exactly `size` bytes each, valid UTF-8: windows of one
    /// long stream at pseudo-random places, cut at character boundaries and padded as
    /// [`Workload::generate`] pads.
    pub fn inputs(self, size: usize, count: usize) -> Vec<Vec<u8>> {
        let mut rng = SplitMix64::new(0x7368_6f72_7400_0000 ^ self as u64);
        let mut stream = String::new();
        while stream.len() < 64 * 1024 + 2 * size {
            match self {
                Short::Query => {
                    let key = rng.pick(KEYS);
                    stream.push_str(&query_value(&mut rng, key));
                    stream.push(' ');
                }
                Short::Path => {
                    stream.push_str(rng.pick(PATHS));
                    if rng.below(4) == 0 {
                        stream.push('/');
                        stream.push_str(rng.pick(&[
                            "Fußball",
                            "Jürgen Müller",
                            "東京",
                            "café",
                            "naïve",
                            "Ελλάδα",
                        ]));
                    }
                }
            }
        }
        let stream = stream.into_bytes();
        (0..count)
            .map(|_| {
                let mut start = rng.below(stream.len() - 2 * size);
                while (stream[start] & 0xC0) == 0x80 {
                    start += 1;
                }
                let mut end = start + 2 * size;
                while (stream[end] & 0xC0) == 0x80 {
                    end += 1;
                }
                fit(stream[start..end].to_vec(), size, b'-')
            })
            .collect()
    }
}
