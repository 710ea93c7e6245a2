//! The library's version and the SIMD backend it runs.

use core::ffi::c_char;
use std::panic::catch_unwind;

/// The major version of the library this header belongs to (`pctenc_version()` gives that
/// of the library linked at run time).
pub const PCTENC_VERSION_MAJOR: u32 = 0;
/// The minor version of the library this header belongs to.
pub const PCTENC_VERSION_MINOR: u32 = 2;
/// The patch version of the library this header belongs to.
pub const PCTENC_VERSION_PATCH: u32 = 0;
/// The decimal number at the start of `s[from..]` and the index after it (compile time).
const fn version_part(s: &[u8], from: usize) -> (u32, usize) {
    let (mut n, mut i) = (0u32, from);
    while i < s.len() && s[i].is_ascii_digit() {
        n = n * 10 + (s[i] - b'0') as u32;
        i += 1;
    }
    (n, i + 1)
}

// The header's version macros are the package's version: the build fails when they drift.
// (PCTENC_VERSION_STRING, which cbindgen cannot generate, is in cbindgen.toml; the unit test
// `version_string_is_the_package_version` and tests/capi.c check it.)
const _: () = {
    let v = env!("CARGO_PKG_VERSION").as_bytes();
    let (major, i) = version_part(v, 0);
    let (minor, i) = version_part(v, i);
    let (patch, _) = version_part(v, i);
    assert!(major == PCTENC_VERSION_MAJOR && minor == PCTENC_VERSION_MINOR && patch == PCTENC_VERSION_PATCH);
};

/// The version of libpctenc, as `"MAJOR.MINOR.PATCH"`: a static NUL-terminated string, never
/// NULL, never to be freed. Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn pctenc_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// The name of the SIMD backend pctenc chose for this CPU (`"avx512"`, `"avx2"`, `"ssse3"`,
/// `"sse2"`, `"neon"` or `"scalar"`): a static NUL-terminated string, never NULL, never to be
/// freed. Every handle uses this backend. Thread-safe; the first call detects the CPU.
#[unsafe(no_mangle)]
pub extern "C" fn pctenc_backend_name() -> *const c_char {
    let name = catch_unwind(|| pctenc_core::Backend::detect().name()).unwrap_or("scalar");
    let name: &'static core::ffi::CStr = match name {
        "sse2" => c"sse2",
        "ssse3" => c"ssse3",
        "avx2" => c"avx2",
        "avx512" => c"avx512",
        "neon" => c"neon",
        _ => c"scalar",
    };
    name.as_ptr()
}

#[cfg(test)]
mod tests {
    /// The header's PCTENC_VERSION_STRING, written in cbindgen.toml, is the package's version.
    #[test]
    fn version_string_is_the_package_version() {
        let line = format!("#define PCTENC_VERSION_STRING \"{}\"", env!("CARGO_PKG_VERSION"));
        assert!(include_str!("../cbindgen.toml").contains(&line), "cbindgen.toml lacks {line}");
        assert!(include_str!("../include/pctenc.h").contains(&line), "pctenc.h lacks {line}");
    }
}
