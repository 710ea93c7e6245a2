//! `--charset` for `encode` and `decode`, `decode --explain`, and `pctenc charsets`: a line
//! at a time (`lines.rs`), each line's `\n` or `\r\n` copied as is. A line is read in
//! pieces, never whole, so that memory stays bounded whatever its length.

mod decode;
mod encode;
mod explain;
mod lines;

use std::fmt::Write as _;

use pctenc::charset::Charset;

pub use decode::{DecodeIn, InError, decode};
pub use encode::encode;
pub use explain::explain_lines;
pub use lines::SHORT;

/// `pctenc charsets`: every encoding with its labels.
pub fn table() -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{:<16} LABELS", "ENCODING");
    for charset in Charset::all() {
        let _ = writeln!(out, "{:<16} {}", charset.name(), charset.labels().join(", "));
    }
    let _ = writeln!(
        out,
        "\nThe encodings and labels of the WHATWG Encoding Standard (labels are case-insensitive).\n\
         encode --charset writes UTF-16BE, UTF-16LE and replacement as UTF-8, as forms do."
    );
    out
}
