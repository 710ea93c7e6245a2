//! `pctenc::form` against the `form_urlencoded` crate: `parse` of the input (names and
//! values equal, as strings), and the `Serializer` (`append_pair`, `extend_pairs`,
//! `serialize`, `append_to` against `for_suffix`) on pairs and a target read from the input,
//! byte for byte; and parsing what was serialized gives the pairs back.
#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use pctenc_fuzz::checks;

fuzz_target!(|data: &[u8]| {
    checks::form_parse(data);
    let mut u = Unstructured::new(data);
    let (Ok(target), Ok(pairs)) = (u.arbitrary::<String>(), u.arbitrary::<Vec<(String, String)>>()) else {
        return;
    };
    checks::form_serialize(&pairs, &target);
});
