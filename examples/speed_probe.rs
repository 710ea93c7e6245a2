use pctenc::{Backend, Decoder, Engine, sets};
use std::time::Instant;
fn main() {
    let mut text = Vec::new();
    for e in std::fs::read_dir("benches/data").unwrap() {
        let p = e.unwrap().path();
        if p.extension().map_or(false, |x| x == "txt") {
            text.extend(std::fs::read(&p).unwrap());
        }
    }
    text.truncate(65536);
    let input = pctenc::encode(&text, &sets::RFC3986).into_owned().into_bytes();
    let mut out = vec![0u8; input.len()];
    for b in Backend::ALL.into_iter().filter(|b| b.is_available()) {
        let d = Decoder::new().engine(Engine::new(b).unwrap());
        let mut best = f64::MAX;
        for _ in 0..2000 {
            let t = Instant::now();
            std::hint::black_box(d.decode_slice(std::hint::black_box(&input), &mut out).unwrap());
            best = best.min(t.elapsed().as_secs_f64());
        }
        println!("{:8} {:6.2} GB/s", b.name(), input.len() as f64 / best / 1e9);
    }
    let mut best = f64::MAX;
    let mut v = Vec::with_capacity(input.len());
    for _ in 0..2000 {
        v.clear();
        let t = Instant::now();
        v.extend(percent_encoding::percent_decode(std::hint::black_box(&input)));
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!("pe       {:6.2} GB/s", input.len() as f64 / best / 1e9);
}
