//! Split invariance: the input cut at fuzz-chosen points (or into one-byte pieces) and fed
//! through `StreamEncoder` / `StreamDecoder` (`feed`, `feed_to`) and the `io` adapters
//! (`EncodeWriter`, `DecodeWriter` over a writer that takes a few bytes at a time,
//! `EncodeReader`, `DecodeReader` over a reader that gives the pieces, `Interrupted` on or
//! off) gives exactly the one-shot result, errors included (same offset and kind).
#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use pctenc_fuzz::{checks, input};

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(encoding) = u.arbitrary::<bool>() else { return };
    if encoding {
        let (Ok(enc), Ok(io), Ok(cuts)) =
            (input::encoder(&mut u), input::io_shape(&mut u), input::raw_cuts(&mut u))
        else {
            return;
        };
        let bytes = u.take_rest();
        checks::stream_encode(enc, bytes, &input::cuts_for(&cuts, bytes.len()), io);
    } else {
        let (Ok(dec), Ok(io), Ok(cuts)) =
            (input::decoder(&mut u), input::io_shape(&mut u), input::raw_cuts(&mut u))
        else {
            return;
        };
        let bytes = u.take_rest();
        checks::stream_decode(dec, bytes, &input::cuts_for(&cuts, bytes.len()), io);
    }
});
