//! The rows every kernel benchmark runs on, shared with pctenc-datafusion's: access-log-like
//! values of about 100 bytes.

/// Access-log-like values: paths and query strings, some non-ASCII, about 100 bytes.
pub fn raw_rows(n: usize) -> Vec<String> {
    const PATHS: &[&str] =
        &["/search", "/products/shoes/running", "/api/v2/users", "/static/app.js", "/blog/2024/café-crème"];
    const QUERIES: &[&str] =
        &["red shoes size 42", "Jürgen Björk", "a&b=c", "東京 hotel", "100% cotton", "q"];
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..n)
        .map(|i| {
            let r = next();
            let path = PATHS[(r % PATHS.len() as u64) as usize];
            let q = QUERIES[((r >> 8) % QUERIES.len() as u64) as usize];
            let mut s = format!(
                "{path}?q={q}&page={}&sort=desc&session={:016x}&ref=https://example.com/x",
                i % 50,
                r
            );
            s.truncate(100.min(s.len()));
            while !s.is_char_boundary(s.len()) {
                s.pop();
            }
            s
        })
        .collect()
}
