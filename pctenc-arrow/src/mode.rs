//! Decoding modes by name, as a column's users write them (a SQL argument, a Python keyword):
//! the core's words ([`pctenc::words`]), so that `percent_decode(s, 'plus,lossy')`,
//! `pctenc.arrow.decode(a, mode="plus,lossy")`, nginx's `pctenc_decode $d plus $v lossy` and
//! `pctenc decode --mode "plus lossy"` mean the same.

use pctenc::Decoder;

/// The decoder a mode names: the core's decoder words (`strict` or `lenient`, `plus`,
/// `utf8=bytes|strict|lossy`, `lossy` for `utf8=lossy`, `legacy_u`, `reject_*`,
/// `keep_encoded=SET`), separated by commas or spaces, in any case. An unknown word, a repeat
/// or a contradiction (`strict,lenient`, `lossy,utf8=strict`) is an error whose message names
/// the words. `lossy` changes UTF-8 only: escapes stay strict unless `lenient` is given.
///
/// ```
/// use pctenc::Utf8Mode;
///
/// let dec = pctenc_arrow::decoder_for_mode("plus, lossy").unwrap();
/// assert!(dec.is_plus_as_space() && dec.utf8_value() == Utf8Mode::Lossy && !dec.is_lenient());
/// assert!(pctenc_arrow::decoder_for_mode("strict,lenient").unwrap_err().contains("`lenient` contradicts `strict`"));
/// assert!(pctenc_arrow::decoder_for_mode("loose").unwrap_err().contains("unknown word `loose`"));
/// ```
pub fn decoder_for_mode(mode: &str) -> Result<Decoder, String> {
    mode.parse().map_err(|e: pctenc::WordsError| e.to_string())
}
