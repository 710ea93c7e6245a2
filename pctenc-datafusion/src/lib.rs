//! pctenc for columnar data and SQL: percent-encoding kernels over Apache Arrow arrays,
//! scalar functions for Apache DataFusion, and (feature `ballista`) the same functions on an
//! Apache Ballista cluster.
//!
//! - [`kernels`]: encode, decode, validate and normalize whole arrays of any of the six
//!   byte-array kinds, nulls kept, errors by row and byte offset: the `pctenc-arrow` crate,
//!   which a program that holds Arrow arrays without DataFusion uses directly.
//! - [`register`]: the SQL functions, Spark-compatible `url_encode`, `url_decode` and
//!   `try_url_decode`, and pctenc's own `percent_encode`, `percent_decode`,
//!   `try_percent_decode`, `percent_validate` and `percent_normalize`.
//! - [`spark`]: `java.net.URLDecoder`'s rules, quirks included.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> datafusion::error::Result<()> {
//! use datafusion::prelude::SessionContext;
//!
//! let ctx = SessionContext::new();
//! pctenc_datafusion::register(&ctx);
//! let df = ctx.sql("SELECT url_decode('a+b%26c%3D%C3%A9') AS v, percent_encode('/a b', 'path') AS p").await?;
//! let batches = df.collect().await?;
//! let text = arrow::util::pretty::pretty_format_batches(&batches)?.to_string();
//! assert!(text.contains("a b&c=é") && text.contains("/a%20b"));
//! # Ok(())
//! # }
//! ```

/// The Arrow kernels the functions run: the `pctenc-arrow` crate.
pub use pctenc_arrow as kernels;
/// `java.net.URLDecoder`'s rules, which Spark's functions follow: `pctenc_arrow::spark`.
pub use pctenc_arrow::spark;
mod udf;

#[cfg(feature = "ballista")]
pub mod ballista;

pub use udf::{function_names, functions, register, register_in};
