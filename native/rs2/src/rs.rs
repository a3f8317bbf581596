//! The systematic Reed–Solomon code of reed-solomon-simd 3.1.0 (walrus.md §5.6, §5.8), applied to
//! work buffers of packed shards. A "point" is a shard's slot in the work buffer, which is also
//! its evaluation point.

use crate::engine::{xor, Engine, Multiplier};
use crate::fft::{fft, formal_derivative, ifft};
use crate::gf::{tables, MODULUS};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

#[derive(Clone, Debug)]
pub struct RsCode {
    /// Original (source) shards.
    pub k: usize,
    /// Recovery shards.
    pub r: usize,
    /// Transform size.
    pub m: usize,
    pub high_rate: bool,
    /// Prepared skew factors for every point the encoder and decoder transforms reach.
    skew: Vec<Multiplier>,
}

/// What an erasure decode needs, computed once per set of received shards.
#[derive(Clone, Debug)]
pub struct DecodePlan {
    /// Transform size (a power of two covering every point in play).
    pub work_shards: usize,
    /// Received shards to use: (systematic index, point, log E(point)).
    pub inputs: Vec<(usize, usize, u16)>,
    /// Missing originals: (original index, point, log of 1/E'(point)).
    pub outputs: Vec<(usize, usize, u16)>,
}

impl RsCode {
    pub fn new(k: usize, r: usize) -> RsCode {
        assert!(k >= 1 && r >= 1, "Reed-Solomon needs at least one original and one recovery shard");
        let (kp, rp) = (k.next_power_of_two(), r.next_power_of_two());
        let high_rate = kp > rp || (kp == rp && k <= r);
        let m = if high_rate { rp } else { kp };
        let encode_points = if high_rate { (k.div_ceil(m) + 1) * m } else { (r.div_ceil(m) + 1) * m };
        let decode_points = if high_rate { (m + k).next_power_of_two() } else { (m + r).next_power_of_two() };
        let points = encode_points.max(decode_points).min(MODULUS as usize);
        let skew_logs = &tables().skew;
        let skew = (0..points).map(|p| Multiplier::new(skew_logs[p])).collect();
        RsCode { k, r, m, high_rate, skew }
    }

    /// The code for (k, r), built once per process (preparing its skew table costs ~1 ms).
    pub fn cached(k: usize, r: usize) -> Arc<RsCode> {
        type Codes = Mutex<HashMap<(usize, usize), Arc<RsCode>>>;
        static CODES: OnceLock<Codes> = OnceLock::new();
        let codes = CODES.get_or_init(Default::default);
        if let Some(code) = codes.lock().unwrap().get(&(k, r)) {
            return code.clone();
        }
        let code = Arc::new(RsCode::new(k, r));
        codes.lock().unwrap().entry((k, r)).or_insert(code).clone()
    }

    /// Shards in the encoder's work buffer.
    pub fn encode_work_shards(&self) -> usize {
        if self.high_rate {
            self.k.div_ceil(self.m) * self.m
        } else {
            self.m + self.r.div_ceil(self.m) * self.m
        }
    }

    /// Slot of the shard with systematic index `i` (originals `0..k`, then recovery `k..k+r`).
    pub fn point(&self, i: usize) -> usize {
        match (i < self.k, self.high_rate) {
            (true, true) => self.m + i,
            (true, false) => i,
            (false, true) => i - self.k,
            (false, false) => self.m + i - self.k,
        }
    }

    /// Encodes in place. On input, original i is in slot i of `work` (`encode_work_shards()`
    /// shards of `len` bytes) and every other slot is zero; on output recovery shard j is in
    /// slot `recovery_slot(j)`. The originals are overwritten.
    pub fn encode(&self, eng: &Engine, work: &mut [u8], len: usize) {
        let (k, r, m) = (self.k, self.r, self.m);
        if self.high_rate {
            let chunks = k.div_ceil(m);
            for q in 0..chunks {
                let nonzero = (k - q * m).min(m);
                ifft(eng, &self.skew, &mut work[q * m * len..(q + 1) * m * len], len, m, m * (q + 1), nonzero);
            }
            let (acc, rest) = work.split_at_mut(m * len);
            for chunk in rest.chunks_exact(m * len) {
                xor(acc, chunk);
            }
            fft(eng, &self.skew, acc, len, m, 0, r);
        } else {
            ifft(eng, &self.skew, &mut work[..m * len], len, m, 0, k);
            let (coeffs, out) = work.split_at_mut(m * len);
            for q in 0..r.div_ceil(m) {
                let block = &mut out[q * m * len..(q + 1) * m * len];
                block.copy_from_slice(coeffs);
                fft(eng, &self.skew, block, len, m, m * (q + 1), (r - q * m).min(m));
            }
        }
    }

    /// Slot of recovery shard j after `encode`.
    pub fn recovery_slot(&self, j: usize) -> usize {
        if self.high_rate {
            j
        } else {
            self.m + j
        }
    }

    /// Plans the recovery of the missing originals from shards with the given systematic
    /// indices (distinct, each < k + r). `None` if fewer than k distinct shards are given.
    pub fn plan_decode(&self, received: &[usize]) -> Option<DecodePlan> {
        let (k, m) = (self.k, self.m);
        let mut have = vec![false; k + self.r];
        for &i in received {
            if i >= k + self.r {
                return None;
            }
            have[i] = true;
        }
        // Every received original, then the recovery shards with the lowest points.
        let mut used: Vec<usize> = (0..k).filter(|&i| have[i]).collect();
        let mut recovery: Vec<usize> = (k..k + self.r).filter(|&i| have[i]).collect();
        recovery.sort_by_key(|&i| self.point(i));
        for i in recovery {
            if used.len() == k {
                break;
            }
            used.push(i);
        }
        if used.len() < k {
            return None;
        }
        let missing: Vec<usize> = (0..k).filter(|&i| !have[i]).collect();
        if missing.is_empty() {
            return Some(DecodePlan { work_shards: 0, inputs: Vec::new(), outputs: Vec::new() });
        }
        let max_point = used.iter().chain(&missing).map(|&i| self.point(i)).max().unwrap();
        let n = if self.high_rate { (m + k).next_power_of_two() } else { (max_point + 1).next_power_of_two() };
        // Known-zero points (padding) are neither received nor erased.
        let known_zero = |p: usize| {
            if self.high_rate {
                p >= m + k
            } else {
                p >= k && p < m
            }
        };
        let mut state = vec![0u8; n]; // 0 erased, 1 used, 2 known zero
        for (p, s) in state.iter_mut().enumerate() {
            if known_zero(p) {
                *s = 2;
            }
        }
        for &i in &used {
            state[self.point(i)] = 1;
        }
        let erased: Vec<usize> = (0..n).filter(|&p| state[p] == 0).collect();
        let log = &tables().log;
        let log_product = |p: usize| -> u16 {
            let sum: u64 = erased.iter().filter(|&&e| e != p).map(|&e| log[p ^ e] as u64).sum();
            (sum % MODULUS as u64) as u16
        };
        let inputs = used.iter().map(|&i| (i, self.point(i), log_product(self.point(i)))).collect();
        let outputs = missing
            .iter()
            .map(|&i| {
                let l = log_product(self.point(i));
                (i, self.point(i), ((MODULUS - l) % MODULUS))
            })
            .collect();
        Some(DecodePlan { work_shards: n, inputs, outputs })
    }

    /// Runs a plan: on input the used received shards sit at their points in `work`
    /// (`plan.work_shards` shards of `len` bytes) and every other slot is zero; on output each
    /// missing original sits at its point.
    pub fn decode(&self, eng: &Engine, plan: &DecodePlan, work: &mut [u8], len: usize) {
        let n = plan.work_shards;
        if n == 0 {
            return;
        }
        for &(_, p, log_e) in &plan.inputs {
            eng.mul(&mut work[p * len..(p + 1) * len], log_e);
        }
        let nonzero = plan.inputs.iter().map(|x| x.1 + 1).max().unwrap_or(0);
        ifft(eng, &self.skew, &mut work[..n * len], len, n, 0, nonzero);
        formal_derivative(work, len, n);
        let needed = plan.outputs.iter().map(|x| x.1 + 1).max().unwrap_or(0);
        fft(eng, &self.skew, &mut work[..n * len], len, n, 0, needed);
        for &(_, p, log_inv) in &plan.outputs {
            eng.mul(&mut work[p * len..(p + 1) * len], log_inv);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_selection_matches_spec_table() {
        let cases = [
            ((2, 2), (true, 2)),
            ((3, 1), (true, 1)),
            ((3, 4), (true, 4)),
            ((5, 2), (true, 2)),
            ((4, 6), (false, 4)),
            ((7, 3), (true, 4)),
            ((34, 66), (false, 64)),
            ((67, 33), (true, 64)),
            ((334, 666), (false, 512)),
            ((667, 333), (true, 512)),
        ];
        for ((k, r), (high, m)) in cases {
            let c = RsCode::new(k, r);
            assert_eq!((c.high_rate, c.m), (high, m), "k={k} r={r}");
        }
    }
}
