//! The algorithms, written once over the kernel traits (`super::kernel`): each instruction
//! set's file supplies only the block operations, and `super::entry::backend!` compiles these
//! for it.

/// Marks where a loop body's path starts and ends in the assembly, for the static estimate of
/// its speed (`scripts/mca.py`, which builds with `--cfg pctenc_mca`): `mca!("BEGIN name")`
/// and `mca!("END name")` write an `LLVM-MCA-BEGIN name` or `LLVM-MCA-END name` comment. Any
/// other build has no such cfg, and the macro expands to nothing.
///
/// Under that cfg the comment is an `asm!` statement with no instructions, which LLVM keeps
/// in its place among the loop's other side effects (or copies into each path that follows,
/// as it does the encoder's END on NEON): the estimate's build may lay out and schedule the
/// loop a little differently from the shipped one.
macro_rules! mca {
    ($marker:literal) => {
        #[cfg(all(pctenc_mca, target_arch = "aarch64"))]
        // SAFETY: a comment: no instruction, no register, no memory.
        unsafe {
            core::arch::asm!(concat!("// LLVM-MCA-", $marker), options(nomem, nostack, preserves_flags))
        };
        #[cfg(all(pctenc_mca, any(target_arch = "x86", target_arch = "x86_64")))]
        // SAFETY: as above.
        unsafe {
            core::arch::asm!(concat!("# LLVM-MCA-", $marker), options(nomem, nostack, preserves_flags))
        };
    };
}

pub(crate) mod decode;
pub(crate) mod encode;
pub(crate) mod validate;
