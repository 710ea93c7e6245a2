//! A backend's entry points and its availability check, from one feature list.
//!
//! The kernels are `unsafe` because they run instructions the CPU may lack: each entry point
//! enables its backend's CPU features (`#[target_feature]`), and [`Backend::is_available`]
//! must test every one of them before an [`Engine`] proves the backend usable. [`backend!`]
//! writes both from the same list, once per instruction-set file, so the two cannot
//! disagree; `tests/layout.rs` checks that no other `#[target_feature]` is written by hand.
//!
//! [`Backend::is_available`]: super::engine::Backend::is_available
//! [`Engine`]: super::engine::Engine

/// Whether the CPU has a feature: asked at run time with `std`; without it, what the build's
/// target features guarantee.
#[cfg(all(any(target_arch = "x86", target_arch = "x86_64"), feature = "std"))]
macro_rules! cpu_has {
    ($feature:tt) => {
        std::arch::is_x86_feature_detected!($feature)
    };
}
#[cfg(all(target_arch = "aarch64", feature = "std"))]
macro_rules! cpu_has {
    ($feature:tt) => {
        std::arch::is_aarch64_feature_detected!($feature)
    };
}
#[cfg(not(feature = "std"))]
macro_rules! cpu_has {
    ($feature:tt) => {
        cfg!(target_feature = $feature)
    };
}
pub(crate) use cpu_has;

/// The backend of an instruction-set file: `FEATURES`, `is_available` (every feature of the
/// list detected) and the `#[target_feature]` entry points over the file's kernel, which
/// enable exactly the list. Inputs under `short` bytes go to the scalar code (`0`: none do),
/// for a backend whose setup costs more than it saves on them (SSE2), and so do inputs too
/// short for any backend's block ([`SMALLEST_BLOCK`]; the decoder's, under it and two bytes
/// more), in one step; a part-measuring call goes scalar when the whole span it measures is
/// that short, and the decoder and the escape count of the lenient parallel decoder never
/// follow `short`.
///
/// `narrow: [file, ...]` names the backends (sibling files, widest first) that encode, count,
/// measure, validate and decode inputs shorter than one of this kernel's blocks, which would
/// otherwise go to the scalar code (a kernel with `Kernel::EXACT` encodes them itself, and
/// one with `DecodeKernel::WHOLE` decodes those up to that long itself): a 40-byte input is
/// one AVX2 block and a tail, not 40 scalar steps. Such an input goes to the first of them
/// whose block it holds, in one call (not from each backend to the next). Their features must
/// all be in this list (checked at compile time), so this backend's callers vouch for them
/// too.
macro_rules! backend {
    (kernel: $kernel:ty, features: [$($feature:tt),+ $(,)?], short: $short:expr $(, narrow: [$($narrow:ident),+ $(,)?])? $(,)?) => {
        /// The CPU features this backend's entry points enable, all of which
        /// [`is_available`] tests.
        #[allow(dead_code)]
        pub(crate) const FEATURES: &[&str] = &[$($feature),+];

        /// Inputs under this many bytes go to the scalar code: those under `short`, and
        /// those too short for any backend's block, which would reach the scalar code anyway
        /// (through the narrower backends' entry points, a call each).
        const SHORT: usize = $crate::simd::entry::at_least($short, $crate::simd::entry::SMALLEST_BLOCK);

        const _: () = assert!(
            <$kernel as $crate::simd::kernel::Kernel>::BYTES >= $crate::simd::entry::SMALLEST_BLOCK,
            "no backend's block is shorter than SMALLEST_BLOCK"
        );

        /// This backend's block: inputs shorter than this go to a narrower backend.
        #[allow(dead_code)]
        pub(crate) const BLOCK: usize = <$kernel as $crate::simd::kernel::Kernel>::BYTES;

        $($(
            const _: () = assert!(
                $crate::simd::entry::includes(FEATURES, super::$narrow::FEATURES),
                "a narrow backend's features must be among this backend's"
            );
        )+)?

        /// Whether the CPU has every feature of [`FEATURES`].
        // Without `std` the tests are constants, which clippy would fold.
        #[allow(clippy::nonminimal_bool, clippy::overly_complex_bool_expr, clippy::eq_op)]
        pub(crate) fn is_available() -> bool {
            true $(&& $crate::simd::entry::cpu_has!($feature))+
        }

        /// How many bytes of `input` are written as `%HH`.
        ///
        /// # Safety
        /// The CPU supports every feature of [`FEATURES`] ([`is_available`]).
        $(#[target_feature(enable = $feature)])+
        pub(crate) unsafe fn count_escapes(input: &[u8], set: &$crate::set::Set) -> usize {
            $crate::simd::entry::short_input! {
                len: input.len(), short: SHORT, block: <$kernel as $crate::simd::kernel::Kernel>::BYTES,
                scalar: $crate::scalar::encode::count_escapes(input, set),
                narrow: [$($($narrow),+)?] count_escapes(input, set)
            }
            // SAFETY: the features are available (caller).
            unsafe { $crate::simd::generic::encode::count_escapes::<$kernel>(input, set) }
        }

        /// The offset of the first byte that encoding changes, or `input.len()`.
        ///
        /// # Safety
        /// As for [`count_escapes`].
        $(#[target_feature(enable = $feature)])+
        pub(crate) unsafe fn first_change(input: &[u8], set: &$crate::set::Set) -> usize {
            $crate::simd::entry::short_input! {
                len: input.len(), short: SHORT, block: <$kernel as $crate::simd::kernel::Kernel>::BYTES,
                scalar: $crate::scalar::encode::first_change(input, set),
                narrow: [$($($narrow),+)?] first_change(input, set)
            }
            // SAFETY: the features are available (caller).
            unsafe { $crate::simd::generic::encode::first_change::<$kernel>(input, set) }
        }

        /// For each of `cuts`, how many bytes of `input[base..cut]` are written as `%HH`.
        ///
        /// # Safety
        /// As for [`count_escapes`].
        $(#[target_feature(enable = $feature)])+
        pub(crate) unsafe fn count_escapes_before(
            input: &[u8],
            set: &$crate::set::Set,
            base: usize,
            cuts: &[usize],
            counts: &mut [usize],
        ) {
            // Short parts are no reason to go scalar: the blocks run over the whole span.
            let span = cuts.last().map_or(0, |&last| last - base);
            $crate::simd::entry::short_input! {
                len: span, short: SHORT, block: <$kernel as $crate::simd::kernel::Kernel>::BYTES,
                scalar: $crate::scalar::encode::count_escapes_before(input, set, base, cuts, counts),
                narrow: [$($($narrow),+)?] count_escapes_before(input, set, base, cuts, counts)
            }
            // SAFETY: the features are available (caller).
            unsafe { $crate::simd::generic::encode::count_escapes_before::<$kernel>(input, set, base, cuts, counts) }
        }

        /// Encodes `input` into `out`: how far it got, all of `input` unless `out` is too
        /// small. (Two words, returned in registers; a `Result` of three goes through memory.)
        ///
        /// # Safety
        /// As for [`count_escapes`].
        $(#[target_feature(enable = $feature)])+
        pub(crate) unsafe fn encode(
            input: &[u8],
            set: &$crate::set::Set,
            digits: &[u8; 16],
            out: &mut [core::mem::MaybeUninit<u8>],
        ) -> $crate::kernel_io::Partial {
            // A kernel that encodes a partial block in place (`EXACT`) keeps short inputs.
            if <$kernel as $crate::simd::kernel::Kernel>::EXACT {
                // SAFETY: the features are available (caller).
                return unsafe { encode_blocks(input, set, digits, out) };
            }
            $crate::simd::entry::short_input! {
                len: input.len(), short: SHORT, block: <$kernel as $crate::simd::kernel::Kernel>::BYTES,
                scalar: $crate::kernel_io::Partial::of(
                    $crate::scalar::encode::encode(input, set, digits, out),
                    input.len(),
                ),
                narrow: [$($($narrow),+)?] encode(input, set, digits, out)
            }
            // SAFETY: the features are available (caller).
            unsafe { encode_blocks(input, set, digits, out) }
        }

        /// [`encode`] of an input of at least one block (of any length on a kernel with
        /// `EXACT`): a function of its own, so that
        /// the short inputs [`encode`] sends elsewhere do not pay for this one's frame (six
        /// saved registers and the scratch block), and a tail call from there.
        ///
        /// # Safety
        /// As for [`count_escapes`].
        $(#[target_feature(enable = $feature)])+
        #[inline(never)]
        unsafe fn encode_blocks(
            input: &[u8],
            set: &$crate::set::Set,
            digits: &[u8; 16],
            out: &mut [core::mem::MaybeUninit<u8>],
        ) -> $crate::kernel_io::Partial {
            // SAFETY: the features are available (caller).
            let result = unsafe { $crate::simd::generic::encode::encode::<$kernel>(input, set, digits, out) };
            $crate::kernel_io::Partial::of(result, input.len())
        }

        /// How far whole blocks prove `input` a valid encoding for `set` (a token boundary).
        ///
        /// # Safety
        /// As for [`count_escapes`].
        $(#[target_feature(enable = $feature)])+
        pub(crate) unsafe fn valid_prefix(input: &[u8], set: &$crate::set::Set) -> usize {
            $crate::simd::entry::short_input! {
                len: input.len(), short: SHORT, block: <$kernel as $crate::simd::kernel::Kernel>::BYTES,
                scalar: 0,
                narrow: [$($($narrow),+)?] valid_prefix(input, set)
            }
            // SAFETY: the features are available (caller).
            unsafe { $crate::simd::generic::validate::valid_prefix::<$kernel>(input, set) }
        }

        /// How many `%` in `input` start a valid escape.
        ///
        /// # Safety
        /// As for [`count_escapes`].
        $(#[target_feature(enable = $feature)])+
        pub(crate) unsafe fn count_valid_escapes(input: &[u8]) -> usize {
            // SAFETY: the features are available (caller).
            unsafe { $crate::simd::generic::validate::count_valid_escapes::<$kernel>(input) }
        }

        /// Decodes `input` into `out` like the scalar decoder, with the same result.
        ///
        /// # Safety
        /// As for [`count_escapes`].
        $(#[target_feature(enable = $feature)])+
        pub(crate) unsafe fn decode(
            input: &[u8],
            out: &mut [core::mem::MaybeUninit<u8>],
            rules: $crate::kernel_io::Rules,
            last: bool,
        ) -> Result<$crate::kernel_io::Step, $crate::error::DecodeError> {
            // A short value in one step where the kernel can (masked loads and stores): no
            // narrower backend, no copy, no scalar code, unless it holds a malformed `%`.
            // The caller sends only `vectorizable` rules here (no `%u`, nothing kept), so a
            // decoder that rejects nothing is a basic one. (Testing `is_basic` here instead
            // cost 11-15% on 128-byte values.)
            debug_assert!(rules.vectorizable());
            if input.len() <= <$kernel as $crate::simd::kernel::DecodeKernel>::WHOLE && rules.reject == 0 {
                // SAFETY: the features are available (caller).
                let whole = unsafe {
                    <$kernel as $crate::simd::kernel::DecodeKernel>::decode_whole(input, out, rules.plus)
                };
                if let Some(written) = whole {
                    return Ok($crate::kernel_io::Step { read: input.len(), written });
                }
            }
            // A block is not enough: the vector decoder also looks at the two bytes after it.
            // Too short for any backend's block and those two bytes, the scalar code, which
            // the vector decoder would run on all of it.
            $crate::simd::entry::short_input! {
                len: input.len(), short: $crate::simd::entry::SMALLEST_BLOCK + 2,
                block: <$kernel as $crate::simd::kernel::Kernel>::BYTES, after: 2,
                scalar: $crate::scalar::decode::decode(input, out, rules, last),
                narrow: [$($($narrow),+)?] decode(input, out, rules, last)
            }
            // SAFETY: the features are available (caller).
            unsafe { decode_blocks(input, out, rules, last) }
        }

        /// [`decode`] of an input of at least one block and two bytes: a function of its own,
        /// as [`encode_blocks`] is.
        ///
        /// # Safety
        /// As for [`count_escapes`].
        $(#[target_feature(enable = $feature)])+
        #[inline(never)]
        unsafe fn decode_blocks(
            input: &[u8],
            out: &mut [core::mem::MaybeUninit<u8>],
            rules: $crate::kernel_io::Rules,
            last: bool,
        ) -> Result<$crate::kernel_io::Step, $crate::error::DecodeError> {
            // SAFETY: the features are available (caller).
            unsafe { $crate::simd::generic::decode::decode::<$kernel>(input, out, rules, last, decode_escape_run) }
        }

        /// The run of escapes at the start of `input`, decoded a group at a time
        /// ([`DecodeKernel::ESCAPE_GROUP`](crate::simd::kernel::DecodeKernel)): how many.
        /// A function of its own, which [`decode_blocks`] calls only after a block made up
        /// entirely of escapes, so that the block loop's code stays what it is without it.
        ///
        /// # Safety
        /// As for [`count_escapes`].
        $(#[target_feature(enable = $feature)])+
        #[inline(never)]
        unsafe fn decode_escape_run(input: &[u8], out: &mut [core::mem::MaybeUninit<u8>]) -> usize {
            // SAFETY: the features are available (caller).
            unsafe { $crate::simd::generic::decode::escape_run::<$kernel>(input, out) }
        }

        /// The encoder's block loop for one set (`COMPONENT`, no space as `+`), for the static
        /// estimate of its speed (`scripts/mca.py`): a function of its own with a plain symbol
        /// name, `pctenc_mca_encode_` and the kernel's, in which the branches on the set's
        /// options fold away. Only under `--cfg pctenc_mca`, which no other build sets.
        ///
        /// # Safety
        /// As for [`count_escapes`].
        #[cfg(pctenc_mca)]
        $(#[target_feature(enable = $feature)])+
        #[inline(never)]
        #[unsafe(export_name = concat!("pctenc_mca_encode_", stringify!($kernel)))]
        unsafe fn mca_encode(
            input: &[u8],
            out: &mut [core::mem::MaybeUninit<u8>],
        ) -> Result<usize, $crate::kernel_io::Partial> {
            let set = &$crate::sets::COMPONENT;
            // SAFETY: the features are available (caller).
            unsafe { $crate::simd::generic::encode::encode::<$kernel>(input, set, $crate::hex::UPPER, out) }
        }

        /// The decoder's block loop, strict and without `+` as space, as [`mca_encode`] is
        /// the encoder's: `pctenc_mca_decode_` and the kernel's name.
        ///
        /// # Safety
        /// As for [`count_escapes`].
        #[cfg(pctenc_mca)]
        $(#[target_feature(enable = $feature)])+
        #[inline(never)]
        #[unsafe(export_name = concat!("pctenc_mca_decode_", stringify!($kernel)))]
        unsafe fn mca_decode(
            input: &[u8],
            out: &mut [core::mem::MaybeUninit<u8>],
        ) -> Result<$crate::kernel_io::Step, $crate::error::DecodeError> {
            let rules = $crate::kernel_io::Rules::basic(false, false);
            // SAFETY: the features are available (caller).
            unsafe { $crate::simd::generic::decode::decode::<$kernel>(input, out, rules, true, decode_escape_run) }
        }
    };
}
pub(crate) use backend;

/// The start of each of [`backend!`]'s entry points: an input of `len` bytes under `short`
/// returns `scalar`; one shorter than this backend's `block` (and the `after` bytes past a
/// block the kernel also reads, `0` unless given) returns the call of the same entry point of
/// the first `narrow` backend whose block (and `after`) it holds. Longer inputs fall through
/// to the caller's block code. A macro, not a function, as it returns from its caller and
/// must cost nothing on the short paths it serves.
macro_rules! short_input {
    (
        len: $len:expr, short: $short:expr, block: $block:expr,
        scalar: $scalar:expr,
        narrow: [$($narrow:ident),*] $entry:ident $args:tt
    ) => {
        $crate::simd::entry::short_input! {
            len: $len, short: $short, block: $block, after: 0,
            scalar: $scalar,
            narrow: [$($narrow),*] $entry $args
        }
    };
    (
        len: $len:expr, short: $short:expr, block: $block:expr, after: $after:expr,
        scalar: $scalar:expr,
        narrow: [$($narrow:ident),*] $entry:ident $args:tt
    ) => {
        if $len < $short {
            return $scalar;
        }
        if $len < $block + $after {
            $(
                if $len >= super::$narrow::BLOCK + $after {
                    // SAFETY: the narrow backend's features are among this one's (asserted
                    // by `backend!`), which the caller vouches for.
                    return unsafe { super::$narrow::$entry $args };
                }
            )*
        }
    };
}
pub(crate) use short_input;

/// The shortest block of any backend (SSE2, SSSE3 and NEON take 16 bytes at a time). Every
/// backend's entry points send inputs shorter than this (the decoder's: than this and the
/// two bytes after it) straight to the scalar code, which is where the narrower backends
/// would send them: a proxy's 8-byte value costs what the scalar code costs and one call,
/// not a call per backend. (The check is not made before the dispatch as well: on 64-byte
/// inputs that cost 2 ns of 10.)
pub(crate) const SMALLEST_BLOCK: usize = 16;

/// The larger of `a` and `b` (`Ord::max` is not `const`).
pub(crate) const fn at_least(a: usize, b: usize) -> usize {
    if a > b { a } else { b }
}

/// Whether every feature of `inner` is in `outer` (for `backend!`'s compile-time check).
#[allow(dead_code)]
pub(crate) const fn includes(outer: &[&str], inner: &[&str]) -> bool {
    let mut i = 0;
    while i < inner.len() {
        let mut found = false;
        let mut j = 0;
        while j < outer.len() {
            found |= eq(outer[j].as_bytes(), inner[i].as_bytes());
            j += 1;
        }
        if !found {
            return false;
        }
        i += 1;
    }
    true
}

const fn eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}
