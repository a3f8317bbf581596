//! Nanoseconds per one-block BLAKE2b hash on the Merkle path (one thread).
use std::time::Instant;
fn main() {
    let buf: Vec<u8> = (0..64 * 1024).map(|i| (i * 7) as u8).collect();
    let mut best = f64::MAX;
    for _ in 0..5 {
        let t = Instant::now();
        for _ in 0..200 {
            std::hint::black_box(tusk_rs2::symbols_merkle_root(&[&buf], 64));
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    // 1024 leaves + 1023 inner nodes per call.
    println!("{:.1} ns/hash", best * 1e9 / (200.0 * 2047.0));
}
