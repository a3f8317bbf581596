//! Encode + blob id timing at n = 1000 (walrus.md §14 has the wasm reference's numbers).
//! Run: cargo run --release --example bench [-- n sizes_in_MiB...]

use std::time::Instant;
use tusk_rs2::{blob_id, decode, encode, EngineKind};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

/// Process CPU time (user + system) in seconds, from /proc/self/stat (10 ms resolution).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat.rsplit(')').next().unwrap_or("").split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}

/// (median wall seconds, mean CPU seconds) over `runs` runs after a warm-up.
fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, f64) {
    f();
    let cpu0 = cpu_seconds();
    let wall = median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                std::hint::black_box(f());
                t.elapsed().as_secs_f64()
            })
            .collect(),
    );
    (wall, (cpu_seconds() - cpu0) / runs as f64)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: u16 = args.first().map(|a| a.parse().unwrap()).unwrap_or(1000);
    let sizes: Vec<f64> =
        if args.len() > 1 { args[1..].iter().map(|a| a.parse().unwrap()).collect() } else { vec![1.0, 10.0, 64.0] };
    println!("engine {:?}, threads {}, n = {n}", EngineKind::detect(), rayon::current_num_threads());
    println!("wall = median of 5 runs; cpu = mean process CPU time (both cores) per run");
    println!("{:>9} {:>24} {:>24} {:>24}", "size", "blob_id wall/cpu", "encode wall/cpu", "decode wall/cpu");
    for mib in sizes {
        let size = (mib * 1048576.0) as usize;
        let data: Vec<u8> =
            (0..size).map(|i| (i as u64).wrapping_mul(0x9E3779B97F4A7C15).rotate_left(17) as u8).collect();
        let id = blob_id(&data, n).unwrap();
        let enc = encode(&data, n).unwrap();
        assert_eq!(enc.metadata.blob_id, id.blob_id, "encode and blob_id disagree");
        let t_id = time(5, || blob_id(&data, n).unwrap());
        let t_enc = time(5, || encode(&data, n).unwrap());
        // Decode from the last n_primary slivers (all recovery: the worst case).
        let p = enc.params.n_primary;
        let slivers: Vec<(u16, &[u8])> =
            (n as usize - p..n as usize).map(|i| (i as u16, enc.primary_sliver(i))).collect();
        assert!(decode(n, size as u64, &slivers).unwrap() == data);
        let t_dec = time(5, || decode(n, size as u64, &slivers).unwrap());
        let cell = |(w, c): (f64, f64)| format!("{:.1}/{:.0} ms {:.0}MB/s", w * 1e3, c * 1e3, size as f64 / 1e6 / w);
        println!("{:>6} MiB {:>24} {:>24} {:>24}", mib, cell(t_id), cell(t_enc), cell(t_dec));
    }
}
