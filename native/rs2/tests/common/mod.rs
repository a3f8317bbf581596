//! Shared helpers: the vectors' SplitMix64 input generator, hex and JSON loading.
#![allow(dead_code)]

use serde_json::Value;
use sha2::{Digest as _, Sha256};
use std::path::PathBuf;

/// First `size` bytes of the SplitMix64 stream seeded with `seed` (vectors README).
pub fn splitmix64(seed: u64, size: usize) -> Vec<u8> {
    let mut state = seed;
    let mut out = Vec::with_capacity(size + 8);
    while out.len() < size {
        state = state.wrapping_add(0x9E3779B97F4A7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
        z ^= z >> 31;
        out.extend_from_slice(&z.to_le_bytes());
    }
    out.truncate(size);
    out
}

pub fn vectors_dir() -> PathBuf {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    // native/rs2 → repository root → ../shared (beside the work tree) or ./shared.
    let root = here.parent().unwrap().parent().unwrap();
    for candidate in [root.join("shared"), root.parent().unwrap().join("shared")] {
        let dir = candidate.join("vectors/walrus-rs2");
        if dir.is_dir() {
            return dir;
        }
    }
    panic!("shared/vectors/walrus-rs2 not found next to {}", root.display());
}

pub fn load(name: &str) -> Value {
    let text = std::fs::read_to_string(vectors_dir().join(name)).expect("vector file");
    serde_json::from_str(&text).expect("valid JSON")
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn unhex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

pub fn sha256_hex(parts: &[&[u8]]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p);
    }
    hex(&h.finalize())
}

/// The input bytes of a vector (SplitMix64 `seed`, or a literal `data_utf8` / `hex:`).
pub fn input_of(v: &Value) -> Vec<u8> {
    if let Some(lit) = v["data_utf8"].as_str() {
        return match lit.strip_prefix("hex:") {
            Some(h) => unhex(h),
            None => lit.as_bytes().to_vec(),
        };
    }
    if let Some(h) = v["data_hex"].as_str() {
        return unhex(h);
    }
    let seed = u64::from_str_radix(v["seed"].as_str().unwrap().trim_start_matches("0x"), 16).unwrap();
    splitmix64(seed, v["size"].as_u64().unwrap() as usize)
}

pub fn u(v: &Value) -> u64 {
    v.as_u64().or_else(|| v.as_str().and_then(|s| s.parse().ok())).expect("integer field")
}
