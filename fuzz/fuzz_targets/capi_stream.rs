//! The C API's streams (`pctenc_encode_stream_*`, `pctenc_decode_stream_*`) against its
//! one-shot functions: arbitrary options, an arbitrary input cut into arbitrary pieces, fed
//! with arbitrary output capacities, gives the one-shot output or error (at the same stream
//! offset); nothing is written past a capacity, nor more than `*_stream_max_output` allows.
#![no_main]

use core::ptr;

use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use pctenc::sets;
use pctenc_capi::*;

const CANARY: usize = 16;

/// Up to `caps.len()` calls' capacities, then all the room needed.
struct Feed<'a> {
    caps: &'a [u8],
    call: usize,
}

impl Feed<'_> {
    fn cap(&mut self, one: usize, all: usize) -> usize {
        self.call += 1;
        match self.caps.get(self.call - 1) {
            Some(&c) => usize::from(c).max(one),
            None => all,
        }
    }
}

/// One direction's functions.
struct Api<S> {
    max_output: unsafe extern "C" fn(*const S, usize) -> usize,
    update: unsafe extern "C" fn(
        *mut S,
        *const u8,
        usize,
        *mut u8,
        usize,
        *mut usize,
        *mut usize,
        *mut pctenc_error,
    ) -> pctenc_status,
    finish: unsafe extern "C" fn(*mut S, *mut u8, usize, *mut usize, *mut pctenc_error) -> pctenc_status,
}

/// Feeds `pieces`, finishes; the output, or (kind, offset) of the error.
fn drive<S>(
    api: &Api<S>,
    s: *mut S,
    pieces: &[&[u8]],
    feed: &mut Feed,
) -> Result<Vec<u8>, (pctenc_error_kind, usize)> {
    let mut out = Vec::new();
    for piece in pieces {
        let mut rest = *piece;
        while !rest.is_empty() {
            // SAFETY: a live stream.
            let (one, all) = unsafe { ((api.max_output)(s, 1), (api.max_output)(s, rest.len())) };
            let cap = feed.cap(one, all);
            let mut buf = vec![0xA5u8; cap + CANARY];
            let (mut consumed, mut written) = (0, 0);
            let mut err = pctenc_error {
                status: pctenc_status::PCTENC_INTERNAL_ERROR,
                kind: pctenc_error_kind::PCTENC_KIND_OTHER,
                offset: 0,
                byte: 0,
            };
            // SAFETY: a live stream; `rest` readable; `buf` writable for `cap` bytes.
            let st = unsafe {
                (api.update)(
                    s,
                    rest.as_ptr(),
                    rest.len(),
                    buf.as_mut_ptr(),
                    cap,
                    &mut consumed,
                    &mut written,
                    &mut err,
                )
            };
            assert!(buf[cap..].iter().all(|&b| b == 0xA5), "update wrote past cap");
            match st {
                pctenc_status::PCTENC_OK => {
                    assert!(consumed > 0 && consumed <= rest.len() && written <= cap);
                    assert!(cap < all || consumed == rest.len());
                    out.extend_from_slice(&buf[..written]);
                    rest = &rest[consumed..];
                }
                pctenc_status::PCTENC_INVALID_INPUT => return Err((err.kind, err.offset)),
                other => panic!("update: {other:?}"),
            }
        }
    }
    // SAFETY: a live stream.
    let need = unsafe { (api.max_output)(s, 0) };
    let mut buf = vec![0xA5u8; need + CANARY];
    let mut written = 0;
    let mut err = pctenc_error {
        status: pctenc_status::PCTENC_INTERNAL_ERROR,
        kind: pctenc_error_kind::PCTENC_KIND_OTHER,
        offset: 0,
        byte: 0,
    };
    // SAFETY: `buf` writable for `need` bytes.
    let st = unsafe { (api.finish)(s, buf.as_mut_ptr(), need, &mut written, &mut err) };
    assert!(buf[need..].iter().all(|&b| b == 0xA5), "finish wrote past cap");
    match st {
        pctenc_status::PCTENC_OK => {
            out.extend_from_slice(&buf[..written]);
            Ok(out)
        }
        pctenc_status::PCTENC_INVALID_INPUT => Err((err.kind, err.offset)),
        other => panic!("finish: {other:?}"),
    }
}

fn run(u: &mut Unstructured) -> Result<()> {
    let encode = u.arbitrary::<bool>()?;
    let flags = u.arbitrary::<u32>()?;
    let named = u.choose(sets::NAMED)?;
    let ncuts = u.int_in_range(0..=4)?;
    let mut cuts = Vec::new();
    let caps_len = u.int_in_range(0..=8)?;
    let caps = u.bytes(caps_len)?;
    for _ in 0..ncuts {
        cuts.push(u.arbitrary::<u16>()?);
    }
    let input = u.bytes(u.len())?;
    let mut cuts: Vec<usize> = cuts.into_iter().map(|c| usize::from(c) % (input.len() + 1)).collect();
    cuts.sort_unstable();
    let mut pieces = Vec::new();
    let mut at = 0;
    for &c in &cuts {
        pieces.push(&input[at..c]);
        at = c;
    }
    pieces.push(&input[at..]);
    let mut feed = Feed { caps, call: 0 };
    if encode {
        let mut enc = ptr::null_mut();
        // SAFETY: a valid name and out pointer.
        if unsafe {
            pctenc_encoder_new(named.name.as_ptr().cast(), named.name.len(), flags, &mut enc, ptr::null_mut())
        } != pctenc_status::PCTENC_OK
        {
            return Ok(());
        }
        // SAFETY: a live encoder and a valid input.
        let size = unsafe { pctenc_encoded_len(enc, input.as_ptr(), input.len()) };
        let mut want = vec![0u8; size];
        let mut written = 0;
        // SAFETY: `want` has room for `size` bytes.
        let st = unsafe {
            pctenc_encode(
                enc,
                input.as_ptr(),
                input.len(),
                want.as_mut_ptr(),
                size,
                &mut written,
                ptr::null_mut(),
            )
        };
        assert_eq!((st, written), (pctenc_status::PCTENC_OK, size));
        let mut s = ptr::null_mut();
        // SAFETY: a live encoder.
        assert_eq!(
            unsafe { pctenc_encode_stream_new(enc, &mut s, ptr::null_mut()) },
            pctenc_status::PCTENC_OK
        );
        let api = Api {
            max_output: pctenc_encode_stream_max_output,
            update: pctenc_encode_stream_update,
            finish: pctenc_encode_stream_finish,
        };
        assert_eq!(drive(&api, s, &pieces, &mut feed), Ok(want));
        // SAFETY: live handles, freed once.
        unsafe {
            pctenc_encode_stream_free(s);
            pctenc_encoder_free(enc);
        }
    } else {
        let mut dec = ptr::null_mut();
        // SAFETY: no kept set, a valid out pointer.
        if unsafe { pctenc_decoder_new(flags, ptr::null(), &mut dec, ptr::null_mut()) }
            != pctenc_status::PCTENC_OK
        {
            return Ok(());
        }
        // SAFETY: a live decoder.
        let size = unsafe { pctenc_decoded_len_max(dec, input.len()) };
        let mut whole = vec![0u8; size];
        let mut written = 0;
        let mut err = pctenc_error {
            status: pctenc_status::PCTENC_INTERNAL_ERROR,
            kind: pctenc_error_kind::PCTENC_KIND_OTHER,
            offset: 0,
            byte: 0,
        };
        // SAFETY: `whole` has room for `size` bytes.
        let st = unsafe {
            pctenc_decode(dec, input.as_ptr(), input.len(), whole.as_mut_ptr(), size, &mut written, &mut err)
        };
        let want = match st {
            pctenc_status::PCTENC_OK => Ok(whole[..written].to_vec()),
            _ => Err((err.kind, err.offset)),
        };
        let mut s = ptr::null_mut();
        // SAFETY: a live decoder.
        assert_eq!(
            unsafe { pctenc_decode_stream_new(dec, &mut s, ptr::null_mut()) },
            pctenc_status::PCTENC_OK
        );
        let api = Api {
            max_output: pctenc_decode_stream_max_output,
            update: pctenc_decode_stream_update,
            finish: pctenc_decode_stream_finish,
        };
        assert_eq!(drive(&api, s, &pieces, &mut feed), want);
        // SAFETY: live handles, freed once.
        unsafe {
            pctenc_decode_stream_free(s);
            pctenc_decoder_free(dec);
        }
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let _ = run(&mut Unstructured::new(data));
});
