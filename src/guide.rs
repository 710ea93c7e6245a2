//! Guides: longer explanations than an item's documentation can hold. Nothing here is code.

#[doc = include_str!("../docs/guide/choosing-a-set.md")]
pub mod choosing_a_set {}

#[doc = include_str!("../docs/guide/from-percent-encoding.md")]
pub mod from_percent_encoding {}

// The examples need the `rayon` and `encoding` features, as the README's do: `cargo test` at
// the root turns both on (with the CLI's), and docs.rs builds every feature.
#[cfg(all(feature = "rayon", feature = "encoding"))]
#[doc = include_str!("../docs/guide/tour.md")]
pub mod tour {}
