//! Decoding modes by name, as a column's users write them (a SQL argument, a Python keyword):
//! one parser, so that `percent_decode(s, 'plus,lossy')` and `pctenc.arrow.decode(a,
//! mode="plus,lossy")` mean the same.

use pctenc::{Decoder, Utf8Mode};

/// The decoder a mode names: a comma-separated list of `strict` (the default: nothing),
/// `lenient` (a malformed escape kept as it is), `plus` (`+` as a space) and `lossy` (invalid
/// UTF-8 as U+FFFD), in any case, spaces around words ignored. `strict` with `lenient` or
/// `lossy` is an error, as is an unknown word; the message says which.
///
/// ```
/// use pctenc::Utf8Mode;
///
/// let dec = pctenc_arrow::decoder_for_mode("plus, lossy").unwrap();
/// assert!(dec.is_plus_as_space() && dec.utf8_value() == Utf8Mode::Lossy);
/// assert!(pctenc_arrow::decoder_for_mode("strict,lenient").is_err());
/// assert!(pctenc_arrow::decoder_for_mode("loose").unwrap_err().contains("unknown decoding mode `loose`"));
/// ```
pub fn decoder_for_mode(mode: &str) -> Result<Decoder, String> {
    let mut dec = Decoder::new();
    let mut strict = false;
    for word in mode.split(',').map(str::trim).filter(|w| !w.is_empty()) {
        dec = match word.to_ascii_lowercase().as_str() {
            "strict" => {
                strict = true;
                dec
            }
            "lenient" => dec.lenient(true),
            "plus" => dec.plus_as_space(true),
            "lossy" => dec.utf8(Utf8Mode::Lossy),
            _ => {
                return Err(format!(
                    "unknown decoding mode `{word}`: expected strict, lenient, plus or lossy (or several, \
                     comma-separated)"
                ));
            }
        };
    }
    if strict && (dec.is_lenient() || dec.utf8_value() == Utf8Mode::Lossy) {
        return Err(format!("decoding mode `{mode}`: strict contradicts lenient and lossy"));
    }
    Ok(dec)
}
