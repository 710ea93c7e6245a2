//! The built-in inputs of `pctenc bench`: the workloads of `docs/BENCHMARKS.md`, generated
//! on the spot so that the binary holds no more than a few word lists and an 8 KiB excerpt.
//!
//! `safe`, `log` and `random` are the bytes `benches/common/mod.rs` generates for criterion,
//! by the same code and seeds (a fixed-seed SplitMix64): keep the two in step. `multilingual`
//! repeats a 2 KiB excerpt of each of the four articles of `benches/data` (`multilingual.txt`
//! beside this file) where criterion repeats the whole articles: the same scripts and nearly
//! the same share of escaped bytes (93% against 95%), and the same first 2046 bytes (so the
//! same input at 64 B).

/// A built-in input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    /// ASCII letters, digits and `-._~` only: rfc3986 keeps every byte.
    Safe,
    /// Web access-log lines: paths, raw query strings, UTF-8 names, user agents (about 20%
    /// of bytes escaped by rfc3986).
    Log,
    /// Arabic, Greek, Hindi and Japanese text: mostly multi-byte UTF-8.
    Multilingual,
    /// Uniformly random bytes.
    Random,
}

/// Every workload, in the order `pctenc bench` measures them.
pub const WORKLOADS: [Workload; 4] =
    [Workload::Safe, Workload::Log, Workload::Multilingual, Workload::Random];

/// The excerpt `multilingual` repeats (8 KiB).
const MULTILINGUAL: &[u8] = include_bytes!("multilingual.txt");

impl Workload {
    /// The name `pctenc bench` shows, the same as criterion's group ids.
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
        // A different stream per workload, the same for every size (and the same as the
        // benchmarks').
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

/// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, good enough for benchmark inputs.
struct SplitMix64(u64);

impl SplitMix64 {
    fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`; the tiny modulo bias does not matter here).
    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    fn pick<'a, T: ?Sized>(&mut self, items: &[&'a T]) -> &'a T {
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

fn multilingual_text(size: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(size + MULTILINGUAL.len());
    while out.len() <= size {
        out.extend_from_slice(MULTILINGUAL);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workloads_have_their_size_and_kind() {
        for size in [1, 63, 64, 4096, 10_000] {
            for workload in WORKLOADS {
                let bytes = workload.generate(size);
                assert_eq!(bytes.len(), size, "{workload:?}");
                if workload != Workload::Random {
                    assert!(std::str::from_utf8(&bytes).is_ok(), "{workload:?} {size}");
                }
            }
            let safe = Workload::Safe.generate(size);
            assert!(safe.iter().all(|b| b.is_ascii_alphanumeric() || b"-._~".contains(b)));
        }
        // Deterministic: the same bytes every time, a prefix of a larger size's up to the
        // padding.
        assert_eq!(Workload::Log.generate(4096), Workload::Log.generate(4096));
        assert_eq!(Workload::Random.generate(100), Workload::Random.generate(1000)[..100]);
        let text = Workload::Multilingual.generate(64 << 10);
        assert!(text.iter().filter(|b| !b.is_ascii()).count() > text.len() / 2);
    }
}
