//! Tells `pctenc bench` how it was built, so that its header names the build it measures
//! and it warns about one that is not optimized.

fn main() {
    for var in ["PROFILE", "OPT_LEVEL"] {
        let value = std::env::var(var).unwrap_or_else(|_| "unknown".into());
        println!("cargo:rustc-env=PCTENC_BUILD_{var}={value}");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
