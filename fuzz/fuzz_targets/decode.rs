//! Every backend this CPU runs against scalar, for random `Decoder` options (strict or
//! lenient, `+` as space, the three UTF-8 modes, kept escapes, `%u`, rejected classes):
//! `decode` (output, or error offset and kind), `decode_vec`, `decode_to_str`,
//! `decode_slice` into roomy, exact-size and too-small slices, and `decode_in_place`.
#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use pctenc_fuzz::{checks, input};

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let (Ok(dec), Ok(room)) = (input::decoder(&mut u), u.arbitrary::<u16>()) else { return };
    checks::decode(dec, u.take_rest(), usize::from(room));
});
