//! Guides: longer explanations than an item's documentation can hold. Nothing here is code.

#[doc = include_str!("../docs/guide/choosing-a-set.md")]
pub mod choosing_a_set {}

#[doc = include_str!("../docs/guide/from-percent-encoding.md")]
pub mod from_percent_encoding {}
