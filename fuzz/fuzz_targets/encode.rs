//! Every backend this CPU runs against scalar, for a random set (ASCII bits or a predefined
//! set, IRI and space-as-`+` on or off), lowercase and re-quoting on or off: `encode`,
//! `encoded_len`, `encoded_lens` (of parts cut before each byte that is 0 mod 7),
//! `checked_encoded_len`, `encode_vec`, `encode_slice` (exact size and one
//! byte short) and `validate` (of the input and of the output, same offset and kind).
#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use pctenc_fuzz::{checks, input};

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(enc) = input::encoder(&mut u) else { return };
    checks::encode(enc, u.take_rest());
});
