//! `pctenc info`: what the CPU offers and what pctenc makes of it.

use std::fmt::Write;

use pctenc::{Backend, Engine};

/// The CPU features the backends depend on, and whether this CPU has them (`pctenc info`
/// and `pctenc bench` name them): every feature of every backend's `cpu_features` (the test
/// below checks it; detection needs each name written out).
pub fn features() -> Vec<(&'static str, bool)> {
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    {
        use std::arch::is_x86_feature_detected as has;
        vec![
            ("sse2", has!("sse2")),
            ("ssse3", has!("ssse3")),
            ("avx2", has!("avx2")),
            ("popcnt", has!("popcnt")),
            ("bmi2", has!("bmi2")),
            ("avx512f", has!("avx512f")),
            ("avx512bw", has!("avx512bw")),
            ("avx512vbmi", has!("avx512vbmi")),
            ("avx512vbmi2", has!("avx512vbmi2")),
        ]
    }
    #[cfg(target_arch = "aarch64")]
    {
        vec![("neon", std::arch::is_aarch64_feature_detected!("neon"))]
    }
    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64", target_arch = "aarch64")))]
    {
        Vec::new()
    }
}

/// What `pctenc --version` says after the version: the backend the commands run on (unless
/// `--backend` names another) and the CPU features seen, as `pctenc info` reports them.
pub fn long_version() -> String {
    let found: Vec<&str> = features().into_iter().filter(|f| f.1).map(|f| f.0).collect();
    format!(
        "{}\nbackend: {} ({})\ncpu features: {}",
        env!("CARGO_PKG_VERSION"),
        Backend::detect(),
        std::env::consts::ARCH,
        if found.is_empty() { "-".into() } else { found.join(" ") }
    )
}

/// `threads`: how many a large input gets (`-j N`, or one per CPU).
pub fn report(chosen: Engine, threads: usize) -> String {
    let mut out = String::new();
    let found: Vec<&str> = features().into_iter().filter(|f| f.1).map(|f| f.0).collect();
    let missing: Vec<&str> = features().into_iter().filter(|f| !f.1).map(|f| f.0).collect();
    let _ = writeln!(out, "architecture:        {}", std::env::consts::ARCH);
    let _ =
        writeln!(out, "cpu features found:  {}", if found.is_empty() { "-".into() } else { found.join(" ") });
    let _ = writeln!(
        out,
        "cpu features absent: {}",
        if missing.is_empty() { "-".into() } else { missing.join(" ") }
    );
    let available: Vec<&str> = Backend::ALL.iter().filter(|b| b.is_available()).map(|b| b.name()).collect();
    let _ = writeln!(out, "backends available:  {}", available.join(" "));
    let _ = writeln!(out, "backend detected:    {}", Backend::detect());
    let _ = writeln!(out, "backend chosen:      {}", chosen.backend());
    let _ = writeln!(out, "threads:             {threads}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_backend_feature_is_reported() {
        let listed: Vec<&str> = features().into_iter().map(|f| f.0).collect();
        for backend in Backend::ALL {
            for feature in backend.cpu_features() {
                assert!(listed.contains(feature), "{feature} of {backend} is missing from `pctenc info`");
            }
        }
    }
}
