//! [`Backend`] and [`Engine`]: which instruction set does the work, chosen once at run time.
//! The kernels layer's own: an `Engine` is the proof its `unsafe` entry points need.

use core::fmt;

/// An implementation of pctenc's kernels: the portable scalar one, or one for a SIMD
/// instruction set. Every backend gives byte-identical results; they differ only in speed.
///
/// ```
/// use pctenc::Backend;
///
/// let best = Backend::detect();
/// assert!(best.is_available());
/// assert!(Backend::Scalar.is_available());
/// println!("pctenc uses {}", best.name());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Backend {
    /// Portable Rust, one byte at a time: the reference, and the path for short inputs.
    Scalar,
    /// x86 SSE2 (every x86-64 CPU; 32-bit x86 CPUs since the Pentium 4): 16-byte
    /// classification by range compares, scalar escapes. Without `std`, available when the
    /// build enables SSE2: every x86-64 target but those that turn it off (kernel and
    /// firmware targets such as `x86_64-unknown-none`).
    Sse2,
    /// x86 SSSE3: 16-byte nibble-table classification (`pshufb`) and escapes built in registers.
    Ssse3,
    /// x86 AVX2: 32-byte classification, escapes built in registers.
    Avx2,
    /// x86 AVX-512 with BW, VBMI and VBMI2 (Ice Lake, Zen 4 and later): 64-byte blocks,
    /// escapes expanded with `vpermb` and packed with `vpcompressb`, masked stores of the output.
    Avx512,
    /// AArch64 NEON (Advanced SIMD, on every AArch64 CPU): 16-byte classification with `tbl`,
    /// escapes stored with `st3`.
    Neon,
}

impl Backend {
    /// Every backend, from the portable one to the widest, whether or not this CPU can run
    /// it: filter with [`is_available`](Backend::is_available) or [`Engine::new`].
    ///
    /// ```
    /// use pctenc::{sets, Backend, Encoder, Engine};
    ///
    /// // Every backend this CPU can run gives the same bytes.
    /// for engine in Backend::ALL.into_iter().filter_map(Engine::new) {
    ///     assert_eq!(Encoder::new(sets::PATH).engine(engine).encode("a b/é"), "a%20b/%C3%A9");
    /// }
    /// ```
    pub const ALL: [Backend; 6] =
        [Backend::Scalar, Backend::Sse2, Backend::Ssse3, Backend::Avx2, Backend::Avx512, Backend::Neon];

    /// The backend's name, as the CLI's `--backend` takes it (`"avx2"`).
    ///
    /// ```
    /// assert_eq!(pctenc::Backend::Avx512.name(), "avx512");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            Backend::Scalar => "scalar",
            Backend::Sse2 => "sse2",
            Backend::Ssse3 => "ssse3",
            Backend::Avx2 => "avx2",
            Backend::Avx512 => "avx512",
            Backend::Neon => "neon",
        }
    }

    /// The backend called `name` (as [`name`](Backend::name) spells it, any case).
    ///
    /// ```
    /// assert_eq!(pctenc::Backend::from_name("AVX2"), Some(pctenc::Backend::Avx2));
    /// ```
    pub fn from_name(name: &str) -> Option<Backend> {
        Backend::ALL.into_iter().find(|b| b.name().eq_ignore_ascii_case(name))
    }

    /// Whether this CPU can run the backend. With the `std` feature this asks the CPU at run
    /// time; without it, it reports what the build's target features guarantee. Each SIMD
    /// backend tests exactly the CPU features its code is compiled with
    /// ([`cpu_features`](Backend::cpu_features): one list per backend, in its file under
    /// `src/simd/`).
    ///
    /// ```
    /// use pctenc::Backend;
    ///
    /// let available: Vec<Backend> = Backend::ALL.into_iter().filter(|b| b.is_available()).collect();
    /// assert!(available.contains(&Backend::Scalar));
    /// assert!(available.contains(&Backend::detect()));
    /// ```
    pub fn is_available(self) -> bool {
        match self {
            Backend::Scalar => true,
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Backend::Sse2 => super::x86::sse2::is_available(),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Backend::Ssse3 => super::x86::ssse3::is_available(),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Backend::Avx2 => super::x86::avx2::is_available(),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Backend::Avx512 => super::x86::avx512::is_available(),
            #[cfg(target_arch = "aarch64")]
            Backend::Neon => super::aarch64::neon::is_available(),
            #[allow(unreachable_patterns)]
            _ => false,
        }
    }

    /// The CPU features the backend's code is compiled with and
    /// [`is_available`](Backend::is_available) tests, as `#[target_feature]` names them;
    /// empty for scalar, and for a backend of another architecture.
    ///
    /// ```
    /// assert!(pctenc::Backend::Scalar.cpu_features().is_empty());
    /// # #[cfg(target_arch = "x86_64")]
    /// assert_eq!(pctenc::Backend::Avx2.cpu_features(), ["avx2", "popcnt", "ssse3"]);
    /// ```
    pub fn cpu_features(self) -> &'static [&'static str] {
        match self {
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Backend::Sse2 => super::x86::sse2::FEATURES,
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Backend::Ssse3 => super::x86::ssse3::FEATURES,
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Backend::Avx2 => super::x86::avx2::FEATURES,
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Backend::Avx512 => super::x86::avx512::FEATURES,
            #[cfg(target_arch = "aarch64")]
            Backend::Neon => super::aarch64::neon::FEATURES,
            _ => &[],
        }
    }

    /// The fastest backend this CPU can run, found on the first call and remembered.
    ///
    /// ```
    /// assert_eq!(pctenc::Backend::detect(), pctenc::Backend::detect());
    /// ```
    pub fn detect() -> Backend {
        use core::sync::atomic::{AtomicU8, Ordering};
        const UNKNOWN: u8 = u8::MAX;
        static DETECTED: AtomicU8 = AtomicU8::new(UNKNOWN);
        match DETECTED.load(Ordering::Relaxed) {
            UNKNOWN => {
                let best = *Backend::ALL.iter().rev().find(|b| b.is_available()).unwrap_or(&Backend::Scalar);
                // Races are harmless: every thread computes the same answer.
                DETECTED.store(best as u8, Ordering::Relaxed);
                best
            }
            index => Backend::ALL[usize::from(index)],
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A [`Backend`] that this CPU is known to support: the proof the SIMD kernels need.
///
/// The free functions ([`encode`](crate::encode), ...) use [`Engine::detect`]; an encoder or
/// decoder given an `Engine` ([`Encoder::engine`](crate::Encoder::engine),
/// [`Decoder::engine`](crate::Decoder::engine)) pins that backend instead, for tests and
/// benchmarks, without changing any global state.
///
/// ```
/// use pctenc::{sets, Backend, Encoder, Engine};
///
/// let scalar = Encoder::new(sets::COMPONENT).engine(Engine::new(Backend::Scalar).unwrap());
/// let best = Encoder::new(sets::COMPONENT).engine(Engine::detect());
/// let text = "Jürgen & Björk";
/// assert_eq!(scalar.encode(text), best.encode(text));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Engine {
    backend: Backend,
}

impl Engine {
    /// An engine on `backend`, or `None` when this CPU cannot run it.
    ///
    /// ```
    /// let engine = pctenc::Engine::new(pctenc::Backend::Scalar).unwrap();
    /// assert_eq!(engine.backend(), pctenc::Backend::Scalar);
    /// ```
    pub fn new(backend: Backend) -> Option<Engine> {
        backend.is_available().then_some(Engine { backend })
    }

    /// The engine on the fastest backend this CPU has ([`Backend::detect`]): what every
    /// encoder and decoder uses unless given another.
    ///
    /// ```
    /// use pctenc::{Backend, Engine};
    ///
    /// let engine = Engine::detect();
    /// assert_eq!(engine.backend(), Backend::detect());
    /// assert_eq!(pctenc::Encoder::new(pctenc::sets::URI).engine_value(), engine);
    /// ```
    pub fn detect() -> Engine {
        Engine { backend: Backend::detect() }
    }

    /// The engine on the portable backend, available everywhere. Unlike [`Engine::new`] it
    /// cannot fail, and it is `const`, so an encoder or decoder pinned to the reference code
    /// can be a constant.
    ///
    /// ```
    /// use pctenc::{sets, Encoder, Engine};
    ///
    /// const REFERENCE: Encoder = Encoder::new(sets::COMPONENT).engine(Engine::scalar());
    /// assert_eq!(REFERENCE.encode("a b"), "a%20b");
    /// assert_eq!(REFERENCE.engine_value().backend(), pctenc::Backend::Scalar);
    /// ```
    pub const fn scalar() -> Engine {
        Engine { backend: Backend::Scalar }
    }

    /// The backend this engine runs.
    ///
    /// ```
    /// use pctenc::{Backend, Engine};
    ///
    /// assert_eq!(Engine::scalar().backend(), Backend::Scalar);
    /// println!("pctenc runs on {}", Engine::detect().backend()); // `avx2`, `neon`, ...
    /// ```
    pub const fn backend(&self) -> Backend {
        self.backend
    }
}
