//! The algorithms, written once over the kernel traits (`super::kernel`): each instruction
//! set's file supplies only the block operations, and `super::entry::backend!` compiles these
//! for it.

pub(crate) mod decode;
pub(crate) mod encode;
pub(crate) mod validate;
