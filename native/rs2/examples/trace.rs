//! Minimum wall time of `blob_id` over several runs (use RAYON_NUM_THREADS=1 for the CPU cost).
use std::time::Instant;
fn main() {
    let mib: f64 = std::env::args().nth(1).map(|a| a.parse().unwrap()).unwrap_or(1.0);
    let runs: usize = std::env::args().nth(2).map(|a| a.parse().unwrap()).unwrap_or(7);
    let size = (mib * 1048576.0) as usize;
    let data: Vec<u8> = (0..size).map(|i| (i * 7) as u8).collect();
    let mut best = f64::MAX;
    for _ in 0..runs {
        let t = Instant::now();
        std::hint::black_box(tusk_rs2::blob_id(&data, 1000).unwrap());
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!("{mib} MiB: min {:.1} ms", best * 1e3);
}
