//! The source layout that the `unsafe` kernels' soundness rests on.
//!
//! A SIMD entry point may only run where [`Backend::is_available`] said yes, so the CPU
//! features it is compiled with must be among those the check tests. Both come from one list
//! per backend, the `backend!` call in its file under `src/simd/`: these tests fail if an
//! entry point enables a feature some other way (a `#[target_feature]` written by hand), if a
//! file makes no such call or two, if the list `cpu_features` reports is not the file's, or
//! if an arm of `is_available`, `cpu_features` or the dispatch goes to another backend's
//! file. What they cannot see is a kernel calling an intrinsic of a feature its list lacks
//! (an `unsafe` call that Rust accepts): the kernels' tests on CPUs without that feature
//! catch it, which is what the emulated x86 tiers in CI are for.

use std::path::{Path, PathBuf};

use pctenc::Backend;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// The instruction-set files: one per SIMD backend, named after it.
fn isa_files() -> Vec<(Backend, PathBuf)> {
    let simd = src().join("simd");
    let mut files = Vec::new();
    for dir in ["x86", "aarch64"] {
        for path in rust_files(&simd.join(dir)) {
            let name = path.file_stem().unwrap().to_str().unwrap().to_owned();
            let backend = Backend::from_name(&name).unwrap_or_else(|| panic!("{path:?} names no backend"));
            files.push((backend, path));
        }
    }
    files
}

/// The feature list of the `backend!` call in `text`, which must hold exactly one.
fn feature_list(path: &Path, text: &str) -> Vec<String> {
    let calls: Vec<usize> = text.match_indices("entry::backend!").map(|(at, _)| at).collect();
    assert_eq!(calls.len(), 1, "{path:?}: one backend! call, found {}", calls.len());
    let rest = &text[calls[0]..];
    let start = rest.find("features: [").unwrap_or_else(|| panic!("{path:?}: no feature list")) + 11;
    let end = start + rest[start..].find(']').unwrap();
    rest[start..end]
        .split(',')
        .map(|f| f.trim().trim_matches('"').to_owned())
        .filter(|f| !f.is_empty())
        .collect()
}

#[test]
fn target_features_are_enabled_only_by_the_backend_macro() {
    let entry = src().join("simd").join("entry.rs");
    let mut checked = 0;
    for path in rust_files(&src()) {
        if path == entry {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap();
            assert!(
                !code.contains("target_feature(enable"),
                "{}:{}: a #[target_feature] outside src/simd/entry.rs enables features that \
                 Backend::is_available may not test; use the file's backend! call",
                path.display(),
                i + 1
            );
        }
        checked += 1;
    }
    assert!(checked > 30, "only {checked} files read");
}

/// The `Backend::Variant => ... arch::file::...` arms of `text`: variant and file names.
fn arms(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        let Some(rest) = line.strip_prefix("Backend::") else { continue };
        let Some((variant, target)) = rest.split_once("=>") else { continue };
        for arch in ["x86::", "aarch64::"] {
            if let Some(at) = target.find(arch) {
                let file: String =
                    target[at + arch.len()..].chars().take_while(|c| c.is_alphanumeric()).collect();
                out.push((variant.trim().to_owned(), file));
            }
        }
    }
    out
}

/// The code that picks a backend's functions, which a wrong arm would make run one backend's
/// instructions under another's check: each arm of `is_available` and `cpu_features`
/// (`src/simd/engine.rs`) and of `dispatch!` (`src/simd/mod.rs`) goes to the file of its own
/// backend, and every SIMD backend has its arm in each.
#[test]
fn every_backend_arm_goes_to_its_own_file() {
    let simd = src().join("simd");
    let engine = std::fs::read_to_string(simd.join("engine.rs")).unwrap();
    let dispatch = std::fs::read_to_string(simd.join("mod.rs")).unwrap();
    let simd_backends: Vec<Backend> = Backend::ALL.into_iter().filter(|b| *b != Backend::Scalar).collect();
    for (what, text, per_backend) in [("engine.rs", &engine, 2), ("mod.rs", &dispatch, 1)] {
        let arms = arms(text);
        for (variant, file) in &arms {
            let backend = Backend::ALL
                .into_iter()
                .find(|b| format!("{b:?}") == *variant)
                .unwrap_or_else(|| panic!("{what}: Backend::{variant} is no backend"));
            assert_eq!(backend.name(), file, "{what}: Backend::{variant} calls into {file}.rs");
        }
        for backend in &simd_backends {
            let n = arms.iter().filter(|(v, _)| *v == format!("{backend:?}")).count();
            assert_eq!(n, per_backend, "{what}: {n} arms for Backend::{backend:?}");
        }
    }
}

#[test]
fn each_backend_file_lists_its_features_once_and_detection_tests_that_list() {
    let files = isa_files();
    let names: Vec<&str> = files.iter().map(|(b, _)| b.name()).collect();
    assert_eq!(names, ["avx2", "avx512", "sse2", "ssse3", "neon"]);
    for (backend, path) in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let listed = feature_list(&path, &text);
        assert!(!listed.is_empty(), "{path:?}: an empty feature list");
        let here = cfg!(any(target_arch = "x86", target_arch = "x86_64"))
            && path.parent().unwrap().ends_with("x86")
            || cfg!(target_arch = "aarch64") && path.parent().unwrap().ends_with("aarch64");
        if here {
            // What `is_available` tests (and the entry points enable) is the file's list.
            assert_eq!(backend.cpu_features(), listed, "{backend}: cpu_features() is not {path:?}'s list");
        } else {
            assert!(backend.cpu_features().is_empty(), "{backend} on another architecture");
            assert!(!backend.is_available());
        }
    }
    assert!(Backend::Scalar.cpu_features().is_empty());
}
