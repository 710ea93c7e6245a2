//! Legacy character encodings: `Decoder::decode_in` on arbitrary bytes in a fuzz-chosen
//! encoding and decoder against the byte decoder and `encoding_rs` itself, and
//! `Encoder::encode_in` of the input as text read back by `decode_in`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pctenc_fuzz::checks;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, input)) = data.split_first() else { return };
    checks::charset(pick, input);
});
