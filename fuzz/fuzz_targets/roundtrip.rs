//! `decode(encode(x)) == x` on every backend, for random sets made to escape `%` (and `+`
//! when `+` decodes as a space), IRI sets included, with strict decoding in bytes mode; and
//! in the strict and lossy UTF-8 modes for UTF-8 input (the input itself when it is UTF-8,
//! and always its lossy UTF-8 form).
#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use pctenc::Encoder;
use pctenc_fuzz::{checks, input};

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let (Ok(set), Ok(plus), Ok(lowercase)) = (input::set(&mut u), u.arbitrary::<bool>(), u.arbitrary())
    else {
        return;
    };
    let plus = plus || set.space_as_plus();
    let set = if plus { set.add(b'%').add(b'+') } else { set.add(b'%') };
    let enc = Encoder::new(set).lowercase(lowercase);
    let bytes = u.take_rest();
    checks::roundtrip(enc, plus, bytes);
    if let std::borrow::Cow::Owned(text) = String::from_utf8_lossy(bytes) {
        checks::roundtrip(enc, plus, text.as_bytes());
    }
});
