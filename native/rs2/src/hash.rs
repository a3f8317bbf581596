//! BLAKE2b-256 (§1) and Merkle trees (§6), hashing many inputs at once with blake2b_simd's
//! SIMD `hash_many` (at n = 1000 a blob needs ~3·10⁶ short hashes).

use blake2b_simd::many::{hash_many, HashManyJob};
use blake2b_simd::Params;
use std::sync::OnceLock;

pub type Digest = [u8; 32];

const LEAF_PREFIX: u8 = 0x00;
const INNER_PREFIX: u8 = 0x01;
/// Padding node for odd levels (§6): 32 zero bytes, never hashed on its own.
pub const EMPTY_NODE: Digest = [0; 32];

fn params() -> &'static Params {
    static PARAMS: OnceLock<Params> = OnceLock::new();
    PARAMS.get_or_init(|| {
        let mut p = Params::new();
        p.hash_length(32);
        p
    })
}

/// Jobs per `hash_many` call: enough to fill the lanes, few enough to stay in L1.
const JOBS_PER_CALL: usize = 64;

pub fn blake2b256(input: &[u8]) -> Digest {
    *array(&params().hash(input).as_bytes()[..32])
}

fn array(bytes: &[u8]) -> &Digest {
    bytes.try_into().expect("32-byte digest")
}

/// Hashes `out.len()` records of `stride` bytes each laid out back to back in `records`.
pub fn hash_records(records: &[u8], stride: usize, out: &mut [Digest]) {
    let p = params();
    debug_assert!(records.len() >= out.len() * stride);
    let mut jobs: Vec<HashManyJob> = Vec::with_capacity(JOBS_PER_CALL);
    for (recs, outs) in records
        .chunks(stride * JOBS_PER_CALL)
        .zip(out.chunks_mut(JOBS_PER_CALL))
    {
        jobs.clear();
        jobs.extend(
            recs.chunks_exact(stride)
                .take(outs.len())
                .map(|r| HashManyJob::new(p, r)),
        );
        hash_many(jobs.iter_mut());
        for (o, j) in outs.iter_mut().zip(&jobs) {
            o.copy_from_slice(&j.to_hash().as_bytes()[..32]);
        }
    }
}

/// A reusable buffer of leaf records `0x00 ‖ symbol`, hashed together.
pub struct LeafStage {
    symbol_size: usize,
    buf: Vec<u8>,
}

impl LeafStage {
    pub fn new(symbol_size: usize, capacity: usize) -> LeafStage {
        LeafStage {
            symbol_size,
            buf: vec![LEAF_PREFIX; capacity * (symbol_size + 1)],
        }
    }

    pub fn fits(&self, symbol_size: usize, capacity: usize) -> bool {
        self.symbol_size == symbol_size && self.buf.len() >= capacity * (symbol_size + 1)
    }

    /// The place for symbol i of the next batch (its prefix byte is already in place).
    #[inline]
    pub fn slot(&mut self, i: usize) -> &mut [u8] {
        let stride = self.symbol_size + 1;
        &mut self.buf[i * stride + 1..(i + 1) * stride]
    }

    pub fn symbol(&self, i: usize) -> &[u8] {
        let stride = self.symbol_size + 1;
        &self.buf[i * stride + 1..(i + 1) * stride]
    }

    /// Hashes symbols `0..out.len()` into leaf hashes.
    pub fn hash(&self, out: &mut [Digest]) {
        hash_records(&self.buf, self.symbol_size + 1, out);
    }
}

/// Merkle root over leaf hashes (already `H(0x00 ‖ leaf)`); `scratch` is reused between calls.
pub fn merkle_root(leaf_hashes: &[Digest], scratch: &mut Vec<u8>) -> Digest {
    match leaf_hashes.len() {
        0 => return EMPTY_NODE,
        1 => return leaf_hashes[0],
        _ => {}
    }
    let mut level: Vec<Digest> = leaf_hashes.to_vec();
    while level.len() > 1 {
        if level.len() % 2 == 1 {
            level.push(EMPTY_NODE);
        }
        let parents = level.len() / 2;
        scratch.clear();
        for pair in level.chunks_exact(2) {
            scratch.push(INNER_PREFIX);
            scratch.extend_from_slice(&pair[0]);
            scratch.extend_from_slice(&pair[1]);
        }
        level.truncate(parents);
        hash_records(scratch, 65, &mut level);
    }
    level[0]
}

/// Merkle roots of several trees of `width` leaf hashes each (`leaf_hashes` holds tree t at
/// `[t·width, (t+1)·width)`), hashing each level of all trees in one `hash_many` call so the
/// narrow top levels still fill the SIMD lanes.
pub fn merkle_roots(leaf_hashes: &[Digest], width: usize, scratch: &mut Vec<u8>) -> Vec<Digest> {
    if width <= 1 {
        return if width == 0 {
            Vec::new()
        } else {
            leaf_hashes.to_vec()
        };
    }
    let trees = leaf_hashes.len() / width;
    let mut level = leaf_hashes.to_vec();
    let mut w = width;
    while w > 1 {
        let parents = w.div_ceil(2);
        scratch.clear();
        scratch.resize(trees * parents * 65, 0);
        let mut records = scratch.chunks_exact_mut(65);
        for tree in level.chunks_exact(w) {
            for pair in tree.chunks(2) {
                let rec = records.next().unwrap();
                rec[0] = INNER_PREFIX;
                rec[1..33].copy_from_slice(&pair[0]);
                rec[33..].copy_from_slice(pair.get(1).unwrap_or(&EMPTY_NODE));
            }
        }
        level.truncate(trees * parents);
        hash_records(scratch, 65, &mut level);
        w = parents;
    }
    level
}

/// Leaf hash of one input (`H(0x00 ‖ bytes)`).
pub fn leaf_hash(bytes: &[u8]) -> Digest {
    let mut state = params().to_state();
    state.update(&[LEAF_PREFIX]);
    state.update(bytes);
    *array(&state.finalize().as_bytes()[..32])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merkle_pads_odd_levels_with_zero_node() {
        let leaves: Vec<Digest> = (0..3u8).map(|i| leaf_hash(&[i])).collect();
        let inner = |l: &Digest, r: &Digest| {
            let mut v = vec![INNER_PREFIX];
            v.extend_from_slice(l);
            v.extend_from_slice(r);
            blake2b256(&v)
        };
        let want = inner(
            &inner(&leaves[0], &leaves[1]),
            &inner(&leaves[2], &EMPTY_NODE),
        );
        assert_eq!(merkle_root(&leaves, &mut Vec::new()), want);
        assert_eq!(merkle_root(&leaves[..1], &mut Vec::new()), leaves[0]);
        assert_eq!(merkle_root(&[], &mut Vec::new()), EMPTY_NODE);
    }
}
