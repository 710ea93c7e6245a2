//! The parallel paths (`par_encode_vec`, `par_decode_vec`) give exactly the serial result,
//! output or error, for sizes around `PAR_ENCODE_THRESHOLD` and `PAR_DECODE_THRESHOLD` and on
//! pools of 1, 2, 3 and 8 threads, on every backend (encoding) or on the detected one and
//! scalar (decoding; `decode_backends.rs` pins every backend's decoder to scalar). (Chunk borders at every position of small inputs are covered by the
//! unit tests in `src/par.rs`, which can make chunks tiny.)
#![cfg(feature = "rayon")]

mod common;

use pctenc::{Decoder, Encoder, PAR_DECODE_THRESHOLD, PAR_ENCODE_THRESHOLD, Reject, Utf8Mode, sets};

/// Deterministic input of `len` bytes built from tokens that matter at chunk borders.
fn text(len: usize, seed: u64, tokens: &[&[u8]]) -> Vec<u8> {
    let mut state = seed | 1;
    let mut out = Vec::with_capacity(len + 16);
    while out.len() < len {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        out.extend_from_slice(tokens[(state % tokens.len() as u64) as usize]);
    }
    out.truncate(len);
    out
}

const RAW: &[&[u8]] = &[
    b"GET /search?q=",
    "caf\u{e9} ".as_bytes(),
    "\u{65e5}\u{672c}".as_bytes(),
    "\u{1F600}".as_bytes(),
    b"a&b=c",
    b"100%",
    b"%41",
    b"+",
    b"\r\n",
    b"\n",
    b"\xFF",
    b"\xC3",
    b"plain-text_here.~",
];

const ENCODED: &[&[u8]] = &[
    b"%41",
    b"%c3%a9",
    b"%E6%97%A5",
    b"+",
    b"plain",
    b"-_.~",
    b"%F0%9F%98%80",
    b"%2F",
    b"/",
    b"%0A",
    b"abcdef",
];

/// A few malformed or unwelcome tokens, placed once each.
const BAD: &[&[u8]] = &[b"%4", b"%zz", b"%C3", b"%FF", b"%00%u00e9"];

fn sizes(t: usize) -> Vec<usize> {
    vec![t - 1, t, t + 3, 2 * t + 7]
}

fn pools() -> Vec<(usize, rayon::ThreadPool)> {
    [1, 2, 3, 8]
        .into_iter()
        .map(|n| (n, rayon::ThreadPoolBuilder::new().num_threads(n).build().expect("thread pool")))
        .collect()
}

fn engines() -> Vec<pctenc::Engine> {
    let mut all = common::engines();
    all.push(pctenc::Engine::new(pctenc::Backend::Scalar).unwrap());
    all
}

#[test]
fn encode_equals_serial() {
    let pools = pools();
    let mut checked = 0;
    for engine in engines() {
        let encoders = [
            Encoder::new(sets::RFC3986).engine(engine),
            Encoder::new(sets::COMPONENT).keep_escapes(true).engine(engine),
            Encoder::new(sets::PATH.with_iri(true)).engine(engine),
            Encoder::new(sets::FORM).lowercase(true).engine(engine),
        ];
        for (i, size) in
            sizes(PAR_ENCODE_THRESHOLD).into_iter().chain([4 * PAR_ENCODE_THRESHOLD + 1]).enumerate()
        {
            let input = text(size, 0x9E37_79B9 + i as u64, RAW);
            for encoder in &encoders {
                let mut want = b"prefix".to_vec();
                encoder.encode_vec(&input, &mut want);
                for (n, pool) in &pools {
                    let mut got = b"prefix".to_vec();
                    pool.install(|| encoder.par_encode_vec(&input, &mut got));
                    assert!(got == want, "{encoder:?}, {size} bytes, {n} threads");
                    // The parallel path itself, whatever the size and the pool (the public
                    // one goes serial below the threshold and on one thread).
                    let mut got = b"prefix".to_vec();
                    pool.install(|| pctenc::__par::encode_vec(encoder, &input, &mut got));
                    assert!(got == want, "{encoder:?}, {size} bytes, {n} threads, unconditionally");
                    checked += 1;
                }
                assert_eq!(encoder.par_encode(&input).as_bytes(), &want[6..]);
            }
        }
    }
    println!("{checked} parallel encodings equal to serial");
}

/// Every decoder that splits (and two that decode serially), on clean input and on input
/// with one bad token, before, at and after the threshold.
#[test]
fn decode_equals_serial() {
    let pools = pools();
    let decoders = [
        Decoder::new(),
        Decoder::new().lenient(true),
        Decoder::FORM,
        Decoder::URI_COMPONENT,
        Decoder::new().utf8(Utf8Mode::Lossy),
        Decoder::new().reject(Reject::ALL),
        Decoder::URI,
        Decoder::new().legacy_u(true).lenient(true),
    ];
    let mut checked = 0;
    let detected = pctenc::Engine::detect();
    for engine in [detected, pctenc::Engine::new(pctenc::Backend::Scalar).unwrap()] {
        for (i, size) in sizes(PAR_DECODE_THRESHOLD).into_iter().enumerate() {
            let clean = text(size, 0x5DEE_CE66 + i as u64, ENCODED);
            let mut inputs = vec![clean.clone()];
            for (k, bad) in BAD.iter().enumerate() {
                let at = (size / (k + 2)) & !0xF;
                let mut input = clean.clone();
                input.splice(at..at, bad.iter().copied());
                input.truncate(size);
                inputs.push(input);
            }
            // A `%` as the very last byte.
            let mut last = clean.clone();
            *last.last_mut().unwrap() = b'%';
            inputs.push(last);
            for input in &inputs {
                for decoder in decoders {
                    let decoder = decoder.engine(engine);
                    let mut want = b"prefix".to_vec();
                    let want_result = decoder.decode_vec(input, &mut want);
                    for (n, pool) in &pools {
                        let mut got = b"prefix".to_vec();
                        let result = pool.install(|| decoder.par_decode_vec(input, &mut got));
                        assert_eq!(result, want_result, "{decoder:?}, {size} bytes, {n} threads");
                        assert!(got == want, "{decoder:?}, {size} bytes, {n} threads");
                        if !decoder.is_legacy_u()
                            && decoder.keep_encoded_value() == Decoder::new().keep_encoded_value()
                        {
                            let mut got = b"prefix".to_vec();
                            let result =
                                pool.install(|| pctenc::__par::decode_vec(&decoder, input, &mut got));
                            assert_eq!(
                                result, want_result,
                                "{decoder:?}, {size} bytes, {n} threads, unconditionally"
                            );
                            assert!(got == want, "{decoder:?}, {size} bytes, {n} threads, unconditionally");
                        }
                        checked += 1;
                    }
                    assert_eq!(decoder.par_decode(input).ok(), want_result.ok().map(|()| want[6..].to_vec()));
                }
            }
        }
    }
    println!("{checked} parallel decodings equal to serial");
}

/// Cuts of `len`: just after a `%` (inside an escape), inside a UTF-8 sequence, and plain,
/// so that the pieces in between are large enough for the parallel path.
fn cuts(input: &[u8]) -> Vec<usize> {
    let t = PAR_DECODE_THRESHOLD;
    let mut cuts = Vec::new();
    for nominal in [t + 5, 2 * t + 11, 3 * t + 17] {
        if nominal >= input.len() {
            break;
        }
        let after_pct = (nominal..input.len()).find(|&i| input[i - 1] == b'%').unwrap_or(nominal);
        cuts.push(after_pct);
    }
    cuts
}

/// `StreamEncoder` and `StreamDecoder` fed pieces above the threshold (encoded in parallel,
/// cut inside escapes and UTF-8 sequences) give the one-shot result.
#[test]
fn streams_of_large_pieces_equal_one_shot() {
    let t = PAR_DECODE_THRESHOLD;
    let raw = text(4 * t, 0xA5A5_5A5A, RAW);
    for encoder in [
        pctenc::Encoder::new(sets::PATH.with_iri(true)).keep_escapes(true),
        pctenc::Encoder::new(sets::RFC3986),
    ] {
        let mut stream = pctenc::StreamEncoder::new(encoder);
        let mut got = Vec::new();
        let mut from = 0;
        for cut in cuts(&raw).into_iter().chain([raw.len()]) {
            stream.feed(&raw[from..cut], &mut got);
            from = cut;
        }
        stream.finish(&mut got);
        assert!(got == encoder.encode(&raw).as_bytes(), "{encoder:?}");
    }
    let clean = text(4 * t, 0x0F0F_F0F0, ENCODED);
    let mut inputs = vec![clean.clone()];
    for bad in BAD {
        let mut input = clean.clone();
        let at = 3 * t - 1;
        input.splice(at..at, bad.iter().copied());
        inputs.push(input);
    }
    let decoders = [Decoder::new(), Decoder::new().lenient(true), Decoder::FORM, Decoder::URI_COMPONENT];
    for input in &inputs {
        for decoder in decoders {
            let want = decoder.decode(input).map(|c| c.into_owned());
            let mut stream = pctenc::StreamDecoder::new(decoder);
            let mut got = Vec::new();
            let mut from = 0;
            let mut result = Ok(());
            for cut in cuts(input).into_iter().chain([input.len()]) {
                result = result.and_then(|()| stream.feed(&input[from..cut], &mut got));
                from = cut;
            }
            let result = result.and_then(|()| stream.finish(&mut got));
            match want {
                Ok(want) => {
                    assert_eq!(result, Ok(()), "{decoder:?}");
                    assert!(got == want, "{decoder:?}");
                }
                Err(e) => assert_eq!(result, Err(e), "{decoder:?}"),
            }
        }
    }
}

/// A writer that takes at most 1000 bytes a call, from the first buffer of a vectored write
/// only, and fails with `Interrupted` every third call.
struct Grudging {
    out: Vec<u8>,
    calls: usize,
}

impl std::io::Write for Grudging {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.calls += 1;
        if self.calls.is_multiple_of(3) {
            return Err(std::io::ErrorKind::Interrupted.into());
        }
        let n = buf.len().min(1000);
        self.out.extend_from_slice(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The writing paths (`par_encode_to`, `feed_to`) over large pieces give the one-shot output
/// through a writer that takes little at a time, and report a decoding error with its offset
/// from the start of the stream.
#[test]
fn writing_paths_equal_one_shot() {
    let pools = pools();
    let raw = text(3 * PAR_DECODE_THRESHOLD + 5, 0x7777_1111, RAW);
    let encoder = pctenc::Encoder::new(sets::COMPONENT.with_iri(true)).keep_escapes(true);
    let want = encoder.encode(&raw).into_owned().into_bytes();
    let encoded = text(3 * PAR_DECODE_THRESHOLD + 5, 0x2222_9999, ENCODED);
    let decoded = Decoder::new().decode(&encoded).unwrap().into_owned();
    for (n, pool) in &pools {
        pool.install(|| {
            let mut w = Grudging { out: Vec::new(), calls: 0 };
            encoder.par_encode_to(&raw, &mut w).unwrap();
            assert!(w.out == want, "par_encode_to, {n} threads");

            let mut w = Grudging { out: Vec::new(), calls: 0 };
            let mut stream = pctenc::StreamEncoder::new(encoder);
            let cut = cuts(&raw);
            stream.feed_to(&raw[..cut[0]], &mut w).unwrap();
            stream.feed_to(&raw[cut[0]..], &mut w).unwrap();
            stream.finish(&mut w.out);
            assert!(w.out == want, "StreamEncoder::feed_to, {n} threads");

            let mut w = Grudging { out: Vec::new(), calls: 0 };
            let mut stream = pctenc::StreamDecoder::new(Decoder::new());
            let cut = cuts(&encoded);
            stream.feed_to(&encoded[..cut[0]], &mut w).unwrap();
            stream.feed_to(&encoded[cut[0]..], &mut w).unwrap();
            stream.finish(&mut w.out).unwrap();
            assert!(w.out == decoded, "StreamDecoder::feed_to, {n} threads");

            // An error far into the second piece: its offset counts from the stream's start.
            let mut bad = encoded.clone();
            let at = 2 * PAR_DECODE_THRESHOLD + 99;
            let at = at + bad[at..].iter().position(|&b| b == b'%').unwrap();
            bad[at + 1] = b'G';
            let mut stream = pctenc::StreamDecoder::new(Decoder::new());
            stream.feed_to(&bad[..cut[0]], &mut std::io::sink()).unwrap();
            let err = stream.feed_to(&bad[cut[0]..], &mut std::io::sink()).unwrap_err();
            let err = err.get_ref().and_then(|e| e.downcast_ref::<pctenc::DecodeError>()).copied().unwrap();
            assert_eq!(err, Decoder::new().decode(&bad).unwrap_err(), "{n} threads");
            assert_eq!(err.offset(), at);
        });
    }
}

/// A writer that claims one byte more than it was given.
struct OverClaiming(Vec<u8>);

impl std::io::Write for OverClaiming {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.extend_from_slice(buf);
        Ok(buf.len() + 1)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The writing paths take a writer that claims too much at its word for what it was given:
/// no panic, and the output is whole.
#[test]
fn writing_paths_survive_a_writer_that_overclaims() {
    let input = text(2 * PAR_ENCODE_THRESHOLD, 0x5151_1515, RAW);
    let encoder = pctenc::Encoder::new(sets::COMPONENT);
    let mut w = OverClaiming(Vec::new());
    encoder.par_encode_to(&input, &mut w).unwrap();
    assert!(w.0 == encoder.encode(&input).as_bytes());
}

/// Streams fed two large pieces cut at, inside and just after tricky tokens (a `%` the next
/// piece completes, malformed escapes, a run of `%`), through `feed` and `feed_to`: the
/// one-shot result, output or error.
#[test]
fn large_pieces_cut_next_to_tricky_tokens() {
    let t = PAR_DECODE_THRESHOLD;
    let decoders = [
        Decoder::new(),
        Decoder::new().lenient(true),
        Decoder::FORM.utf8(Utf8Mode::Bytes),
        Decoder::new().lenient(true).reject(Reject::ALL),
        Decoder::new().utf8(Utf8Mode::Strict),
    ];
    let specials: [&[u8]; 7] = [b"%", b"%4", b"%41", b"%4G", b"%%", &[b'%'; 40], b"%C3"];
    let head = text(t + 7, 0x1357_9BDF, ENCODED);
    let tail = text(t + 3, 0x2468_ACE0, ENCODED);
    let mut checked = 0;
    for special in specials {
        // The token right before the cut, across it, and just after it.
        for shift in [0, 1, 2, special.len(), special.len() + 1] {
            let mut input = head.clone();
            let cut = input.len();
            let at = cut - shift.min(cut);
            input.splice(at..at, special.iter().copied());
            input.extend_from_slice(&tail);
            for cut in [cut, cut + 1, cut + 17] {
                for decoder in decoders {
                    let want = decoder.decode(&input).map(|c| c.into_owned());
                    let (first, second) = input.split_at(cut);
                    let mut stream = pctenc::StreamDecoder::new(decoder);
                    let mut out = Vec::new();
                    let got = stream
                        .feed(first, &mut out)
                        .and_then(|()| stream.feed(second, &mut out))
                        .and_then(|()| stream.finish(&mut out))
                        .map(|()| out);
                    assert_eq!(got, want, "feed {decoder:?} {special:?} shift {shift} cut {cut}");
                    let mut stream = pctenc::StreamDecoder::new(decoder);
                    let mut out = Vec::new();
                    let as_decode_error = |e: std::io::Error| *e.get_ref().unwrap().downcast_ref().unwrap();
                    let got = stream
                        .feed_to(first, &mut out)
                        .and_then(|()| stream.feed_to(second, &mut out))
                        .map_err(as_decode_error)
                        .and_then(|()| stream.finish(&mut out))
                        .map(|()| out);
                    assert_eq!(got, want, "feed_to {decoder:?} {special:?} shift {shift} cut {cut}");
                    checked += 1;
                }
            }
        }
    }
    println!("{checked} two-piece streams equal to one-shot");
}
