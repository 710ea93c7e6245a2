//! Parallel against serial, on a pool of four threads: encoding (`__par::encode_vec`, and
//! `par_encode_vec`, `par_encode_to`, `StreamEncoder::feed_to`) and decoding
//! (`__par::decode_vec`, and `par_decode_vec`, `StreamDecoder::feed_to` and `feed`),
//! output or error. Fuzz inputs are small and the parallel paths cut 64 KiB chunks, so the
//! input is grown: padding, a unit repeated, a tail (`input::grow`), to more than two
//! chunks for `__par` (which skips the size thresholds), or to the threshold for the
//! public functions (one run in 16; one in 64 past 2 MiB, more than one window of chunks).
//! `checks::parallel_encode` and
//! `checks::parallel_decode` assert that the parallel paths are taken.
#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use pctenc_fuzz::checks::{self, PAR_CHUNK};
use pctenc_fuzz::input;

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(encoding) = u.arbitrary::<bool>() else { return };
    // The public functions need large inputs, which make a run 50 to 100 times as long:
    // one run in 16, and one in 64 past 2 MiB, where the parallel paths work a window of
    // 32 chunks at a time (`par::WINDOW_BYTES`) and so take more than one.
    let Ok(public) = input::one_in(&mut u, 16) else { return };
    let Ok(huge) = input::one_in(&mut u, 4) else { return };
    let huge = public && huge;
    // The widest backend, else (one time in eight, for `__par` only) any: the scalar
    // kernels, instrumented for the fuzzer byte by byte, are slow on inputs this large.
    let Ok(any_engine) = input::one_in(&mut u, 8) else { return };
    let engine = if any_engine && !public {
        let Ok(engine) = input::engine(&mut u) else { return };
        engine
    } else {
        pctenc::Engine::detect()
    };
    let (Ok(pad), Ok(extra), Ok(cut), Ok(split)) =
        (u.arbitrary::<u16>(), u.arbitrary::<u16>(), u.arbitrary::<u32>(), u.arbitrary::<u16>())
    else {
        return;
    };
    // Three chunks and more for `__par`, the threshold for the public functions.
    let threshold = match (public, encoding) {
        _ if huge => 2 * 1024 * 1024 + PAR_CHUNK,
        (false, _) => 2 * PAR_CHUNK,
        (true, true) => pctenc::PAR_ENCODE_THRESHOLD,
        (true, false) => pctenc::PAR_DECODE_THRESHOLD,
    };
    let extra = usize::from(extra % 4096);
    let min_len = threshold + extra;
    let cut = cut as usize % (extra + 1);
    if encoding {
        let Ok(enc) = input::encoder(&mut u) else { return };
        let rest = u.take_rest();
        let (unit, tail) = rest.split_at(usize::from(split) % (rest.len() + 1));
        let big = input::grow(unit, tail, usize::from(pad), min_len);
        checks::parallel_encode(enc.engine(engine), &big, cut, public);
    } else {
        let Ok(dec) = input::decoder(&mut u) else { return };
        let rest = u.take_rest();
        let (unit, tail) = rest.split_at(usize::from(split) % (rest.len() + 1));
        let big = input::grow(unit, tail, usize::from(pad), min_len);
        checks::parallel_decode(dec.engine(engine), &big, cut, public);
    }
});
