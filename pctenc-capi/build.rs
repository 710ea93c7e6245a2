//! Gives libpctenc.so the SONAME libpctenc.so.0 on Linux, so that programs linked against it
//! ask for `libpctenc.so.0` at run time and a later incompatible version (`.so.1`) can be
//! installed beside it.
fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libpctenc.so.0");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
