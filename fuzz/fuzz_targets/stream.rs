//! Split invariance: the input cut at fuzz-chosen points (or into one-byte pieces) and fed
//! through `StreamEncoder` / `StreamDecoder` (`feed`, `feed_to`) and the `io` adapters
//! (`EncodeWriter`, `DecodeWriter` over a writer that takes a few bytes at a time,
//! `EncodeReader`, `DecodeReader` over a reader that gives the pieces, `Interrupted` on or
//! off) gives exactly the one-shot result, errors included (same offset and kind), on a
//! backend chosen by the input.
#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use pctenc_fuzz::{checks, input};

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    // The backend too: each one decodes a piece whose end the next piece may complete.
    let (Ok(encoding), Ok(engine)) = (u.arbitrary::<bool>(), input::engine(&mut u)) else { return };
    if encoding {
        let (Ok(enc), Ok(io), Ok(cuts)) =
            (input::encoder(&mut u), input::io_shape(&mut u), input::raw_cuts(&mut u))
        else {
            return;
        };
        let bytes = u.take_rest();
        checks::stream_encode(enc.engine(engine), bytes, &input::cuts_for(&cuts, bytes.len()), io);
    } else {
        let (Ok(dec), Ok(io), Ok(cuts)) =
            (input::decoder(&mut u), input::io_shape(&mut u), input::raw_cuts(&mut u))
        else {
            return;
        };
        let bytes = u.take_rest();
        checks::stream_decode(dec.engine(engine), bytes, &input::cuts_for(&cuts, bytes.len()), io);
    }
});
